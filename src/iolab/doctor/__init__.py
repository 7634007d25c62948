"""The doctor: rules that turn a Snapshot, runs or job files into Findings.

The engine (and with it every rule family) is imported when one of its names is first asked for here, not when
the package is: `show` and `report` read `doctor.derived` (the array views, the curves' names) and never judge a
run, and importing every rule cost them about 0.06 CPU-s a process."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iolab.doctor.engine import all_rules, diagnose, lint_jobs, rules_markdown

__all__ = ["all_rules", "diagnose", "lint_jobs", "rules_markdown"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from iolab.doctor import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
