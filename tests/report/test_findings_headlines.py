"""One headline per cause in the terminal: grouped across points and repeats, the few that matter first."""

from __future__ import annotations

import itertools
import random

from rich.console import Console

from iolab.models import Finding, Severity
from iolab.report.findings import HEADLINES, also, headlines, render_findings


def _finding(rule: str, severity: Severity, subject: str, fix: str = "fix it") -> Finding:
    return Finding(rule, rule.split("-")[0].lower(), severity, f"{subject}: {rule.lower()}", subject, fix=fix)


def _sweep_findings() -> list[Finding]:
    """Issue 33's flood: an 18-point qd sweep with three interleaved repeats, each point's findings once per
    repeat (52 warnings and 26 info there)."""
    points = [f"randread-qd{qd}-jobs{jobs}" for qd in (1, 2, 4, 8, 16, 32) for jobs in (1, 2, 4)]
    found = []
    for _repeat, point in itertools.product(range(3), points):
        found.append(_finding("FIO-SHORT-RUN", Severity.WARNING, point))
        found.append(_finding("FIO-RAMP", Severity.INFO, point))
    for _repeat in range(3):
        found.append(_finding("ARR-OUTLIER", Severity.WARNING, "loop11"))
        found += [_finding(f"RULE-{i}", Severity.WARNING, points[i]) for i in range(6)]
    return found


def _terminal(findings, verbose: bool) -> str:
    console = Console(record=True, width=200)
    render_findings(findings, console, verbose, "`iolab show 1 --verbose` lists them")
    return console.export_text()


def test_the_sweep_flood_shows_at_most_five_headlines_with_counts_for_the_rest():
    text = _terminal(_sweep_findings(), verbose=False)
    shown = [line for line in text.splitlines() if line.startswith(("WARNING", "CRITICAL", "INFO"))]
    assert len(shown) == HEADLINES == 5
    assert shown[0].startswith("WARNING  FIO-SHORT-RUN")  # the cause on the most points first
    assert "also (17): " in text and "3 more headline(s): " in text and "--verbose" in text
    everything = _terminal(_sweep_findings(), verbose=True)
    assert len([line for line in everything.splitlines() if line.startswith(("WARNING", "INFO"))]) == 9


def test_also_lists_are_sets_without_the_headline_subject():
    group = [_finding("ARR-OUTLIER", Severity.WARNING, s) for s in ("loop11", "loop11", "loop3", "loop11", "loop3")]
    assert also(group) == ["loop3"]
    assert "also: loop11" not in _terminal(group, verbose=True)


def test_headlines_generatively_name_every_subject_once_and_keep_severity_order():
    rng = random.Random(33)
    for _ in range(200):
        found = [
            _finding(rng.choice(["A-X", "B-Y", "C-Z"]), rng.choice(list(Severity)[:3]), f"p{rng.randrange(8)}")
            for _ in range(rng.randrange(1, 40))
        ]
        groups = headlines(found)
        ranks = [g[0].severity.rank for g in groups]
        assert ranks == sorted(ranks)
        for group in groups:
            named = [group[0].subject, *also(group)]
            assert len(named) == len(set(named)) and set(named) == {f.subject for f in group}


def test_a_drive_slow_in_both_views_shows_both_findings_and_repeats_stay_one():
    """Issue 42: a run counting 7 warnings showed 6: the alone view's ARR-OUTLIER of the drive the together
    view named was folded away by subject. Repeats (titles alike but for figures) still fold."""

    def outlier(drive: str, rel: int, view: str) -> Finding:
        title = f"{drive} is an outlier: bandwidth {rel:+d}% from the array median ({view})"
        return Finding("ARR-OUTLIER", "arrays", Severity.WARNING, title, drive, fix="check it")

    group = [outlier("loop3", -40, "together"), outlier("loop3", -38, "alone"), outlier("loop3", -41, "together")]
    group.append(outlier("loop5", -30, "together"))
    assert also(group) == ["loop3 is an outlier: bandwidth -38% from the array median (alone)", "loop5"]
    text = _terminal(group, verbose=False)
    assert "(alone)" in text and "1 warning" not in text
