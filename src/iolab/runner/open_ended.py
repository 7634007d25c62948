"""The open-ended part of a run: points chosen by results (adaptive repeats, QD searches, latency curves,
metadata scaling, steady-state rounds), measured through the run's `Session`."""

from __future__ import annotations

from dataclasses import replace

from iolab.models import Plan, Point, Target, primary_metric
from iolab.models.material import SteadyOutcome
from iolab.plan.adaptive import next_configs, workload_at_qd
from iolab.plan.presets import latency_curve_workloads
from iolab.plan.steady import steady_state
from iolab.runner.metadata import measure_scaling
from iolab.runner.planning import plan_points
from iolab.runner.repeat_gate import needs_more_runs
from iolab.runner.session import Session


def measure_open_ended(session: Session, plan: Plan, targets: dict[str | None, list[Target]]) -> list[SteadyOutcome]:
    """Adaptive repeats, QD searches, latency curves and steady-state rounds: points chosen by results."""
    steady: list[SteadyOutcome] = []
    policy = plan.repeats
    assert policy is not None
    if policy.adaptive:
        firsts = [p for p in plan_points(plan, targets)[0] if p.repeat == 0]
        for first in firsts:
            values = [primary_metric(session.run(replace(first, repeat=r)), policy.metric) for r in range(policy.count)]
            while needs_more_runs(values, policy):
                values.append(primary_metric(session.run(replace(first, repeat=len(values))), policy.metric))
    for target in targets[None]:
        for search in plan.qd_searches:
            measured: dict[tuple[int, int], float] = {}
            while (configs := next_configs(measured, search)) is not None:
                for qd, jobs in configs:
                    workload = workload_at_qd(search.base, qd, jobs if jobs > 1 else None)
                    point = Point(workload.name, target, dict(workload.options))
                    measured[(qd, jobs)] = primary_metric(session.run(point))
        curve = plan.latency_curve
        if curve is not None:
            probe = session.run(Point(curve.probe.name, target, dict(curve.probe.options)))
            if probe is not None:
                for workload in latency_curve_workloads(curve.probe, primary_metric(probe), curve.fractions):
                    session.run(Point(workload.name, target, dict(workload.options)))
        if plan.metadata is not None:
            directory = session.metadata_directory(target)
            for note in measure_scaling(
                plan.metadata,
                target,
                directory,
                session.measurer.fio,
                session.run,
                session.progress.phase,
                session.measurer.workdirs,
            ):
                session.measurer.note(note)
        rounds = plan.steady_rounds
        if rounds is not None:
            round_values: list[float] = []
            for number in range(1, rounds.max_rounds + 1):
                for workload in rounds.round:  # the round number is the repeat index: each round its own point
                    result = session.run(Point(workload.name, target, dict(workload.options), repeat=number - 1))
                    round_values.append(primary_metric(result, rounds.metric))
                verdict = steady_state(
                    round_values, rounds.window, rounds.range_frac, rounds.slope_frac, rounds.max_rounds
                )
                if verdict.status != "continue":
                    steady.append(SteadyOutcome(target.path, verdict.status == "steady", verdict.reason, round_values))
                    break
    return steady
