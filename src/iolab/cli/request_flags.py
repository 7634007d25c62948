"""The flags that shape a run, declared once for `iolab run` and `iolab schedule install`.

Each flag is one `Flag` row (its typer annotation, its default, whether a schedule takes it); the
`run_flags` decorator adds the rows to a command's signature and hands the command one `RunFlags`, and
`build_request` is the one place that turns `RunFlags` into a checked `RunRequest`. A schedule stores
its flags as the command line its timer runs (`RunFlags.argv`), which `run` parses back into the same
flags: `tests/cli/test_request_flags.py` builds the request both ways for every flag.
"""

from __future__ import annotations

import functools
import inspect
import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from iolab.errors import UserError
from iolab.plan.limits import MAX_REPEATS

if TYPE_CHECKING:
    from iolab.runner.request import PresetSettings, RunRequest

MIN_SIZE = 1 << 20
MAX_SECONDS = 30 * 86400  # a month per point: beyond it, a typo


@dataclass(frozen=True)
class Flag:
    """One flag: its parameter name, typer annotation and default; `scheduled`: `schedule install` takes it
    too (those only a run started by hand needs, such as --preset or --dry-run, stay with `run`)."""

    name: str
    annotation: Any
    default: Any
    scheduled: bool = True

    @property
    def option(self) -> str:
        """The flag as typed: `--allow-write`, or `--telemetry/--no-telemetry` for a switch with two names."""
        meta = self.annotation.__metadata__[0]
        return str(meta.param_decls[0] if meta.param_decls else meta.default)

    def argv(self, value: Any) -> list[str]:
        """The words that give `value` on a command line (nothing for the default)."""
        if value == self.default:
            return []
        on, _, off = self.option.partition("/")
        if isinstance(value, bool):
            return [on] if value else [off]
        if isinstance(value, list):
            return [word for item in value for word in (on, str(item))]
        return [on, str(value)]


def _opt(*decls: str, help: str, **kwargs: Any) -> Any:
    return typer.Option(*decls, help=help, **kwargs)


FLAGS: tuple[Flag, ...] = (
    Flag(
        "preset_name",
        Annotated[str | None, _opt("--preset", help="A built-in plan (see `iolab presets`).")],
        None,
        scheduled=False,  # a schedule runs its PLAN file
    ),
    Flag(
        "adaptive",
        Annotated[bool, _opt("--adaptive", help="qd-sweep: search the queue depth instead of running every one.")],
        False,
        scheduled=False,  # applies to --preset qd-sweep only
    ),
    Flag(
        "allow_write",
        Annotated[
            bool,
            _opt(
                "--allow-write",
                help="Allow writes to a blank block device (refused anyway if it holds data; an existing file is never written).",
            ),
        ],
        False,
    ),
    Flag(
        "verify_blank",
        Annotated[
            str,
            _opt(
                "--verify-blank",
                metavar="full|sample",
                help="How a block device is found blank before iolab first writes it: full reads every byte (the default); sample reads both ends and one block per MiB, and says so (docs/safety-devices.md).",
            ),
        ],
        "full",
    ),
    Flag(
        "allow_commands",
        Annotated[
            bool,
            _opt(
                "--allow-commands",
                help="Let the plan run programs: fio's exec_prerun/exec_postrun, I/O engines iolab cannot check, pre/post-point commands (`iolab plan check` lists them).",
            ),
        ],
        False,
    ),
    Flag(
        "allow_unknown_options",
        Annotated[
            bool,
            _opt(
                "--allow-unknown-options",
                help="Pass fio options iolab has not classified (what they read, write or run is unknown to it); needs --allow-write and --allow-commands too.",
            ),
        ],
        False,
    ),
    Flag(
        "allow_host_changes",
        Annotated[
            bool,
            _opt(
                "--allow-host-changes",
                help="Let the plan's [host] table set block-queue settings and the CPU governor before each point (root; the original values are put back afterwards, after a crash by the next run or `iolab clean`).",
            ),
        ],
        False,
    ),
    Flag(
        "runtime",
        Annotated[int | None, _opt("--runtime", min=1, max=MAX_SECONDS, help="Measured seconds per point.")],
        None,
    ),
    Flag(
        "ramp",
        Annotated[
            int | None, _opt("--ramp", min=0, max=MAX_SECONDS, help="Unmeasured warm-up seconds before each point.")
        ],
        None,
    ),
    Flag(
        "size",
        Annotated[
            str | None,
            _opt("--size", help="Bytes of the target to use, e.g. 8G (scratch file size for directories)."),
        ],
        None,
    ),
    Flag(
        "stop_when_known",
        Annotated[
            bool,
            _opt(
                "--stop-when-known",
                help="Stop each point once its mean rate is known within --target-ci and steady (no ramp: the warm-up "
                "is found in the per-second series); else at --max-seconds or the job's own length. One host only (not with --hosts).",
            ),
        ],
        False,
    ),
    Flag(
        "target_ci",
        Annotated[
            str | None, _opt("--target-ci", help="With --stop-when-known: the 95% interval wanted (default 2%).")
        ],
        None,
    ),
    Flag(
        "min_seconds",
        Annotated[
            float | None,
            _opt("--min-seconds", min=1, max=MAX_SECONDS, help="With --stop-when-known: never stop sooner (3)."),
        ],
        None,
    ),
    Flag(
        "max_seconds",
        Annotated[
            float | None,
            _opt(
                "--max-seconds",
                min=1,
                max=MAX_SECONDS,
                help="With --stop-when-known: stop by then (default: the job's own ramp_time + runtime; 60 for a job "
                "with no length).",
            ),
        ],
        None,
    ),
    Flag(
        "repeat",
        Annotated[
            int | None,
            _opt(
                "--repeat",
                min=1,
                max=MAX_REPEATS,
                help="Run each point this many times (separate samples: mean, stddev, COV, CI).",
            ),
        ],
        None,
    ),
    Flag(
        "devices",
        Annotated[
            list[str] | None,
            _opt(
                "--devices",
                help="An array of block devices (comma list or glob, e.g. '/dev/nvme*n1', expanded in natural order: "
                "nvme2n1 before nvme10n1): measured together, each alone, and in sets (--subsets).",
            ),
        ],
        None,
    ),
    Flag(
        "array_modes",
        Annotated[
            str | None,
            _opt(
                "--array-modes",
                help="Which array views to run: together,alone,scaling (the default: all; scaling: the --subsets sets).",
            ),
        ],
        None,
    ),
    Flag(
        "subsets",
        Annotated[
            str | None,
            _opt(
                "--subsets",
                help="The device sets of the scaling mode, a comma list of: N (the first N devices in --devices "
                "order), doubling (1, 2, 4 ... all; the default), leave-one-out (every device but one, each in turn) "
                "or DEV+DEV+... (those devices, by name or path), e.g. 30,28,24.",
            ),
        ],
        None,
    ),
    Flag(
        "telemetry",
        Annotated[bool, _opt("--telemetry/--no-telemetry", help="Sample devices and CPUs beside fio.")],
        True,
    ),
    Flag("interval", Annotated[float, _opt("--interval", min=0.1, help="Telemetry interval in seconds.")], 1.0),
    Flag(
        "hosts",
        Annotated[
            str | None,
            _opt(
                "--hosts",
                help="Run on these hosts at once through fio's client/server mode: name,... (fio servers started over ssh on Unix sockets only their user can reach); name:PORT is a server already on TCP (`iolab agent --insecure`).",
            ),
        ],
        None,
    ),
    Flag(
        "hostfile",
        Annotated[
            str | None,
            _opt(
                "--hostfile",
                help="Hosts one a line: name [ssh=DEST|no] [socket=PATH] [address=IP] [port=N] [fio=PATH] [target=PATH] "
                "(docs/many-hosts.md).",
            ),
        ],
        None,
    ),
    Flag(
        "skip_unreachable",
        Annotated[
            bool,
            _opt("--skip-unreachable", help="Run without hosts that cannot be reached at the start (default: refuse)."),
        ],
        False,
    ),
    Flag(
        "on_host_failure",
        Annotated[str, _opt("--on-host-failure", help="When a host dies mid-run: continue (without it) or stop.")],
        "continue",
    ),
    Flag(
        "write_report",
        Annotated[
            bool,
            _opt(
                "--report/--no-report",
                envvar="IOLAB_RUN_REPORT",
                help="Write the run's HTML page into IOLAB_HOME/reports (default); --no-report (or IOLAB_RUN_REPORT=0) "
                "saves about a second of charts per run where nobody opens it, e.g. hourly scheduled runs.",
            ),
        ],
        True,
    ),
)
SCHEDULED = tuple(flag for flag in FLAGS if flag.scheduled)
NAMES = frozenset(flag.name for flag in FLAGS)


@dataclass(frozen=True)
class RunFlags:
    """The values of `FLAGS` as one command line gave them (a field per row, the row's default when not given)."""

    preset_name: str | None = None
    adaptive: bool = False
    allow_write: bool = False
    verify_blank: str = "full"
    allow_commands: bool = False
    allow_unknown_options: bool = False
    allow_host_changes: bool = False
    runtime: int | None = None
    ramp: int | None = None
    size: str | None = None
    stop_when_known: bool = False
    target_ci: str | None = None
    min_seconds: float | None = None
    max_seconds: float | None = None
    repeat: int | None = None
    devices: list[str] | None = None
    array_modes: str | None = None
    subsets: str | None = None
    telemetry: bool = True
    interval: float = 1.0
    hosts: str | None = None
    hostfile: str | None = None
    skip_unreachable: bool = False
    on_host_failure: str = "continue"
    write_report: bool = True

    @classmethod
    def given(cls, params: dict[str, Any]) -> RunFlags:
        """The flags among a command's parsed parameters (click's `ctx.params`, or a command's keywords); a
        repeated option as a list, None when not given (click's tuple, typer's list)."""

        def value(given: Any) -> Any:
            return (list(given) or None) if isinstance(given, tuple | list) else given

        return cls(**{f.name: value(params[f.name]) for f in FLAGS if f.name in params})

    def argv(self) -> list[str]:
        """The flags a scheduled `iolab run` is given to mean what these mean (a host file made absolute: the
        scheduled run starts in a directory of its own)."""
        hostfile = os.path.abspath(self.hostfile) if self.hostfile else self.hostfile
        values = {**{f.name: getattr(self, f.name) for f in fields(self)}, "hostfile": hostfile}
        return [word for flag in SCHEDULED for word in flag.argv(values[flag.name])]


F = TypeVar("F", bound=Callable[..., Any])


def run_flags(scheduled: bool = False) -> Callable[[F], F]:
    """A command taking `FLAGS` (those a schedule takes, with `scheduled`) as its options, after its own, and
    receiving their values as one `flags: RunFlags` argument."""
    rows = SCHEDULED if scheduled else FLAGS

    def decorate(command: F) -> F:
        own = [p for name, p in inspect.signature(command, eval_str=True).parameters.items() if name != "flags"]
        added = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default) for f in rows]
        hints = {f.name: f.annotation for f in rows}

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            flags = RunFlags.given(kwargs)
            return command(*args, flags=flags, **{k: v for k, v in kwargs.items() if k not in NAMES})

        wrapper.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [*own, *(p.replace(annotation=hints[p.name]) for p in added)]
        )
        wrapper.__annotations__ = {p.name: p.annotation for p in own} | hints  # typer reads both
        return wrapper  # type: ignore[return-value]

    return decorate


def size_option(text: str) -> int:
    """--size as fio writes sizes: 512M, 4G, 1T (binary multiples)."""
    from iolab.models.option_values import parse_size

    value = parse_size(text)
    if value is None or value <= 0:
        raise UserError(f"--size {text!r} is not a size: write it like 512M, 4G or 1T")
    if value < MIN_SIZE:
        raise UserError(f"--size {text} is below 1M, the least iolab measures on (it writes in 1 MiB blocks)")
    return int(value)


def split_args(args: list[str], preset_name: str | None) -> tuple[str | None, list[str]]:
    """`run`'s arguments as (the plan file, made absolute, or None) and the targets."""
    from iolab.runner.request import PLAN_SUFFIXES

    plans = [a for a in args if a.endswith(PLAN_SUFFIXES)]
    return _plan_file(plans, preset_name), [a for a in args if not a.endswith(PLAN_SUFFIXES)]


def _plan_file(plans: list[str], preset_name: str | None) -> str | None:
    if len(plans) > 1 or (plans and preset_name):
        raise UserError("give one plan: a plan file or --preset, not both")
    if not plans:
        return None
    if not os.path.isfile(plans[0]):
        raise UserError(f"{plans[0]}: no such plan file")
    return os.path.abspath(plans[0])


def build_request(flags: RunFlags, plan_file: str | None, targets: list[str], command: str = "") -> RunRequest:
    """The checked request the flags ask for, on a plan file (else `--preset`, else quick) and targets: every
    check a flag has is made here, before anything runs, for `run`, `run --dry-run` and `schedule install`."""
    from iolab.runner.blank import verify_mode
    from iolab.runner.request import RunRequest

    array = _array(flags, targets)
    return RunRequest(
        plan=plan_file or flags.preset_name or ("array-read" if flags.devices else "quick"),
        settings=_settings(flags),
        targets=targets,
        allow_write=flags.allow_write,
        verify_blank=verify_mode(flags.verify_blank),
        allow_commands=flags.allow_commands,
        allow_host_changes=flags.allow_host_changes,
        allow_unknown_options=flags.allow_unknown_options,
        size=size_option(flags.size) if flags.size else None,
        repeat=flags.repeat,
        telemetry_interval=flags.interval if flags.telemetry else None,
        command=command,
        stopping=_stopping(flags),
        **array,
        **_hosts(flags),
    )


def command_line() -> str:
    """The command this process was started with, as stored with its run."""
    return shlex.join(["iolab", *sys.argv[1:]])


def _settings(flags: RunFlags) -> PresetSettings:
    from iolab.runner.request import PresetSettings

    settings = PresetSettings()
    if flags.runtime is not None:
        settings["runtime"] = flags.runtime
    if flags.ramp is not None:
        settings["ramp"] = flags.ramp
    if flags.adaptive:
        if (flags.preset_name or "") != "qd-sweep":
            raise UserError("--adaptive applies to --preset qd-sweep")
        settings["adaptive"] = True
    return settings


def _array(flags: RunFlags, targets: list[str]) -> dict[str, Any]:
    """The request's array fields; the defaults of `RunRequest` where a flag is not given."""
    if flags.devices and targets:
        raise UserError("give either targets or --devices, not both")
    for given, option, what in ((flags.subsets, "--subsets", "sets"), (flags.array_modes, "--array-modes", "views")):
        if given is not None and not flags.devices:
            raise UserError(f"{option} chooses {what} of --devices: name the array's devices with --devices")
    array: dict[str, Any] = {"devices": list(flags.devices or [])}
    if flags.array_modes is not None:
        array["array_modes"] = _array_modes(flags.array_modes)
    if flags.subsets is not None:
        array["subsets"] = [flags.subsets]
    return array


def _array_modes(text: str) -> list[str]:
    """--array-modes as a list of known modes, each once; an empty item or an unknown mode is refused."""
    from iolab.runner.arrays import MODES

    modes = [m.strip() for m in text.split(",")]
    wrong = [m for m in modes if m not in MODES]
    if wrong or len(set(modes)) < len(modes):
        problem = f"{wrong[0]!r} is not an array mode" if wrong else "a mode is named twice"
        raise UserError(f"--array-modes {text[:80]!r}: {problem}; give some of {','.join(MODES)}, comma-separated")
    return modes


def _hosts(flags: RunFlags) -> dict[str, Any]:
    """--hosts / --hostfile as HostSpec dicts (empty: this host only), and what to do when one fails."""
    from iolab.cluster.hosts import ON_FAILURE, parse_hosts, read_hostfile

    if flags.on_host_failure not in ON_FAILURE:
        raise UserError(f"--on-host-failure {flags.on_host_failure!r}: use one of {', '.join(ON_FAILURE)}")
    if flags.hosts is not None and flags.hostfile is not None:
        raise UserError("give --hosts or --hostfile, not both")
    specs = (
        parse_hosts(flags.hosts)
        if flags.hosts is not None
        else read_hostfile(flags.hostfile)
        if flags.hostfile is not None
        else []
    )
    return {
        "hosts": [spec.to_dict() for spec in specs],
        "skip_unreachable": flags.skip_unreachable,
        "on_host_failure": flags.on_host_failure,
    }


def _stopping(flags: RunFlags) -> dict[str, str | float]:
    """The request's stopping settings, checked now so a bad one is a usage error before anything runs."""
    pairs = (("target_ci", flags.target_ci), ("min_s", flags.min_seconds), ("max_s", flags.max_seconds))
    given = {k: v for k, v in pairs if v is not None}
    if given and not flags.stop_when_known:
        raise UserError("--target-ci, --min-seconds and --max-seconds go with --stop-when-known")
    if not flags.stop_when_known:
        return {}
    from iolab.runner.stopping import StopRule  # the rule and its analysis, only for a run that stops

    StopRule.from_settings(given)
    return {"on": 1.0, **given}
