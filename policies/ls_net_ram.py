"""Network-RAM-supported load sharing: paper 002's LS_Net_RAM (spec 002 §4.4).

Load sharing by remote execution as in LS_RE (`policies/ls_re.py`: a node takes a job while it has a job slot
under the CPU threshold), with two differences:

- while the home node's memory would hold the job, placement is CPU-based only: the job runs here if there is a
  slot, else goes to the peer of shortest queue that has one (of two drawn at random, against herding);
- when the home node's memory would not hold it, the job goes to the node of most idle memory that has a slot,
  this one included (the paper's "i = argmax FM_i over all P"), whether or not that memory suffices: network RAM
  makes up the shortfall (`policies.net_ram.borrow`), so no job waits for memory.

A job waits in its home's pending pool only while no node has a job slot (the CPU threshold still bounds every
node; the paper does not say, spec 002 §4.4). A nonmigratable job runs at home (spec 002 §4.4's default: it
stays and uses network RAM).
"""
from policies.base import two_choices
from policies.ls_re import LoadSharing
from policies.net_ram import borrow


class NetworkRAMLoadSharing(LoadSharing):
    def slot(self, report: dict) -> bool:
        return self.takes(report, 0.0)

    def place(self, job, node):
        here = self.here(node)
        if not job.migratable:
            return node.id if self.slot(here) else None
        peers = self.open_peers(node)                   # those with a slot
        if node.pager.idle >= job.demand():             # memory suffices here: CPU-based
            if self.slot(here):
                return node.id
            return two_choices(node, [p for p, _ in peers],
                               lambda p: (node.index[p]["jobs"], -node.index[p]["idle"], p)) if peers else None
        nodes = [(r["idle"], r["jobs"], p) for p, r in peers]
        if self.slot(here):
            nodes.append((here["idle"], here["jobs"], node.id))
        return two_choices(node, nodes, lambda c: (-c[0], c[1], c[2]))[2] if nodes else None

    def accept(self, job, node) -> bool:
        return self.slot(self.here(node))

    def remote_memory(self, node) -> list:
        return borrow(node)


POLICY = NetworkRAMLoadSharing
