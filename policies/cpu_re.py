"""CPU-RE (paper 003's CPU-based baseline: "CPU" in Ch. 4, CPU-RE in Ch. 5, after Eager, Lazowska and Zahorjan
1986 and Harchol-Balter and Downey 1997): remote execution by the number of jobs alone. A job stays home unless
its node, the job counted, holds more jobs than the CPU threshold; then it goes to the node of fewest jobs: CM-RE's
CPU rule without its memory rule. A parallel job's tasks each so, as MEM-RE's (policies/mem_re.py).
"""
from policies.mem_re import MemoryRemoteExecution


class CPURemoteExecution(MemoryRemoteExecution):
    def overload(self, view: dict, i: int) -> int | None:
        return 0 if view[i][0] > self.threshold * view[i][3] else None


POLICY = CPURemoteExecution
