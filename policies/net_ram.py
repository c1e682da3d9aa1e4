"""Network RAM: paper 002's Net_RAM (spec 002 §4.3). No load sharing: every job runs on its home node, as in
Base. A node whose resident demand exceeds its memory borrows its peers' idle memory for the overflow, so that
part of its paging goes over the network (a page at network speed) instead of to its disk (6 ms a page).

The allocation is spec 002 §4.3's loop, reconstructed (the printed one never ends): while some overflow is
neither held nor asked for, ask the peer of most idle memory in this node's view for min(overflow left, its
idle memory). Views are a load period old, so a host grants only what is idle when the request arrives; what
is refused is asked again, of the next best peer, at the next refresh. Hosts evict guest pages as soon as their
own jobs need the memory (the workstation's local-priority rule; see actors/network_ram.py).
"""
from policies.base import Policy


def borrow(node) -> list:
    """The network RAM this node should ask for now: [(host, bytes)], the peers of most idle memory first.
    Amounts under a page are not worth a message."""
    page = node.pager.page_size
    need = node.pager.shortfall()
    idle = {peer: r["idle"] for peer, r in node.index.items() if peer != node.id and r["idle"] >= page}
    asks = []
    while need >= page and idle:
        host = max(idle, key=lambda p: (idle[p], -p))
        size = min(need, idle.pop(host))
        asks.append((host, size))
        need -= size
    return asks


class NetworkRAM(Policy):
    def remote_memory(self, node) -> list:
        return borrow(node)


POLICY = NetworkRAM
