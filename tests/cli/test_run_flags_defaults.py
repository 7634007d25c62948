"""`RunFlags` is one field per flag row, each field's default the row's own (what `iolab run` takes when the
flag is not given): a flag a command does not take (`schedule install` has no --preset) is the row's default
there too, and a RunFlags built with some flags only means what the command line without the others means."""

from __future__ import annotations

from dataclasses import fields

from iolab.cli.request_flags import FLAGS, NAMES, RunFlags


def test_every_flag_row_is_a_field_whose_default_is_the_row_s():
    assert [f.name for f in fields(RunFlags)] == [flag.name for flag in FLAGS] and NAMES == set(
        RunFlags.__annotations__
    )
    unset = RunFlags()
    assert {flag.name: getattr(unset, flag.name) for flag in FLAGS} == {flag.name: flag.default for flag in FLAGS}


def test_a_run_given_no_flag_has_no_words_to_schedule():
    assert RunFlags().argv() == []
