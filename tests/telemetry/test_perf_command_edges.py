"""`perf stat`'s command (interval mode, no delay) and its CSV at the edge of a line's shape (issue 41: the fast
tests gave a real CSV whose every line has all its fields)."""

from __future__ import annotations

from pathlib import Path

from iolab.telemetry.perf import EVENTS, INTERVAL_MS, parse_interval_csv, parse_stat_csv, stat_command


def test_perf_prints_its_counts_every_interval_from_its_start_with_no_delay():
    """The ramp is cut from the intervals on the samplers' clock (`Counted.over`): a `--delay` would only move
    perf's zero, which the window's cut places from perf's own stamps."""
    out = Path("/tmp/perf.csv")
    base = ["perf", "stat", "-a", "-I", str(INTERVAL_MS), "-x,", "-e", ",".join(EVENTS), "-o", str(out)]
    assert stat_command("perf", EVENTS, out) == base
    assert stat_command("/usr/bin/perf", ("cycles",), out, 100) == [
        "/usr/bin/perf",
        *["stat", "-a", "-I", "100", "-x,", "-e", "cycles", "-o", str(out)],
    ]


def test_a_csv_line_needs_three_fields_and_an_event_name():
    text = (
        "# started on Sun\n\n12,,cycles\n7,ns\n5,,\n<not counted>,,cache-misses,0,0.00\n3.5e3,,duration_time,1,100.00\n"
    )
    assert parse_stat_csv(text) == {"cycles": 12.0, "cache-misses": None, "duration_time": 3500.0}


def test_an_interval_line_needs_a_stamp_and_an_event_and_a_new_stamp_starts_a_new_interval():
    text = (
        "# started on Sun\n\n     0.25,12,,cycles,1,100.00\nnot-a-stamp,5,,cycles\n0.25,7,ns\n"
        "     0.25,<not counted>,,cache-misses,0,0.00\n0.4,3,,cycles,1,100.00\n"
    )
    (first, second) = parse_interval_csv(text)
    assert (first.start_s, first.end_s, first.counts) == (0.0, 0.25, {"cycles": 12.0, "cache-misses": None})
    assert (second.start_s, second.end_s, second.counts) == (0.25, 0.4, {"cycles": 3.0})
