"""A finding: something iolab concluded about a machine, a run or a job file."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

# What a finding may never show a user: a non-number (nan, inf: a statistic whose spread was zero), Python's
# exponent notation, internal references. One definition: the rules' constructor refuses such text
# (`iolab.doctor.rule.Rule.finding`), and the suite checks every stored finding with it.
UNREADABLE = re.compile(r"\bnan\b|\binf\b|\d[eE][+-]\d|reference case", re.IGNORECASE)
# A not-evaluated finding's title when the rule itself raised (`iolab.doctor.engine.evaluate`): a rule's bug,
# which the suite fails on as it fails on an unreadable figure.
FAILED_RULE = "rule failed on this input"
# Findings that are the answer to the question a run asks, shown by default beside the warnings whatever
# their severity: a QD sweep is run to learn its knee and its peak (issue: both were info, so only counted).
ANSWER_RULES = frozenset({"RES-QD-KNEE", "RES-QD-PEAK"})


def unreadable_part(title: str, evidence: Mapping[str, object], subject: str = "") -> str | None:
    """The name of the first part of a finding a user could not read ("title" or an evidence key), or None.
    The subject is a name the host gave (a mount point, a device, a job), not a figure, whatever it holds
    ('/tmp/x-5e-4b' is a directory, not 5e-4): it is left out of the title before the title is judged."""
    if UNREADABLE.search(title.replace(subject, "") if subject else title):
        return "title"
    return next((key for key, value in evidence.items() if UNREADABLE.search(str(value))), None)


class Severity(str, Enum):
    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"
    NOT_EVALUATED = "not-evaluated"

    @property
    def rank(self) -> int:
        """Sort order: the most serious first."""
        return ("critical", "warning", "info", "not-evaluated").index(self.value)


def shown_by_default(finding: Finding) -> bool:
    """Whether a short listing (after a run, a page's first section) shows the finding: a critical or a
    warning (it changes what the figures mean), or the answer to the run's question (`ANSWER_RULES`)."""
    return finding.severity in (Severity.CRITICAL, Severity.WARNING) or (
        finding.rule_id in ANSWER_RULES and finding.severity is not Severity.NOT_EVALUATED
    )


@dataclass(frozen=True)
class Quote:
    """A figure of measured points that a finding shows, and the text it shows it as.

    A rule that puts a point's rate, IOPS or latency into a finding makes it a Quote, so the figure can be
    recomputed from the points it names before the finding is stored (`doctor.quotes.misquotes`) and, in the
    suite, from fio's own output (tests/oracle.py): a finding's numbers are the numbers of its points.
    `points` name the points by their stored ids (`JobView.key`); `metric` is one of `doctor.quotes.METRICS`; `value` is its mean
    over the points (the repeats of one configuration, or one point).
    """

    points: tuple[str, ...]
    metric: str
    value: float
    shown: str
    unit: str  # a key of `doctor.quotes.FORMATS`: how `shown` was made from `value`


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
    quotes: tuple[Quote, ...] = ()
