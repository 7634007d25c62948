"""The open-ended part of a run, against a session whose fio is a throughput model: a QD search climbs and brackets
the knee, a latency curve caps the rate at fractions of its probe, steady-state rounds stop when steady, and adaptive
repeats add runs only while the repeats disagree. (The decision functions are unit-tested in tests/plan; here the
runner's use of them: which points it runs, in what order, on which target, with which options.)"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

from iolab.models import Plan, Point, Target
from iolab.models.plan import LatencyCurve, QdSearch, RepeatPolicy, SteadyRounds, Workload
from iolab.plan.presets import latency_curve_workloads
from iolab.runner.open_ended import measure_open_ended

TARGET = Target(path="/mnt/t", kind="directory", filename="/mnt/t/iolab-scratch.dat", size_bytes=2**30, scratch=True)
OTHER = Target(path="/mnt/u", kind="directory", filename="/mnt/u/iolab-scratch.dat", size_bytes=2**30, scratch=True)


def _result(iops: float) -> SimpleNamespace:
    """What primary_metric reads of a Result: one direction's IOPS, bandwidth and mean latency."""
    latency = SimpleNamespace(mean_ns=1e9 / iops if iops else 0.0)
    return SimpleNamespace(directions={"read": SimpleNamespace(iops=iops, bw_bytes=iops * 4096, latency=latency)})


class ModelSession:
    """A session whose points' IOPS come from `model(point)` (None: the point failed); every point run is kept."""

    def __init__(self, model: Callable[[Point], float | None]) -> None:
        self.model = model
        self.ran: list[Point] = []

    def run(self, point: Point) -> SimpleNamespace | None:
        self.ran.append(point)
        value = self.model(point)
        return None if value is None else _result(value)


def _saturating(point: Point) -> float:
    """A device that scales with queue depth up to 16, and with jobs only up to 2."""
    qd, jobs = int(point.options.get("iodepth", 1)), int(point.options.get("numjobs", 1))
    return 1000.0 * min(qd * min(jobs, 2), 16)


BASE = Workload("randread", {"rw": "randread", "bs": "4k"})


def test_a_qd_search_climbs_then_brackets_the_knee_on_each_target_with_numjobs_only_above_one():
    session = ModelSession(_saturating)
    plan = Plan("search", [], qd_searches=[QdSearch(BASE, max_qd=64, max_jobs=4)])
    assert measure_open_ended(session, plan, {None: [TARGET, OTHER]}) == []  # type: ignore[arg-type]
    on_t = [p for p in session.ran if p.target == TARGET]
    assert [p.target for p in session.ran] == [TARGET] * len(on_t) + [OTHER] * len(on_t)
    # the climb (x4) to its plateau, the knee bisected between 8 and 16, then jobs at a depth past it
    assert [(p.options["iodepth"], p.options.get("numjobs")) for p in on_t] == [
        ("1", None), ("4", None), ("16", None), ("64", None), ("8", None), ("11", None), ("32", "2"), ("32", "4"),
    ]  # fmt: skip
    assert all(p.options["rw"] == "randread" and p.options["bs"] == "4k" for p in on_t)


def test_a_latency_curve_caps_the_rate_at_each_fraction_of_what_its_probe_reached():
    probe = Workload("curve", {"rw": "randread", "bs": "4k", "iodepth": "32", "numjobs": "2"})
    session = ModelSession(lambda p: 20000.0 if "rate_iops" not in p.options else 10.0)
    plan = Plan("curve", [], latency_curve=LatencyCurve(probe, fractions=(0.25, 0.5, 1.0)))
    measure_open_ended(session, plan, {None: [TARGET]})  # type: ignore[arg-type]
    expected = latency_curve_workloads(probe, 20000.0, (0.25, 0.5, 1.0))
    assert [(p.name, p.options) for p in session.ran] == [("curve", probe.options)] + [
        (w.name, w.options) for w in expected
    ]
    assert [p.options["rate_iops"] for p in session.ran[1:]] == ["2500", "5000", "10000"]  # per job, of 2


def test_a_latency_curve_whose_probe_failed_runs_nothing_more():
    session = ModelSession(lambda p: None)
    plan = Plan("curve", [], latency_curve=LatencyCurve(BASE, fractions=(0.5,)))
    measure_open_ended(session, plan, {None: [TARGET]})  # type: ignore[arg-type]
    assert len(session.ran) == 1


def test_steady_rounds_stop_once_steady_each_round_its_own_repeat_and_say_so():
    values = iter([5000.0, 1000.0] + [900.0] * 40)
    rounds = SteadyRounds((Workload("precondition", {"rw": "randwrite"}),), window=3, max_rounds=10, metric="bw")
    session = ModelSession(lambda p: next(values))
    (outcome,) = measure_open_ended(session, Plan("ss", [], steady_rounds=rounds), {None: [TARGET]})  # type: ignore[arg-type]
    assert outcome.target == TARGET.path and outcome.steady
    assert [p.repeat for p in session.ran] == list(range(len(session.ran)))
    assert outcome.values == [v * 4096 for v in [5000.0, 1000.0] + [900.0] * (len(session.ran) - 2)]
    assert len(session.ran) == 5  # the window of 3 after the two settling rounds


def test_rounds_that_never_settle_end_at_the_maximum_not_steady():
    swing = iter([1000.0, 3000.0] * 20)
    rounds = SteadyRounds((Workload("w", {"rw": "randwrite"}),), window=3, max_rounds=6)
    session = ModelSession(lambda p: next(swing))
    outcomes = measure_open_ended(session, Plan("ss", [], steady_rounds=rounds), {None: [TARGET]})  # type: ignore[arg-type]
    assert len(session.ran) == 6
    assert [o.steady for o in outcomes] == [False]


def test_adaptive_repeats_add_runs_while_the_repeats_disagree_up_to_the_maximum():
    noisy = {"a": iter([100.0, 200.0, 150.0, 150.0, 150.0, 150.0, 150.0, 150.0]), "b": iter([100.0] * 10)}
    session = ModelSession(lambda p: next(noisy[p.name]))
    policy = RepeatPolicy(count=2, adaptive=True, cov_target=0.2, max_count=4)
    plan = Plan("adaptive", [Workload("a", {"rw": "read"}), Workload("b", {"rw": "read"})], repeats=policy)
    measure_open_ended(session, plan, {None: [TARGET]})  # type: ignore[arg-type]
    assert [(p.name, p.repeat) for p in session.ran] == [
        ("a", 0), ("a", 1), ("a", 2), ("a", 3),  # 100, 200 disagree; four runs (its maximum) still do
        ("b", 0), ("b", 1),  # two equal runs agree at once
    ]  # fmt: skip
