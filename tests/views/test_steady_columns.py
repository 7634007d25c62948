"""A table of workloads that asked fio for steady state (ss=) says whether it held, when, and how long fio ran."""

from __future__ import annotations

from iolab.models import DirectionResult, Point, PointRecord, Result, SteadyState, Target
from iolab.views.tables import notebook_tables

DIR = Target(path="/data", kind="directory", filename="/data/iolab-scratch-0.dat", size_bytes=1 << 30, writable=True)


def _record(seq: int, bs: str, steady: SteadyState | None, repeat: int = 0) -> PointRecord:
    options = {"rw": "randread", "bs": bs, "time_based": "1", "runtime": "20", "ss": "iops:5%"}
    direction = DirectionResult("read", 4e7, 1e4, 10**5, 4 * 10**8, steady.runtime_ms if steady else 20_000)
    result = Result({"read": direction}, 10.0, 10.0, 1, "fio-3.33", steady=steady)
    return PointRecord(seq, 1, seq, Point(f"rr-{bs}", DIR, options, repeat), "ok", result=result)


def test_each_row_says_whether_fio_found_steady_state_and_how_long_it_ran():
    reached = SteadyState("iops:5.000000%", True, 7900, "3.1%", 3.0)
    missed = SteadyState("iops:5.000000%", False, 20_000, "21.0%", 3.0)
    (table,) = notebook_tables([_record(1, "4k", reached), _record(2, "64k", missed)], {})
    headers = [c.header for c in table.columns]
    steady, ran = headers.index("steady state (ss=)"), headers.index("ran")
    assert [(row.cells[steady], row.cells[ran]) for row in table.rows] == [
        ("reached at 7.90 s", "7.90 s of 20.0 s"),
        ("not reached (last 3 s: 21.0%)", "20.0 s of 20.0 s"),
    ]


def test_repeats_say_how_many_reached_it_and_tables_without_ss_have_no_such_column():
    reached = SteadyState("iops:5.000000%", True, 6000, "3.1%", 3.0)
    missed = SteadyState("iops:5.000000%", False, 20_000, "21.0%", 3.0)
    records = [_record(1, "4k", reached), _record(2, "4k", missed, 1), _record(3, "64k", reached)]
    (table,) = notebook_tables(records, {})
    steady = [c.header for c in table.columns].index("steady state (ss=)")
    assert table.rows[0].cells[steady] == "reached in 1 of 2"
    (plain,) = notebook_tables([_record(1, "4k", None), _record(2, "64k", None)], {})
    assert "ran" not in [c.header for c in plain.columns]


def test_how_steady_state_rounds_ended_heads_the_runs_page():
    from iolab.models import Finding, Run, Severity
    from iolab.report.markdown import run_markdown
    from iolab.views.run import steady_rounds
    from iolab.views.tables import build_report

    findings = [
        Finding("RES-STEADY-STATE", "results", Severity.INFO, "steady in rounds 4-8", "/dev/loop9"),
        Finding("FIO-SHORT-RUN", "method", Severity.WARNING, "round ran 1.0 s", "round"),
    ]
    assert steady_rounds(findings) == ["/dev/loop9: steady in rounds 4-8"]
    run = Run(7, 0.0, "complete", "ssd-steady", "vm", "", "fio-3.33", "", ["/dev/loop9"])
    report = build_report(run, [_record(1, "4k", None)], {}, steady_rounds(findings))
    assert ("steady state (rounds)", "/dev/loop9: steady in rounds 4-8") in report.facts
    assert "**steady state (rounds):** /dev/loop9: steady in rounds 4-8" in run_markdown(report)
