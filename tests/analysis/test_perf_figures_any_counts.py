"""The side columns `--perf` adds to a point (LLC hit %, cycles per I/O) from whatever perf counted: every
mix of counted, uncounted (None) and zero events, with or without I/O, gives each figure exactly when its
events allow it (a hit rate needs references counted and above 0 and misses counted; cycles per I/O needs
cycles and some I/O in perf's window), its value by its formula, and otherwise one `perf` row saying why."""

from __future__ import annotations

import itertools

import pytest

from iolab.analysis.side import perf_figures

COUNTS = (None, 0.0, 4.0e6)


@pytest.mark.parametrize(("references", "misses", "cycles"), list(itertools.product(COUNTS, COUNTS, COUNTS)))
@pytest.mark.parametrize(("iops", "window_s"), [(0.0, 2.0), (5e4, 0.0), (5e4, 2.0)])
def test_each_figure_is_given_exactly_when_its_events_allow_it(references, misses, cycles, iops, window_s):
    counts = {"cache-references": references, "cache-misses": misses, "cycles": cycles}
    found = {m.name: m for m in perf_figures(counts, iops, window_s)}
    want = {}
    if references and misses is not None:
        want["llc_hit_pct"] = 100.0 * max(0.0, 1.0 - misses / references)
    if cycles is not None and iops > 0 and window_s > 0:
        want["cycles_per_io"] = cycles / (iops * window_s)
    if want:
        assert {name: m.value for name, m in found.items()} == want
    else:
        (why,) = found.values()
        assert why.value is None and why.problem
        uncounted = [
            e for e, v in (("cycles", cycles), ("cache-references", references), ("cache-misses", misses)) if v is None
        ]
        assert why.problem == (
            f"perf counted none of {', '.join(uncounted)}" if uncounted else "no I/O in perf's window"
        )
