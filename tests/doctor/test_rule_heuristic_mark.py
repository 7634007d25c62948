"""Which findings a page marks "(heuristic)": those of rules declared heuristic (a threshold chosen by judgement),
and no others. A rule registered without saying gives findings of full confidence; saying so gives 0.7, which
every format prints as "(heuristic)" beside the title (issue 41: the registration's default was held by no
fast test that registers a rule)."""

from __future__ import annotations

import pytest

from iolab.doctor import rule as rule_module
from iolab.doctor.engine import all_rules
from iolab.doctor.rule import rule

FIELDS = dict(family="results", title="t", level="medium", applies="a", trigger="t", why="w", fix="f",
              evidence="e", source="s", needs="results")  # fmt: skip


@pytest.mark.parametrize(
    ("declared", "confidence"), [({}, 1.0), ({"heuristic": False}, 1.0), ({"heuristic": True}, 0.7)]
)
def test_a_findings_confidence_is_what_its_rule_declared(monkeypatch, declared, confidence):
    monkeypatch.setattr(rule_module, "RULES", [])
    rule(id="X-TEST", **FIELDS, **declared)(lambda ctx, r: iter(()))
    (registered,) = rule_module.RULES
    assert registered.finding("a title", "sda").confidence == confidence


def test_the_rules_marked_heuristic_are_those_declared_so():
    assert sorted(r.id for r in all_rules() if r.heuristic) == [
        "FIO-CPU-BOUND",
        "FIO-NO-RAMP",
        "NFS-SERVER-THREADS",
        "RES-NONMONOTONIC-SCALING",
        "TEL-INTERFERENCE",
    ]
