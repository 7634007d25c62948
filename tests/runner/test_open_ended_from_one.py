"""Adaptive repeats from a count of 1 (the plan's default count): each workload's one fixed repeat is where its
runs start, and runs are added while they disagree. The fast tests started from a count of 2, where any repeat
stands for its workload, so choosing the firsts by `repeat != 0` or `repeat == 1` passed them; from a count
of 1 those choose nothing and no point would run (fresh seed 71735's two survivors)."""

from __future__ import annotations

from types import SimpleNamespace

from iolab.models import Plan, Point, Target
from iolab.models.plan import RepeatPolicy, Workload
from iolab.runner.open_ended import measure_open_ended

TARGET = Target(path="/mnt/t", kind="directory", filename="/mnt/t/iolab-scratch.dat", size_bytes=2**30, scratch=True)


class ModelSession:
    """A session whose points' IOPS are drawn in turn from each workload's list; every point run is kept."""

    def __init__(self, values: dict[str, list[float]]) -> None:
        self.values = {name: iter(v) for name, v in values.items()}
        self.ran: list[Point] = []

    def run(self, point: Point) -> SimpleNamespace:
        self.ran.append(point)
        iops = next(self.values[point.name])
        latency = SimpleNamespace(mean_ns=1e9 / iops)
        return SimpleNamespace(directions={"read": SimpleNamespace(iops=iops, bw_bytes=iops * 4096, latency=latency)})


def test_adaptive_repeats_from_a_count_of_one_start_at_each_workloads_repeat_zero():
    session = ModelSession({"a": [100.0, 200.0, 150.0, 150.0], "b": [100.0, 100.0, 100.0]})
    policy = RepeatPolicy(count=1, adaptive=True, cov_target=0.2, max_count=3)
    plan = Plan("adaptive", [Workload("a", {"rw": "read"}), Workload("b", {"rw": "read"})], repeats=policy)
    measure_open_ended(session, plan, {None: [TARGET]})  # type: ignore[arg-type]
    assert [(p.name, p.repeat) for p in session.ran] == [
        ("a", 0), ("a", 1), ("a", 2),  # 100, 200 disagree: runs added up to its maximum
        ("b", 0), ("b", 1),  # one run cannot say it agrees; two equal runs do
    ]  # fmt: skip
