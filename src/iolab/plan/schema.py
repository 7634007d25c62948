"""The shape of a TOML plan file, checked with pydantic.

Only the fixed structure lives here (which tables and keys exist, their
types). fio options and axes have open-ended keys with per-option types, so
`iolab.plan.planfile` checks those itself. This module imports pydantic at
top level: import it only inside functions, never from CLI start-up code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from iolab.errors import UserError
from iolab.numbers import fraction
from iolab.plan.limits import MAX_REPEATS


class _Strict(BaseModel):
    """Unknown keys are typos and "3" is not 3: reject both."""

    model_config = ConfigDict(extra="forbid", strict=True)


class RepeatSpec(_Strict):
    count: int = Field(default=1, ge=1, le=MAX_REPEATS)
    adaptive: bool = False
    cov_target: float = Field(default=0.05, gt=0, lt=1)
    max: int = Field(default=10, ge=1, le=MAX_REPEATS)
    interleave: bool = False
    metric: Literal["auto", "iops", "bw", "lat_mean"] = "auto"


class PreconditionSpec(_Strict):
    options: dict[str, Any]
    scope: Literal["once", "before_each_write"] = "once"
    discard_first: bool = False


class PhasesSpec(_Strict):
    precondition: PreconditionSpec | None = None
    discard_before_writes: bool = False
    drop_caches: bool = False
    pre_point: list[Any] = Field(default_factory=list)
    post_point: list[Any] = Field(default_factory=list)


class StoppingSpec(_Strict):
    """[stopping]: stop each point when its number is known (`iolab.runner.stopping`)."""

    target_ci: str | float = "2%"
    min_s: int | float = Field(default=3, gt=0, allow_inf_nan=False)
    max_s: int | float | None = Field(default=None, gt=0, allow_inf_nan=False)  # None: the job's own length

    @field_validator("target_ci")
    @classmethod
    def _share(cls, value: str | float) -> str | float:
        """Read now, as the run reads it: a dry run and `plan check` once passed "abc"."""
        try:
            fraction(str(value), "a percentage like 2%")
        except UserError as exc:
            raise ValueError(str(exc)) from None
        return value


class SweepSpec(_Strict):
    """A workload group: its own options, axes, host settings, zip groups and exclude rules."""

    name: str = ""
    job: str | None = None
    target: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    axes: dict[str, Any] = Field(default_factory=dict)
    host: dict[str, Any] = Field(default_factory=dict)
    zip: list[list[str]] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    files: Literal["shared", "per-job"] | None = None  # on a directory: one scratch file, or a file per job


class PlanSpec(SweepSpec):
    """The whole file: top-level sweep settings are defaults for every [[workloads]] entry."""

    description: str = ""
    targets: list[str] = Field(default_factory=list)
    target_groups: dict[str, list[str]] = Field(default_factory=dict)
    workloads: list[SweepSpec] = Field(default_factory=list)
    repeat: RepeatSpec = Field(default_factory=RepeatSpec)
    phases: PhasesSpec = Field(default_factory=PhasesSpec)
    stopping: StoppingSpec | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)  # name -> command read every second during each point


def error_lines(exc: Any) -> list[str]:
    """pydantic's errors as "field.path[index]: problem" lines, first two only."""
    return [f"{_error_path(error['loc']) or 'plan'}: {_problem(error)}" for error in exc.errors()[:2]]


def _error_path(loc: Sequence[int | str]) -> str:
    """pydantic's location as the plan's own spelling: workloads[0].options."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _problem(error: Mapping[str, Any]) -> str:
    """pydantic's message, in words for unknown keys, with the value given (cut at 40 characters)."""
    if error["type"] == "extra_forbidden":
        return "unknown key (check the spelling; see docs/plans.md)"
    problem = str(error["msg"])
    if "input" in error and error["type"] not in ("missing",):
        shown = repr(error["input"]) if not isinstance(error["input"], int) else str(error["input"])
        problem += f", got {shown[:40] + '...' if len(shown) > 40 else shown}"
    return problem
