"""The network interface of one workstation: its outgoing link, shared FIFO by every message it sends.

A message of `size` bytes sent at `now` starts when the link is free, occupies it for size / bandwidth, and
arrives `latency` later; a fixed protocol cost (the papers' remote-execution cost r) is added on top without
holding the link. `deliver_at = max(now, link free) + size / bandwidth + latency + fixed`. The smallest
possible delay, `latency`, is the lookahead that lets the stepped runtime advance workstations in parallel.
"""
from __future__ import annotations


class NetworkInterface:
    def __init__(self, bandwidth: float, latency: float):
        self.bandwidth, self.latency = bandwidth, latency
        self.free_at = 0.0
        self.bytes_sent = 0.0
        self.messages = 0
        self.busy = 0.0

    def transmit(self, now: float, size: float, fixed: float = 0.0) -> float:
        """Occupy the link for one message (or one broadcast frame); return when it is delivered."""
        start = max(now, self.free_at)
        wire = size / self.bandwidth
        self.free_at = start + wire
        self.bytes_sent += size
        self.messages += 1
        self.busy += wire
        return self.free_at + self.latency + fixed
