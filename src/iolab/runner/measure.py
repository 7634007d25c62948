"""Measuring one point: its phases, fio with telemetry beside it, and storing it at once."""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from iolab import programs
from iolab.errors import RunFailed, UserError
from iolab.fio.logs import read_logs
from iolab.fio.parse import FioOutput, entry_runtime_ms, parse_output
from iolab.fio.run import HANG_GRACE_S, LOG_PREFIX
from iolab.fio.status import StatusReader
from iolab.models import Phases, Point, PointMetric, Result, Sample
from iolab.models.sample_series import SampleSeries
from iolab.models.side import FIO_START, fio_startup_ms
from iolab.runner.blank import HeldDevices
from iolab.runner.executors import Executor, Measured
from iolab.runner.phases import PhaseLog, discard, run_command
from iolab.runner.side import SideFigures
from iolab.runner.stopping import CUT_ARTIFACT, StopRule, Watch, point_rule, stopping_point
from iolab.runner.workdirs import Workdirs
from iolab.store.db import Artifact, Store
from iolab.telemetry import Sampler, devices_for_path
from iolab.telemetry.perf import Counted

FIO_STOPPED = 128  # fio 3.33's exit status after SIGINT, with its results written


@dataclass
class Measurer:
    """Runs points for one run; remembers what it could not do, to say it once."""

    store: Store
    fio: str
    executor: Executor
    phases: Phases
    telemetry_interval: float | None
    clocksource: str | None = None  # given to fio on this host (`iolab.fio.run.fio_clocksource`)
    stopping: StopRule | None = None  # stop each point when its number is known (one host only)
    notes: list[str] = field(default_factory=list)
    side: SideFigures = field(init=False)
    log: PhaseLog = field(init=False)  # each unmeasured phase kept in the store as it ends
    workdirs: Workdirs = field(kw_only=True)  # where each fio run's directory is recorded (this run's)
    held: HeldDevices = field(kw_only=True)  # the devices this run may write, held open: discards go through it

    def __post_init__(self) -> None:
        self.side = SideFigures(self.executor.local, self.telemetry_interval is None, self.note, self.phases.metrics)
        self.log = PhaseLog(self.store, self.workdirs.run_id)

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    def measure(
        self, point: Point, point_id: int, kept: Sequence[Artifact] = ()
    ) -> tuple[Result | None, str, list[str]]:
        """Run a point and store it, result or failure, with `kept` (what the runner did before it); returns
        (result, error text, and for a multi-host point each host that failed with why)."""
        started = time.time()
        artifacts: list[Artifact] = list(kept)
        try:
            self._before(point, point_id, artifacts)
        except RunFailed as exc:
            self.store.fail_point(point_id, str(exc), artifacts, started)
            return None, str(exc), []
        with self.workdirs.made("point") as tmp:
            run = self._run(point, tmp, artifacts)
        for argv in self.phases.post_point:
            with self.log.phase("post command", shlex.join(argv), point_id) as problems:
                problems += [p for p in [run_command(argv, "post", artifacts).problem] if p]
        lost = [f"{o.host}: {o.error}" for o in run.hosts if o.status != "ok"]
        if run.error:
            self.store.fail_point(point_id, run.error, artifacts, started, run.hosts)
            return None, run.error, lost
        assert run.result is not None
        self.store.record_point(
            point_id,
            run.result,
            run.samples,
            artifacts,
            started,
            time.time(),
            run.per_device,
            run.hosts,
            run.metrics,
            series=run.series,
        )
        return run.result, "", lost

    # -- phases ------------------------------------------------------------
    def _before(self, point: Point, point_id: int, artifacts: list[Artifact]) -> None:
        if self.phases.discard_before_writes and point.job.writes:
            with self.log.phase("discard", point.target.path, point_id) as problems:
                problems += self._discard(point)
        if self.phases.drop_caches:
            with self.log.phase("cache drop", "page cache, dentries and inodes", point_id) as problems:
                problems += self._drop_caches()
        for argv in self.phases.pre_point:
            with self.log.phase("pre command", shlex.join(argv), point_id) as problems:
                outcome = run_command(argv, "pre", artifacts)
                if not outcome.ok:
                    problems.append(outcome.problem)
                    raise RunFailed(f"pre-point command failed: {shlex.join(argv)}")

    def _drop_caches(self) -> list[str]:
        """sync, then drop the page cache, dentries and inodes; what went wrong, if anything."""
        programs.run(["sync"], check=False)
        try:
            Path("/proc/sys/vm/drop_caches").write_text("3\n")
        except OSError as exc:
            problem = f"could not drop the page cache ({exc.strerror}; run as root for that)"
            self.note(problem)
            return [problem]
        return []

    def _discard(self, point: Point) -> list[str]:
        problem = discard(point.target, self.held)
        if problem:
            self.note(problem + "; writes start from an unknown state")
        return [problem] if problem else []

    # -- fio ---------------------------------------------------------------
    def _devices(self, point: Point) -> list[str]:
        target = point.target
        places = target.members or (target.filename if target.kind != "directory" else target.path,)
        devices: list[str] = []
        for place in places:
            try:
                devices += devices_for_path(place)
            except (UserError, OSError):
                continue
        return devices

    def _stopping(self, point: Point) -> tuple[Point, StopRule | None]:
        """The point as fio runs it under the run's stopping rule (its own rule: never longer than the job
        asked), and that rule; the point unchanged without one (never with many hosts:
        `iolab.runner.executors.check_hosts`)."""
        if self.stopping is None:
            return point, None
        rule = point_rule(point, self.stopping)
        return stopping_point(point, rule), rule

    def _run(self, point: Point, workdir: Path, artifacts: list[Artifact]) -> Measured:
        point, stopping = self._stopping(point)
        jobs = self.executor.jobs(point, workdir, self.clocksource)
        artifacts.extend(jobs.artifacts)
        if jobs.error:
            return Measured(error=jobs.error, hosts=jobs.lost)
        output = workdir / "fio.json"
        watch = Watch(output, stopping, writes=point.job.writes) if stopping is not None else None
        timeout = point.expected_seconds * 1.5 + HANG_GRACE_S
        self.side.start(point, workdir)  # first: its once-a-run check of perf stays out of the sampled seconds
        sampler = self._start_sampler(point)
        polled = self._polled(watch)
        try:
            invocation = self.executor.run(jobs, output, self.fio, timeout, workdir, polled)
        except RunFailed as exc:  # hung and killed: this point failed, the run goes on
            return Measured(error=str(exc))
        finally:
            counts = self.side.stop()
            telemetry = _stopped(sampler)
        self.held.watch.check(f"during {point.name} (fio was asked to stop at once)")
        if watch is not None and watch.stopped and invocation.returncode == FIO_STOPPED:
            invocation.returncode = 0  # asked to stop, fio wrote its results; it exits 128 all the same
        artifacts.append(Artifact("command", shlex.join(invocation.command).encode()))
        artifacts.append(Artifact("stderr", invocation.stderr.encode()))
        text = _fio_text(output, watch, polled is not None)
        if text:
            artifacts.append(Artifact("fio.json", text.encode()))
        logs = read_logs(workdir, LOG_PREFIX)  # kept as series (`store.columns`), not as text a second time
        try:
            parsed = parse_output(text, source=f"fio output of {point.name}")
        except UserError:
            parsed = None
        startup = None
        if parsed is not None and sampler is not None and self.executor.local:
            startup = _fio_startup(telemetry, sampler.started_ms, parsed, point)
        measured = self.executor.measured(point, parsed, text, jobs, invocation)
        if measured.result is not None:
            clock = sampler.started_ms if sampler is not None else None
            self._complete(measured, point, telemetry, logs, watch, counts, artifacts, startup, clock)
        return measured

    def _complete(
        self,
        measured: Measured,
        point: Point,
        telemetry: list[Sample],
        logs: list[SampleSeries],
        watch: Watch | None,
        counted: Counted | None,
        artifacts: list[Artifact],
        startup_ms: int | None,
        clock_ms: int | None,
    ) -> None:
        """A measured point's telemetry, logs and side figures; the stopping watch sees its result. The samples
        stay as sampled: where fio's jobs started on their clock (`startup_ms`, None where fio's stamp does not
        say) is stored beside them (`models.side.FIO_START`), and every reader adds it (`measured_from_ms`).
        perf's counts are cut on the wall clock at the samplers' zero (`clock_ms`, None without samplers)."""
        assert measured.result is not None
        measured.samples = telemetry
        measured.series = logs
        if watch is not None and (cut := watch.record(measured.result)):
            artifacts.append(Artifact(CUT_ARTIFACT, cut.encode()))
        measured.metrics = self.side.figures(point, measured.result, telemetry, counted, startup_ms or 0, clock_ms)
        measured.metrics += self.side.commands(point, measured.result, artifacts, startup_ms or 0)
        if startup_ms is not None:
            measured.metrics.append(PointMetric(FIO_START, startup_ms))

    def _polled(self, watch: Watch | None) -> Callable[[], bool] | None:
        """What fio's run asks twice a second whether to stop: the stopping rule's watch, and the device
        watch of a run that writes a device (`iolab.runner.device_watch`); None when neither applies."""
        devices = self.held.watch
        if not devices.names:
            return watch
        if watch is None:
            return devices.stopped
        return lambda: devices.stopped() or watch()

    def _start_sampler(self, point: Point) -> Sampler | None:
        """Telemetry beside fio; a failure to start it is a note, never a failed point. When fio runs on other
        hosts, their disks and CPUs are not this host's: only this host's network is watched."""
        if self.telemetry_interval is None:
            return None
        local = self.executor.local
        try:
            devices = self._devices(point) if local else []
            sampler = Sampler(devices, interval_s=self.telemetry_interval, cpu=local)
            sampler.start()
        except UserError as exc:
            self.note(f"telemetry off: {exc}")
            return None
        return sampler


def _fio_startup(telemetry: list[Sample], started_ms: int, parsed: FioOutput, point: Point) -> int | None:
    """Where fio's jobs started on the samplers' clock (`models.side.fio_startup_ms`), or None where its
    output's stamp cannot say."""
    runtime = max((entry_runtime_ms(e) for group in parsed.groups for e in group.entries), default=0)
    sampled = max((s.t_ms for s in telemetry), default=0)
    return fio_startup_ms(started_ms, parsed.timestamp_ms, runtime, int(point.job.ramp_seconds * 1000), sampled)


def _stopped(sampler: Sampler | None) -> list[Sample]:
    """The telemetry of a point: its sampler stopped and read (none without one)."""
    if sampler is None:
        return []
    sampler.stop()
    return sampler.samples()


def _fio_text(output: Path, watch: Watch | None, polled: bool) -> str:
    """fio's final JSON document: from the stopping watch (status blocks, then the final document: the
    last is kept), from the status reader when fio was polled, else the output file as written."""
    if watch is not None:
        return watch.final_text()
    if polled:
        documents = StatusReader(output).poll()
        return json.dumps(documents[-1], indent=2) if documents else ""
    return output.read_text(errors="replace") if output.exists() else ""
