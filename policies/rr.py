"""RR (paper 001): the original round-robin `insert_RQ`, every ready task to the bottom of the run queue."""
from policies.base import Insertion

INSERTION = Insertion
