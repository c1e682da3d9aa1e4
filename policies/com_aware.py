"""COM-aware (paper 003, Sec. 7.3): communication-aware load balancing by remote execution, for master-slave
parallel jobs (`parallel.pattern = "master"`) among jobs that compute, page and do disk I/O.

Loads, in seconds of each resource still to be used by the processes on a node (the units of Eq. 7.4, which
the thesis leaves L_CPU and L_Disk to match; spec 003b A15):
- communication, Eqs. 7.4-7.5: a slave's is its remaining messages' time on the wire, one each way per burst
  (2 x remaining bursts x mean message / bandwidth), 0 on its master's node; a master's is the sum of its
  slaves' that run elsewhere; a node's the sum over its processes. Published in each load report (`com_load`);
- CPU: remaining work over the node's speed; disk: the I/O a process would do alone (`dedicated_io`), the
  share of its work still to run (`cpu_time`, `disk_time` in the report).

On a job's arrival at its home node i (Fig. 7.3, in the spec's reconstruction, 003b §4.7):
1. The job's kind is its largest requirement over its processes, spread one to a node: CPU k x R_CPU,
   communication 2 (k - 1) R_COM (its slaves' and its master's), disk k x R_Disk.
2. The first-class resource is node i's largest load, its master counted there with its slaves spread.
3. If that is communication and the job is communication-intensive, the master stays home and its slaves
   go to the nodes of least communication load, one at a time (greedy, loads updated after each), each only
   if Criterion 1 holds, L_i,COM - L_j,COM > L_t,COM (Eq. 7.6, "the load on the home node will be effectively
   reduced without making other nodes overloaded"): the job's slaves arrive at i, each with the load it has
   away from its master (Eq. 7.4's first case), and one sent moves that load from i to j. A slave goes only if
   Criterion 2 holds too, R^j + R_mig < R^i (Eq. 7.7 with its inequality corrected to the prose's "less than
   its local execution", spec A14); the first slave for which either fails stays, and so do the rest, with
   their master, where they cost no communication.
4. Else Fig. 7.3's other branch: memory overloaded at home, MEM-RE's rules; an I/O-intensive job, IOCM-RE's
   I/O rule (policies/iocm_re.py); else the CPU, by MEM-RE's rules (the CPU threshold). A communication-
   intensive job whose home's first resource is not the network falls through to the CPU rule there (the
   pseudo-code has no case for it; its other demand is the CPU).

Criterion 2's response times: Eq. 3.9's, per process, as IOCM-RE's criterion (Sec. 4.1), which the thesis words
alike ("less than its local execution") and says "can be obtained using Equation 3.9": the node's CPU queue and
disk, every task of the job counted at home until it is sent (`iocm_re.pays`). R_mig: the
remote-execution cost and a task's initial data (`move_cost`). Eq. 3.9 has no communication term: a slave's
messages are Criterion 1's to weigh. (Until 2026-11-28 nowemu estimated the job's remaining bursts with its
master's messages one after another on the link, Eq. 7.2, for the whole job; at 10 Mbps that kept every slave
home, where Eq. 7.4 says it costs no communication, and COM-aware's gain over the others was largest on the
slowest network, the reverse of Fig. 7.5.) Ties among nodes of equal communication load: fewer processes per unit
of speed, then in order from i.
"""
from policies.base import SentSinceView
from policies.iocm_re import IOCMRemoteExecution, pays
from policies.mem_re import MemoryRemoteExecution

CPU, COM, DISK = 0, 1, 2


def slave_communication(job, bandwidth: float) -> float:
    """R_COM of one slave of `job`'s kind, off its master's node: its remaining messages' seconds on the wire."""
    if job.burst <= 0 or job.group < 0:
        return 0.0
    return 2.0 * (job.work - job.done) / job.burst * job.message / bandwidth


def communication_load(job, node_id: int, bandwidth: float) -> float:
    """Eq. 7.4 for a task on node `node_id`."""
    if job.group < 0 or job.burst <= 0 or not job.partners:
        return 0.0
    one = slave_communication(job, bandwidth)
    if job.rank == 0:
        return one * sum(1 for _, n in job.partners if n != node_id)
    return one if job.partners[0][1] != node_id else 0.0


def node_loads(node) -> tuple[float, float, float]:
    """Node's (CPU, communication, disk) loads in seconds (the module docstring), Eq. 7.5 for communication."""
    bandwidth, speed = node.nic.bandwidth, node.speed
    cpu = com = disk = 0.0
    for job in node.jobs.values():
        left = (job.work - job.done) / job.work
        cpu += (job.work - job.done) / speed
        com += communication_load(job, node.id, bandwidth)
        disk += job.dedicated_io * left
    return cpu, com, disk


class COMAware(IOCMRemoteExecution):
    def __init__(self, **params):
        super().__init__(**params)
        self.coms = SentSinceView()         # peer -> communication load sent there since the view

    def report(self, node) -> dict:
        cpu, com, disk = node_loads(node)
        return {**super().report(node), "com_load": com, "cpu_time": cpu, "disk_time": disk}

    def kind(self, job, node, k: int) -> int:
        """The job's largest requirement, its k processes spread one to a node."""
        needs = (k * job.work / node.speed, 2 * (k - 1) * slave_communication(job, node.nic.bandwidth),
                 k * job.dedicated_io)
        return needs.index(max(needs))

    def place_one(self, job, node):
        if job.migratable and self.kind(job, node, 1) == DISK \
                and self.overload(self.view(job, node, 1), node.id) != 1:
            return self.by_io(job, node, 1)[0]
        return MemoryRemoteExecution.place_one(self, job, node)

    def map_tasks(self, job, node) -> list:
        k, bandwidth = job.tasks, node.nic.bandwidth
        t_com = slave_communication(job, bandwidth)
        kind = self.kind(job, node, k)
        cpu, com, disk = node_loads(node)
        loads = (cpu + job.work / node.speed, com + (k - 1) * t_com, disk + job.dedicated_io)
        if kind == COM and loads.index(max(loads)) == COM:
            return self.by_communication(job, node, t_com)
        if kind == DISK and self.overload(self.view(job, node, k), node.id) != 1:
            return self.by_io(job, node, k)
        return MemoryRemoteExecution.map_tasks(self, job, node)

    def by_communication(self, job, node, t_com: float) -> list:
        """Step 3 for the job's tasks: their nodes, the master's (rank 0) home."""
        i, n = node.id, node.workstations
        view = self.view(job, node, job.tasks)                  # all its tasks counted home
        jobs = {p: v[0] for p, v in view.items()}
        speed = {p: v[3] for p, v in view.items()}
        load = self.communication_view(node)
        load[i] += (job.tasks - 1) * t_com                      # its slaves counted as spread
        everyone = list(node.jobs.values()) + [job] * job.tasks
        nodes = [i] * job.tasks
        for s in range(1, job.tasks):                           # the s-th slave sent away, if both criteria hold
            j = min((p for p in load if p != i), key=lambda p: (load[p], jobs[p] / speed[p], (p - i) % n))
            if load[i] - load[j] <= t_com or not pays(self.disks, job, node, everyone, j):
                break
            everyone.remove(job)
            jobs[i], jobs[j] = jobs[i] - 1, jobs[j] + 1
            load[i], load[j] = load[i] - t_com, load[j] + t_com
            nodes[s] = j
            self.sent_away(job, j, node)
            sent = self.coms.of(node)
            sent[j] = sent.get(j, 0.0) + t_com
        return nodes

    def communication_view(self, node) -> dict:
        """Every node's communication load as this node sees it: its own now, its peers' as last reported plus
        what it has sent them since (a peer not yet reported: none)."""
        sent = self.coms.of(node)
        load = {p: 0.0 for p in node.peers()}
        load.update((p, r["com_load"]) for p, r in node.index.items() if "com_load" in r)
        for p, extra in sent.items():
            load[p] += extra
        load[node.id] = node_loads(node)[1]
        return load


POLICY = COMAware
