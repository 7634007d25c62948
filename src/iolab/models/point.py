"""What one fio invocation runs: a target and a set of job options."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
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

    @property
    def identity_filename(self) -> str:
        """The filename a point's identity holds. A scratch file has a new random name every run, so its
        identity is the one fixed name older versions gave it: a point stays the same measurement, runs
        resume across versions."""
        if self.scratch and os.path.basename(self.filename).startswith(SCRATCH_PREFIX):
            return os.path.join(os.path.dirname(self.filename), "iolab-scratch.dat")
        return self.filename  # a device, a file, or a file a job named that iolab made for it


@dataclass(frozen=True)
class Point:
    """One fio invocation: a named workload on a target, one repeat of it.

    `options` are fio job options as strings (fio's own JSON keeps them as
    strings too); target-derived options (filename, size, direct) are added
    when the job file is written, so they are not repeated here.
    """

    name: str
    target: Target
    options: dict[str, str] = field(default_factory=dict)
    repeat: int = 0

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
        blob = json.dumps(identity, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    @property
    def job(self) -> JobOptions:
        """The options as typed values (fio's aliases and defaults applied); `options` stay the strings
        that are stored, hashed and written to the job file."""
        return JobOptions(self.options)

    @property
    def direct(self) -> bool:
        """Whether fio does this point's I/O with O_DIRECT, as its job file says: the runner writes direct=1
        before the workload's own options (which may ask for buffered I/O), and direct=0 where the file
        system refuses O_DIRECT (`iolab.fio.run.point_jobfile`)."""
        return self.target.direct and JobOptions({"direct": "1", **self.options}).direct

    @property
    def expected_seconds(self) -> float:
        """Wall time fio should take: ramp plus runtime for time-based jobs."""
        return self.job.expected_seconds

    def to_dict(self) -> dict:
        return asdict(self)

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
        )
