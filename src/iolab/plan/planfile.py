"""Loading plans: TOML plan files and raw fio job files, into a checked `Plan`.

Every problem is a UserError of the form ``<file>: <field>: <problem>`` so a
user can go straight to the line. pydantic (structure) is imported inside
`load_plan`, keeping CLI start-up fast.
"""

from __future__ import annotations

import math
import shlex
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from iolab.errors import UserError
from iolab.fio.catalog import unknown_options
from iolab.fio.jobfile import JobSection, read_jobfile
from iolab.fio.options import (
    MAX_NAME,
    TARGET_OPTIONS,
    TYPED_OPTIONS,
    check_text,
    checked_option,
    checked_options,
    split_paths,
)
from iolab.models.host_settings import names as host_setting_names
from iolab.models.host_settings import setting_value
from iolab.models.job_options import JobOptions
from iolab.models.option_spec import default
from iolab.models.option_values import canonical, to_fio_string
from iolab.models.plan import Phases, Plan, Precondition, RepeatPolicy, Workload
from iolab.models.point import PER_JOB_FORMAT
from iolab.models.side import METRIC_NAME
from iolab.numbers import NumberError, toml_float, unbounded_integer
from iolab.plan.limits import MAX_POINTS
from iolab.plan.matrix import TARGET_AXIS, expand
from iolab.textfile import read_input

if TYPE_CHECKING:
    from iolab.plan.schema import PhasesSpec, PlanSpec, SweepSpec

TOML_SUFFIXES = (".toml",)
# Options that only order jobs inside one fio invocation; each iolab point is its own invocation.
JOB_ORDERING = frozenset({"stonewall", "wait_for", "new_group"})


def load_plan(path: str | Path) -> Plan:
    """A plan from a TOML plan file (``*.toml``) or a raw fio job file (anything else)."""
    path = Path(path)
    if path.suffix.lower() in TOML_SUFFIXES:
        text = read_input(path, "plan")
        return parse_plan(text, source=str(path), base_dir=path.parent)
    return plan_from_jobfile(path)


def plan_inputs(path: str | Path) -> list[Path]:
    """The files `load_plan(path)` reads: the plan, and each job file a TOML plan names (top level or a
    [[workloads]] entry), as it finds them (relative to the plan's directory)."""
    path = Path(path)
    if path.suffix.lower() not in TOML_SUFFIXES:
        return [path]
    raw = _load_toml(read_input(path, "plan"), str(path))
    entries = [raw, *(w for w in raw.get("workloads", []) if isinstance(w, dict))]
    return [path, *dict.fromkeys(path.parent / e["job"] for e in entries if isinstance(e.get("job"), str))]


def plan_from_jobfile(path: str | Path) -> Plan:
    """A job file as a plan: one workload per job section, honoured as written."""
    path = Path(path)
    sections = read_jobfile(path)
    workloads = jobfile_workloads(sections, str(path))
    return Plan(name=path.stem, workloads=workloads)


def parse_plan(text: str, source: str, base_dir: Path) -> Plan:
    """Check and expand a TOML plan; `source` names the file in errors."""
    from pydantic import ValidationError

    from iolab.plan.schema import PlanSpec, error_lines

    raw = _load_toml(text, source)
    try:
        spec = PlanSpec.model_validate(raw)
    except ValidationError as exc:
        raise UserError("\n".join(f"{source}: {line}" for line in error_lines(exc))) from None
    if not any(key in raw for key in ("workloads", "options", "axes", "job")):
        raise UserError(f"{source}: no workloads: add [[workloads]] entries (or top-level options, axes or job)")
    name = _checked_name(spec.name, source, "name") or Path(source).stem
    for index, sweep in enumerate(spec.workloads):
        _checked_name(sweep.name, source, f"workloads[{index}].name")
    targets = _resolve_targets(spec.targets, spec.target_groups, source, "targets")
    workloads = _all_workloads(spec, source, base_dir)
    _check_point_count(workloads, spec.repeat.count, source)
    return Plan(
        name=name,
        workloads=workloads,
        targets=targets,
        description=spec.description,
        target_groups={k: list(v) for k, v in spec.target_groups.items()},
        repeats=_repeat_policy(spec),
        phases=_phases(spec.phases, source, _metrics(spec.metrics, source)),
        stopping=spec.stopping.model_dump() if spec.stopping else {},
    )


def _all_workloads(spec: PlanSpec, source: str, base_dir: Path) -> list[Workload]:
    """Every [[workloads]] entry expanded in order (or the top level when there is none)."""
    sweeps: Sequence[SweepSpec] = spec.workloads or [spec]
    workloads: list[Workload] = []
    for index, sweep in enumerate(sweeps):
        where = f"workloads[{index}]." if spec.workloads else ""
        workloads.extend(_expand_sweep(spec, sweep, where, source, base_dir))
    return workloads


def _load_toml(text: str, source: str) -> dict[str, Any]:
    """The plan's TOML as a dict, every way it cannot be read turned into a one-line error."""
    try:
        raw = tomllib.loads(text, parse_float=toml_float)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{source}: not valid TOML: {exc}") from None
    except NumberError as exc:
        raise UserError(f"{source}: {exc}") from None
    except ValueError:  # Python's own limit: an integer of 4,300 digits or more
        raise UserError(f"{source}: an integer of thousands of digits, beyond what a 64-bit integer holds") from None
    except RecursionError:
        raise UserError(f"{source}: nested too deeply to be a plan (see docs/plans.md)") from None
    unbounded = unbounded_integer(raw)
    if unbounded:
        raise UserError(f"{source}: {unbounded}: an integer beyond what a 64-bit integer holds")
    if isinstance(raw.get("repeat"), int) and not isinstance(raw.get("repeat"), bool):
        raw["repeat"] = {"count": raw["repeat"]}
    return raw


def _check_point_count(workloads: Sequence[Workload], repeats: int, source: str) -> None:
    """Refuse a plan over MAX_POINTS points or with two workloads of one name on one target."""
    if len(workloads) * repeats > MAX_POINTS:
        raise UserError(
            f"{source}: {len(workloads)} workloads x {repeats} repeats; a plan may have at most "
            f"{MAX_POINTS} points: split it"
        )
    counts = Counter((w.name, w.target) for w in workloads)
    duplicates = sorted({name for (name, _), n in counts.items() if n > 1})
    if duplicates:
        raise UserError(
            f"{source}: workloads: the name {duplicates[0]!r} is used twice; give the [[workloads]] different names"
        )


def _repeat_policy(spec: PlanSpec) -> RepeatPolicy:
    """The plan's [repeat] table as the runner's policy (max never below count)."""
    return RepeatPolicy(
        count=spec.repeat.count,
        adaptive=spec.repeat.adaptive,
        cov_target=spec.repeat.cov_target,
        max_count=max(spec.repeat.max, spec.repeat.count),
        interleave=spec.repeat.interleave,
        metric=spec.repeat.metric,
    )


def _expand_sweep(plan: PlanSpec, sweep: SweepSpec, where: str, source: str, base_dir: Path) -> list[Workload]:
    """One [[workloads]] entry (or the top level), inheriting the top level's settings."""
    options, axes, host, zip_groups, exclude = _inherited(plan, sweep, where, source)
    job = sweep.job or plan.job
    target = sweep.target or plan.target
    context = _check_sweep(options, axes, target, sweep.files or plan.files, where, source)
    prefix = sweep.name if sweep is not plan else ""
    if job is None:
        return expand(prefix, options, axes, zip_groups, exclude, target=target, where=context, host=host)
    job_path = base_dir / job
    bases = jobfile_workloads(read_jobfile(job_path), str(job_path))
    workloads: list[Workload] = []
    for base in bases:
        name = base.name if len(bases) > 1 or not prefix else prefix
        merged = {**base.options, **options}
        workloads.extend(
            expand(name, merged, axes, zip_groups, exclude, target=target or base.target, where=context, host=host)
        )
    return workloads


def _check_sweep(
    options: dict[str, str],
    axes: Mapping[str, list[str]],
    target: str | None,
    files: str | None,
    where: str,
    source: str,
) -> str:
    """Check one entry's target and option names; per-job files get fio's file-name format (in place).

    Returns how errors name the entry."""
    if files == "per-job":  # fio names each job's file in the directory iolab gives it
        options.setdefault("filename_format", PER_JOB_FORMAT)
    if target is not None:
        _checked_target(target, source, f"{where}target")
    names = [*options, *(axis for axis in axes if axis != TARGET_AXIS)]
    _check_option_names(names, [*options.items(), *_axis_items(axes)], source, where)
    return f"{source}: {where[:-1]}" if where else source


def _inherited(
    plan: PlanSpec, sweep: SweepSpec, where: str, source: str
) -> tuple[dict[str, str], dict[str, list[str]], dict[str, list[str]], list[list[str]], list[str]]:
    """The top level's options, axes, host settings, zips and exclusions, overlaid by one entry's own."""
    options = _fio_options(plan.options, source, "options")
    axes = _axes(plan.axes, plan.target_groups, source, "axes")
    host = _host(plan.host, source, "host")
    zip_groups, exclude = list(plan.zip), list(plan.exclude)
    if sweep is not plan:
        options.update(_fio_options(sweep.options, source, f"{where}options"))
        axes.update(_axes(sweep.axes, plan.target_groups, source, f"{where}axes"))
        host.update(_host(sweep.host, source, f"{where}host"))
        zip_groups += sweep.zip
        exclude += sweep.exclude
    return options, axes, host, zip_groups, exclude


def jobfile_workloads(sections: Sequence[JobSection], source: str) -> list[Workload]:
    """Job sections as workloads, refusing files whose jobs fio would run concurrently.

    Each iolab point is one fio invocation, so sections run one after
    another; that equals fio's own behaviour only when each later job waits
    (stonewall or wait_for). A file's filename/directory becomes the
    workload's target, so the runner's safety checks see it.
    """
    sections = [
        JobSection(s.name, checked_options(s.options, f"{source}: [{s.name}]", allow_target=True)) for s in sections
    ]
    _check_sections(sections, source)
    workloads = []
    for section in sections:
        options = {k: v for k, v in section.options.items() if k not in JOB_ORDERING and k not in TARGET_OPTIONS}
        if _own_files(section.options):
            options.setdefault("filename_format", PER_JOB_FORMAT)  # never $jobname: see fio.run.named_by_iolab
        workloads.append(Workload(name=section.name, options=options, target=_jobfile_target(section, source)))
    return workloads


def _check_sections(sections: Sequence[JobSection], source: str) -> None:
    """Refuse jobs fio would run concurrently and options fio does not know, naming the section."""
    for section in sections[1:]:
        job = JobOptions(section.options)
        if not (job.flag("stonewall") or job.given("wait_for") is not None):
            raise UserError(
                f"{source}: [{section.name}]: fio runs this job concurrently with the ones before it; "
                "iolab runs one job per point, so add 'stonewall' to run jobs in turn, or split the file"
            )
    engines = [JobOptions(s.options).engine for s in sections]
    for section in sections:
        unknown = unknown_options(section.options, engines)
        if unknown:
            raise UserError(
                f"{source}: [{section.name}]: {unknown[0]!r} is not a fio option (fio --cmdhelp lists them)"
            )


def _own_files(options: Mapping[str, str]) -> bool:
    """Whether fio would give each of the job's clones a file of its own: a `directory=` and no `filename=`,
    with numjobs above 1 (fio names them jobname.N.0 inside it); iolab then does the same, in a directory
    of its own inside that one (`Point.per_job_files`)."""
    job = JobOptions(options)
    return bool((job.given("directory") or "").strip()) and job.given("filename") is None and job.numjobs > 1


def _jobfile_target(section: JobSection, source: str) -> str | None:
    """The one path a job names (`filename=`, else `directory=`), which the runner checks as a target.

    fio reads `a:b` as two paths (`\\:` escapes a colon); iolab runs one target per job.
    """
    job = JobOptions(section.options)
    for name in ("filename", "directory"):
        value = (job.given(name) or "").strip()
        if not value:
            continue
        paths = split_paths(value)
        if len(paths) > 1:
            raise UserError(
                f"{source}: [{section.name}]: {name}={value} names {len(paths)} paths; iolab runs one "
                "target per job: give each path as a target on the command line"
            )
        return paths[0]
    return None


def _resolve_targets(values: Iterable[str], groups: Mapping[str, list[str]], source: str, field: str) -> list[str]:
    """Targets with group references ("@name") replaced by the group's members."""
    targets: list[str] = []
    for i, value in enumerate(values):
        _checked_target(value, source, f"{field}[{i}]")
        if value.startswith("@"):
            if value[1:] not in groups:
                raise UserError(f"{source}: {field}[{i}]: no target group {value[1:]!r} in [target_groups]")
            targets.extend(groups[value[1:]])
        else:
            targets.append(value)
    return targets


def _fio_options(raw: Mapping[str, Any], source: str, field: str) -> dict[str, str]:
    """A table of fio options as job-file strings, each value type-checked."""
    options: dict[str, str] = {}
    for key, value in raw.items():
        if key in TARGET_OPTIONS or key == TARGET_AXIS:
            raise UserError(
                f"{source}: {field}.{key}: iolab sets this from the target; list paths in 'targets' instead"
            )
        name, text = _checked_value(key, value, source, f"{field}.{key}")
        if name in TARGET_OPTIONS:
            raise UserError(
                f"{source}: {field}.{key}: iolab sets this from the target; list paths in 'targets' instead"
            )
        if JobOptions(options).given(name) is not None:
            raise UserError(f"{source}: {field}: {key} and {name} are the same fio option; give it once")
        options[name] = text
    return options


def _axes(raw: Mapping[str, Any], groups: Mapping[str, list[str]], source: str, field: str) -> dict[str, list[str]]:
    """Axes as lists of fio strings; a scalar is a one-value axis; `target` may name groups."""
    axes: dict[str, list[str]] = {}
    for key, values in raw.items():
        if key in TARGET_OPTIONS:
            raise UserError(f"{source}: {field}.{key}: use the 'target' axis (or 'targets') for paths")
        if not isinstance(values, list):
            values = [values]
        if not values:
            raise UserError(f"{source}: {field}.{key}: empty axis; give at least one value")
        if key == TARGET_AXIS:
            axes[key] = _target_axis(values, groups, source, f"{field}.{key}")
            continue
        checked = [_checked_value(key, v, source, f"{field}.{key}[{i}]") for i, v in enumerate(values)]
        name = checked[0][0]
        if name in TARGET_OPTIONS:
            raise UserError(f"{source}: {field}.{key}: use the 'target' axis (or 'targets') for paths")
        if name in axes:
            raise UserError(f"{source}: {field}: {key} and {name} are the same fio option; give it once")
        axes[name] = [text for _, text in checked]
    return axes


def _target_axis(values: list[Any], groups: Mapping[str, list[str]], source: str, field: str) -> list[str]:
    """The `target` axis: each path checked, group names expanded."""
    paths = [_checked_target(v, source, f"{field}[{i}]") for i, v in enumerate(values)]
    return _resolve_targets(paths, groups, source, field)


def _host(raw: Mapping[str, Any], source: str, field: str) -> dict[str, list[str]]:
    """A `[host]` table as axes of sysfs values: a list is swept, a single value holds for every point."""
    host: dict[str, list[str]] = {}
    for key, values in raw.items():
        if not isinstance(values, list):
            values = [values]
        if not values:
            raise UserError(f"{source}: {field}.{key}: empty list; give at least one value")
        try:
            host[key] = [setting_value(key, v) for v in values]
        except ValueError as exc:
            raise UserError(f"{source}: {field}.{key}: {exc}") from None
    return host


def _axis_items(axes: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    return [(key, value) for key, values in axes.items() for value in values]


def _check_option_names(names: Sequence[str], items: Sequence[tuple[str, str]], source: str, where: str) -> None:
    engines = [value for key, value in items if key == "ioengine"] or [default("ioengine") or ""]
    unknown = unknown_options(dict.fromkeys(names), engines)
    if unknown:
        field = f"{where}options/axes" if where else "options/axes"
        if unknown[0] in host_setting_names():
            raise UserError(f"{source}: {field}: {unknown[0]!r} is a host setting, not a fio option: give it in [host]")
        raise UserError(f"{source}: {field}: {unknown[0]!r} is not a fio option (fio --cmdhelp lists them)")


def _checked_value(key: str, value: Any, source: str, field: str) -> tuple[str, str]:
    """(fio's name of the option, its job-file string), or a UserError saying what the option takes.

    TOML numbers must be finite and, for counts and sizes, whole and not negative;
    the rest is checked as fio text by `iolab.fio.options`.
    """
    if isinstance(value, (dict, list)) or value is None:
        raise UserError(f"{source}: {field}: expected a single string, number or boolean, got {value!r}")
    if isinstance(value, bool) and canonical(key) in TYPED_OPTIONS:
        raise UserError(f"{source}: {field}: expected a value for {key}, got {str(value).lower()}")
    if isinstance(value, float) and not math.isfinite(value):
        raise UserError(f"{source}: {field}: expected a finite number, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (value < 0 or abs(value) >= 2**63):
        raise UserError(f"{source}: {field}: expected a number from 0 to 2^63, got {value!r}")
    return checked_option(key, to_fio_string(value), f"{source}: {field}", written=value)


def _checked_name(value: str, source: str, field: str) -> str:
    """A plan or workload name: it heads tables and reports, so printable text of a sensible length."""
    if len(value) > MAX_NAME:
        raise UserError(f"{source}: {field}: {len(value)} characters; a name may have at most {MAX_NAME}")
    if not value.isprintable():
        raise UserError(f"{source}: {field}: {value[:40]!r} holds a control character; names are printable text")
    return value


def _checked_target(value: Any, source: str, field: str) -> str:
    """A path given in a plan (a target), as text without control characters."""
    if not isinstance(value, str) or not value:
        raise UserError(f"{source}: {field}: expected a non-empty path, got {value!r}")
    check_text(value, f"{source}: {field}")
    return value


def _phases(spec: PhasesSpec, source: str, metrics: tuple[tuple[str, tuple[str, ...]], ...]) -> Phases:
    precondition = None
    if spec.precondition is not None:
        options = _fio_options(spec.precondition.options, source, "phases.precondition.options")
        _check_option_names(list(options), list(options.items()), source, "phases.precondition.")
        precondition = Precondition(
            Workload(name="precondition", options=options),
            scope=spec.precondition.scope,
            discard_first=spec.precondition.discard_first,
        )
    return Phases(
        precondition=precondition,
        discard_before_writes=spec.discard_before_writes,
        drop_caches=spec.drop_caches,
        pre_point=_commands(spec.pre_point, source, "phases.pre_point"),
        post_point=_commands(spec.post_point, source, "phases.post_point"),
        metrics=metrics,
    )


def _commands(raw: Sequence[Any], source: str, field: str) -> tuple[tuple[str, ...], ...]:
    """Commands as argv tuples: a string is split like a shell would (no shell runs it)."""
    return tuple(_command(command, source, f"{field}[{i}]") for i, command in enumerate(raw))


def _command(command: Any, source: str, field: str) -> tuple[str, ...]:
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise UserError(f"{source}: {field}: cannot split {command!r}: {exc}") from None
    elif isinstance(command, list) and all(isinstance(a, str) for a in command):
        argv = list(command)
    else:
        raise UserError(f"{source}: {field}: expected a command string or a list of strings, got {command!r}")
    if not argv:
        raise UserError(f"{source}: {field}: empty command")
    return tuple(argv)


def _metrics(raw: Mapping[str, Any], source: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A plan's `metrics = { name = "command" }`: each name a column (a word), each command as a phase's."""
    for name in raw:
        if not METRIC_NAME.match(name):
            raise UserError(
                f"{source}: metrics.{name[:40]}: a metric's name is a word of at most 40 letters, digits, _ and -, "
                "starting with a letter (it names a column)"
            )
    return tuple((name, _command(command, source, f"metrics.{name}")) for name, command in raw.items())
