"""Stopping a point when its number is known (`iolab run --stop-when-known`, a plan's `[stopping]`).

With stopping on, a point runs without fio's ramp_time for at most the job's
own ramp_time + runtime, or `max_s` seconds when one is given and shorter
(60 s for a job that sets no length; a job bounded by its size still ends
when its bytes are done); fio writes a status block each
second, and `Watch` asks `iolab.analysis.stopping.decide` after each one
whether the mean rate is known to within the target and the series is
steady. When it is, iolab asks fio to stop (SIGINT, through the keeper): fio
then writes its complete final JSON, covering the time it ran.

The reported rate is the kept window's: MSER finds the warm-up seconds in
the per-second series, and each direction's IOPS and bandwidth become the
I/Os and bytes done after the warm-up (fio's cumulative counters in the
status block at the cut and in the final document) over the time between
them. Everything else — latency and its percentiles from fio's histograms,
CPU, runtime — is fio's, over the whole run, warm-up included.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from iolab.analysis.stopping import PARAMS, Decision, StopParams, decide
from iolab.errors import UserError
from iolab.fio.options import seconds_value
from iolab.fio.status import Counters, StatusReader, counters, rates, window_ios
from iolab.models import Point, Result, StopRecord
from iolab.models.option_values import canonical

DEFAULT_TARGET = 0.02
DEFAULT_MIN_S = 3.0
DEFAULT_MAX_S = 60.0


@dataclass(frozen=True)
class StopRule:
    """Stop when the 95% interval's half-width is within `target` (0.02 = ±2%) of the mean, the series
    steady and `min_s` seconds done; at `max_s` seconds in any case. `max_s` None is the request's "no
    maximum of its own": `point_rule` makes it the job's own length (`DEFAULT_MAX_S` for a job with none),
    so a 300 s job asked to stop when known runs up to 300 s, not to a 60 s cap nobody asked for.
    `horizon_s` is the length of the run a stop stands in for, whose mean the interval must hold
    (`point_rule`: the job's own length; the maximum when none is set)."""

    target: float = DEFAULT_TARGET
    min_s: float = DEFAULT_MIN_S
    max_s: float | None = None
    horizon_s: float | None = None

    @property
    def cap(self) -> float:
        """The most seconds fio may run: `max_s`, or `DEFAULT_MAX_S` where nothing narrowed it yet."""
        return self.max_s if self.max_s is not None else DEFAULT_MAX_S

    @property
    def horizon(self) -> float:
        return self.horizon_s if self.horizon_s is not None else self.cap

    def ask(self, series: list[float], writes: bool, params: StopParams = PARAMS) -> Decision:
        """The rule's word on the seconds so far, as `Watch` asks it once a second: only a met target stops
        (at the maximum fio's own runtime ends the point), its interval holding the mean of `horizon` seconds.
        The one place the runner's question is put, so a bench replaying it asks the same."""
        return decide(series, self.target, self.min_s, math.inf, writes=writes, horizon_s=self.horizon, params=params)

    def verdict(self, series: list[float], writes: bool, params: StopParams = PARAMS) -> Decision:
        """The rule's last word on a point fio's own runtime ended (why the target was not met)."""
        return decide(series, self.target, 0, 0, writes=writes, horizon_s=self.horizon, params=params)

    @classmethod
    def from_settings(cls, settings: dict) -> StopRule:
        """A rule from the request's or a plan's settings: target_ci ("2%" or 0.02), min_s, max_s."""
        given_max = settings.get("max_s")
        rule = cls(
            target=parse_target(settings.get("target_ci", DEFAULT_TARGET)),
            min_s=float(settings.get("min_s", DEFAULT_MIN_S)),
            max_s=None if given_max is None else float(given_max),
        )
        if not 0 < rule.min_s or (rule.max_s is not None and rule.min_s > rule.max_s):
            raise UserError(f"stopping: min_s ({rule.min_s:g}) must be above 0 and at most max_s ({rule.cap:g})")
        return rule


def parse_target(value: object) -> float:
    """A relative target: "2%" or 0.02; UserError unless it is above 0 and below 100%."""
    text = str(value).strip()
    try:
        number = float(text.removesuffix("%")) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise UserError(f"stopping: target {text[:20]!r} is not a percentage like 2%") from None
    if not 0 < number < 1:
        raise UserError(f"stopping: target {text[:20]!r} must be above 0% and below 100%")
    return number


def point_rule(point: Point, rule: StopRule) -> StopRule:
    """The rule for one point: its maximum is the job's own length (ramp_time + runtime), or `max_s` when
    one was given and is shorter; `DEFAULT_MAX_S` (or `max_s`) for a job with no length. Stopping ends a
    point sooner than asked, never later: a runtime=15 job does not run to a 60 s default. Its horizon is
    the job's own length when it has one: the interval of a stop holds the mean of the run the job asked
    for (a 300 s job stopped at a 60 s `--max-seconds` is not called known unless the seconds seen bound
    the other 240 s)."""
    own = point.job.expected_seconds
    if own <= 0:
        return replace(rule, max_s=rule.cap, min_s=min(rule.min_s, rule.cap), horizon_s=rule.cap)
    most = own if rule.max_s is None else min(own, rule.max_s)
    return replace(rule, max_s=most, min_s=min(rule.min_s, most), horizon_s=own)


def stopping_point(point: Point, rule: StopRule) -> Point:
    """The point as fio runs it under `rule` (a `point_rule`): no ramp_time (the warm-up is found in the
    series instead) and fio's runtime at `max_s`. Whether the job is time-based stays the job's: a job
    bounded by its size still ends when its bytes are done (made time-based, a write-once job would write
    its size over and over until the maximum)."""
    options = {k: v for k, v in point.options.items() if canonical(k) not in ("ramp_time", "runtime")}
    options["runtime"] = seconds_value(rule.cap)
    return replace(point, options=options)


CUT_ARTIFACT = "fio.cut.json"  # fio's status block at the warm-up cut, kept beside its final document


def advancing(docs: list[dict]) -> list[tuple[dict, Counters]]:
    """The documents with their counters, each later than the one before (a block written before the jobs
    ran, or twice at the same time, adds no interval)."""
    out: list[tuple[dict, Counters]] = []
    for doc in docs:
        block = counters(doc)
        if block is not None and (not out or block.runtime_ms > out[-1][1].runtime_ms):
            out.append((doc, block))
    return out


@dataclass
class Watch:
    """Polled by `iolab.fio.run.run_fio` while fio runs: True once the point should stop."""

    output: Path
    rule: StopRule
    writes: bool = False  # the point writes: its interval's wander term is a writer's (`iolab.analysis.stopping`)
    reader: StatusReader = field(init=False)
    decision: Decision | None = None
    stopped: bool = False

    def __post_init__(self) -> None:
        self.reader = StatusReader(self.output)

    def __call__(self) -> bool:
        if self.stopped:
            return False
        self.reader.poll()
        series = rates([block for _, block in advancing(self.reader.documents)])
        if not series:
            return False
        # Only a met target stops fio: at the maximum fio's own runtime ends the point, and a SIGINT sent
        # then can reach fio (or its keeper) while it exits, ending the point killed instead of finished.
        self.decision = self.rule.ask(series, self.writes)
        self.stopped = self.decision.stop
        return self.stopped

    def final_text(self) -> str:
        """fio's final document alone (the output file holds every status block before it), as the
        point's fio.json; "" when fio wrote none."""
        self.reader.poll()
        return json.dumps(self.reader.documents[-1], indent=2) if self.reader.documents else ""

    def record(self, result: Result) -> str:
        """Put the kept window's rates and the StopRecord on `result` (see the module's doc). Returns fio's
        status block at the cut as fio wrote it ("" when the window starts with the jobs, or none was kept):
        kept as `CUT_ARTIFACT`, it and the final document give the window's rate from fio's own counters, so
        a check outside iolab can recompute it exactly (tests/oracle.py), not only bound it."""
        pairs = advancing(self.reader.documents)
        if len(pairs) < 2:
            return ""
        blocks = [block for _, block in pairs]
        status, final = blocks[:-1], blocks[-1]
        series = rates(status)
        last = self.rule.verdict(series, self.writes) if series else None
        if self.stopped and self.decision is not None:
            reason, cut = self.decision.reason, self.decision.discarded
            interval = self.decision.interval
        elif last is not None and len(series) >= self.rule.cap - 1:
            reason, cut, interval = last.reason, last.discarded, last.interval
        else:
            reason = "fio's runtime"
            cut, interval = (last.discarded, last.interval) if last else (0, None)
        start = status[cut - 1] if cut else Counters(0.0, {}, {})
        seconds = (final.runtime_ms - start.runtime_ms) / 1000
        if seconds > 0:
            for ddir, d in result.directions.items():
                d.iops = window_ios(start, final, ddir) / seconds
                d.bw_bytes = (final.io_bytes.get(ddir, 0) - start.io_bytes.get(ddir, 0)) / seconds
        result.stopping = StopRecord(
            reason=reason,
            ci=interval.relative if interval else None,
            target=self.rule.target,
            discarded_s=cut,
            kept_s=round(seconds),
        )
        return json.dumps(pairs[cut - 1][0], indent=2) if cut and seconds > 0 else ""
