"""What one fio invocation runs: a target and a set of job options."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Literal

from iolab.models.job_options import JobOptions

TargetKind = Literal["file", "directory", "block", "group"]

# What iolab creates in a directory target: `iolab-scratch-<random>.dat` and, for file-operation workloads,
# `iolab-metadata-<random>/`. Local runs, multi-host runs and the clean-up that removes only what is
# iolab's own use the same prefixes.
SCRATCH_PREFIX = "iolab-scratch-"
METADATA_PREFIX = "iolab-metadata-"


@dataclass(frozen=True)
class Target:
    """A place fio does I/O to, resolved and checked before anything runs.

    `path` is what the user named; `filename` is what fio opens (a scratch
    file inside a directory target). `scratch` says iolab creates the file
    (and removes it afterwards): a scratch file of its own name, or a file a
    job named that did not exist yet. `direct` is False only where the file
    system refuses O_DIRECT, and then `ram_backed` says whether the numbers
    measure RAM rather than a device. A "group" is several block devices
    driven together by one fio invocation, one job per device (`members`).
    `hosts` names the hosts of a multi-host run: each does the I/O to its
    own copy of the target (its own scratch file), in fio's client/server mode.
    """

    path: str
    kind: TargetKind
    filename: str
    size_bytes: int
    scratch: bool = False
    writable: bool = False
    direct: bool = True
    ram_backed: bool = False
    fs_type: str | None = None
    members: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    # What the target was when it was checked ("block 7:3", "file 2049:1234"; an array's members joined
    # by ","): the runner checks it again before every point and stops when it changed (a link switched
    # to another device between points must not send the next point's writes there).
    identity: str = ""

    @property
    def identity_filename(self) -> str:
        """The filename a point's identity holds. A scratch file has a new random name every run, so its
        identity is the one fixed name older versions gave it: a point stays the same measurement, runs
        resume across versions."""
        if self.scratch and os.path.basename(self.filename).startswith(SCRATCH_PREFIX):
            return os.path.join(os.path.dirname(self.filename), "iolab-scratch.dat")
        return self.filename  # a device, a file, or a file a job named that iolab made for it


# How a workload on a directory target names one file per job (`files = "per-job"` in a plan): fio makes
# iolab-job.0.0, iolab-job.1.0, ... inside a directory iolab made for them, as IOzone's throughput mode
# gives each thread its own file.
PER_JOB_FORMAT = "iolab-job.$jobnum.$filenum"
# The file-name patterns iolab gives fio (per-job files, metadata files, calibration): the only `$` iolab
# ever hands fio, never `$jobname` (a user's job name could be "../../victim").
IOLAB_FORMAT = re.compile(r"^iolab-[a-z]+\.\$jobnum\.\$filenum$")
# The least a per-job file is given when the target's size is shared out among many jobs.
MIN_PER_JOB_BYTES = 1 << 20


@dataclass(frozen=True)
class Point:
    """One fio invocation: a named workload on a target, one repeat of it.

    `options` are fio job options as strings (fio's own JSON keeps them as
    strings too); target-derived options (filename, size, direct) are added
    when the job file is written, so they are not repeated here.
    `host_settings` are the host settings the point runs under (a plan's
    `[host]` table, `models.host_settings`), written to sysfs before it runs.
    """

    name: str
    target: Target
    options: dict[str, str] = field(default_factory=dict)
    repeat: int = 0
    host_settings: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Content hash of what this point runs; equal keys mean the same measurement."""
        identity = {
            "filename": self.target.identity_filename,
            "size": self.target.size_bytes,
            "direct": self.target.direct,
            "options": dict(sorted(self.options.items())),
            "repeat": self.repeat,
        }
        if self.target.hosts:  # other hosts, another measurement; single-host keys stay as they were
            identity["hosts"] = list(self.target.hosts)
        if self.host_settings:  # another scheduler, another measurement; keys without settings stay as they were
            identity["host_settings"] = dict(sorted(self.host_settings.items()))
        blob = json.dumps(identity, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    @cached_property
    def job(self) -> JobOptions:
        """The options as typed values (fio's aliases and defaults applied); `options` stay the strings
        that are stored, hashed and written to the job file. Made once: a point's options are not changed
        after it is made, and the doctor asks each point's several times."""
        return JobOptions(self.options)

    @cached_property
    def direct(self) -> bool:
        """Whether fio does this point's I/O with O_DIRECT, as its job file says: the runner writes direct=1
        before the workload's own options (which may ask for buffered I/O), and direct=0 where the file
        system refuses O_DIRECT (`iolab.fio.run.point_jobfile`). Of the workload's own `direct=` and
        `buffered=`, the later decides, as in fio (a default merged in front by name would take the place of
        the workload's own `direct=` and put it before its `buffered=`)."""
        job = self.job
        chosen = job.given("direct") is not None or job.given("buffered") is not None
        return self.target.direct and (job.direct if chosen else True)

    @property
    def per_job_files(self) -> bool:
        """Each job works on a file of its own, named by the workload's `filename_format`, in a directory
        iolab made inside the target (`iolab.fio.run.files_dir`); a file create/stat/remove job has its own
        directory instead. Only on a directory target: a file or device is what every job opens."""
        job = self.job
        return self.target.kind == "directory" and job.text("filename_format") is not None and not job.is_metadata

    @property
    def per_job_bytes(self) -> int:
        """The size of each job's own file: the workload's size=, else the target's size shared out among the
        jobs (IOzone's throughput mode divides the total among its threads), whole MiB, at least 1 MiB."""
        own = self.job.size_bytes
        if own is not None:
            return own
        share = self.target.size_bytes // self.job.numjobs
        return max(MIN_PER_JOB_BYTES, share - share % MIN_PER_JOB_BYTES)

    @property
    def expected_seconds(self) -> float:
        """Wall time fio should take: ramp plus runtime for time-based jobs."""
        return self.job.expected_seconds

    def to_dict(self) -> dict:
        """The point as stored (`from_dict` reads it back). Its fields are plain values, tuples of strings,
        dicts of strings and the target (the same again), so one shallow level of copies equals
        `dataclasses.asdict`, which copies value by value: 0.26 s of an import of 1,000 fio outputs under
        cProfile (4.0 s in all there)."""
        out: dict = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Target):
                value = {t.name: getattr(value, t.name) for t in fields(value)}
            out[f.name] = dict(value) if isinstance(value, dict) else value
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Point:
        return cls(
            name=data["name"],
            target=Target(
                **{
                    **data["target"],
                    "members": tuple(data["target"].get("members", ())),
                    "hosts": tuple(data["target"].get("hosts", ())),
                }
            ),
            options=dict(data["options"]),
            repeat=int(data.get("repeat", 0)),
            host_settings=dict(data.get("host_settings", {})),
        )
