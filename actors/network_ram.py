"""Network RAM (paper 002): one workstation's side of it, when its policy asks for it (`remote_memory`).

The node borrows idle memory on peers for the part of its overflow its policy chooses, by messages (request,
grant). A share of its page faults equal to the share of the overflow held remotely is then served by the
hosts: a page request, and the pages back over the host's link (or the shared bus), charged to the job as
paging time (`page`) and, within it, as `remote_paging` (the paper's networking time of remote paging; `net`
stays time on the wire between nodes). Meanwhile the job sleeps and the CPU serves the node's other jobs, or,
with `memory.remote_fault = "holds_cpu"`, it holds the CPU until its pages come (a synchronous fetch). The
node hands memory back as soon as it no longer overflows, and a host evicts guest pages as soon as its own jobs
need the memory (local priority), sending them back to their owner; the owner borrows elsewhere at its next
load-index refresh, and meanwhile those faults go to its disk. A page request in flight is served even if its
pages were just evicted (they are on their way back anyway).

The amounts live in the node's pager (`remote`, `asked`, `lent`, `guest`); this object holds the jobs
waiting for pages from a host, and the messages' handling.
"""
from __future__ import annotations

from actors.memory import SLACK

NETWORK_RAM = {"ram_request", "ram_grant", "ram_release", "ram_evict", "page_request", "page_reply"}


class NetworkRAM:
    __slots__ = ("node", "paging")

    def __init__(self, node):
        self.node = node
        self.paging: dict[int, tuple] = {}      # job id -> (job, since): waiting for pages from a host

    def borrow(self) -> None:
        """Ask peers for the network RAM the policy chooses (at each load-index refresh)."""
        node = self.node
        for host, size in node.policy.remote_memory(node):
            node.pager.add(node.pager.asked, host, size)
            node.send(host, "ram_request", {"bytes": size})

    def page_in(self, job, pages: int) -> bool:
        """A fault burst of `job`: True if a host serves it (the job blocks until its pages come), False if
        it goes to the disk."""
        host = self._fault_host()
        if host is None:
            return False
        node = self.node
        job.state = "blocked"
        self.paging[job.id] = (job, node.q.now)
        node.send(host, "page_request", {"job_id": job.id, "pages": pages})
        if node.holds_cpu:
            node.cpu.hold()
        return True

    def _fault_host(self) -> int | None:
        """Where a fault is served: None (the disk), or a host drawn in proportion to what it holds, with the
        probability that the faulting page is in network RAM."""
        remote = self.node.pager.remote
        if not remote:
            return None
        u = self.node.rng.random()
        share = self.node.pager.remote_share()
        if u >= share:
            return None
        left = u / share * sum(remote.values())
        for host in sorted(remote):
            left -= remote[host]
            if left < 0:
                return host
        return max(remote)

    def settle(self) -> None:
        """After a change in demand: hand back network RAM this node no longer needs (the highest hosts first),
        and evict guest pages its own jobs now need (local priority), sending them back to their owners."""
        node, p = self.node, self.node.pager
        surplus = sum(p.remote.values()) - max(0.0, p.demand - p.user_memory)
        for host in sorted(p.remote, reverse=True):
            if surplus <= SLACK:
                break
            give = min(surplus, p.remote[host])
            p.add(p.remote, host, -give)
            node.send(host, "ram_release", {"bytes": give})
            surplus -= give
        excess = p.demand + p.guest - p.user_memory
        for client in sorted(p.lent, reverse=True):
            if excess <= SLACK:
                break
            take = min(excess, p.lent[client])
            p.add(p.lent, client, -take)
            node.send(client, "ram_evict", {"bytes": take}, extra=take)
            node.log("evict_guest", client=client, bytes=take)
            excess -= take

    def receive(self, env) -> None:
        """A network RAM message (one of NETWORK_RAM's kinds)."""
        node = self.node
        kind, p, peer, pager = env.kind, env.payload, env.sender, node.pager
        if kind == "ram_request":           # lend what is idle now, up to what was asked
            grant = min(p["bytes"], pager.idle)
            pager.add(pager.lent, peer, grant)
            node.send(peer, "ram_grant", {"bytes": grant, "asked": p["bytes"]})
        elif kind == "ram_grant":
            pager.add(pager.asked, peer, -p["asked"])
            pager.add(pager.remote, peer, p["bytes"])
            self.settle()                   # demand may have fallen while the request was out
        elif kind == "ram_release":
            pager.add(pager.lent, peer, -p["bytes"])
        elif kind == "ram_evict":
            pager.add(pager.remote, peer, -p["bytes"])
        elif kind == "page_request":
            node.send(peer, "page_reply", {"job_id": p["job_id"], "pages": p["pages"]},
                      extra=p["pages"] * pager.page_size)
        else:                               # page_reply
            job, since = self.paging.pop(p["job_id"])
            job.remote_paging += node.q.now - since
            if node.holds_cpu:
                node.cpu.hold(-1)
            node.unblock((job, "page", since))
