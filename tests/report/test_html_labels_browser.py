"""A label beside a value never breaks (issue 42 item 8: "evidence" wrapped to "evid/ence" beside a long
value). The page of a real quick run, laid out by Chromium in a phone's width and a desktop's; every label
of a key and value layout (the first cell of each row of a finding's table, a fact's term) must stand on
one line inside its own box, whatever the value beside it holds: a long path, an unbroken token.

As in tests/report/test_html_answer_browser.py, a copy of the page gets a measuring script in front of
its Content-Security-Policy; `--dump-dom` shows what it wrote into attributes of <html>.
"""

from __future__ import annotations

import re
import shutil

import pytest

from iolab.report.html import render_html
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import PresetSettings, RunRequest
from iolab.store.db import open_store
from iolab.views.run import load_run
from tests.chromium import chromium_skip_reason, run_chromium

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


def _attribute(dom: str, name: str) -> str:
    match = re.search(rf'<html[^>]*\b{name}="([^"]*)"', dom)
    assert match, f"{name} missing: the measuring script did not run"
    return match[1]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """A quick run's page (1 s a point, on a scratch directory whose name is one long token)."""
    home, out = tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("html")
    data = tmp_path_factory.mktemp("data") / LONG
    data.mkdir()
    request = RunRequest(
        plan="quick",
        settings=PresetSettings(runtime=1, ramp=0),
        targets=[str(data)],
        size=64 << 20,
        telemetry_interval=None,
    )
    store = open_store(home)
    run_id = execute(request, store, SilentProgress()).run_id
    html, _ = render_html([load_run(store, run_id)])
    store.close()
    path = out / "quick.html"
    path.write_text(html.replace("<head>", "<head>" + MEASURE, 1), encoding="utf-8")
    assert LONG in html and "evidence" in html  # a finding quotes the long path beside its label
    return path


@pytest.mark.parametrize("width", [360, 1400])
def test_no_label_beside_a_value_breaks_at_any_width(page, width):
    dom = run_chromium(page.resolve().as_uri(), "--dump-dom", f"--window-size={width},900").stdout
    assert int(_attribute(dom, "data-labels")) > 3
    assert _attribute(dom, "data-broken") == ""
