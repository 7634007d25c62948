"""The doctor engine on rules made here: which rules a context lets run, the order of what they find, a
rule that crashes, and the RAM the data-set rules read (issue 41: the engine was held only through the
whole rule table, where a rule's needs, a sort key or a swallowed exception changing passed unseen)."""

from __future__ import annotations

import pytest

from iolab.doctor import engine
from iolab.doctor.engine import diagnose, evaluate
from iolab.doctor.rule import Context, Rule
from iolab.models import Severity, Snapshot
from iolab.models.finding import FAILED_RULE


def _rule(rule_id: str, family: str, level: str, needs: str, check) -> Rule:  # type: ignore[no-untyped-def]
    return Rule(rule_id, family, "t", level, "a", "tr", "w", "f", "e", "s", needs, check)


def _says(subject: str, level: str | None = None):  # type: ignore[no-untyped-def]
    return lambda ctx, r: [r.finding(f"{r.id} {subject}", subject, level=level)]


def test_a_rule_runs_only_when_the_context_has_every_part_it_needs():
    both = _rule("A-BOTH", "a", "info", "snapshot+jobs", _says("x"))
    one = _rule("A-ONE", "a", "info", "snapshot", _says("x"))
    assert [f.rule_id for f in evaluate(Context(snapshot=Snapshot()), [both, one])] == ["A-ONE"]
    assert evaluate(Context(), [both, one]) == []


def test_findings_come_most_serious_first_then_by_family_rule_and_subject():
    rules = [
        _rule("Z-INFO", "z", "info", "snapshot", _says("b")),
        _rule("B-HIGH", "b", "high", "snapshot", lambda c, r: [r.finding("t2", "s2"), r.finding("t1", "s1")]),
        _rule("A-HIGH", "c", "high", "snapshot", _says("a")),
        _rule("Y-CRIT", "y", "critical", "snapshot", _says("c")),
    ]
    found = evaluate(Context(snapshot=Snapshot()), rules)
    assert [(f.rule_id, f.subject) for f in found] == [
        ("Y-CRIT", "c"),
        ("B-HIGH", "s1"),
        ("B-HIGH", "s2"),
        ("A-HIGH", "a"),
        ("Z-INFO", "b"),
    ]


@pytest.mark.parametrize("error", [ZeroDivisionError, AttributeError, KeyError, TypeError, ValueError, OverflowError])
def test_a_rule_that_crashes_on_odd_input_is_not_evaluated_and_the_others_still_speak(error):
    def crash(ctx, r):  # type: ignore[no-untyped-def]
        raise error("odd")

    rules = [_rule("A-CRASH", "a", "high", "snapshot", crash), _rule("B-FINE", "b", "info", "snapshot", _says("x"))]
    found = evaluate(Context(snapshot=Snapshot()), rules)
    assert [(f.rule_id, f.severity) for f in found] == [("B-FINE", Severity.INFO), ("A-CRASH", Severity.NOT_EVALUATED)]
    assert found[1].title.startswith(f"not evaluated: {FAILED_RULE} ({error.__name__}: ")


def test_a_bug_that_is_not_odd_input_is_not_swallowed():
    def broken(ctx, r):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        evaluate(Context(snapshot=Snapshot()), [_rule("A-BUG", "a", "high", "snapshot", broken)])


def test_the_ram_the_rules_read_is_the_one_given_else_the_snapshots(monkeypatch):
    seen = []
    monkeypatch.setattr(engine, "evaluate", lambda ctx, rules=None: seen.append(ctx.mem_total_bytes) or [])
    diagnose(Snapshot(mem_total_bytes=8 << 30))
    diagnose(Snapshot(mem_total_bytes=8 << 30), mem_total_bytes=4 << 30)
    diagnose(None)
    assert seen == [8 << 30, 4 << 30, None]
