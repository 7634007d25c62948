"""Plans: TOML plan files, fio job files and presets, expanded into `Workload`s.

The runner's entry points, each in the module that owns it (the package itself imports nothing, so
`iolab --help`, which needs only `plan.limits`, does not load the rest; plan files import pydantic
only while they are parsed):

- `planfile.load_plan(path)`: a TOML plan or a fio job file -> `Plan`
- `presets.preset(name, **settings)`, `presets.PRESETS`: the built-in plans
- `matrix.expand(...)`: one sweep -> workloads
- `estimate.estimate_seconds(plan)`: for --dry-run and `iolab presets`
- `repeats.run_order`: the order repeats run in
- `adaptive.next_configs`, `adaptive.workload_at_qd`: adaptive QD search
- `presets.latency_curve_workloads`: the rate-limited points after the probe
- `steady.steady_state`: the SNIA PTS round decision
- `limits`: how big a plan may be
"""
