"""Plans: TOML plan files, fio job files and presets, expanded into `Workload`s.

The runner's entry points, all importable without pydantic being loaded
(plan files import it only while they are parsed):

- `load_plan(path)`: a TOML plan or a fio job file -> `Plan`
- `preset(name, **settings)`, `PRESETS`: the built-in plans
- `expand(...)`: one sweep -> workloads
- `estimate_seconds(plan)`: for --dry-run and `iolab presets`
- `run_order`: the order repeats run in
- `next_configs`, `workload_at_qd`: adaptive QD search
- `latency_curve_workloads`: the rate-limited points after the probe
- `steady_state`: the SNIA PTS round decision
"""

from iolab.plan.adaptive import next_configs, qd_bracket, workload_at_qd
from iolab.plan.estimate import FIO_STARTUP_SECONDS, estimate_seconds
from iolab.plan.matrix import expand
from iolab.plan.planfile import load_plan
from iolab.plan.presets import PRESETS, latency_curve_workloads, preset, uses_directory
from iolab.plan.repeats import run_order
from iolab.plan.steady import steady_state

__all__ = [
    "FIO_STARTUP_SECONDS",
    "PRESETS",
    "estimate_seconds",
    "expand",
    "latency_curve_workloads",
    "load_plan",
    "next_configs",
    "preset",
    "qd_bracket",
    "run_order",
    "steady_state",
    "uses_directory",
    "workload_at_qd",
]
