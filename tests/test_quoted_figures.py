"""Rules show a point's figure only through a quote (`iolab.doctor.quotes`), so it can be checked.

A rule that formats a result's bandwidth, IOPS or latency itself (`units.mb_per_s(d.bw_bytes)`) makes a
number nobody holds to its point: the knee's "plateau=180.0k IOPS" beside a table whose QD 64 gave 305k
was one. This walks every rule module's AST and fails on a unit formatter called on such a figure; the
planted rule at the end shows the walk finds one.
"""

from __future__ import annotations

import ast
from pathlib import Path

RULES = Path(__file__).resolve().parent.parent / "src" / "iolab" / "doctor" / "rules"

# What formats a number for a person, by the name it is called with.
FORMATTERS = frozenset({"gbs", "mb_per_s", "iops", "latency", "metric_value", "_mb", "rate"})
# Attributes that hold a point's own figures (a direction's, or a curve level's means over repeats).
FIGURES = frozenset({"bw_bytes", "iops", "mean_ns", "latency_ns", "peak"})
# Rule modules whose formatted figures are not a point's, and why.
NOT_POINTS = {
    "hosts.py": "a host's share of a multi-host point; tests/oracle.py recomputes each host's share",
}


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def unquoted_figures(source: str, filename: str) -> list[str]:
    """`file:line formatter(x.figure)` for every figure formatted outside a quote."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or _called_name(node) not in FORMATTERS:
            continue
        for arg in node.args:
            if not isinstance(arg, ast.BinOp) and any(  # arithmetic makes another figure (an interval's end)
                isinstance(part, ast.Attribute) and part.attr in FIGURES for part in ast.walk(arg)
            ):
                found.append(f"{filename}:{node.lineno} {ast.unparse(node)}")
    return found


def test_every_rule_quotes_the_points_figures_it_shows():
    found = []
    for path in sorted(RULES.glob("*.py")):
        if path.name not in NOT_POINTS:
            found += unquoted_figures(path.read_text(encoding="utf-8"), path.name)
    assert not found, f"a rule formats a point's figure itself; make it with doctor.quotes.quote: {found}"


def test_the_walk_finds_a_planted_figure_formatted_by_hand():
    planted = (
        "def above(ctx, r):\n"
        "    for job, d in pairs(ctx):\n"
        "        yield r.finding(f'{job.name} reads {units.mb_per_s(d.bw_bytes)} MB/s', job.name)\n"
        "        yield r.finding(f'peak {units.iops(report.peak)}', job.name)\n"
        "        yield r.finding(f'best {units.iops(max(c.iops for c in curve))} or {gbs(d.bw_bytes or 0)}', job.name)\n"
    )
    assert unquoted_figures(planted, "planted.py") == [
        "planted.py:3 units.mb_per_s(d.bw_bytes)",
        "planted.py:4 units.iops(report.peak)",
        "planted.py:5 units.iops(max((c.iops for c in curve)))",
        "planted.py:5 gbs(d.bw_bytes or 0)",
    ]
    assert unquoted_figures("x = units.iops(q.value)\n", "ok.py") == []  # a quote's value is what quotes make
