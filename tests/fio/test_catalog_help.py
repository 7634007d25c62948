"""What the installed fio knows, read from what fio 3.33 itself printed, through a fio on PATH that prints those
saved answers: option names, engine options, aliases, and no answer without fio.

`fio --cmdhelp=NAME` of each option is the one recording of every option table row (tests/data/fio/
cmdhelp-fio-3.33.txt, which tests/models/test_option_table_against_fio.py reads too); fio prints the same block
for an option's alias. The answers to other arguments are in tests/data/fio/cmdhelp."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from iolab.fio import catalog

DATA = Path(__file__).parents[1] / "data" / "fio"
SAVED = DATA / "cmdhelp"
RECORDED = DATA / "cmdhelp-fio-3.33.txt"


def _answers(directory: Path) -> Path:
    """The saved answers, one file per argument: tests/data/fio/cmdhelp's, and `cmdhelp=NAME.txt` for each
    option of the recording under its name and each alias it declares (each `--cmdhelp=NAME` block ends with
    fio's blank line; the recording puts one more between blocks)."""
    shutil.copytree(SAVED, directory)
    for block in RECORDED.read_text().split("\n\n\n"):
        lines = block.strip("\n").splitlines()
        if not lines:
            continue
        aliases = [line.partition(": ")[2] for line in lines[1:] if line.strip().startswith("alias:")]
        for name in [lines[0].partition(":")[0].strip(), *aliases]:
            (directory / f"cmdhelp={name}.txt").write_text("\n".join(lines) + "\n\n")
    return directory


def _fio(directory: Path, body: str) -> Path:
    directory.mkdir(exist_ok=True)
    fio = directory / "fio"
    fio.write_text(f"#!/bin/sh\n{body}\n")
    fio.chmod(0o755)
    return directory


@pytest.fixture
def saved_fio(tmp_path, monkeypatch):
    """A fio on PATH answering each `fio ARG` with fio 3.33's saved stdout and exit status for ARG."""
    answers = _answers(tmp_path / "answers")
    bin_dir = _fio(
        tmp_path / "bin",
        f'a="${{1#--}}"; f="{answers}/$a.txt"\n'
        f'[ -f "$f" ] || f="{answers}/cmdhelp=nosuchoption.txt"\n'
        'cat "$f"; [ -f "${f%.txt}.rc" ] && exit "$(cat "${f%.txt}.rc")"; exit 0',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    catalog.clear_cache()
    yield bin_dir
    catalog.clear_cache()


def test_job_options_are_fio_s_own_names_indented_ones_included_and_no_alias(saved_fio):
    names = catalog.job_option_names()
    assert names is not None and {"rw", "filename", "lockfile", "steadystate", "description"} <= names
    assert "readwrite" not in names and "ss" not in names
    assert len(names) == len(set(names)) > 150


def test_an_engine_s_options_are_its_own_and_an_unknown_engine_has_none(saved_fio):
    assert {"hipri", "cmdprio_percentage"} <= catalog.engine_option_names("io_uring")
    assert catalog.engine_option_names("nosuchengine") == frozenset()  # fio says so and exits 1


def test_an_alias_resolves_to_the_option_fio_prints_first_and_a_name_is_no_alias_of_itself(saved_fio):
    assert catalog.alias_target("readwrite") == "rw"
    assert catalog.alias_target("ss") == "steadystate"
    assert catalog.alias_target("rw") is None  # its help names the alias readwrite, not rw
    assert catalog.alias_target("nosuchoption") is None


def test_unknown_options_are_those_neither_fio_nor_the_plan_s_engines_nor_an_alias_know(saved_fio):
    names = ["rw", "readwrite", "hipri", "bogus", "ss"]
    assert catalog.unknown_options(names, ["io_uring", "io_uring"]) == ["bogus"]
    assert catalog.unknown_options(names, []) == ["hipri", "bogus"]


def test_without_fio_nothing_is_checked_and_a_fio_found_later_answers_for_itself(saved_fio, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert catalog.job_option_names() is None and catalog.unknown_options(["bogus"], []) is None
    assert catalog.alias_target("readwrite") is None
    monkeypatch.setenv("PATH", f"{saved_fio}:/usr/bin:/bin")
    assert catalog.unknown_options(["bogus"], []) == ["bogus"]  # the cache of "no fio" did not answer for it


def test_a_fio_that_fails_or_hangs_gives_no_answer(tmp_path, monkeypatch):
    catalog.clear_cache()
    monkeypatch.setenv("PATH", f"{_fio(tmp_path / 'failing', 'echo rw: x; exit 1')}:/usr/bin:/bin")
    assert catalog.job_option_names() is None
    monkeypatch.setattr(catalog, "_TIMEOUT_S", 0.2)
    monkeypatch.setenv("PATH", f"{_fio(tmp_path / 'hanging', 'echo rw: x; exec sleep 5')}:/usr/bin:/bin")
    assert catalog.job_option_names() is None
    catalog.clear_cache()
