"""The stopping rule every stopping bench replays, asked of the product (issue 40).

A bench that wrote the rule out again (its own 60 s maximum, its own horizon, its own copy of `decide`) kept
replaying the rule it was written against after the product moved: the runner stopped cutting 5-minute jobs at
60 s and stopped writers before 20 s no more, and three benches went on replaying the rule before. So a replay
takes the rule from `runner.stopping.point_rule` for a job as long as its trace (`product_rule`) and asks it as
`runner.stopping.Watch` does (`StopRule.ask`, once a second, up to the rule's maximum; `StopRule.verdict` at
the maximum, as `Watch.record` keeps it). `first_stop` is that loop; tests/bench/test_stopping_product.py feeds
the same trace to the runner's `Watch` through fio status documents and to each bench's replay.
"""

from __future__ import annotations

from dataclasses import dataclass

from iolab.analysis.stopping import PARAMS, Decision, StopParams, level_allowance
from iolab.runner.stopping import StopRule


def product_rule(length: int, settings: dict | None = None) -> StopRule:
    """The rule the runner gives a time-based job of `length` seconds asked to stop when known with
    `settings` (a plan's `[stopping]`; none: the defaults): `point_rule` over `StopRule.from_settings`."""
    from iolab.models import Point, Target
    from iolab.runner.stopping import point_rule

    target = Target(path="/replay", kind="file", filename="/replay", size_bytes=1 << 20)
    job = {"rw": "read", "runtime": str(length), "time_based": "1"}
    return point_rule(Point("replay", target, job), StopRule.from_settings(settings or {}))


@dataclass(frozen=True)
class FirstStop:
    """Where the rule stopped a trace: `stop_s` the second (the rule's maximum when it never did), `decision`
    its word there (at the maximum, the verdict `Watch.record` keeps), and the rule asked."""

    stopped: bool
    stop_s: int
    decision: Decision
    rule: StopRule


def first_stop(
    rates: list[float], writes: bool, params: StopParams = PARAMS, settings: dict | None = None
) -> FirstStop:
    """The rule for a job as long as `rates` asked after each second as the runner asks it, up to its maximum."""
    rule = product_rule(len(rates), settings)
    most = min(len(rates), int(rule.cap))
    for n in range(1, most + 1):
        if _cannot_stop(n, rule, params):
            continue
        decision = rule.ask(rates[:n], writes, params)
        if decision.stop:
            return FirstStop(True, n, decision, rule)
    return FirstStop(False, most, rule.verdict(rates[:most], writes, params), rule)


def _cannot_stop(n: int, rule: StopRule, params: StopParams) -> bool:
    """True when the level allowance alone, at its least (`level_variance` never goes below the prior's share
    of the run not seen), is wider than the target after `n` seconds: no stop can be made yet, and asking
    would only cost the replay's time (a 5-minute trace asked 300 times)."""
    if not params.drift:
        return False
    horizon = rule.horizon
    floor = params.level * (1 - n / horizon) if params.level_evidence else params.level
    return level_allowance(max(horizon - n, 0.0), horizon, floor) > rule.target
