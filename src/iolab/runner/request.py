"""What the user asked for, kept with the run so `--resume RUN` can rebuild it exactly."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TypedDict

from iolab.errors import UserError
from iolab.models import Plan

# A command-line argument ending in one of these is a plan, not a target.
PLAN_SUFFIXES = (".toml", ".fio", ".job", ".ini")


class PresetSettings(TypedDict, total=False):
    """What a user may set on a preset, each with its type: the keyword arguments of the preset functions
    in `iolab.plan.presets` (`--runtime`, `--ramp` and `--adaptive` on the command line). A key left out
    keeps the preset's default; the dict is stored with the run as given, so `--resume` rebuilds the plan
    and a plan run again keeps its identity."""

    runtime: float  # measured seconds per point
    ramp: float  # unmeasured seconds before each point
    adaptive: bool  # qd-sweep: choose points as results come in
    max_qd: int
    max_jobs: int
    iodepth: int  # bs-sweep
    threads: Sequence[int]  # jobs-sweep, metadata
    files_per_thread: int  # metadata
    fractions: Sequence[float]  # latency-curve
    round_runtime: float  # ssd-steady
    max_rounds: int  # ssd-steady


@dataclass
class RunRequest:
    """A run as requested: a preset (with its settings) or a plan file, and the targets.

    `plan` is a preset name, or the path of a TOML plan or fio job file.
    `targets` empty means: the plan's own targets, else the current directory.
    """

    plan: str = "quick"
    settings: PresetSettings = field(default_factory=lambda: PresetSettings())
    targets: list[str] = field(default_factory=list)
    allow_write: bool = False
    verify_blank: str = "full"  # how a device is found blank before its first write: "full" or "sample" (blank)
    allow_commands: bool = False  # fio exec options, unchecked engines, pre/post-point commands
    allow_host_changes: bool = False  # a plan's [host] settings written to sysfs (restored afterwards)
    allow_unknown_options: bool = False  # options missing from fio.option_table pass (with both of the above)
    size: int | None = None
    repeat: int | None = None
    telemetry_interval: float | None = 1.0
    devices: list[str] = field(default_factory=list)
    array_modes: list[str] = field(default_factory=lambda: ["together", "alone", "scaling"])
    subsets: list[str] = field(default_factory=lambda: ["doubling"])  # the scaling mode's sets (runner.arrays)
    fio: str = "fio"
    command: str = ""
    hosts: list[dict] = field(default_factory=list)  # HostSpec dicts: a multi-host run
    skip_unreachable: bool = False
    on_host_failure: str = "continue"
    stopping: dict[str, str | float] = field(default_factory=dict)  # --stop-when-known: `iolab.runner.stopping`

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RunRequest:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})

    def is_file(self) -> bool:
        """A plan file rather than a preset name."""
        return self.plan.endswith(PLAN_SUFFIXES) or Path(self.plan).is_file()


def build_plan(request: RunRequest) -> Plan:
    """The Plan a request names: a plan file (absolute path kept for --resume) or a preset.

    Options iolab never classified are refused unless `--allow-unknown-options` asked for them, and that
    only with writes and commands allowed too: an unclassified option may do either.
    """
    from iolab.fio.options import unknown_options_allowed

    if request.allow_unknown_options and not (request.allow_write and request.allow_commands):
        raise UserError(
            "--allow-unknown-options passes options iolab cannot vouch for: give --allow-write and "
            "--allow-commands with it"
        )
    with unknown_options_allowed(request.allow_unknown_options):
        return _build_plan(request)


def _build_plan(request: RunRequest) -> Plan:
    from iolab.plan.planfile import load_plan
    from iolab.plan.presets import preset

    if request.is_file():
        plan = load_plan(request.plan)
        if "runtime" in request.settings or "ramp" in request.settings:
            _override_times(plan, request.settings)
    else:
        plan = preset(request.plan, **request.settings)
    if request.repeat is not None:  # --repeat overrides the plan's count, keeping the rest of its policy
        assert plan.repeats is not None  # Plan.__post_init__ always sets it
        plan.repeats = replace(plan.repeats, count=request.repeat)
        plan.repeat = request.repeat
    return plan


def _override_times(plan: Plan, settings: PresetSettings) -> None:
    """--runtime/--ramp given with a plan file replace its times, as they do for presets."""
    from iolab.fio.options import seconds_value

    updates = {}
    if "runtime" in settings:
        updates["runtime"] = seconds_value(settings["runtime"])
    if "ramp" in settings:
        updates["ramp_time"] = seconds_value(settings["ramp"])
    plan.workloads = [replace(w, options={**w.options, **updates}) for w in plan.workloads]


def plan_identity(point_keys: list[str], request: RunRequest, targets: Sequence[tuple[str, Sequence[str]]]) -> str:
    """Same plan, same targets, same hosts → same identity, so running it again resumes it.

    The targets (each path with the hosts it is measured from) are part of it themselves, not only through
    the point keys: an open-ended plan (metadata, QD search) plans no point up front, and a run of it on
    another directory must not reopen the failed run of the first.
    """
    where = sorted([path, sorted(hosts)] for path, hosts in targets)
    blob = json.dumps(
        {"plan": request.plan, "settings": request.settings, "keys": sorted(point_keys), "targets": where},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
