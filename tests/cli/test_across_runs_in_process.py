"""`compare`, `history` and `export` in process (issue 41 item 8), on runs stored with the Store's own writes:
their options' limits (a window above zero and at most ten years, a percentage above zero and below
1000%), what each writes where, and the one-line refusals; the end-to-end tests run them as subprocesses."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest
from typer.testing import CliRunner

from iolab.cli import app
from iolab.cli.history import MAX_WINDOW_S, _compare_params, _fraction, _window_seconds
from iolab.errors import UserError
from iolab.store.db import open_store
from tests.cli.test_commands_in_process import invoke
from tests.store.test_series import MB, RAND_QD1, SEQ_READ, _bw, _run

HOUR = 3600.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("48h", 48 * HOUR), ("90m", 5400), ("90min", 5400), (" 7d ", 7 * 86400), ("1.5h", 5400), ("3650d", MAX_WINDOW_S)],
)
def test_a_window_is_a_duration_in_minutes_hours_or_days(text, seconds):
    assert _window_seconds(text) == seconds


@pytest.mark.parametrize(("text", "said"), [("0h", "above zero"), ("3651d", "ten years"), ("2w", "not a duration")])
def test_a_window_of_nothing_beyond_ten_years_or_in_weeks_is_refused(text, said):
    with pytest.raises(UserError, match=said):
        _window_seconds(text)


@pytest.mark.parametrize(("text", "value"), [("8%", 0.08), ("0.08", 0.08), (" 12.5 % ", 0.125), ("999%", 9.99)])
def test_a_percentage_is_written_with_or_without_its_sign(text, value):
    assert _fraction(text, "--cov-target") == pytest.approx(value)


@pytest.mark.parametrize("text", ["0", "0%", "1000%", "10", "-1%", "lots", "%"])
def test_a_percentage_of_zero_or_of_1000_and_more_is_refused(text):
    with pytest.raises(UserError, match="--cov-target"):
        _fraction(text, "--cov-target")


def test_a_noise_floor_may_be_zero_but_not_reach_the_equivalence_margin():
    from iolab.analysis.compare import CompareParams

    assert _compare_params(None) == CompareParams()
    assert _compare_params("0").noise_floor == 0.0 and _compare_params("2%").noise_floor == pytest.approx(0.02)
    margin = CompareParams().equivalence_margin
    with pytest.raises(UserError, match="equivalence margin"):
        _compare_params(f"{margin * 100:g}%")
    assert _compare_params(f"{margin * 100 * 0.99:g}%").noise_floor < margin


@pytest.fixture
def lab(iolab_home):  # type: ignore[no-untyped-def]
    """Two runs of a sequential read (400 then 300 MB/s, three repeats each) and one of a QD1 random read."""
    store = open_store(iolab_home)
    a, _ = _run(store, "seq", SEQ_READ, [_bw(400), _bw(404), _bw(398)])
    b, _ = _run(store, "seq", SEQ_READ, [_bw(300), _bw(302), _bw(299)])
    c, _ = _run(store, "rand", RAND_QD1, [_bw(40)], directory="/other")
    store.conn.commit()
    store.close()
    return a, b, c


def test_compare_refuses_a_run_in_both_groups_and_groups_with_nothing_in_common(lab):
    a, b, c = lab
    code, said = invoke("compare", f"{a},{b}", str(b))
    assert code == 2 and f"run(s) {b} are in both groups" in said
    code, said = invoke("compare", str(a), str(c))
    assert code == 2 and "have no workload in common" in said
    code, said = invoke("compare", str(a), str(b), "--noise-floor", "50%")
    assert code == 2 and "equivalence margin" in said


def test_compare_s_regression_gate_names_the_slower_workloads_and_exits_1(lab):
    a, b, _ = lab
    shown = CliRunner().invoke(app, ["compare", str(a), str(b), "--fail-on-regression", "5%"])
    assert shown.exit_code == 1
    assert "regression gate failed: 1 workload(s) slower by more than 5.0%: seq" in " ".join(shown.output.split())
    assert CliRunner().invoke(app, ["compare", str(a), str(b), "--fail-on-regression", "30%"]).exit_code == 0


def test_history_prints_each_series_and_refuses_a_filter_nothing_matches(lab):
    shown = CliRunner().invoke(app, ["history", "--json"])
    assert shown.exit_code == 0, shown.output
    series = json.loads(shown.stdout)
    assert sorted((s["name"], s["runs"], s["latest"]["value"]) for s in series) == [
        ("rand", 1, None),  # a QD1 workload is judged by its latency, which this one has not
        ("seq", 2, pytest.approx(300.333 * MB, rel=1e-3)),
    ]
    code, said = invoke("history", "--host", "nowhere", "--workload", "seq")
    assert code == 2 and "no runs match host 'nowhere', workload 'seq'" in said
    text = CliRunner().invoke(app, ["history", "--target", "/data"]).stdout
    assert "seq" in text and "rand" not in text
    code, said = invoke("history", "--window", "0h")
    assert code == 2 and "above zero" in said


def test_history_of_an_empty_store_says_to_start_a_run(iolab_home):
    open_store(iolab_home).close()
    code, said = invoke("history")
    assert code == 2 and "there are no runs yet: start one with `iolab run`" in said


def test_history_last_keeps_each_series_newest_runs(lab, iolab_home):
    store = open_store(iolab_home)
    _run(store, "seq", SEQ_READ, [_bw(350)])
    store.close()
    (seq,) = [
        s
        for s in json.loads(CliRunner().invoke(app, ["history", "--json", "--last", "2"]).stdout)
        if s["name"] == "seq"
    ]
    assert (seq["runs"], seq["older_runs_left_out"], seq["latest"]["value"]) == (2, 1, 350 * MB)
    every = json.loads(CliRunner().invoke(app, ["history", "--json", "--last", "2", "--all"]).stdout)
    assert [(s["runs"], s["older_runs_left_out"]) for s in every if s["name"] == "seq"] == [(3, 0)]


def test_export_writes_each_format_into_its_file_and_csv_has_every_point(lab, tmp_path):
    prom, table = tmp_path / "iolab.prom", tmp_path / "points.csv"
    shown = CliRunner().invoke(app, ["export", "--prometheus", str(prom), "--csv", str(table), "--min-runs", "2"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == ""  # only files were asked for
    assert os.stat(prom).st_mode & 0o777 == 0o644 and os.stat(table).st_mode & 0o777 == 0o600
    assert "iolab_bandwidth_bytes_per_second{" in prom.read_text()
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert len(rows) == 7 and sorted({row["name"] for row in rows}) == ["rand", "seq"]


def test_export_takes_the_old_json_file_word_with_a_note_and_no_other_word(lab, tmp_path):
    old = tmp_path / "old.json"
    shown = CliRunner().invoke(app, ["export", "--json", str(old)])
    assert shown.exit_code == 0, shown.output
    assert f"is `--format json -o {old}` now" in shown.output and json.loads(old.read_text())
    code, said = invoke("export", str(old))
    assert code == 2 and "export takes no arguments" in said
    code, said = invoke("export", "--json", str(old), str(tmp_path / "two.json"))
    assert code == 2 and "export takes no arguments" in said
    code, said = invoke("export", "--csv", str(tmp_path / "missing" / "dir" / "x.csv"))
    assert code == 2 and "cannot write" in said
