"""The inputs: everything a run is given, read, checked and drawn before it starts. The scenario file
(`scenario`, its quantities in `units`, its one-line `errors`), the jobs (`workload`), the owners' activity
(`owners`, their data files in `owner_data`) and the random streams they all draw from (`streams`)."""
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"    # the scenarios (and their data) shipped with nowemu
