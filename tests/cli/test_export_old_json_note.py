"""`export --json FILE` (the spelling from before --json printed JSON) still writes FILE, and says the new
spelling on stderr: stdout may be the export itself, piped on, and a note in it would break what reads it.
CliRunner's output mixes both streams, so the fast tier could not tell (fresh seed 78612 found err=True ->
False survived)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.cli.history import _old_json_file
from iolab.errors import UserError


def test_the_old_json_file_spelling_is_taken_with_its_note_on_stderr_only(capsys):
    assert _old_json_file([Path("runs.json")], as_json=True) == Path("runs.json")
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == "note: `--json runs.json` is `--format json -o runs.json` now (--json alone prints JSON)\n"


def test_no_word_is_no_file_and_a_word_without_json_or_a_second_word_is_refused(capsys):
    assert _old_json_file(None, as_json=True) is None and _old_json_file([], as_json=False) is None
    for words, as_json in (([Path("a")], False), ([Path("a"), Path("b")], True)):
        with pytest.raises(UserError, match="export takes no arguments"):
            _old_json_file(words, as_json)
    assert capsys.readouterr() == ("", "")
