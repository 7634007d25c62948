"""The HTML page of a real quick run, laid out by Chromium in a 1,400-pixel window: the answer's figures sit
above every finding, and no table is wider than the page (a wide one scrolls inside itself).

The page allows no scripts; a copy gets a measuring script in front of its Content-Security-Policy, as
tests/chromium.py's probe does, which writes what the browser laid out into attributes of <html>, and
`--dump-dom` shows them.
"""

from __future__ import annotations

import shutil

import pytest

from tests.chromium import chromium_skip_reason, html_attribute, quick_run_page, run_chromium

pytestmark = [
    pytest.mark.skipif(chromium_skip_reason() is not None, reason=str(chromium_skip_reason())),
    pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed"),
]

WINDOW = (1400, 900)
MEASURE = """<script>window.addEventListener('load', function () {
  var h = document.documentElement, top = function (e) { return e.getBoundingClientRect().top + scrollY; };
  var tiles = Array.prototype.map.call(document.querySelectorAll('.tile'), top);
  var findings = Array.prototype.map.call(document.querySelectorAll('.finding, details.not-evaluated'), top);
  var tables = Array.prototype.map.call(document.querySelectorAll('table.notebook'), function (t) {
    var box = t.parentElement.getBoundingClientRect();
    var overflow = getComputedStyle(t.parentElement).overflowX;
    return [Math.round(box.left), Math.round(box.right), t.scrollWidth, t.parentElement.clientWidth, overflow].join(':');
  });
  h.setAttribute('data-viewport', h.clientWidth);
  h.setAttribute('data-page-width', h.scrollWidth);
  h.setAttribute('data-tiles', tiles.join(','));
  h.setAttribute('data-findings', findings.join(','));
  h.setAttribute('data-tables', tables.join(','));
});</script>"""


def _numbers(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v]


@pytest.fixture(scope="module")
def laid_out(tmp_path_factory) -> dict[str, str]:
    """A quick run (1 s a point) on a scratch directory, its page, and the page as Chromium laid it out."""
    home, data, out = (tmp_path_factory.mktemp(name) for name in ("home", "data", "html"))
    page, _ = quick_run_page(home, data, out, MEASURE, allow_write=True)
    size = f"--window-size={WINDOW[0]},{WINDOW[1]}"
    return {"dom": run_chromium(page.resolve().as_uri(), "--dump-dom", size).stdout}


def test_the_answer_s_five_figures_are_above_every_finding(laid_out):
    tiles = _numbers(html_attribute(laid_out["dom"], "data-tiles"))
    findings = _numbers(html_attribute(laid_out["dom"], "data-findings"))
    assert len(tiles) == 5  # sequential read and write, random read and write, QD1 latency
    assert findings, "a quick run on a scratch directory always has findings (the doctor's method notes)"
    assert max(tiles) < min(findings)


def test_no_table_is_wider_than_the_page_a_wide_one_scrolls_inside_itself(laid_out):
    dom = laid_out["dom"]
    viewport = int(html_attribute(dom, "data-viewport"))
    assert viewport <= WINDOW[0] and int(html_attribute(dom, "data-page-width")) <= viewport  # no page scrollbar
    tables = [t.split(":") for t in html_attribute(dom, "data-tables").split(",")]
    assert tables
    for left, right, width, shown, overflow in tables:
        assert 0 <= int(left) and int(right) <= viewport  # the table's box stays on the page
        assert int(width) <= int(shown) or overflow in ("auto", "scroll")  # wider than its box: it scrolls there
