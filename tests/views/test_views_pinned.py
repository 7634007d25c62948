"""Every view but a run's (tests/views/test_pages_pinned.py holds those), in every format that writes it,
pinned byte for byte: histories, the doctor's findings, `ls`, `probe`, `lint`, `diff-env`.

Why: the same gap as a run's pages. A history's lines (a change point's size and date, the days over their
target, the power of a search that found nothing, a notebook entry's distance from the change point), `ls`'s
next page, a finding's prefix, probe's CPU line were each read by no fast test, or only for a phrase in them.
The inputs are small and generated with a fixed seed: series with a step, a lone outlier run, failed runs,
days over their target, a cycle; findings of every severity; runs listed with and without a next page.
`IOLAB_PIN_PAGES=1` writes the pinned files anew (see tests/views/test_pages_pinned.py).
"""

from __future__ import annotations

import math
import random
from functools import partial

import pytest

from iolab.analysis.daily import daily_cov
from iolab.models import Finding, Run, Severity
from iolab.models.snapshot import BlockDevice, Change, FileSystem, NvmeSmart, Snapshot, TargetInfo
from iolab.models.workload import Series
from iolab.report.cross_sections import history_page
from iolab.report.findings import render_findings
from iolab.report.formats import FORMATS, renders
from iolab.report.html import render_html
from iolab.store.db import open_store
from iolab.views.history import SeriesHistory, latest_health, series_analysis, series_outlier_runs
from iolab.views.host_diff import HostDiff
from iolab.views.lint import LintView
from iolab.views.notebook import series_notebook
from iolab.views.run_list import ListedRun, RunList
from tests.chart_digest import drawn
from tests.views.test_pages_pinned import _check, _text

pytestmark = pytest.mark.usefixtures("utc")  # pinned in UTC, whatever the host's zone

DAY = 86_400.0
START = 1_767_225_600.0  # 2026-01-01 00:00 UTC


def _formats(view: str) -> list[str]:
    """The formats that write `view` as text (HTML draws charts: tests/report/test_chart_*.py hold those)."""
    return [fmt for fmt in FORMATS if view in renders(fmt) and fmt != "html"]


def _all(view: str, stem: str, obj: object) -> None:
    for fmt in _formats(view):
        render = renders(fmt)[view]
        _check(f"{stem}.{fmt}", render(obj))
        if fmt == "text":
            _check(f"{stem}.verbose.{fmt}", render(obj, verbose=True))


def _series(rng: random.Random, runs: int, step_at: int | None, spacing: float, name: str) -> Series:
    """Nightly-ish runs of one workload: COV a few percent, a step down at `step_at`, one run far off, one run
    with a failed point and one with none finished (NaN)."""
    values, failed = [], []
    for i in range(runs):
        level = 1e9 * (0.7 if step_at is not None and i >= step_at else 1.0)
        values.append(level * rng.lognormvariate(0, 0.03))
        failed.append(False)
    if runs > 12:
        values[runs // 3] *= 0.4  # a lone bad night
        failed[runs // 2] = True
        values[runs // 4] = math.nan
        failed[runs // 4] = True
    times = [START + i * spacing for i in range(runs)]
    return Series(
        "db1" if name != "imported" else "",
        "/dev/nvme0n1",
        f"id-{name}",
        name,
        "bw",
        list(range(10, 10 + runs)),
        times,
        values,
        failed,
        latest={"bw": values[-1], "iops": values[-1] / 2**20, "lat_mean": 1.25e6} if name == "stepped" else {},
        older=7 if name == "stepped" else 0,
    )


def _history(store, series: Series, notebook: bool = False) -> SeriesHistory:  # type: ignore[no-untyped-def]
    from iolab.views.history import series_history

    made = series_history(store, series, 2 * DAY, 0.02, 3)
    if notebook:  # tags and notes on its runs, placed against its change points as `history` places them
        ids = series.run_ids
        marks = {ids[i]: [("tag", "nightly")] for i in (0, 1, 2, 45)}
        marks[ids[40]] = [("note", "new firmware")]
        marks[ids[45]] = [("note", "fstrim"), ("tag", "nightly")]
        made.notebook = series_notebook(series, marks, [c.point.index for c in made.changes])
    return made


@pytest.fixture(scope="module")
def histories(tmp_path_factory) -> list[SeriesHistory]:
    store = open_store(tmp_path_factory.mktemp("home"))
    rng = random.Random(41)
    return [
        _history(store, _series(rng, 60, 40, DAY / 4, "stepped"), notebook=True),
        _history(store, _series(rng, 48, None, DAY / 6, "steady")),
        _history(store, _series(rng, 5, None, 3600.0, "imported")),
    ]


def test_a_history_in_every_format_is_the_pinned_one(histories):
    assert histories[0].changes and histories[0].outliers and histories[0].failed_runs  # what the lines say
    _all("history", "history", histories)
    with drawn() as figures:
        _check("history.html", render_html([], extra=[partial(history_page, histories)], svg=False)[0])
    _check("history.charts.txt", figures.text())


def test_the_prometheus_file_of_those_series_is_the_pinned_one(histories, tmp_path):
    """`export --format prometheus`: each series' latest figures, health and last change point as gauges."""
    from iolab.report.prometheus import render_textfile
    from iolab.views.series_metrics import series_metrics

    metrics = series_metrics(open_store(tmp_path / "home"), [h.series for h in histories], 2 * DAY, 0.035, 6)
    assert metrics[0].last_change_run == histories[0].changes[-1].run_at
    _check("series.prom", render_textfile(metrics))


def test_each_history_line_is_the_pinned_one_alone(histories):
    """One series at a time: each block's lines without the others'."""
    for i, h in enumerate(histories):
        _check(f"history-{i}.text", renders("text")["history"]([h]))


def test_a_history_of_days_without_a_cov_and_many_days_over_target_is_the_pinned_one():
    rng = random.Random(7)
    times = [START + i * DAY / 3 + rng.uniform(0, 600) for i in range(45)]
    values = [5e4 * rng.lognormvariate(0, 0.2 if i % 5 else 0.01) for i in range(45)]
    values[3:6] = [0.0] * 3  # a day whose runs all failed (a failed throughput run counts 0)
    values[9:12] = [5e4] * 3  # a day of three equal runs: COV 0
    days = daily_cov(times, values, 0.05)
    assert any(d.cov is None for d in days) and any(d.cov == 0.0 for d in days)
    assert sum(d.over_target for d in days) > 5
    series = Series("db1", "/data", "id", "noisy", "iops", list(range(45)), times, values, [False] * 45)
    health = latest_health(series, 2 * DAY, 0.05, 3)
    judged = series_analysis(series)
    made = SeriesHistory(series, health, [], 3, [], days, series_outlier_runs(series, judged.outlier_runs), judged)
    _all("history", "history-days", [made])
    with drawn() as figures:
        _check("history-days.html", render_html([], extra=[partial(history_page, [made])], svg=False)[0])
    _check("history-days.charts.txt", figures.text())


FINDINGS = [
    Finding("RES-FROM-CACHE", "results", Severity.CRITICAL, "read 1.0 GiB but sdb read 0 B", "randread-4k",
            {"fio read": "1.0 GiB", "device read": "0 B"}, "The page cache served it.", "Use direct=1."),
    Finding("RES-FROM-CACHE", "results", Severity.CRITICAL, "randread-64k: read 2.0 GiB but sdb read 0 B",
            "randread-64k"),
    Finding("RES-REPEAT-OUTLIER", "results", Severity.WARNING, "one repeat 3.5x slower", "seqread-1m", {"repeat": "2"}),
    Finding("HOST-GOVERNOR", "host", Severity.INFO, "governor powersave", "", {"cpu0": "powersave"}),
    Finding("HOST-THP", "host", Severity.INFO, "THP always", "host"),
    Finding("RES-STEADY", "results", Severity.NOT_EVALUATED, "no per-second log", "seqwrite-1m"),
    Finding("METHOD-RUNTIME", "method", Severity.WARNING, "runtime 1 s is short", "all workloads",
            confidence=0.6),
]  # fmt: skip


@pytest.mark.parametrize("count", [0, 1, len(FINDINGS)])
def test_the_doctor_s_findings_in_every_format_are_the_pinned_ones(count):
    _all("doctor", f"doctor-{count}", FINDINGS[:count])
    _check(
        f"doctor-{count}.colour.text", _text(lambda c: render_findings(FINDINGS[:count], c, verbose=False), colour=True)
    )


def test_a_short_listing_of_many_findings_counts_the_headlines_and_the_context_it_leaves_out():
    """After a run: the first few headlines listed, the rest counted by rule (a rule's findings on several
    subjects counted as one headline), information and rules not evaluated counted, and how to list them."""
    many = [
        Finding(f"RES-RULE-{i}", "results", Severity.WARNING if i % 3 else Severity.CRITICAL,
                f"w{i}: figure {i} off", f"w{i}", {"seen": str(i)})
        for i in range(9)
    ]  # fmt: skip
    many += [Finding("RES-RULE-4", "results", Severity.WARNING, f"w{i}: figure 4 off", f"w{i}") for i in (10, 11)]
    many += FINDINGS[3:]
    more = "`iolab show 3 --verbose` lists them"
    _check("doctor-short.text", _text(lambda c: render_findings(many, c, verbose=False, more=more)))
    _check("doctor-short-plain.text", _text(lambda c: render_findings(many[:2], c, verbose=False)))
    _check("doctor-none.text", _text(lambda c: render_findings(FINDINGS[5:6], c, verbose=False)))


def _listed(i: int, tags: list[str], imported: bool) -> ListedRun:
    run = Run(i, START + i * 3600, "complete" if i % 3 else "killed", f"plan {i}", "db1", "iolab run", "fio-3.33",
              "0.4", finished_at=START + i * 3600 + 125)  # fmt: skip
    origin = {"tools": ["fio"], "versions": ["fio-3.28"], "files": [f"/data/out{i}.json"]} if imported else None
    return ListedRun(run, tags, [f"note {i}"] if i % 2 else [], origin)


@pytest.mark.parametrize(
    ("left", "limit", "tag", "before"), [(0, 50, None, None), (12, 3, "nightly", None), (4, 50, None, 9)]
)
def test_ls_in_every_format_is_the_pinned_one(left, limit, tag, before):
    runs = [_listed(i, ["nightly"] if i % 2 else [], i == 4) for i in (6, 5, 4)]
    _all("run_list", f"ls-{left}-{limit}", RunList(runs, left, limit, tag, before))


@pytest.mark.parametrize(("tag", "before"), [(None, None), ("x y", None), (None, 3), ("nightly", 3)])
def test_an_empty_ls_in_every_format_is_the_pinned_one(tag, before):
    _all("run_list", f"ls-empty-{tag}-{before}".replace(" ", "_"), RunList([], 0, 50, tag, before))


def test_probe_s_snapshot_in_every_format_is_the_pinned_one():
    nvme = BlockDevice("nvme0n1", model="Samsung 990", size_bytes=2_500_000_000, rotational=False,
                       scheduler="none", wbt_lat_usec=0, read_ahead_kb=128, numa_node=1,
                       smart=NvmeSmart(critical_warning=0, percent_used=3),
                       host_settings={"scheduler": "none", "nr_requests": "1023"})  # fmt: skip
    sdb = BlockDevice("sdb", size_bytes=1_500_000_000, rotational=True, smart_error="smartctl: permission denied")
    fs = FileSystem("/data", "ext4", "/dev/sdb1", "8:17", ["rw", "relatime", "rw"], size_bytes=1000, used_bytes=994)
    for iommu in ([], ["dmar0", "dmar1"]):
        snapshot = Snapshot(
            hostname="db1", os_name="Debian 12", kernel="6.1.0", cmdline="quiet", cpu_model="EPYC 7302",
            cpus_online=16, numa_nodes={"0": "0-15"}, governors={"cpu0": "performance", "cpu1": "schedutil"},
            iommu_units=iommu, mem_total_bytes=64 << 30, devices=[nvme, sdb], filesystems=[fs],
            targets=[TargetInfo("/data/f", "sdb", "/data", "ext4")],
        )  # fmt: skip
        _all("snapshot", f"snapshot-{len(iommu)}", snapshot)


@pytest.mark.parametrize("count", [0, 3])
def test_lint_in_every_format_is_the_pinned_one(count):
    view = LintView(FINDINGS[:count], ["/data/f (write)"] if count else [], ["[r] exec_prerun=echo"] if count else [])
    _all("lint", f"lint-{count}", view)


@pytest.mark.parametrize("count", [0, 2])
def test_diff_env_in_every_format_is_the_pinned_one(count):
    changes = [Change("host", "kernel", "6.1.0", "6.5.0"), Change("nvme0n1", "scheduler", "", "none")][:count]
    _all("host_diff", f"diff-env-{count}", HostDiff(3, 7, changes))
