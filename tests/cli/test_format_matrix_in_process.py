"""Every command that prints, but `run` (which starts fio: tests/cli/test_format_matrix.py), in every format,
in process: it renders (JSON that parses, CSV with a header and rows of its width, a whole HTML page ...) or
refuses in one line, exit 2, naming a format that works. The same matrix as the end-to-end one, read from
the command tree, so the fast tier reaches every renderer of every view (issue 41 item 8)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from iolab.report.formats import FORMATS
from tests.cli.test_format_matrix import FIO_JSON, JOB, PRINTING, _argv, _invoke, renders_or_refuses
from tests.in_process import iolab

COMMANDS = [path for path in PRINTING if path != ("run",)]


def two_imports(place: Path) -> Path:
    """`place` with a home (place/home) of two imports of one real fio output, each with this host's snapshot,
    and a job file for `lint` (place/job.fio)."""
    again = place / "again.json"
    again.write_text(FIO_JSON.read_text() + "\n")
    for path in (FIO_JSON, again):
        done = iolab("import", "--snapshot", str(path), env={"IOLAB_HOME": str(place / "home")})
        assert done.returncode == 0, done.stderr
    (place / "job.fio").write_text(JOB)
    return place


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A store of two imports of one real fio output (`two_imports`) and a data folder."""
    place = two_imports(tmp_path_factory.mktemp("formats"))
    (place / "data").mkdir()
    return place


def test_the_matrix_leaves_out_only_run():
    assert len(COMMANDS) == len(PRINTING) - 1 >= 10


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_a_command_renders_a_format_or_refuses_naming_one_that_works(path, fmt, lab, capsys, monkeypatch):
    renders_or_refuses(path, fmt, lab, capsys, monkeypatch)


def _formats(path: tuple[str, ...], lab, capsys, monkeypatch) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """What the command prints in each format it writes (those it refuses left out)."""
    monkeypatch.setenv("IOLAB_HOME", str(lab / "home"))
    monkeypatch.chdir(lab)
    shown = {}
    for fmt in FORMATS:
        code, out, _ = _invoke(_argv(lab, path, fmt), capsys, monkeypatch)
        if code == 0:
            shown[fmt] = out
    return shown


def _words(text: str) -> str:
    """The text as words: table borders, Markdown's escapes and line wraps gone."""
    return " ".join(re.sub(r"[│┃|]", " ", text.replace("\\", "")).split())


def _in(value: object, text: str) -> bool:
    return _words(str(value)) in _words(text)


@pytest.mark.parametrize("path", [("lint",), ("doctor",)], ids=" ".join)
def test_every_format_of_a_finding_listing_names_each_finding_its_evidence_and_fix(path, lab, capsys, monkeypatch):
    shown = _formats(path, lab, capsys, monkeypatch)
    document = json.loads(shown.pop("json"))
    findings = document["findings"] if isinstance(document, dict) else document
    assert findings and set(shown) >= {"text", "markdown"}
    # a rule's other findings are "also (n)" lines; a rule not evaluated is one line of why
    first = list({f["rule_id"]: f for f in reversed(findings) if f["severity"] != "not-evaluated"}.values())
    for fmt, text in shown.items():
        for f in first:
            assert _in(f["rule_id"], text) and _in(f["title"], text), (fmt, f["rule_id"])
            assert all(_in(f"{k}={v}", text) for k, v in f["evidence"].items()), (fmt, f["rule_id"])
            assert _in(f["fix"], text), (fmt, f["rule_id"])


def test_every_format_of_the_run_list_holds_each_run_s_id_status_label_and_targets(lab, capsys, monkeypatch):
    shown = _formats(("ls",), lab, capsys, monkeypatch)
    runs = json.loads(shown.pop("json"))
    assert [run["id"] for run in runs] == [2, 1]  # newest first
    for fmt, text in shown.items():
        rows = [line for line in text.splitlines() if re.search(r"\b(1|2)\b", line)]
        for run in runs:
            (row,) = [r for r in rows if re.match(rf"^\W*{run['id']}\b", r.strip("│|<>tdr "))] or [text]
            assert _in(run["status"], row) and _in(run["label"], row), (fmt, run["id"])
            assert all(_in(t, text) for t in run["targets"]), (fmt, run["id"])
