"""What a run is asked to do, before targets are resolved into `Point`s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from iolab.models.job_options import JobOptions


@dataclass(frozen=True)
class Workload:
    """One row of an expanded plan: fio options for a named workload.

    `target` is a path as the user wrote it, or None to run on each of the
    plan's (or command line's) default targets. The runner resolves targets,
    checks their safety and turns each workload x target x repeat into a Point.
    `host_settings` (a plan's `[host]` table) are set on the host while it runs.
    """

    name: str
    options: dict[str, str] = field(default_factory=dict)
    target: str | None = None
    host_settings: dict[str, str] = field(default_factory=dict)

    @property
    def job(self) -> JobOptions:
        """The options as typed values (fio's aliases and defaults applied)."""
        return JobOptions(self.options)


@dataclass(frozen=True)
class RepeatPolicy:
    """How often each point runs, and whether runs of different points alternate.

    With `adaptive`, `count` is the minimum; the runner adds runs while the
    coefficient of variation of the point's primary metric stays above
    `cov_target`, up to `max_count` runs (PTS-style dynamic run count, rather
    than discarding whole sets like pbench). `interleave` runs repeat 0 of
    every point, then repeat 1 of every point, ..., so slow drift of the
    system spreads over all points instead of biasing the ones run last.
    """

    count: int = 1
    adaptive: bool = False
    cov_target: float = 0.05
    max_count: int = 10
    interleave: bool = False
    metric: Literal["auto", "iops", "bw", "lat_mean"] = "auto"


PreconditionScope = Literal["once", "before_each_write"]


@dataclass(frozen=True)
class Precondition:
    """A fio job that puts the target into a known state before measuring.

    It is not a measured point (its output is kept, not analysed): for an
    SSD, writing the whole capacity twice sequentially (SNIA PTS WIPC).
    `scope` says whether it runs once per target before the first point, or
    before every point that writes. `discard_first` trims the whole target
    just before it (the PTS purge, with TRIM standing in for a secure erase).
    """

    workload: Workload
    scope: PreconditionScope = "once"
    discard_first: bool = False


@dataclass(frozen=True)
class Phases:
    """Steps the runner performs around the measured points.

    Commands are argv lists (never shell strings); the runner executes them.
    `discard_before_writes` trims the whole target (blkdiscard or fstrim)
    before each point that writes, so every write test starts from the same
    state; `drop_caches` drops the page cache before each point. `metrics`
    are (name, argv) pairs read every second while each point runs: the mean
    and the largest of the numbers a command prints are stored with the point
    as the columns `name mean` and `name max` (a plan's `metrics` table).
    """

    precondition: Precondition | None = None
    discard_before_writes: bool = False
    drop_caches: bool = False
    pre_point: tuple[tuple[str, ...], ...] = ()
    post_point: tuple[tuple[str, ...], ...] = ()
    metrics: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class QdSearch:
    """An adaptive queue-depth sweep of one workload (see `iolab.plan.adaptive`).

    `base` carries every option except `iodepth` and `numjobs`; the runner
    asks `next_configs` which (iodepth, numjobs) to run next and builds each
    point with `workload_at_qd(base, qd, jobs)`. `resolution` 0.5 brackets
    the knee within a factor of 1.5: where points scatter 5-10%, the depth at
    which a bending curve crosses 90% of its plateau is not known finer.
    """

    base: Workload
    start: int = 1
    max_qd: int = 256
    fraction: float = 0.90
    plateau_gain: float = 0.05
    resolution: float = 0.5
    max_jobs: int = 1  # above 1: then double numjobs while it still pays


@dataclass(frozen=True)
class LatencyCurve:
    """Latency under fixed load: an unthrottled probe, then rate-limited runs.

    The runner runs `probe`, reads its total IOPS and passes it to
    `iolab.plan.presets.latency_curve_workloads` with `fractions`.
    """

    probe: Workload
    fractions: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class SteadyRounds:
    """SNIA-PTS-style rounds: run `round` repeatedly until steady or `max_rounds`.

    After each round the runner passes the tracking metric of every round so
    far to `iolab.plan.steady.steady_state` and stops when it says so.
    """

    round: tuple[Workload, ...]
    window: int = 5
    range_frac: float = 0.20
    slope_frac: float = 0.10
    max_rounds: int = 25
    metric: Literal["iops", "bw", "lat_mean"] = "iops"


@dataclass(frozen=True)
class MetadataScaling:
    """File create, stat and remove rates as mdtest reports them, for each thread count.

    The runner sizes the file count from a short calibration (a create of
    `calibration_s` seconds before the first thread count, then each count's
    create for the next), so that each phase lasts about `runtime`: fio's file engines are not time-based by nature (each does one
    operation per file and stops), so a fixed count lasts whatever the file
    system makes it last. Create makes the files (fio's runtime caps it),
    stat stats every file the threads made, round after round for `runtime`
    (time-based), and remove unlinks them (capped at `runtime`).
    `files_per_thread` fixes the count instead of calibrating. `max_files`
    bounds the files of one thread count: fio keeps about 400 bytes per file
    and lays its file table out before timing starts, about a second per
    200,000 files here (fio 3.33, 2-CPU VM).
    """

    threads: tuple[int, ...]
    runtime: float
    files_per_thread: int | None = None
    calibration_s: float = 0.5
    max_files: int = 200_000


@dataclass
class Plan:
    """A named list of workloads with the settings that apply to all of them.

    `workloads` are fixed points. Open-ended parts whose points depend on
    measurements (`qd_searches`, `latency_curve`, `steady_rounds`, `metadata`) are run
    after them by the runner, which calls the pure decision functions in
    `iolab.plan`. `rerun_disturbed` re-measures, once, a point during which
    other processes or other I/O were busy (`iolab.analysis.interference`). `repeat` is the run count per point; `repeats` holds the
    full policy and agrees with it.
    """

    name: str
    workloads: list[Workload]
    targets: list[str] = field(default_factory=list)
    repeat: int = 1
    description: str = ""
    target_groups: dict[str, list[str]] = field(default_factory=dict)
    repeats: RepeatPolicy | None = None
    phases: Phases = field(default_factory=Phases)
    qd_searches: list[QdSearch] = field(default_factory=list)
    latency_curve: LatencyCurve | None = None
    steady_rounds: SteadyRounds | None = None
    metadata: MetadataScaling | None = None
    rerun_disturbed: bool = False  # measure a point again, once, when something else was busy during it
    stopping: dict[str, str | float] = field(default_factory=dict)  # [stopping]: `iolab.runner.stopping`

    @property
    def open_ended(self) -> bool:
        """Whether points are chosen while running, after the fixed ones (their count is a cap)."""
        return bool(self.qd_searches or self.latency_curve or self.steady_rounds or self.metadata)

    def __post_init__(self) -> None:
        """Keep `repeat` and `repeats.count` one number, whichever the caller set."""
        if self.repeats is None:
            self.repeats = RepeatPolicy(count=self.repeat)
        else:
            self.repeat = self.repeats.count
