"""The benchmark figures of README.md and docs/*.md are what bench/results hold: written by
bench/readme_figures.py, checked here.

The README once said the stopping sweeps' peaks were "within 3%" of each other while the results held a
ratio of 1.032, and "never slower in 7 pairs" where one pair was slower before rounding: figures typed by
hand drift from the files they quote. Here every marked figure is recomputed from bench/results, and every
figure is shown to follow its results (change the numbers, and the text changes), so a marker cannot sit
on a number nothing reads.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("readme_figures", ROOT / "bench" / "readme_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["readme_figures"] = module
    spec.loader.exec_module(module)
    return module


figures = _load()


def _texts() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in figures.pages()}


@pytest.mark.parametrize("page", sorted(_texts()))
def test_every_page_agrees_with_bench_results(page):
    _, changed = figures.filled(_texts()[page])
    assert not changed, f"{page} disagrees with bench/results in {changed}: run bench/readme_figures.py"


def test_every_figure_is_on_exactly_one_page():
    """A figure moved to a docs page is still checked; one on two pages would be text in two places."""
    assert figures.problems(_texts()) == []


def test_the_pages_are_readme_and_every_docs_page():
    names = set(_texts())
    assert "README.md" in names and {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= names


def test_a_figure_missing_or_marked_twice_is_named():
    texts = {"README.md": "<!--fig:startup-->1<!--/fig-->", "docs/a.md": "<!--fig:startup-->1<!--/fig-->"}
    found = figures.problems(texts)
    assert any("startup (README.md, docs/a.md)" in line for line in found)
    assert any("no marker on any page" in line and "history_scale" in line for line in found)


def test_a_marker_naming_no_figure_is_an_error():
    with pytest.raises(KeyError):
        figures.filled("<!--fig:no.such.figure-->1.00<!--/fig-->")


def _scaled(value, factor: float):
    """Every number in a JSON value changed: floats multiplied by `factor`, counts plus one, flags flipped."""
    if isinstance(value, dict):
        return {k: _scaled(v, factor) for k, v in value.items()}
    if isinstance(value, list):
        return [_scaled(v, factor) for v in value]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * factor
    return value


@pytest.mark.parametrize("key", sorted(figures.FIGURES))
def test_each_figure_follows_its_results(key, tmp_path):
    """Scale the numbers of the results a figure reads, and its text must change: it reads them."""
    read: list[str] = []
    real = figures.reader(figures.RESULTS)

    def watching(name: str) -> dict:
        read.append(name)
        return real(name)

    before = figures.FIGURES[key](watching)
    assert read, f"{key} reads no results"
    for name in set(read):
        record = json.loads((figures.RESULTS / f"{name}.json").read_text())
        (tmp_path / f"{name}.json").write_text(json.dumps(_scaled(record, 1.37)))
    assert figures.FIGURES[key](figures.reader(tmp_path)) != before


def _sweeps(tmp_path: Path, ratios: list[float]) -> Path:
    same = {f"w{i}": {"knee": True, "peak": True, "peak_iops_ratio": r} for i, r in enumerate(ratios)}
    record = {"sweeps": {"qd-sweep": {"speedup": 1.4, "same": same}}}
    (tmp_path / "stopping_sweeps.json").write_text(json.dumps(record))
    return tmp_path


def test_the_peaks_range_is_the_results_whole_range_unrounded(tmp_path):
    """The README said "within 3%" against a ratio of 1.032: the figure now shows the range itself."""
    text = figures.FIGURES["stopping_sweeps.answers"](figures.reader(_sweeps(tmp_path, [0.9889, 1.0202, 1.032])))
    assert "0.989–1.032" in text


def _pairs(tmp_path: Path, ours: list[float], theirs: list[float]) -> Path:
    rounds = {"iolab": [{"process_s": s} for s in ours], "fio_plot": [{"process_s": s} for s in theirs]}
    (tmp_path / "fioplot_collection.json").write_text(json.dumps({"json_1000": {"every_round": rounds}}))
    return tmp_path


def test_a_pair_slower_before_rounding_is_counted_slower(tmp_path):
    """The README said "never slower in 7 pairs" where one pair was 0.4625 s against 0.4563 s."""
    folder = _pairs(tmp_path, [0.4773, 0.4625, 0.4475], [0.4832, 0.4563, 0.4663])
    assert "faster in 2 of 3 pairs, slower in 1" in figures.FIGURES["fioplot.pairs"](figures.reader(folder))


def test_check_mode_names_the_figure_that_differs(tmp_path):
    shutil.copy(figures.RESULTS / "startup.json", tmp_path / "startup.json")
    readme = "`iolab --help`: <!--fig:startup-->0.01 s; 0.02 s<!--/fig-->"
    new, changed = figures.filled(readme, tmp_path)
    assert changed == ["startup"] and "0.01 s; 0.02 s" not in new
    assert figures.filled(new, tmp_path)[1] == []
