"""bench/mutation_notes.json says why each surviving mutant lives; a note is matched by (module, change, the
line's text), so one whose module is gone or whose line was rewritten is never read again and only looks
like an explanation (four were: fio/option_types.py, gone, and three rewritten lines). `stale_notes` finds
them and `--sweep-notes` drops them; the notes held here must have none. `--modules` takes folders too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import mutation  # noqa: E402

SOURCE = "LIMIT = 3\n\ndef f(x):\n    return x < LIMIT and x > 0\n"


def _note(module: str, change: str, code: str) -> dict:
    return {"module": module, "change": change, "code": code, "equivalent": True, "why": "w"}


def test_a_note_is_stale_when_its_module_line_or_change_is_gone(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    current = [
        _note("m.py", "3 -> 4", "LIMIT = 3"),
        _note("m.py", "Lt -> LtE", "return x < LIMIT and x > 0"),
        _note("m.py", "And -> Or", "return x < LIMIT and x > 0"),
    ]
    stale = [
        _note("gone.py", "3 -> 4", "LIMIT = 3"),  # the module is gone
        _note("m.py", "3 -> 4", "LIMIT = 4"),  # the line was rewritten
        _note("m.py", "Mult -> Div", "return x < LIMIT and x > 0"),  # the line holds no such site
    ]
    assert mutation.stale_notes(current + stale, src=tmp_path) == stale


def test_a_sweep_drops_only_the_stale_notes(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text(SOURCE)
    monkeypatch.setattr(mutation, "SRC", tmp_path)
    kept, gone = _note("m.py", "3 -> 4", "LIMIT = 3"), _note("m.py", "3 -> 4", "LIMIT = 4")
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps([kept, gone]))
    assert mutation.stale_notes([kept, gone]) == [gone]
    assert mutation.sweep_notes(notes) == [gone]
    assert json.loads(notes.read_text()) == [kept]


def test_the_notes_held_have_none_stale():
    entries = json.loads(mutation.NOTES.read_text())
    assert [(n["module"], n["change"], n["code"]) for n in mutation.stale_notes(entries)] == []


def test_modules_may_be_named_by_folder(tmp_path):
    for name in ("a/__init__.py", "a/x.py", "a/b/y.py", "top.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert mutation.expanded(["a/", "top.py", "a/x.py"], src=tmp_path) == ["a/b/y.py", "a/x.py", "top.py"]
    with pytest.raises(SystemExit, match="no module or folder 'nope'"):
        mutation.expanded(["nope"], src=tmp_path)
