"""A finding: something iolab concluded about a machine, a run or a job file."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"
    NOT_EVALUATED = "not-evaluated"

    @property
    def rank(self) -> int:
        """Sort order: the most serious first."""
        return ("critical", "warning", "info", "not-evaluated").index(self.value)


@dataclass(frozen=True)
class Finding:
    """One conclusion with the evidence a person needs to check it.

    A rule that could not read its input returns severity NOT_EVALUATED with
    the reason in `title`, never a silent pass.
    """

    rule_id: str
    family: str
    severity: Severity
    title: str
    subject: str = ""
    evidence: dict[str, str] = field(default_factory=dict)
    why: str = ""
    fix: str = ""
    confidence: float = 1.0
    source: str = ""
