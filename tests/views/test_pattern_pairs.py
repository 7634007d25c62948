"""Workloads that are not one workload but ask one question are compared (seed 003: the psync QD1 job
against the corrected libaio QD32 job); an ambiguous pattern is never guessed (views.comparison)."""

from __future__ import annotations

from iolab.models.job_options import JobOptions
from iolab.views.comparison import WorkloadSamples, pattern_pairs


def _w(name: str, **options: str) -> WorkloadSamples:
    job = JobOptions({"name": name, **options})
    metric = "bw_bytes" if job.bs >= 65536 else "iops"
    return WorkloadSamples(name, name, "/data/f", metric, [1.0], job=job)


def test_one_workload_of_a_pattern_on_each_side_is_paired_and_its_differences_named() -> None:
    a = _w("seq-read", rw="read", bs="128k")
    b = _w("seq-read-direct", rw="read", bs="128k", ioengine="libaio", iodepth="32")
    ((x, y, differs),) = pattern_pairs([a], [b])
    assert (x, y) == (a, b)
    assert "ioengine: psync -> libaio" in differs and "iodepth: 1 -> 32" in differs
    assert not any(d.startswith("name") for d in differs)


def test_the_block_size_settles_a_pattern_two_workloads_share_and_a_tie_is_left_alone() -> None:
    a = [_w("r128", rw="read", bs="128k"), _w("r1m", rw="read", bs="1m")]
    b = [_w("r1m-qd32", rw="read", bs="1m", iodepth="32"), _w("r128-qd32", rw="read", bs="128k", iodepth="32")]
    pairs = {(x.name, y.name) for x, y, _ in pattern_pairs(a, b)}
    assert pairs == {("r128", "r128-qd32"), ("r1m", "r1m-qd32")}
    two_a = [_w("r1", rw="read", bs="1m"), _w("r2", rw="read", bs="1m", numjobs="2")]
    assert pattern_pairs(two_a, [_w("r3", rw="read", bs="1m", iodepth="8")]) == []


def test_a_read_is_never_paired_with_a_write_nor_sequential_with_random() -> None:
    assert pattern_pairs([_w("r", rw="read", bs="1m")], [_w("w", rw="write", bs="1m")]) == []
    assert pattern_pairs([_w("r", rw="read", bs="4k")], [_w("rr", rw="randread", bs="4k")]) == []
    ((_, _, differs),) = pattern_pairs([_w("r", readwrite="randread")], [_w("r2", rw="randread", iodepth="4")])
    assert differs == ("iodepth: 1 -> 4",)  # an alias is the same option, not a difference


def test_a_pair_of_two_workloads_is_said_to_be_paired_by_pattern_even_when_no_option_differs() -> None:
    """Two names for one method (only the name differs, which is no difference of method): the JSON still says
    the pair was made by access pattern, and names B's workload; it said "workload" before."""
    import json

    from iolab.analysis.compare import compare_samples
    from iolab.report.json_output import comparison_json
    from iolab.views.comparison import ComparedWorkload, Comparison

    a, b = _w("read-a", rw="read", bs="1m"), _w("read-b", rw="read", bs="1m")
    ((x, y, differs),) = pattern_pairs([a], [b])
    assert differs == ()
    row = ComparedWorkload(x, y, compare_samples([1.0, 1.1], [1.0, 1.1]), differs)
    doc = json.loads(comparison_json(Comparison("A", "B", [1], [2], [row], [], [], None)))
    (shown,) = doc["workloads"]
    assert shown["paired_by"] == "access pattern" and shown["b_workload"] == "read-b"
    same = ComparedWorkload(a, a, compare_samples([1.0, 1.1], [1.0, 1.1]))
    doc = json.loads(comparison_json(Comparison("A", "B", [1], [2], [same], [], [], None)))
    assert doc["workloads"][0]["paired_by"] == "workload"
