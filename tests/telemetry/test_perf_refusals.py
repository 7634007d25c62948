"""What `iolab run --perf` says when perf answers but cannot count (issue 41: no fast test ran perf's failure
paths; a host with a working perf never takes them). A stand-in `perf` prints what perf prints: a failure is
said by perf's last words (its last non-blank line of stderr), a run whose every event is `<not supported>` is
a host without exposed counters, and one counted event is enough."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.telemetry.perf import perf_problem


def _perf(tmp_path: Path, stderr: str, code: int) -> str:
    script = tmp_path / "perf"
    (tmp_path / "said").write_text(stderr)
    script.write_text(f"#!/bin/sh\ncat '{tmp_path / 'said'}' >&2\nexit {code}\n")
    script.chmod(0o755)
    return str(script)


@pytest.mark.parametrize(
    ("stderr", "said"),
    [
        (
            "Error:\nThe sys_perf_event_open() syscall returned with 19 (No such device)\n\n  \n",
            "The sys_perf_event_open() syscall returned with 19 (No such device)",
        ),
        ("usage: perf stat [<options>] [<command>]\n", "usage: perf stat [<options>] [<command>]"),
        ("", "no output"),
    ],
)
def test_a_perf_that_fails_is_said_by_its_last_words(tmp_path, stderr, said):
    assert perf_problem(_perf(tmp_path, stderr, 1)) == f"perf failed: {said}"


def test_every_event_not_supported_is_a_host_without_counters(tmp_path):
    csv = "".join(f"<not supported>,,{e},0,100.00,,\n" for e in ("cycles", "cache-references", "cache-misses"))
    problem = perf_problem(_perf(tmp_path, csv, 0))
    assert problem is not None and problem.startswith("perf cannot count cycles, cache-references, cache-misses")


def test_one_counted_event_is_enough(tmp_path):
    csv = "<not supported>,,cycles,0,100.00,,\n1234,,cache-misses,1000,100.00,,\n"
    assert perf_problem(_perf(tmp_path, csv, 0)) is None
