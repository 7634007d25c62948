"""Start-up: `iolab --help`, and `iolab ls` on a database of 10,000 runs (issue: benchmarks); and what each
command the test suite starts costs in CPU before it does its work.

Each command runs in a fresh process (Python start and imports included),
median of 7. The 10,000-run store is the one bench/history_cli_speed.py
builds (real schema, real host snapshots). Goals: --help under 0.5 s; ls
fast enough to feel instant.

Per command (`COMMANDS`: --help, run --dry-run, ls, show, report, history, compare, diff-env, export,
plan check), on a store of 20 runs (`COMMAND_RUNS`): the process's CPU time (user + sys, median of the repeats; the suite is
CPU-bound, so CPU, not wall time, is what a process costs it), the modules it loads (`python -X importtime`)
and whether numpy is among them. A test fails when a light command loads what it need not
(tests/cli/test_light_start.py). Writes bench/results/startup.json.

    .venv/bin/python bench/startup.py [--runs 10000]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from history_cli_speed import build
from results_file import add_smoke_flag, write_result

RESULT = Path(__file__).parent / "results" / "startup.json"


REPEATS = 7


def timed(argv: list[str], env: dict[str, str], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


# The commands the suite starts most (a full `run` aside: fio's work is most of its CPU), as on its command line.
COMMANDS: dict[str, list[str]] = {
    "--help": ["--help"],
    "run --dry-run": ["run", "--dry-run", "{target}"],
    "ls": ["ls"],
    "show": ["show", "last"],
    "report": ["report", "last"],
    "history": ["history"],
    "compare": ["compare", "1", "2"],
    "diff-env": ["diff-env", "1", "2"],
    "export": ["export", "--format", "csv"],
    "plan check": ["plan", "check", "{plan}"],
}
SMOKE_COMMANDS = ("--help", "run --dry-run")
PLAN = Path(__file__).resolve().parent.parent / "examples" / "nvme-qd-table.toml"
COMMAND_RUNS = 20  # the store the commands read: start-up, not the work of reading 10,000 runs


def cpu_seconds(argv: list[str], env: dict[str, str], repeats: int) -> float:
    """User + sys CPU of the process, median of `repeats` runs."""
    spent = []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, env=env, capture_output=True, check=True)  # a refusal's CPU is not the command's
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(spent)


def loaded_modules(args: list[str], env: dict[str, str]) -> list[str]:
    """The modules `iolab ARGS` imports, interpreter start included, as `-X importtime` lists them."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "iolab", *args], env=env, capture_output=True, text=True, check=False
    )
    return [
        line.split("|")[2].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "self [us]" not in line
    ]


def command_costs(scratch: Path, env: dict[str, str], repeats: int, names: tuple[str, ...]) -> dict[str, dict]:
    """CPU seconds, module count and numpy's presence of each command in `names`."""
    target = scratch / "target"
    target.mkdir(exist_ok=True)
    costs = {}
    for name in names:
        args = [a.format(target=target, plan=PLAN) for a in COMMANDS[name]]
        modules = loaded_modules(args, env)
        costs[name] = {
            "cpu_s": round(cpu_seconds([sys.executable, "-m", "iolab", *args], env, repeats), 4),
            "modules": len(modules),
            "numpy": "numpy" in modules,
        }
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs of each command (the median is kept)")
    add_smoke_flag(parser)
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.repeats = 20, 1
    iolab = [sys.executable, "-m", "iolab"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as `make test` runs them
    with tempfile.TemporaryDirectory(prefix="iolab-bench-") as scratch:
        build(Path(scratch), args.runs)
        env["IOLAB_HOME"] = scratch
        figures = {
            "help_s": timed(iolab + ["--help"], env, args.repeats),
            "ls_s": timed(iolab + ["ls"], env, args.repeats),
            "ls_all_json_s": timed(iolab + ["ls", "--limit", str(args.runs), "--json"], env, min(3, args.repeats)),
        }
        if args.smoke:  # the store is already the small one
            costs = command_costs(Path(scratch), env, args.repeats, SMOKE_COMMANDS)
    if not args.smoke:
        with tempfile.TemporaryDirectory(prefix="iolab-bench-") as scratch:
            build(Path(scratch), COMMAND_RUNS)
            env["IOLAB_HOME"] = scratch
            costs = command_costs(Path(scratch), env, args.repeats, tuple(COMMANDS))
    for name, seconds in figures.items():
        print(f"{name:14s} {seconds:.3f} s")
    for name, cost in costs.items():
        print(
            f"{name:14s} {cost['cpu_s']:.3f} CPU-s  {cost['modules']:4d} modules  numpy {'yes' if cost['numpy'] else 'no'}"
        )
    write_result(
        RESULT,
        "startup",
        {
            "runs": args.runs,
            **figures,
            "goal_help_s": 0.5,
            "commands": costs,
        },
        smoke=args.smoke,
    )


if __name__ == "__main__":
    main()
