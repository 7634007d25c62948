"""fio's option list is remembered per fio binary, so a moment without fio on PATH cannot hide it later.

Seen in the suite: a fake-executor test set PATH to an empty folder, asked for fio's option names once,
and every later test of that worker read a typo as "iolab has not classified fio's option 'iodpeth'"
instead of "'iodpeth' is not a fio option"."""

from __future__ import annotations

import functools
import shutil
import stat

import pytest

from iolab.fio import catalog


def _fake_fio(folder, options: list[str]):
    """An executable `fio` in `folder` that lists `options` for --cmdhelp."""
    fio = folder / "fio"
    lines = "".join(f'echo "{name}              : an option"\n' for name in options)
    fio.write_text(f"#!/bin/sh\n{lines}")
    fio.chmod(fio.stat().st_mode | stat.S_IXUSR)
    return fio


def test_no_fio_for_a_moment_is_not_remembered_for_the_fio_found_after(tmp_path, monkeypatch):
    empty, fake = tmp_path / "empty", tmp_path / "fake"
    empty.mkdir()
    fake.mkdir()
    _fake_fio(fake, ["rw", "iodepth"])
    monkeypatch.setenv("PATH", str(empty))
    assert catalog.job_option_names() is None
    monkeypatch.setenv("PATH", str(fake))
    assert catalog.job_option_names() == frozenset({"rw", "iodepth"})
    assert catalog.unknown_options(["iodpeth"], ["psync"]) == ["iodpeth"]


def test_each_fio_binary_answers_for_itself(tmp_path, monkeypatch):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    _fake_fio(one, ["rw"])
    _fake_fio(two, ["rw", "bs"])
    for folder, names in ((one, {"rw"}), (two, {"rw", "bs"}), (one, {"rw"})):
        monkeypatch.setenv("PATH", str(folder))
        assert catalog.job_option_names() == frozenset(names)


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_the_installed_fio_is_asked_once_per_question(monkeypatch):
    calls = []
    real = catalog._fio_answer.__wrapped__

    def counting(fio, args):
        calls.append(args)
        return real(fio, args)

    catalog.clear_cache()
    monkeypatch.setattr(catalog, "_fio_answer", functools.cache(counting))
    for _ in range(3):
        assert catalog.job_option_names()
    assert calls == [("--cmdhelp",)]
