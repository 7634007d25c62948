"""The HTML report as a browser shows it: real runs, rendered by headless Chromium.

One store holds a queue-depth sweep (repeats, telemetry, a hostile label and
fio description), as root an array run over four loop devices with one
throttled, and three more runs of one small workload (so it has a history,
and its first and last runs a comparison). `iolab report ... --html` makes
one page of all; Chromium's DOM and screenshot, from one load of the page,
are what the assertions read.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from iolab.models import Plan, Workload
from iolab.runner.execute import execute
from iolab.runner.progress import SilentProgress
from iolab.runner.request import RunRequest
from iolab.store.db import open_store
from tests import in_process
from tests.chromium import chromium_skip_reason, dump_dom, probe_copy
from tests.iolab_cli import iolab
from tests.loopdev import blkio_cgroup, loop_devices, loop_skip_reason, throttle_skip_reason

pytestmark = [
    pytest.mark.skipif(chromium_skip_reason() is not None, reason=str(chromium_skip_reason())),
    pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed"),
]

HOSTILE = "<script>alert(1)</script>"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
# Capped at 4,000 IOPS: the page is the subject, not RAM's speed, and capped repeats read exactly alike (the
# comparison chart once crashed `iolab report --html` on them: a whisker an ulp below zero).
QUICK = {
    "runtime": "1",
    "ramp_time": "0",
    "time_based": "1",
    "ioengine": "libaio",
    "rw": "randread",
    "bs": "4k",
    "rate_iops": "4000",
}


def _sweep(home: Path, data: Path) -> int:
    """randread 4k at QD 1, 4, 16, two repeats each, telemetry every 0.5 s; label and description hostile."""
    workloads = [
        Workload(name=f"rr-qd{qd}", options={**QUICK, "iodepth": str(qd), "description": HOSTILE}) for qd in (1, 4, 16)
    ]
    plan = Plan(name=f"{HOSTILE} qd sweep", workloads=workloads, repeat=2)
    request = RunRequest(plan=plan.name, targets=[str(data)], size=64 << 20, telemetry_interval=0.5)
    return execute(request, open_store(home), SilentProgress(), plan=plan).run_id


def _small(home: Path, data: Path) -> int:
    """One 4 KiB random-read workload, two repeats of 1 s: a run of a series."""
    plan = Plan(name="small", workloads=[Workload(name="rr-small", options={**QUICK, "iodepth": "2"})], repeat=2)
    request = RunRequest(plan=plan.name, targets=[str(data)], size=64 << 20, telemetry_interval=None)
    return execute(request, open_store(home), SilentProgress(), plan=plan, fresh=True).run_id


def _array(home: Path) -> bool:
    """An array-read run over four loop devices, the third capped at a quarter of the others."""
    env = {"IOLAB_HOME": str(home)}
    with loop_devices(4) as devices:
        argv = ["run", "--devices", ",".join(d.path for d in devices), "--runtime", "1", "--ramp", "0", "-q"]
        if throttle_skip_reason() is None:
            with blkio_cgroup() as cgroup:
                for dev in devices:
                    cgroup.set_read_bps(dev.major_minor, (50 << 20) if dev is devices[2] else (200 << 20))
                proc = cgroup.popen(
                    [sys.executable, "-m", "iolab", *argv],
                    stdout=-1,
                    stderr=-1,
                    text=True,
                    env={**__import__("os").environ, **env},
                )
                _, err = proc.communicate(timeout=120)
                assert proc.returncode == 0, err
        else:
            done = iolab(*argv, env=env)
            assert done.returncode == 0, done.stderr
    return True


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> dict:
    """The report of the sweep (and the array run, as root), its DOM as Chromium built it, and a screenshot."""
    home = tmp_path_factory.mktemp("home")
    out = tmp_path_factory.mktemp("html")
    runs = [str(_sweep(home, tmp_path_factory.mktemp("data")))]
    from iolab.store.tags import add_note, add_tags

    store = open_store(home)
    add_note(store, [int(runs[0])], f"firmware 2.1 {HOSTILE}")
    add_tags(store, [int(runs[0])], ["baseline"])
    store.close()
    has_array = loop_skip_reason() is None and _array(home)
    if has_array:
        runs.append("2")
    small = tmp_path_factory.mktemp("small")
    runs += [str(_small(home, small)) for _ in range(3)]
    report = out / "report.html"
    done = in_process.iolab(
        "report", *runs, "--html", str(report), "--png", str(out / "png"), env={"IOLAB_HOME": str(home)}
    )
    assert done.returncode == 0, done.stderr
    shot = out / "report.png"
    dom = dump_dom(probe_copy(report, out), screenshot=shot)  # the probe script shows nothing on the page
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copyfile(shot, ARTIFACTS / "html_report.png")
    return {
        "html": report.read_text(),
        "dom": dom,
        "shot": shot,
        "png": out / "png",
        "array": has_array,
        "small": runs[-3:],
    }


def _ids(dom: str, pattern: str) -> set[str]:
    return set(re.findall(rf'id="({pattern})"', dom))


def test_every_section_and_chart_is_in_the_browsers_dom(page):
    dom = page["dom"].stdout
    assert _ids(dom, r"run1-[a-z0-9-]+") >= {"run1-summary", "run1-findings", "run1-table1", "run1-timeline"}
    assert _ids(dom, r"chart-run1-[a-z0-9-]+") == {
        "chart-run1-table1-throughput",
        "chart-run1-table1-latency",
        "chart-run1-table1-latency-throughput",
        "chart-run1-timeline",
    }
    figures = re.findall(r'<figure class="chart" id="chart-([a-z0-9-]+)">.*?</figure>', dom, re.S)
    assert len(figures) == len(_ids(dom, r"chart-[a-z0-9-]+"))
    assert all("<svg" in block for block in re.findall(r'<figure class="chart".*?</figure>', dom, re.S))
    # the sweep's axis, with the tables' units on the charts
    assert "iodepth" in dom and "MB/s, 1 MB = 10^6 bytes" in dom
    # every chart also exported as PNG, named by its id
    assert {p.stem for p in page["png"].glob("*.png")} == {f[len("chart-") :] for f in _ids(dom, r"chart-[a-z0-9-]+")}
    if page["array"]:
        assert {"chart-run2-array1-devices", "chart-run2-array1-scaling", "chart-run2-table1-bars"} <= _ids(
            dom, r"chart-run2-[a-z0-9-]+"
        )
    # the small workload's history (3 runs) and its last run against its first
    first, last = page["small"][0], page["small"][-1]
    assert "history1-rr-small" in _ids(dom, r"history[a-z0-9-]+")
    assert "chart-history1-rr-small-series" in _ids(dom, r"chart-[a-z0-9-]+")
    assert f"chart-comparison-{first}-{last}-bars" in _ids(dom, r"chart-[a-z0-9-]+")
    assert "rolling COV (%)" in dom and "target 8%" in dom
    assert f"B = run {last} against A = run {first}" in dom


def test_no_console_errors_and_nothing_loads_from_the_network(page):
    assert page["dom"].console == []
    assert re.search(r'<html[^>]*data-errors=""', page["dom"].stdout), "window.onerror fired"
    assert not re.search(r"(src|href)=\"(https?:)?//", page["html"]), "the page must not load anything remote"
    assert "<script" not in page["html"]


def test_the_screenshot_is_a_rendered_page(page):
    from matplotlib.image import imread

    image = imread(page["shot"])
    assert image.shape[:2] == (4000, 1280)
    # a blank or failed page is one colour; charts and text give many
    assert len({tuple(px) for px in image[::20, ::20].reshape(-1, image.shape[2]).round(2).tolist()}) > 20


def test_a_hostile_label_and_fio_option_show_as_text(page):
    dom = page["dom"].stdout
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert escaped + " qd sweep" in dom  # the run label, in the heading
    assert f"description={escaped}" in dom  # the fio option, in the fixed parameters
    assert f"<dt>note</dt><dd>firmware 2.1 {escaped}</dd>" in dom  # a note, in the summary
    assert "<dt>tags</dt><dd>baseline</dd>" in dom
    assert dom.count("<script") == 1  # the test's own probe, nothing injected
    assert not re.search(r"<html[^>]*data-alerted", dom)  # alert() never ran
