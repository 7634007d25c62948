"""A label beside a value never breaks (issue 42 item 8: "evidence" wrapped to "evid/ence" beside a long
value). The page of a real quick run, laid out by Chromium in a phone's width and a desktop's; every label
of a key and value layout (the first cell of each row of a finding's table, a fact's term) must stand on
one line inside its own box, whatever the value beside it holds: a long path, an unbroken token.

As in tests/report/test_html_answer_browser.py, a copy of the page gets a measuring script in front of
its Content-Security-Policy; `--dump-dom` shows what it wrote into attributes of <html>.
"""

from __future__ import annotations

import shutil

import pytest

from tests.chromium import chromium_skip_reason, html_attribute, quick_run_page, run_chromium

pytestmark = [
    pytest.mark.skipif(chromium_skip_reason() is not None, reason=str(chromium_skip_reason())),
    pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed"),
]

LONG = "x" * 120  # one unbroken token, longer than a phone's screen
MEASURE = """<script>window.addEventListener('load', function () {
  var h = document.documentElement, broken = [];
  var labels = document.querySelectorAll('.finding tr > :first-child, dl.facts dt');
  Array.prototype.forEach.call(labels, function (e) {
    var range = document.createRange(); range.selectNodeContents(e);
    var lines = {}; Array.prototype.forEach.call(range.getClientRects(), function (b) { lines[Math.round(b.top)] = 1; });
    var count = Object.keys(lines).length;
    if (count > 1 || e.scrollWidth > e.clientWidth + 1) broken.push(e.textContent + ':' + count);
  });
  h.setAttribute('data-labels', labels.length);
  h.setAttribute('data-broken', broken.join('|'));
});</script>"""


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A quick run's page (1 s a point, on a scratch directory whose name is one long token)."""
    home, out = tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("html")
    data = tmp_path_factory.mktemp("data") / LONG
    data.mkdir()
    path, html = quick_run_page(home, data, out, MEASURE)
    assert LONG in html and "evidence" in html  # a finding quotes the long path beside its label
    return path


@pytest.mark.parametrize("width", [360, 1400])
def test_no_label_beside_a_value_breaks_at_any_width(page, width):
    dom = run_chromium(page.resolve().as_uri(), "--dump-dom", f"--window-size={width},900").stdout
    assert int(html_attribute(dom, "data-labels")) > 3
    assert html_attribute(dom, "data-broken") == ""
