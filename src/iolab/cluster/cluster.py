"""A multi-host run on fio's client/server mode: hosts up, jobs out, results per host.

One fio controller sends each host its own job file (targets and scratch
file names differ per host) and fio starts them together. Results come
back per host; the aggregate sums throughput and merges the json+
histograms, so its percentiles are those of every I/O on every host. A
host that dies mid-point is marked failed for that point while the others'
results stand; later points run without it.
"""

from __future__ import annotations

import posixpath
import re
import secrets
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from iolab import programs
from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState, bring_up, listening, stop
from iolab.errors import UserError
from iolab.fio.options import escape_path
from iolab.fio.parse import FioOutput, aggregate
from iolab.fio.run import point_jobfile
from iolab.models import HostOutcome, Point, Result, Target
from iolab.models.point import SCRATCH_PREFIX
from iolab.private import write_private

DEFAULT_REMOTE_SCRATCH = 2 * 2**30  # free space on another host is not visible from here
CLEANUP_TIMEOUT_S = 60.0


@dataclass
class Cluster:
    """The hosts of a run and what has happened to them."""

    states: list[HostState]
    fio: str = "fio"
    on_failure: str = "continue"
    skipped: list[HostState] = field(default_factory=list)
    # Scratch names of this run (`iolab-scratch-TOKEN-HOST.dat`): new every run, so fio on a host never
    # opens (follows, overwrites, then unlinks) a file or link that was there before. See iolab.runner.scratch.
    token: str = field(default_factory=lambda: secrets.token_hex(6))

    @classmethod
    def start(
        cls,
        specs: list[HostSpec],
        fio: str,
        controller_version: str,
        skip_unreachable: bool = False,
        on_failure: str = "continue",
    ) -> Cluster:
        """Bring every host up before anything runs; refuse unreachable hosts and mixed fio versions."""
        states = bring_up(specs, fio)
        cluster = cls([s for s in states if s.reachable], fio, on_failure, [s for s in states if not s.reachable])
        problem = cluster._unreachable(skip_unreachable) or cluster._mixed_versions(controller_version)
        if problem:
            cluster.shutdown()
            raise UserError(problem)
        return cluster

    def _unreachable(self, skip_unreachable: bool) -> str:
        """Why the run cannot start for want of hosts: unreachable ones not skipped, or none at all."""
        problems = [f"{s.name}: {s.problem}" for s in self.skipped]
        if problems and not skip_unreachable or not self.states:
            fix = "" if not self.states else ". Fix them, or pass --skip-unreachable to run without them"
            return "unreachable hosts, nothing was run: " + "; ".join(problems) + fix
        return ""

    def _mixed_versions(self, controller_version: str) -> str:
        """Why the run cannot start when a host's fio differs from this host's."""
        versions = {s.name: s.fio_version for s in self.states if s.fio_version != controller_version}
        if not versions:
            return ""
        return (
            f"fio versions differ (this host: {controller_version}; "
            + ", ".join(f"{name}: {v}" for name, v in versions.items())
            + "); fio's client/server mode misbehaves silently across versions: install one fio version everywhere"
        )

    @property
    def active(self) -> list[HostState]:
        return [s for s in self.states if s.reachable]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.states)

    def fail(self, state: HostState, why: str) -> None:
        state.reachable = False
        state.problem = why

    # -- targets and jobs ---------------------------------------------------
    def target(self, path: str, size: int | None) -> Target:
        """A target every host has: a directory (each host writes its own scratch file in it) or a
        device (read only: from here iolab cannot check that a device on another host is blank)."""
        escape_path(path)  # refuses what fio would not read back as this path
        if is_device_path(path):
            return Target(path=path, kind="block", filename=path, size_bytes=0, hosts=self.names)
        devices = [s.name for s in self.states if is_device_path(s.spec.target or "")]
        return Target(
            path=path,
            kind="directory",
            filename=str(Path(path) / f"{SCRATCH_PREFIX}{self.token}.dat"),
            size_bytes=size or DEFAULT_REMOTE_SCRATCH,
            scratch=True,
            writable=not devices,
            hosts=self.names,
        )

    def host_target(self, target: Target, state: HostState) -> Target:
        """The target as this host sees it: its own path, and its own scratch file."""
        path = state.spec.target or target.path
        if is_device_path(path):
            return replace(target, path=path, kind="block", filename=path, size_bytes=0, scratch=False)
        name = f"{SCRATCH_PREFIX}{self.token}-{re.sub(r'[^A-Za-z0-9_.-]', '_', state.name)}.dat"
        return replace(
            target,
            path=path,
            kind="directory",
            filename=str(Path(path) / name),
            scratch=True,
            size_bytes=target.size_bytes or DEFAULT_REMOTE_SCRATCH,
        )

    def jobfiles(self, point: Point, workdir: Path) -> tuple[list[tuple[HostState, Path]], list[HostOutcome]]:
        """A job file per host still up; hosts that stopped answering, now or before, are failed for this point."""
        jobs: list[tuple[HostState, Path]] = []
        lost = [
            HostOutcome(s.name, "failed", f"left out since it failed: {s.problem}")
            for s in self.states
            if not s.reachable
        ]
        active = self.active
        with ThreadPoolExecutor(max_workers=min(32, len(active) or 1)) as pool:  # a silent host waits 3 s
            answering = list(pool.map(listening, active))
        for state, up in zip(active, answering, strict=True):
            if not up:
                self.fail(state, "its fio server stopped answering")
                lost.append(HostOutcome(state.name, "failed", state.problem))
                continue
            job = workdir / f"point@{state.name}.fio"
            write_private(job, point_jobfile(replace(point, target=self.host_target(point.target, state)), workdir))
            jobs.append((state, job))
        return jobs, lost

    def outcomes(
        self, parsed: FioOutput | None, text: str, ran: list[HostState], version: str
    ) -> tuple[Result | None, list[HostOutcome]]:
        """The point's result over the hosts that finished (their throughput summed, their
        histograms merged), and each host's own; a host without one is failed from here on."""
        entries: dict[str, list[dict]] = {}
        for group in parsed.groups if parsed else []:
            for entry in group.entries:
                entries.setdefault(str(entry.get("hostname", "")), []).append(entry)
        outcomes, finished = [], []
        for state in ran:
            mine = entries.get(state.reported, [])
            if not mine:
                why = _host_error(text, state)
                self.fail(state, why)
                outcomes.append(HostOutcome(state.name, "failed", why))
                continue
            outcome = _host_outcome(state, mine, text, version)
            outcomes.append(outcome)
            finished += mine if outcome.status == "ok" else []
        total = aggregate(finished, version, [o.host for o in outcomes if o.status == "ok"]) if finished else None
        return total, outcomes

    # -- the end ------------------------------------------------------------
    def cleanup(self, targets: list[Target]) -> list[str]:
        """Remove every host's scratch files (by fio, so no SSH is needed), then stop our servers.

        Hosts that failed during the run are asked too: one whose server answers
        again, or whose server iolab can start again over SSH, is cleaned like the
        others. Returns a line per host still holding scratch files, naming them,
        and a line for each error the logs of the servers iolab started show.
        """
        scratch = [t for t in targets if t.scratch]
        if not scratch:
            self.shutdown()
            return self._trouble(self.states)
        up, restarted = self._answering()
        self._remove_scratch(up, scratch)
        for state in restarted:
            stop(state)
        self.shutdown()
        return self._left_behind(scratch, {s.name for s in up}) + self._trouble(self.states + restarted)

    def _answering(self) -> tuple[list[HostState], list[HostState]]:
        """(every host whose server answers now, the servers started again for failed hosts that were silent)."""
        silent = [s.spec for s in self.states if not s.reachable and not listening(s, 1.0)]
        restarted = bring_up(silent, self.fio) if silent else []
        up = [s for s in self.states if listening(s, 1.0)] + [s for s in restarted if s.reachable]
        return up, restarted

    def _remove_scratch(self, up: list[HostState], scratch: list[Target]) -> None:
        """One fio client run that removes each answering host's scratch files (`_cleanup_job`)."""
        jobs = {state.name: self._cleanup_job(state, scratch) for state in up}
        with tempfile.TemporaryDirectory(prefix="iolab-cleanup-") as tmp:
            clients = []
            for state in up:
                if jobs[state.name]:
                    job = Path(tmp) / f"cleanup@{state.name}.fio"
                    write_private(job, jobs[state.name])
                    clients += [f"--client={state.client_arg}", str(job)]
            try:
                if clients:
                    programs.run(
                        [self.fio, *clients],
                        capture_output=True,
                        timeout=CLEANUP_TIMEOUT_S,
                        cwd=tmp,
                        check=False,
                    )
            except subprocess.TimeoutExpired:
                pass

    def _left_behind(self, scratch: list[Target], cleaned: set[str]) -> list[str]:
        """A line per host that did not answer and may hold scratch files, naming them."""
        left = []
        for state in self.states:
            files = [self.host_target(t, state).filename for t in scratch if self.host_target(t, state).scratch]
            if state.name not in cleaned and files:
                left.append(
                    f"{state.name} did not answer, so its scratch files (if it made them) are left: "
                    f"{', '.join(files)}; remove them there by hand"
                )
        return left

    @staticmethod
    def _trouble(states: list[HostState]) -> list[str]:
        """What the logs of the servers iolab started show (assertions, errors), a line each."""
        return [f"{s.name}: its fio server reported: {line}" for s in states for line in s.trouble]

    def _cleanup_job(self, state: HostState, scratch: list[Target]) -> str:
        """A job per scratch file of the host: a 4 KiB read of the file if it exists, then unlink=1 removes it;
        allow_file_create=0 so an absent file is not made."""
        sections = []
        for number, target in enumerate(scratch):
            mine = self.host_target(target, state)
            if mine.scratch:  # a host whose own target is a device has nothing of iolab's to remove
                sections.append(
                    f"[rm{number}]\nfilename={escape_path(mine.filename)}\nrw=read\nbs=4k\nsize=4k\n"
                    "unlink=1\nallow_file_create=0\n"
                )
        return "".join(sections)

    def shutdown(self) -> None:
        for state in self.states + self.skipped:
            stop(state)


# Directories under /dev on every Linux host (RAM file systems and the like), never devices.
DEV_DIRECTORIES = ("/dev/shm", "/dev/hugepages", "/dev/mqueue", "/dev/pts")


def is_device_path(path: str) -> bool:
    """Whether a path on another host names a device: iolab cannot look there before the run, so it goes
    by the path, and /dev/shm (where RAM runs put their files) and its like are directories."""
    inside = posixpath.normpath(path)  # "/dev/shm/../sda" is the device, not a directory under /dev/shm
    return inside.startswith("/dev/") and not any(inside == d or inside.startswith(d + "/") for d in DEV_DIRECTORIES)


def _host_outcome(state: HostState, mine: list[dict], text: str, version: str) -> HostOutcome:
    """One host's own result from its job entries; a fio error fails it, with what fio said."""
    result = aggregate(mine, version, [state.name])
    runtime = max(int(e.get(d, {}).get("runtime", 0)) for e in mine for d in ("read", "write", "trim"))
    if result.error == 0:
        return HostOutcome(state.name, "ok", "", result, runtime)
    said = _fio_said(text, state)
    return HostOutcome(
        state.name, "failed", f"fio error {result.error}" + (f": {said}" if said else ""), result, runtime
    )


def _host_error(text: str, state: HostState) -> str:
    """Why a host gave no result: fio's own words where it left some."""
    if f"host={state.reported} disconnected" in text:
        return "its fio server disconnected mid-run (host down, server killed or network lost)"
    return _fio_said(text, state) or "no result came back from this host"


def _fio_said(text: str, state: HostState) -> str:
    """The last error line fio's server sent back (client/server output prefixes it `<hostname>`)."""
    prefix = f"<{state.identity.get('hostname', '')}>"
    said = [ln[len(prefix) :].strip() for ln in text.splitlines() if ln.startswith(prefix) and "fio:" in ln]
    return said[-1] if said else ""
