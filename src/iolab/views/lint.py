"""What `iolab lint` shows of a fio job file: the doctor's methodology findings, and what the jobs would
write and run (`plan.effects.job_effects`)."""

from __future__ import annotations

from dataclasses import dataclass

from iolab.models import Finding


@dataclass(frozen=True)
class LintView:
    findings: list[Finding]
    writes: list[str]  # empty: the jobs only read
    runs: list[str]  # programs the jobs would run (only with --allow-commands)
