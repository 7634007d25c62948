"""mdtest outputs generated in mdtest 1.9's layout (several runs a file, each with its launch line, start time,
command line and rate summary of 1, 2 or more iterations), read back point by point (issue 41: the fast tier
read two real files, both of two iterations and every run's flags alike, so a later run's start time, a
flag's option name, one iteration's repeat or the time table's skip were each held by none)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from iolab.tools.mdtest import SWITCHES, VALUE_FLAGS, parse

OPERATIONS = ["Directory creation", "Directory stat", "File creation", "File stat", "File read", "File removal"]


def _run(rng: random.Random, index: int) -> tuple[str, dict]:
    """One run's text and what the parser must make of it."""
    tasks = rng.randint(1, 96)
    iterations = rng.choice([1, 2, 3, 5])
    values = {f: str(rng.randint(1, 64)) for f in rng.sample(sorted(VALUE_FLAGS), 3)}
    switches = rng.sample(sorted(SWITCHES), 2)
    directory = f"/scratch/run{index}"
    command = " ".join([f"{f} {v}" for f, v in values.items()] + switches + ["-d", directory, "-i", str(iterations)])
    started = f"0{index + 1}/1{index}/2019 1{index}:05:0{index}"
    ops = rng.sample(OPERATIONS, rng.randint(1, len(OPERATIONS)))
    table = {}
    rows = []
    for op in ops:
        low, high = sorted(rng.uniform(1, 1e6) for _ in range(2))
        mean = (low + high) / 2
        table[op.lower()] = [low, high] if iterations == 2 else [high] if iterations == 1 else [mean]
        if iterations == 1:
            low = mean = high
        rows.append(f"   {op:<18}:{high:>15.3f}{low:>15.3f}{mean:>15.3f}{(high - low) / 2:>15.3f}")
    text = (
        f"-- started at {started} --\n\nmdtest-1.9.3 was launched with {tasks} total task(s) on 1 node(s)\n"
        f"Command line used: /opt/mdtest {command}\nPath: /elsewhere\n\n"
        f"SUMMARY time: (of {iterations} iterations)\n   Operation   Max   Min   Mean   Std Dev\n"
        f"   File creation     :   1.0   1.0   1.0   0.0\n\n"
        f"SUMMARY rate: (of {iterations} iteration{'s' * (iterations != 1)})\n"
        "   Operation                      Max            Min           Mean        Std Dev\n"
        "   ---------                      ---            ---           ----        -------\n"
        + "\n".join(rows)
        + "\n\n"
    )
    options = {"tool": "mdtest", "numjobs": str(tasks)}
    options |= {VALUE_FLAGS[f]: v for f, v in values.items()} | {SWITCHES[s]: "1" for s in switches}
    began = time.mktime(time.strptime(started, "%m/%d/%Y %H:%M:%S"))
    return text, {"options": options, "target": directory, "table": table, "began": began, "tasks": tasks}


@pytest.mark.parametrize("seed", range(6))
def test_each_run_of_a_generated_output_is_read_with_its_own_options_start_and_repeats(seed):
    rng = random.Random(seed)
    runs = [_run(rng, i) for i in range(rng.randint(1, 3))]
    out = parse("".join(text for text, _ in runs), "mdtest.txt")
    want = [(name, run) for _, run in runs for name in run["table"]]
    assert [p.name for p in out.points] == [name for name, _ in want]
    for point, (name, run) in zip(out.points, want, strict=True):
        assert (point.options, point.target, point.started) == (run["options"], run["target"], run["began"])
        ddir = "write" if any(w in name for w in ("creation", "removal", "rename")) else "read"
        rates = [r.directions[ddir].iops for r in point.repeats]
        assert rates == pytest.approx(run["table"][name], rel=1e-6)
        assert all(r.jobs == run["tasks"] and r.fio_version == "mdtest-1.9.3" for r in point.repeats)
    many = {f"mdtest-1.9.3 with {n} iterations: each rate kept as its mean (mdtest prints no more)" for n in (3, 5)}
    assert set(out.notes) <= many


def test_each_run_of_a_real_file_starts_when_its_own_started_at_line_says():
    """akrr's mdtest 1.9.3 file holds four runs; each is dated by the `-- started at` line before its launch line,
    not by the next run's (the last before a run's end), as every run but the last was."""
    text = (Path(__file__).parents[1] / "data" / "mdtest" / "akrr-v1-mdtest-1.9.3.txt").read_text()
    starts = [p.started for p in parse(text, "akrr.txt").points]
    shown = [time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(s)) for s in dict.fromkeys(starts)]  # type: ignore[arg-type]
    assert shown == ["12/31/2018 14:05:02", "12/31/2018 14:09:03", "12/31/2018 14:09:06", "12/31/2018 14:10:15"]
