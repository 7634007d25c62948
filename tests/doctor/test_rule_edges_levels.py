"""A rule's finding may be raised or lowered from the rule's level (`r.finding(level=...)`), but the catalogue's
five levels show as three severities (`doctor.rule.LEVELS`: high and medium are both a warning, low and info
both info). An escalation between two levels of one severity shows nowhere: no user, view or test can tell it
happened (issue 41: `bench/mutation.py` left its thresholds alive, FS-FULL's 90% and LUS-OST-FULL's 85% among
them). Every level a rule's check can give a finding, read from its source, must be another severity than the
rule's own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import iolab.doctor.rules as rules_package
from iolab.doctor.rule import LEVELS

RULES = Path(rules_package.__file__).parent


def _rule_level(function: ast.FunctionDef) -> str | None:
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", "") == "rule":
            return next((k.value.value for k in decorator.keywords if k.arg == "level"), None)  # type: ignore[attr-defined]
    return None


def _given_levels(function: ast.FunctionDef) -> list[tuple[int, set[str | None]]]:
    """(line, the levels it can give) of each `finding(..., level=...)` call whose level is written out: a
    constant, or constants and None (the rule's own) chosen by a condition."""
    found = []
    for call in ast.walk(function):
        if not (isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "finding"):
            continue
        for keyword in call.keywords:
            value = keyword.value
            branches = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
            if keyword.arg == "level" and all(isinstance(b, ast.Constant) for b in branches):
                found.append((call.lineno, {b.value for b in branches}))  # type: ignore[attr-defined]
    return found


CALLS = [
    (f"{path.name}:{function.name}:{line}", _rule_level(function), levels)
    for path in sorted(RULES.glob("*.py"))
    for function in ast.walk(ast.parse(path.read_text()))
    if isinstance(function, ast.FunctionDef) and _rule_level(function)
    for line, levels in _given_levels(function)
]


def test_the_source_reader_finds_the_rules_that_change_a_findings_level():
    assert len(CALLS) >= 5 and {where.split(":")[0] for where, _, _ in CALLS} >= {"iommu.py", "mitigations.py"}


@pytest.mark.parametrize(("where", "own", "levels"), CALLS, ids=[c[0] for c in CALLS])
def test_a_level_a_finding_is_given_is_another_severity_than_its_rules(where, own, levels):
    severities = {LEVELS[level or own] for level in levels}
    assert LEVELS[own] not in {LEVELS[level] for level in levels if level} and len(severities) == len(levels), (
        f"{where}: levels {sorted(map(str, levels))} of a {own} rule show as {sorted(s.name for s in severities)}"
    )
