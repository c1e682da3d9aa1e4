"""Remote I/O (paper 003's IOCM, Sec. 3.2): a job whose computation runs on one node and whose I/O is served by
another, the node holding its data (`Job.io_node`; -1, the default, is wherever the job runs). One workstation's
side of it: as the job's computing node and as its I/O node.

- Placing such a job: when its data must go to an I/O node other than the one it is on (IOCM's M_IO(j)), the
  data is read here, sent (`io_data`, with a copy of the job, so that the I/O node knows its I/O), written there
  and acknowledged (`io_stored`) before the job is admitted here or sent on to its computing node: Eq. 3.14's
  data term through the real disks and link, the job's time in transit (`net`). A job that leaves while its data
  stays here needs nothing moved: this node takes it as a guest at once.
- Its accesses go through the buffer cache of the node that runs it, as a local job's (a client's cache of its
  remote data); each miss goes to the I/O node (`io_request`, its drawn size), whose disk serves it, and the
  bytes come back (`io_reply`), the job blocked meanwhile: its `io` time. Disk and network do not overlap, as
  in the thesis's model (Eq. 3.13's terms add, each fed by the accesses that miss: spec 003a §4.2 (a)).
- When the job ends, its computing node tells the I/O node (`io_end`), which forgets it.

A node's guests are in its I/O load (`policies.disk_view`): what they ask of its disk.
"""
from __future__ import annotations

REMOTE_IO = {"io_data", "io_stored", "io_request", "io_reply", "io_end"}


class RemoteIO:
    __slots__ = ("node", "guests", "waiting", "relocating")

    def __init__(self, node):
        self.node = node
        self.guests: dict = {}                  # job id -> job computing elsewhere whose I/O is here
        self.waiting: dict[int, tuple] = {}     # job id -> (job, since): blocked on an access at its I/O node
        self.relocating: dict[int, tuple] = {}  # job id -> (computing node, since): its data on its way (the
                                                # job itself waits in `node.moving`)

    def place(self, job, dest: int) -> bool:
        """Before `job` is admitted here or sent to `dest` to compute: its data moved to its I/O node first
        (True: placed once it is stored there), or this node kept as its I/O node (a guest from now)."""
        node = self.node
        if job.io_node < 0 or job.io_node == dest:
            job.io_node = -1                    # computation and I/O together: the data goes with the job
            return False
        if job.io_node == node.id:
            self.guests[job.id] = job
            return False
        node.moving[job.id] = job
        self.relocating[job.id] = (dest, node.q.now)
        node.disk.submit(job.initial_data, self._send_data, job)
        return True

    def _send_data(self, job) -> None:
        self.node.send(job.io_node, "io_data", {"job": job.to_state()}, extra=job.initial_data)

    def access(self, job, size: float) -> None:
        """An access of a resident job whose I/O node is another: it blocks until the bytes come back."""
        node = self.node
        job.state = "blocked"
        self.waiting[job.id] = (job, node.q.now)
        node.send(job.io_node, "io_request", {"job_id": job.id, "bytes": size})

    def finished(self, job) -> None:
        """A job whose I/O node is another ended here: that node forgets it."""
        self.node.send(job.io_node, "io_end", {"job_id": job.id})

    def receive(self, env, job) -> None:
        node, p = self.node, env.payload
        kind = env.kind
        if kind == "io_data":       # a guest's data (`job`: a copy, the job waits at its sender): stored, acknowledged
            node.disk.submit(job.initial_data, self._stored, (job, env.sender))
        elif kind == "io_stored":
            dest, since = self.relocating.pop(p["job_id"])
            job = node.moving.pop(p["job_id"])
            job.net += node.q.now - since
            node.count_population()
            if dest == node.id:
                node.admit(job)
            else:
                node.migration.ship(job, dest, "remote_exec")
        elif kind == "io_request":
            node.disk.submit(p["bytes"], self._reply, (env.sender, p["job_id"], p["bytes"]))
        elif kind == "io_reply":
            job, since = self.waiting.pop(p["job_id"])
            node.unblock((job, "io", since))
        else:                                   # io_end
            del self.guests[p["job_id"]]

    def _stored(self, item) -> None:
        job, sender = item
        self.guests[job.id] = job
        self.node.send(sender, "io_stored", {"job_id": job.id})

    def _reply(self, item) -> None:
        client, job_id, size = item
        self.node.send(client, "io_reply", {"job_id": job_id, "bytes": size}, extra=size)
