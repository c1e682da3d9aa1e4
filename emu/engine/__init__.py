"""The engine: what runs a scenario once it is read. The event queue (`kernel`), the message envelope and its
codec (`envelope`), the cluster built from a scenario (`cluster`), the three runtimes (`inline`,
`conservative` for stepped, `ray_runtime`) and `run`, which picks one; and what a run gives back (`results`,
with its per-node `samples`)."""
