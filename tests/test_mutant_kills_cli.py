"""The command line's fixed choices, in process (typer's CliRunner), that `bench/mutation.py --whole` found no
fast test holding (issue 41 item 8): what `--help` offers, which limits are accepted."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from iolab.cli import app, application, main


def test_help_offers_no_shell_completion_installer_and_no_arguments_prints_help():
    runner = CliRunner()
    shown = runner.invoke(app, ["--help"])
    assert shown.exit_code == 0 and "--install-completion" not in shown.output
    bare = runner.invoke(application.app, [])
    assert "Usage" in bare.output and "--install-completion" not in bare.output


def test_ls_accepts_a_limit_of_one_run_and_refuses_zero(iolab_home):
    runner = CliRunner()
    assert runner.invoke(app, ["ls", "--limit", "1"]).exit_code == 0
    refused = runner.invoke(app, ["ls", "--limit", "0"])
    assert refused.exit_code == 2


def test_bad_input_exits_2_with_one_line(iolab_home, monkeypatch, capsys):
    """A run that is not there is bad input: exit 2, one line, no traceback (the console script's own mapping)."""
    monkeypatch.setattr(sys, "argv", ["iolab", "show", "99999"])
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("iolab: ")


def test_runs_are_named_one_by_one_up_to_ten_and_by_their_ends_beyond():
    from iolab.cli.tags import _runs_text

    assert _runs_text([7]) == "run 7"
    assert _runs_text(list(range(1, 11))) == "10 runs (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)"
    assert _runs_text(list(range(6, 406))) == "400 runs (6 ... 405)"


def test_plan_check_says_a_read_only_plan_writes_nothing_but_its_scratch_file(tmp_path):
    plan = tmp_path / "read.toml"
    plan.write_text('name = "read"\ntargets = ["/scratch"]\n[options]\nrw = "randread"\nbs = "4k"\n')
    shown = CliRunner().invoke(app, ["plan", "check", str(plan)])
    assert shown.exit_code == 0, shown.output
    assert "writes: nothing but a scratch file in each directory target (removed afterwards)" in shown.output
