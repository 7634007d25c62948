"""`iolab history` and `iolab export` over a store built run by run with the Store's own writes.

The values are synthetic (a known 10% step at a known run, 1% noise), the
host snapshot is a real one of this machine with its kernel command line
edited from the step on: history must find the step and name the setting.
"""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from iolab.models import DirectionResult, Point, Result, Target
from iolab.probe import Root, take_snapshot
from iolab.store.db import open_store
from tests.in_process import assert_clean_error, iolab

STEP_AT = 40
SLOW_AT = 10  # a lone run at 60% (outside the 48 h health window and the runs tagged for compare)
RUNS = 70
BASE = 1_000_000_000.0  # bytes/s
GAINED = "spec_rstack_overflow=safe-ret"
START = 1_767_225_600.0  # 2026-01-01 00:00 UTC


def _point() -> Point:
    target = Target(
        path="/mnt/lustre/scratch", kind="directory", filename="/mnt/lustre/scratch/iolab.dat", size_bytes=64 << 30
    )
    return Point("seqread-1m", target, {"rw": "read", "bs": "1m", "iodepth": "32", "runtime": "30"})


def build_history(home, failed_run: int | None = None, slow_run: int | None = None) -> list[int]:
    """Hourly runs of one workload; bandwidth drops 10% from run index STEP_AT, where the cmdline gains GAINED;
    run index `slow_run` alone at 60% of its level (a lone outlier run)."""
    store = open_store(home)
    snapshot = take_snapshot(Root(), []).to_dict()
    after_step = {**snapshot, "cmdline": f"{snapshot.get('cmdline') or ''} {GAINED}".strip()}
    rng = random.Random(7)
    ids = []
    for i in range(RUNS):
        run_id = store.create_run("hourly", "iolab run plan.toml --quiet", ["/mnt/lustre/scratch"], "fio-3.33")
        started = START + i * 3600
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (started, run_id))
        snap = after_step if i >= STEP_AT else snapshot
        store.save_snapshot(run_id, "before", snap)
        store.save_snapshot(run_id, "after", snap)
        (point_id,) = store.plan_points(run_id, [_point()])
        if i == failed_run:
            store.fail_point(point_id, "fio exited 1", [], started)
            store.finish_run(run_id, "failed")
        else:
            bw = BASE * (0.9 if i >= STEP_AT else 1.0) * (1 + rng.gauss(0, 0.01)) * (0.6 if i == slow_run else 1.0)
            result = Result(
                {"read": DirectionResult("read", bw, bw / 2**20, 1000, int(bw * 30), 30_000)}, 1.0, 5.0, 1, "fio-3.33"
            )
            store.record_point(point_id, result, [], [], started, started + 30)
            store.finish_run(run_id, "complete")
        ids.append(run_id)
    store.close()
    return ids


def test_history_names_the_change_point_and_the_setting_that_changed(iolab_home):
    """The step is found and the lone slow run before it is named as an outlier run, not taken for a level."""
    ids = build_history(iolab_home, slow_run=SLOW_AT)
    proc = iolab("history", "--window", "48h", "--cov-target", "8%")
    assert proc.returncode == 0, proc.stderr
    assert GAINED in proc.stdout
    assert f"(run {ids[STEP_AT]}," in proc.stdout
    assert f"outlier runs: run {ids[SLOW_AT]} (" in proc.stdout and "-40% from the runs around it" in proc.stdout
    data = json.loads(iolab("history", "--json").stdout)
    (series,) = data
    assert [o["run_id"] for o in series["outlier_runs"]] == [ids[SLOW_AT]]
    assert series["metric"] == "bw" and series["runs"] == RUNS
    (cp,) = series["change_points"]
    assert cp["run"] == ids[STEP_AT] and cp["run_before"] == ids[STEP_AT - 1]
    assert cp["relative_change"] == pytest.approx(-0.10, abs=0.01)
    assert {"subject": "host", "what": "cmdline", "before": "", "after": GAINED} in cp["host_changes"]
    # 48 hourly runs in the window, 1% noise: healthy, and the latest value is after the step.
    assert series["health"]["runs"] == 48 and series["health"]["state"] == "healthy"
    assert series["latest"]["value"] == pytest.approx(0.9 * BASE, rel=0.05)


def test_a_failed_run_is_not_measured_and_said_never_counted_as_zero(iolab_home):
    ids = build_history(iolab_home, failed_run=RUNS - 3)
    (series,) = json.loads(iolab("history", "--json").stdout)
    assert series["failed_runs"] == 1
    # its point was not measured: no 0 pulls the window's mean down (it did: unhealthy, COV above 8%)
    assert series["health"]["state"] == "healthy" and series["health"]["runs"] == 47
    proc = iolab("history")
    assert "1 run with points that failed or were interrupted (their unfinished points not measured" in proc.stdout
    assert "counted as 0 throughput" not in proc.stdout
    # The change point is still found: failures are left out of the change-point search.
    assert [cp["run"] for cp in series["change_points"]] == [ids[STEP_AT]]


def test_history_reads_each_series_newest_runs_and_says_how_many_it_left_out(iolab_home):
    ids = build_history(iolab_home)
    proc = iolab("history", "--last", "25")
    assert proc.returncode == 0, proc.stderr
    assert "(bandwidth, 25 runs)" in proc.stdout
    assert f"45 older runs left out: `iolab history --last {RUNS}` or `--all` shows them" in proc.stdout
    assert "no change points" in proc.stdout  # the step is 30 runs back, before the 25 read
    assert f"(run {ids[STEP_AT]}," in iolab("history", "--last", "40").stdout  # 10 runs before it, 30 after
    (series,) = json.loads(iolab("history", "--last", "25", "--json").stdout)
    assert series["runs"] == 25 and series["older_runs_left_out"] == RUNS - 25
    (whole,) = json.loads(iolab("history", "--all", "--json").stdout)
    assert whole["runs"] == RUNS and whole["older_runs_left_out"] == 0
    assert "older run" not in iolab("history").stdout  # 70 runs: the default 500 holds them all
    assert_clean_error(iolab("history", "--last", "0"))


def test_the_html_history_says_how_many_older_runs_it_left_out(iolab_home, tmp_path):
    build_history(iolab_home)
    page = tmp_path / "history.html"
    assert iolab("history", "--last", "25", "--html", str(page)).returncode == 0
    assert "45 older runs left out" in page.read_text()


def test_ls_says_how_to_list_the_older_runs(iolab_home):
    ids = build_history(iolab_home)
    first = iolab("ls", "--limit", "20")
    assert first.returncode == 0, first.stderr
    assert f"50 older runs not shown: `iolab ls --before {ids[-20]} --limit 20` lists the next 20" in first.stdout
    last = iolab("ls", "--limit", "20", "--before", str(ids[10]))
    assert f"│ {ids[0]:>3} │" in last.stdout and "older run" not in last.stdout
    assert "older run" not in iolab("ls", "--limit", "100").stdout
    assert len(json.loads(iolab("ls", "--json", "--before", str(ids[5])).stdout)) == 5


def test_history_filters_and_bad_input(iolab_home):
    build_history(iolab_home)
    assert_clean_error(iolab("history", "--workload", "no-such-workload"))
    assert_clean_error(iolab("history", "--window", "two days"))
    assert_clean_error(iolab("history", "--cov-target", "lots"))
    proc = iolab("history", "--target", "/mnt/lustre/scratch", "--workload", "seqread-1m")
    assert proc.returncode == 0 and "seqread-1m on /mnt/lustre/scratch" in proc.stdout


def test_prometheus_export_parses(iolab_home, tmp_path):
    from prometheus_client.parser import text_string_to_metric_families

    ids = build_history(iolab_home, failed_run=5)
    out = tmp_path / "iolab.prom"
    proc = iolab("export", "--prometheus", str(out))
    assert proc.returncode == 0, proc.stderr
    families = {f.name: f for f in text_string_to_metric_families(out.read_text())}
    (bw,) = families["iolab_bandwidth_bytes_per_second"].samples
    assert bw.labels["workload"] == "seqread-1m" and bw.labels["target"] == "/mnt/lustre/scratch"
    (series,) = json.loads(iolab("history", "--json").stdout)
    assert bw.labels["workload_id"] == series["workload"]  # stable: the identity, not anything of one run
    (change,) = families["iolab_last_change_point_run"].samples
    assert change.value == ids[STEP_AT] and change.labels == bw.labels
    (change_time,) = families["iolab_last_change_point_timestamp_seconds"].samples
    assert change_time.value == START + STEP_AT * 3600
    assert bw.value == pytest.approx(0.9 * BASE, rel=0.05)
    (cov,) = families["iolab_rolling_cov_ratio"].samples
    assert 0 < cov.value < 0.08  # the failed run is long out of the 48 h window
    (healthy,) = families["iolab_healthy"].samples
    assert healthy.value == 1.0
    (last,) = families["iolab_last_run_timestamp_seconds"].samples
    assert last.value == START + (RUNS - 1) * 3600


def test_csv_and_json_export_hold_every_point(iolab_home, tmp_path):
    build_history(iolab_home, failed_run=5)
    csv_path, json_path = tmp_path / "points.csv", tmp_path / "points.json"
    proc = iolab("export", "--csv", str(csv_path), "--json", str(json_path))
    assert proc.returncode == 0, proc.stderr
    assert len(csv_path.read_text().splitlines()) == RUNS + 1
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text())))
    assert rows[0]["run_started"] == "2026-01-01T00:00:00+00:00" and rows[-1]["run_started"].startswith("2026-01-03T21")
    assert rows[0]["kernel"] and rows[0]["host"] and len({row["workload"] for row in rows}) == 1
    document = json.loads(json_path.read_text())
    assert len(document["runs"]) == RUNS and len(document["points"]) == RUNS
    assert document["runs"][0]["started"] == rows[0]["run_started"] and document["runs"][0]["environment"]["kernel"]
    assert_clean_error(iolab("export"))
    assert_clean_error(iolab("export", "--csv", str(tmp_path / "missing-dir" / "x.csv")))


def test_a_note_on_a_run_is_in_the_notebook_of_history_text_and_json(iolab_home):
    ids = build_history(iolab_home)
    assert iolab("note", str(ids[14]), "checksums on").returncode == 0
    assert iolab("tag", f"{ids[STEP_AT]}-{ids[-1]}", "after-step").returncode == 0
    text = iolab("history").stdout
    assert "  notebook:" in text
    assert f"run {ids[14]} at " in text and '"checksums on" (26 runs before the change point at run' in text
    assert f"runs {ids[STEP_AT]} to {ids[-1]} ({RUNS - STEP_AT} runs" in text and "at the change point" in text
    assert "per day: " in text and "over the 8% target" in text
    (series,) = json.loads(iolab("history", "--json").stdout)
    note = next(e for e in series["notebook"] if e["kind"] == "note")
    assert note["runs"] == [ids[14]] and note["time"] == START + 14 * 3600
    assert note["change_point_run"] == ids[STEP_AT] and note["runs_from_change_point"] == 14 - STEP_AT
    assert sum(d["runs"] for d in series["days"]) == RUNS and series["days_over_target"] == 0


def test_history_and_compare_write_html_pages_with_their_charts(iolab_home, tmp_path):
    """The page holds the series chart (rolling COV, target, the change point annotated, a note at its run)
    and the comparison's bars; the SVG text says what a reader needs; the lone slow run is named and marked."""
    ids = build_history(iolab_home, slow_run=SLOW_AT)
    iolab("note", str(ids[14]), "checksums on")
    page = tmp_path / "history.html"
    proc = iolab("history", "--html", str(page), "--png", str(tmp_path / "png"))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert 'id="chart-history1-seqread-1m-series"' in html
    assert "rolling COV (%)" in html and "target 8%" in html
    assert f"-10% at run {ids[STEP_AT]}" in html and GAINED in html
    svg = html[html.index('id="chart-history1-seqread-1m-series"') :]
    assert f"checksums on (run {ids[14]})" in svg[: svg.index("</svg>")]
    assert "per-day COV" in html
    assert f"run {ids[SLOW_AT]} (" in html[html.index("outlier runs") :] and "outlier run" in svg[: svg.index("</svg>")]
    assert (tmp_path / "png" / "history1-seqread-1m-series.png").stat().st_size > 10_000

    # Runs before the step against runs after it: slower, with its CI bars.
    page = tmp_path / "compare.html"
    from iolab.store.tags import add_tags

    store = open_store(iolab_home)
    for run_id in ids[:10]:
        add_tags(store, [run_id], ["before"])
    for run_id in ids[-10:]:
        add_tags(store, [run_id], ["after"])
    store.close()
    proc = iolab("compare", "tag:before", "tag:after", "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    assert 'id="chart-comparison-bars"' in html and "bars: geometric mean of the repeats" in html
    assert "slower -10." in html or "slower -9." in html


def test_show_prints_a_runs_tags_and_notes_as_written(iolab_home):
    ids = build_history(iolab_home)
    assert iolab("tag", str(ids[0]), "baseline").returncode == 0
    assert iolab("note", str(ids[0]), "after BIOS 2.1 [red]not markup[/red] <b>").returncode == 0
    shown = iolab("show", str(ids[0]))
    assert shown.returncode == 0, shown.stderr
    assert "tags: baseline" in shown.stdout
    assert "note: after BIOS 2.1 [red]not markup[/red] <b>" in shown.stdout


def test_compare_takes_ranges_lists_and_time_windows_for_each_side(iolab_home):
    ids = build_history(iolab_home)
    before, after = f"{ids[0]}-{ids[9]}", f"{ids[-10]}-{ids[-1]}"
    by_range = json.loads(iolab("compare", before, after, "--json").stdout)
    assert by_range["a"]["runs"] == ids[:10] and by_range["b"]["runs"] == ids[-10:]
    (row,) = by_range["workloads"]
    assert row["verdict"] == "slower" and row["change"] == pytest.approx(-0.10, abs=0.02)
    # The same runs by the hours they started (hourly from 2026-01-01 00:00 UTC), and as a list.
    by_time = json.loads(iolab("compare", "..2026-01-01T09:00Z", "2026-01-03T12:00Z..", "--json").stdout)
    assert by_time["a"]["runs"] == ids[:10] and by_time["b"]["runs"] == ids[-10:]
    listed = json.loads(iolab("compare", f"{ids[0]},{ids[1]}-{ids[9]}", after, "--json").stdout)
    assert listed["a"]["runs"] == ids[:10]
    # --since/--until narrow both sides: the last 10 runs against the 10 before them.
    narrowed = iolab("compare", f"1-{ids[59]}", f"{ids[60]}-{ids[-1]}", "--since", "2026-01-03T02:00Z", "--json")
    document = json.loads(narrowed.stdout)
    assert document["a"]["runs"] == ids[50:60] and document["b"]["runs"] == ids[60:]
    assert document["a"]["label"] == f"1-{ids[59]} (since 2026-01-03T02:00Z)"


def test_compare_refuses_what_is_not_a_selection_in_one_line(iolab_home):
    ids = build_history(iolab_home)
    assert "runs backwards" in assert_clean_error(iolab("compare", f"{ids[9]}-{ids[0]}", str(ids[-1])))
    assert "not a run selection" in assert_clean_error(iolab("compare", "6-13x", str(ids[-1])))
    assert "is not a date or time" in assert_clean_error(iolab("compare", "1-5", "6-10", "--since", "yesterday"))
    assert "in both groups" in assert_clean_error(iolab("compare", f"{ids[0]}-{ids[9]}", f"{ids[5]}-{ids[15]}"))
    assert "no run of" in assert_clean_error(iolab("compare", "1-5", "6-10", "--until", "2025-12-31"))


def test_tag_and_note_take_several_runs_and_refuse_a_run_written_as_a_tag(iolab_home):
    from iolab.store.tags import add_tags

    ids = build_history(iolab_home)
    tagged = iolab("tag", f"{ids[0]}-{ids[2]}", "before", "baseline")
    assert tagged.returncode == 0, tagged.stderr
    assert f"3 runs ({ids[0]}, {ids[1]}, {ids[2]})" in tagged.stdout
    assert [r["id"] for r in json.loads(iolab("ls", "--tag", "before", "--json").stdout)] == ids[2::-1]
    # The old form read `7 8` as tags of run 6: refused, saying how to write it, and nothing is tagged.
    refused = assert_clean_error(iolab("tag", str(ids[5]), str(ids[6]), str(ids[7]), "after"))
    assert f"`iolab tag {ids[5]},{ids[6]},{ids[7]} after`" in refused
    assert json.loads(iolab("ls", "--tag", "after", "--json").stdout) == []
    assert iolab("tag", f"{ids[0]},{ids[2]}", "before", "--remove").returncode == 0
    # A tag the old form left (run 6 tagged "7") can still be taken off.
    store = open_store(iolab_home)
    add_tags(store, [ids[5]], [str(ids[6])])
    store.close()
    assert iolab("tag", str(ids[5]), str(ids[6]), "--remove").returncode == 0
    assert [r["id"] for r in json.loads(iolab("ls", "--tag", "before", "--json").stdout)] == [ids[1]]
    noted = iolab("note", f"{ids[3]}-{ids[4]}", "after the BIOS update")
    assert noted.returncode == 0 and f"note added to 2 runs ({ids[3]}, {ids[4]})" in noted.stdout
    runs = {r["id"]: r for r in json.loads(iolab("ls", "--limit", str(RUNS), "--json").stdout)}
    assert runs[ids[3]]["notes"] == runs[ids[4]]["notes"] == ["after the BIOS update"]


def test_eighteen_quiet_hourly_runs_name_no_outlier_run_five_percent_off_and_say_what_they_cannot_tell(iolab_home):
    """Issue 42: 18 hourly runs of one plan on a throttled device (0.3% noise), one 5% below its neighbours:
    no "outlier runs:" line; the history says the smallest step its runs could show and that 17 hours
    cannot tell a daily cycle from a step."""
    store = open_store(iolab_home)
    rng = random.Random(42)
    for i in range(18):
        run_id = store.create_run("hourly", "iolab run plan.toml --quiet", ["/mnt/lustre/scratch"], "fio-3.33")
        started = START + i * 3600
        store.conn.execute("UPDATE runs SET started_at = ? WHERE id = ?", (started, run_id))
        (point_id,) = store.plan_points(run_id, [_point()])
        bw = BASE * (1 + rng.gauss(0, 0.003)) * (0.95 if i == 9 else 1.0)
        result = Result(
            {"read": DirectionResult("read", bw, bw / 2**20, 1000, int(bw * 30), 30_000)}, 1.0, 5.0, 1, "fio-3.33"
        )
        store.record_point(point_id, result, [], [], started, started + 30)
        store.finish_run(run_id, "complete")
    store.close()
    proc = iolab("history")
    assert proc.returncode == 0, proc.stderr
    assert "outlier runs:" not in proc.stdout
    assert "no change points: any step over 5% would show in 18 runs at COV" in proc.stdout
    assert "the runs span 0.7 days: a daily cycle cannot be told from a step before they span three" in proc.stdout
    (series,) = json.loads(iolab("history", "--json").stdout)
    judged = series["change_points_judged"]
    assert series["outlier_runs"] == [] and judged["runs"] == 18 and not judged["too_few_runs"]
    assert judged["cycles"][0]["state"] == "too short" and judged["detectable_step"] < 0.05
