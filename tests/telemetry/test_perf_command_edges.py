"""`perf stat`'s command at the delay's edge and its CSV at the edge of a line's shape (issue 41: the fast tests
gave a ramp of seconds and a real CSV whose every line has all its fields)."""

from __future__ import annotations

from pathlib import Path

from iolab.telemetry.perf import DURATION, EVENTS, parse_stat_csv, stat_command


def test_the_delay_is_passed_from_one_millisecond_and_left_out_at_zero():
    out = Path("/tmp/perf.csv")
    base = ["perf", "stat", "-a", "-x,", "-e", ",".join((*EVENTS, DURATION))]
    assert stat_command("perf", EVENTS, out, 0) == [*base, "-o", str(out)]
    assert stat_command("perf", EVENTS, out, 1) == [*base, "--delay", "1", "-o", str(out)]
    assert stat_command("/usr/bin/perf", ("cycles",), out, 250)[:6] == [
        "/usr/bin/perf",
        "stat",
        "-a",
        "-x,",
        "-e",
        f"cycles,{DURATION}",
    ]


def test_a_csv_line_needs_three_fields_and_an_event_name():
    text = (
        "# started on Sun\n\n12,,cycles\n7,ns\n5,,\n<not counted>,,cache-misses,0,0.00\n3.5e3,,duration_time,1,100.00\n"
    )
    assert parse_stat_csv(text) == {"cycles": 12.0, "cache-misses": None, "duration_time": 3500.0}
