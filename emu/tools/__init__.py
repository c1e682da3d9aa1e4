"""The tools: the `nowemu` command (`cli`) and what it runs around the engine: the live view (`view`), sweeps
(`sweep`), reports (`report`), the papers' reproductions (`reproduce`, one module per paper in
`reproductions`) and the benchmarks (`bench`, `bench_model`, `bench_paced`)."""
