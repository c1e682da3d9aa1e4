"""BS (paper 003, Sec. 4.2, Fig. 4.1): "a simple centralized load balancing approach used in a space-sharing
cluster, where the nodes of the cluster are partitioned into disjoint sets and each set can only run one
parallel job at a time" (PBS-like): jobs wait "in the queue of the centralized node", and a node runs one job
(one task) at a time.

The central node is node 0. A job arriving at its home node is submitted there (`batch_submit`: its width, and
whether it may move); the central node starts the job at the head of its queue as soon as enough nodes
are free, telling its home which (`batch_start`), and a node tells it when a job's task has ended there
(`batch_ended`). The home sends each task to its node by remote execution, with its initial data, as any
placement. Where the thesis is silent (spec 003a §4.10), the defaults here:
- the queue is FCFS in the order submissions reach the central node, and strict: no job passes the head
  (no backfilling);
- partitions are formed per job: a job of k tasks takes its home node if it is free (its data is there:
  a task sent elsewhere takes its initial data along, as under every policy here) and the free nodes of lowest
  id for the rest; a sequential job is a job of one task in the same queue; a job that may not move (not
  `migratable`) waits for its home node.
BS reads no load index: its cluster exchanges none. The central node logs each job's submission and start
(events `batch_submit`, `batch_start`: the schedule).
"""
from collections import deque

from policies.base import Policy

CENTRAL = 0


class BatchSystem(Policy):
    maps_tasks = True
    reads_index = False
    MESSAGES = ("batch_submit", "batch_start", "batch_ended")

    def __init__(self, **params):
        super().__init__(**params)
        self.submitted: set = set()         # at a home node: its jobs submitted, not yet started ...
        self.started: dict = {}             # ... and started: key -> [its nodes by rank, tasks not yet sent]
        self.queue: deque = deque()         # at the central node: [key, width, pinned, home] in FCFS order
        self.free: list | None = None       # ... and its free nodes (all at first)

    def place(self, job, node):
        key = _key(job)
        if key not in self.started:
            if key not in self.submitted:
                self.submitted.add(key)
                width = job.tasks if job.group >= 0 else 1
                self._tell(node, CENTRAL, "batch_submit", {"key": list(key), "width": width,
                                                           "pinned": not job.migratable})
            if key not in self.started:     # the central node is this one, and had no room
                return None
        started = self.started[key]
        started[1] -= 1
        if not started[1]:
            del self.started[key]
        nodes = started[0]
        if job.group < 0:
            return nodes[0]
        job.partners = [[rank, nodes[rank]] for rank, _ in job.partners]
        return nodes[job.rank]

    def finished(self, job, node) -> None:
        self._tell(node, CENTRAL, "batch_ended", {"key": list(_key(job))})

    def receive(self, env, node) -> None:
        self._handle(env.kind, env.payload, env.sender, node)

    def _tell(self, node, dest: int, kind: str, payload: dict) -> None:
        """A message to `dest`, handled at once if it is this node."""
        if dest == node.id:
            self._handle(kind, payload, node.id, node)
        else:
            node.send(dest, kind, payload)

    def _handle(self, kind: str, p: dict, sender: int, node) -> None:
        if kind == "batch_start":
            self.submitted.discard(tuple(p["key"]))
            self.started[tuple(p["key"])] = [p["nodes"], len(p["nodes"])]
        elif kind == "batch_submit":
            self._submit(p, sender, node)
        else:
            self._ended(sender, node)

    # -- the central node ------------------------------------------------------------------------------------
    def _submit(self, p: dict, sender: int, node) -> None:
        node.log("batch_submit", job=p["key"][1], parallel=p["key"][0], width=p["width"], home=sender)
        self.queue.append([tuple(p["key"]), p["width"], p["pinned"], sender])
        self._allocate(node)

    def _ended(self, where: int, node) -> None:
        self.free.append(where)         # (set by the allocation that started the job that ended)
        self.free.sort()
        self._allocate(node)

    def _allocate(self, node) -> None:
        """Start jobs from the head of the queue while their nodes are free."""
        if self.free is None:
            self.free = list(node.peers())
        while self.queue:
            key, width, pinned, home = self.queue[0]
            nodes = [home] if home in self.free else []
            if not pinned:
                nodes += [n for n in self.free if n != home][:width - len(nodes)]
            if len(nodes) < width:
                return
            self.queue.popleft()
            node.log("batch_start", job=key[1], parallel=key[0], nodes=nodes)
            for n in nodes:
                self.free.remove(n)
            self._tell(node, home, "batch_start", {"key": list(key), "nodes": nodes})


def _key(job) -> tuple:
    """A job in the queue: a parallel job by its group, a sequential one by its id."""
    return (1, job.group) if job.group >= 0 else (0, job.id)


POLICY = BatchSystem
