"""The open-ended part of a run: points chosen by results (adaptive repeats, QD searches, latency curves,
metadata scaling, steady-state rounds), measured through the run's `Session`."""

from __future__ import annotations

from dataclasses import replace

from iolab.models import Plan, Point, Target, primary_metric
from iolab.models.material import SteadyOutcome
from iolab.models.plan import LatencyCurve, MetadataScaling, QdSearch, SteadyRounds
from iolab.plan.adaptive import next_configs, workload_at_qd
from iolab.plan.presets import latency_curve_workloads
from iolab.plan.steady import steady_state
from iolab.runner.metadata import measure_scaling
from iolab.runner.planning import plan_points
from iolab.runner.repeat_gate import needs_more_runs
from iolab.runner.session import Session


def measure_open_ended(session: Session, plan: Plan, targets: dict[str | None, list[Target]]) -> list[SteadyOutcome]:
    """Adaptive repeats, QD searches, latency curves and steady-state rounds: points chosen by results."""
    policy = plan.repeats
    assert policy is not None
    if policy.adaptive:
        _adaptive_repeats(session, plan, targets)
    steady: list[SteadyOutcome] = []
    for target in targets[None]:
        for search in plan.qd_searches:
            _qd_search(session, search, target)
        if plan.latency_curve is not None:
            _latency_curve(session, plan.latency_curve, target)
        if plan.metadata is not None:
            _metadata_scaling(session, plan.metadata, target)
        if plan.steady_rounds is not None:
            steady += _steady_rounds(session, plan.steady_rounds, target)
    return steady


def _adaptive_repeats(session: Session, plan: Plan, targets: dict[str | None, list[Target]]) -> None:
    """Each point repeated until its repeats agree within the policy's target (or its maximum)."""
    policy = plan.repeats
    assert policy is not None
    firsts = [p for p in plan_points(plan, targets)[0] if p.repeat == 0]
    for first in firsts:
        values = [primary_metric(session.run(replace(first, repeat=r)), policy.metric) for r in range(policy.count)]
        while needs_more_runs(values, policy):
            values.append(primary_metric(session.run(replace(first, repeat=len(values))), policy.metric))


def _qd_search(session: Session, search: QdSearch, target: Target) -> None:
    """One QD search on one target: each next configuration chosen from the throughput so far."""
    measured: dict[tuple[int, int], float] = {}
    while (configs := next_configs(measured, search)) is not None:
        for qd, jobs in configs:
            workload = workload_at_qd(search.base, qd, jobs if jobs > 1 else None)
            point = Point(workload.name, target, dict(workload.options))
            measured[(qd, jobs)] = primary_metric(session.run(point))


def _latency_curve(session: Session, curve: LatencyCurve, target: Target) -> None:
    """The probe at full rate, then the rate-capped points at fractions of what it reached."""
    probe = session.run(Point(curve.probe.name, target, dict(curve.probe.options)))
    if probe is not None:
        for workload in latency_curve_workloads(curve.probe, primary_metric(probe), curve.fractions):
            session.run(Point(workload.name, target, dict(workload.options)))


def _metadata_scaling(session: Session, metadata: MetadataScaling, target: Target) -> None:
    """The metadata scaling points in the run's own directory on the target; their notes kept."""
    directory = session.metadata_directory(target)
    for note in measure_scaling(
        metadata,
        target,
        directory,
        session.measurer.fio,
        session.run,
        session.progress.phase,
        session.measurer.workdirs,
    ):
        session.measurer.note(note)


def _steady_rounds(session: Session, rounds: SteadyRounds, target: Target) -> list[SteadyOutcome]:
    """Rounds until the steady-state test says steady or not (SNIA PTS style), each round its own points."""
    round_values: list[float] = []
    for number in range(1, rounds.max_rounds + 1):
        for workload in rounds.round:  # the round number is the repeat index: each round its own point
            result = session.run(Point(workload.name, target, dict(workload.options), repeat=number - 1))
            round_values.append(primary_metric(result, rounds.metric))
        verdict = steady_state(round_values, rounds.window, rounds.range_frac, rounds.slope_frac, rounds.max_rounds)
        if verdict.status != "continue":
            return [SteadyOutcome(target.path, verdict.status == "steady", verdict.reason, round_values)]
    return []
