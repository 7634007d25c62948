"""Where a point's fio runs: on this host, or on fio servers on many hosts.

A point is measured the same way whoever runs it (`iolab.runner.measure`):
job files written, fio started with a hang timeout, its JSON and logs kept,
the point stored at once. What differs between one host and many is here,
behind one interface, so the measuring and orchestrating code has no
host-count branches: how a target path becomes a `Target`, which job files
fio gets, whether this host's telemetry means anything, how fio's output
becomes a result, which host snapshots are kept, and what is cleaned up.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from iolab.errors import UserError
from iolab.fio.parse import FioOutput, aggregate
from iolab.fio.run import DEVICE_SEPARATOR, FioInvocation, point_jobfile, run_fio
from iolab.models import HostOutcome, Point, PointMetric, Result, Sample, Target
from iolab.models.sample_series import SampleSeries
from iolab.private import write_private
from iolab.runner.safety import check_write, writable_target
from iolab.runner.targets import resolve_target
from iolab.store.db import Artifact, Store

if TYPE_CHECKING:
    from iolab.cluster.cluster import Cluster
    from iolab.cluster.servers import HostState
    from iolab.models import Plan
    from iolab.runner.request import RunRequest

PER_HOST = "per-host"
MULTIHOST_TARGET = (
    "a multi-host run needs a target every host has: a directory (e.g. the NFS or Lustre mount "
    "point) or a device, as in `iolab run /mnt/shared --hosts a,b`"
)
DEVICES_AND_HOSTS = "--devices and --hosts do not go together: name a device per host in a host file instead"
# fio 3.33's client/server mode shows nothing of a point until it ends: the client's --status-interval
# is not sent to the servers, and a server started with one sends its interim figures into the final
# report, where fio adds them into "All clients" (tests/cluster/test_stopping_hosts.py; README).
STOPPING_AND_HOSTS = (
    "stopping when known (--stop-when-known, a plan's [stopping]) runs on one host only: fio's client/server "
    "mode gives no per-second figures while a point runs. Drop it, or run without --hosts"
)


def check_hosts(request: RunRequest, plan: Plan) -> None:
    """What a multi-host run refuses before any host is contacted (a dry run refuses it too). Here, not in
    `iolab.runner.execute`, so that `run --dry-run` checks it without loading the run's machinery."""
    if request.hosts and request.devices:
        raise UserError(DEVICES_AND_HOSTS)
    if request.hosts and (request.stopping or plan.stopping):
        raise UserError(STOPPING_AND_HOSTS)


@dataclass
class Measured:
    """What running one point gave: its result or an error, and what came with it."""

    result: Result | None = None
    error: str = ""
    samples: list[Sample] = field(default_factory=list)  # telemetry
    series: list[SampleSeries] = field(default_factory=list)  # fio's logs, as columns
    per_device: dict[str, Result] = field(default_factory=dict)
    hosts: list[HostOutcome] = field(default_factory=list)
    metrics: list[PointMetric] = field(default_factory=list)  # side figures (`iolab.runner.side`)


@dataclass
class Jobs:
    """fio's input for one point: the job file it reads (the first host's, on many hosts), the
    `--client` pairs on many hosts, and hosts already lost before fio starts."""

    jobfile: Path
    clients: list[tuple[str, Path]] | None = None
    artifacts: list[Artifact] = field(default_factory=list)
    lost: list[HostOutcome] = field(default_factory=list)
    ran: list[HostState] = field(default_factory=list)
    error: str = ""  # set when fio has nothing to run


class Executor(Protocol):
    """What a run needs of the place its fio runs."""

    fio_version: str  # "fio-3.33": the run records it, and results are parsed knowing it

    @property
    def local(self) -> bool:
        """Targets are this host's: they can be locked and probed here, and this host's disks and CPUs
        are the ones fio drives, so its telemetry means something."""
        ...

    @property
    def stops_on_host_loss(self) -> bool: ...

    def default_paths(self, paths: list[str]) -> list[str]:
        """The paths the default targets come from (the request's or the plan's)."""
        ...

    def target(
        self, path: str, allow_write: bool, size: int | None, scratch: int | None, create: bool = False
    ) -> Target:
        """`path` checked as a target: `size` is `--size`, `scratch` the bytes of a file iolab makes there
        (`runner.targets.scratch_bytes`; None: the default rule), `create` makes a job's own file that does
        not exist yet (`runner.targets.resolve_target`)."""
        ...

    def scratch_name(self, target: Target) -> str:
        """How a dry run names the scratch file this target will get."""
        ...

    def jobs(self, point: Point, workdir: Path, clocksource: str | None) -> Jobs:
        """The point's job files; UserError when the write guard refuses it (`runner.safety.check_write`)."""
        ...

    def run(
        self, jobs: Jobs, output: Path, fio: str, timeout_s: float, workdir: Path, watch: Callable[[], bool] | None
    ) -> FioInvocation:
        """fio run on `jobs`, its json+ into `output` and its logs into `workdir` (`iolab.fio.run.run_fio`:
        `watch` asked twice a second whether to stop it); RunFailed when it hung. The one place fio measures,
        so a test's executor can answer with fio's saved outputs instead (tests/runner/fake_executor.py)."""
        ...

    def measured(
        self, point: Point, parsed: FioOutput | None, text: str, jobs: Jobs, invocation: FioInvocation
    ) -> Measured:
        """The point's result from fio's parsed output (None when it was not JSON), or its error."""
        ...

    def save_snapshots(self, store: Store, run_id: int, phase: str) -> None:
        """Snapshots of the hosts fio ran on, beside this host's own."""
        ...

    def notes(self) -> list[str]:
        """What the run should say about hosts left out before it started."""
        ...

    def lost_hosts(self) -> list[str]: ...

    def cleanup(self, targets: list[Target]) -> list[str]:
        """Remove scratch files this executor's hosts hold; lines for what was left."""
        ...

    def close(self) -> None: ...


@dataclass
class LocalExecutor:
    """fio on this host: targets checked here, telemetry beside fio, scratch removed by the run."""

    fio_version: str = ""
    local: bool = True
    stops_on_host_loss: bool = False

    def default_paths(self, paths: list[str]) -> list[str]:
        return paths or ["."]

    def target(
        self, path: str, allow_write: bool, size: int | None, scratch: int | None, create: bool = False
    ) -> Target:
        return resolve_target(path, allow_write, size, scratch=scratch, create=create)

    def scratch_name(self, target: Target) -> str:
        return target.filename

    def jobs(self, point: Point, workdir: Path, clocksource: str | None) -> Jobs:
        check_write(point.name, point.target, point.options)
        jobfile = workdir / "point.fio"
        write_private(jobfile, point_jobfile(point, workdir, clocksource))
        return Jobs(jobfile, artifacts=[Artifact("job.fio", jobfile.read_bytes())])

    def run(
        self, jobs: Jobs, output: Path, fio: str, timeout_s: float, workdir: Path, watch: Callable[[], bool] | None
    ) -> FioInvocation:
        return run_fio(jobs.jobfile, output, fio, timeout_s, own_dir=workdir, watch=watch)

    def measured(
        self, point: Point, parsed: FioOutput | None, text: str, jobs: Jobs, invocation: FioInvocation
    ) -> Measured:
        entries = [entry for group in parsed.groups for entry in group.entries] if parsed else []
        result = aggregate(entries, self.fio_version) if entries else None
        if invocation.returncode != 0 or result is None or result.error:
            return Measured(error=invocation.error_line(result.error if result is not None else 0))
        per_device: dict[str, Result] = {}
        if point.target.kind == "group" and parsed is not None:
            per_device = {g.name.rpartition(DEVICE_SEPARATOR)[2]: aggregate(g.entries) for g in parsed.groups}
        return Measured(result, per_device=per_device)

    def save_snapshots(self, store: Store, run_id: int, phase: str) -> None:
        return None

    def notes(self) -> list[str]:
        return []

    def lost_hosts(self) -> list[str]:
        return []

    def cleanup(self, targets: list[Target]) -> list[str]:
        return []  # this host's scratch files are the run's own to remove (`iolab.runner.scratch`)

    def close(self) -> None:
        return None


@dataclass
class ClusterExecutor:
    """fio's client/server mode: a job file per host, results per host, every host's scratch removed by fio."""

    cluster: Cluster
    fio_version: str = ""
    local: bool = False

    @property
    def stops_on_host_loss(self) -> bool:
        return self.cluster.on_failure == "stop"

    def default_paths(self, paths: list[str]) -> list[str]:
        if paths:
            return paths
        if not all(s.spec.target for s in self.cluster.states):
            raise UserError(MULTIHOST_TARGET)
        return [PER_HOST]  # each host's own `target=` from the host file

    def target(
        self, path: str, allow_write: bool, size: int | None, scratch: int | None, create: bool = False
    ) -> Target:
        # a path every host has, checked by the same write guard: a remote device stays read-only
        return writable_target(self.cluster.target(path, scratch), allow_write)

    def scratch_name(self, target: Target) -> str:
        return f"{target.path}/iolab-scratch-RANDOM-HOST.dat on each of {len(self.cluster.states)} hosts"

    def jobs(self, point: Point, workdir: Path, clocksource: str | None) -> Jobs:
        # No clock source: each server's kernel is not known here.
        check_write(point.name, point.target, point.options)
        jobs, lost = self.cluster.jobfiles(point, workdir)
        if not jobs:
            error = "no host is left to run it: " + "; ".join(f"{o.host}: {o.error}" for o in lost)
            return Jobs(workdir / "none.fio", lost=lost, error=error)
        return Jobs(
            jobs[0][1],
            clients=[(state.client_arg, job) for state, job in jobs],
            artifacts=[Artifact(f"job@{state.name}.fio", job.read_bytes()) for state, job in jobs],
            lost=lost,
            ran=[state for state, _ in jobs],
        )

    def run(
        self, jobs: Jobs, output: Path, fio: str, timeout_s: float, workdir: Path, watch: Callable[[], bool] | None
    ) -> FioInvocation:
        return run_fio(jobs.jobfile, output, fio, timeout_s, jobs.clients, own_dir=workdir, watch=watch)

    def measured(
        self, point: Point, parsed: FioOutput | None, text: str, jobs: Jobs, invocation: FioInvocation
    ) -> Measured:
        total, hosts = self.cluster.outcomes(parsed, text, jobs.ran, self.fio_version)
        hosts += jobs.lost
        if total is None:
            return Measured(error="every host failed: " + "; ".join(f"{o.host}: {o.error}" for o in hosts), hosts=hosts)
        return Measured(total, hosts=hosts)

    def save_snapshots(self, store: Store, run_id: int, phase: str) -> None:
        """Each host's snapshot, as `<phase>@<host>`, taken side by side (SSH round trips add up)."""
        from iolab.cluster.snapshots import host_snapshot

        active = self.cluster.active
        with ThreadPoolExecutor(max_workers=min(32, len(active) or 1)) as pool:
            for state, data in zip(active, pool.map(host_snapshot, active), strict=True):
                store.save_snapshot(run_id, f"{phase}@{state.name}", data)

    def notes(self) -> list[str]:
        return [f"{s.name}: left out, {s.problem}" for s in self.cluster.skipped]

    def lost_hosts(self) -> list[str]:
        return [f"{s.name}: {s.problem}" for s in self.cluster.states if not s.reachable]

    def cleanup(self, targets: list[Target]) -> list[str]:
        return self.cluster.cleanup(targets)

    def close(self) -> None:
        self.cluster.shutdown()
