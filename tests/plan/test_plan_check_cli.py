"""`iolab plan check`: bad plans give a one-line error naming file and field, exit 2, no traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from iolab.cli import app

runner = CliRunner()


def check(tmp_path, text):
    plan = tmp_path / "bad.toml"
    plan.write_text(textwrap.dedent(text))
    return runner.invoke(app, ["plan", "check", str(plan)])


@pytest.mark.skipif(shutil.which("fio") is None, reason="option names are checked against fio")
def test_unknown_fio_option_is_named(tmp_path):
    result = check(
        tmp_path,
        """
        [options]
        ioengine = "libaio"
        iodpeth = 32
    """,
    )
    assert result.exit_code == 2
    assert "bad.toml" in result.stderr and "'iodpeth' is not a fio option" in result.stderr
    assert "Traceback" not in result.output


def test_value_of_wrong_type_is_named(tmp_path):
    result = check(
        tmp_path,
        """
        [axes]
        iodepth = [1, "deep", 4]
    """,
    )
    assert result.exit_code == 2
    assert "bad.toml: axes.iodepth[1]: expected a whole number from 1 to 65535, got 'deep'" in result.stderr


def test_wrong_type_in_a_structured_table_is_named(tmp_path):
    result = check(
        tmp_path,
        """
        [repeat]
        count = "three"
    """,
    )
    assert result.exit_code == 2
    assert "bad.toml: repeat.count: Input should be a valid integer, got 'three'" in result.stderr


def test_empty_axis_is_named(tmp_path):
    result = check(
        tmp_path,
        """
        [axes]
        rw = ["randread"]
        bs = []
    """,
    )
    assert result.exit_code == 2
    assert "bad.toml: axes.bs: empty axis" in result.stderr


def test_misspelt_top_level_key_is_named(tmp_path):
    result = check(
        tmp_path,
        """
        [axis]
        bs = ["4k"]
    """,
    )
    assert result.exit_code == 2
    assert "bad.toml: axis: unknown key" in result.stderr


def test_good_plan_prints_its_points(tmp_path):
    plan = tmp_path / "good.toml"
    plan.write_text('[options]\nruntime = "5s"\ntime_based = 1\n[axes]\nrw = ["read", "randread"]\n')
    result = runner.invoke(app, ["plan", "check", str(plan)])
    assert result.exit_code == 0, result.output
    assert "  read: runtime=5s time_based=1 rw=read" in result.stdout
    assert "  randread: runtime=5s time_based=1 rw=randread" in result.stdout


def test_real_command_exits_2_without_traceback(tmp_path):
    plan = tmp_path / "bad.toml"
    plan.write_text("[axes]\nnumjobs = 0\n")
    done = subprocess.run(
        [sys.executable, "-c", "from iolab.cli import main; main()", "plan", "check", str(plan)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == f"iolab: {plan}: axes.numjobs[0]: expected a whole number from 1 to 4096, got 0"


def test_presets_lists_every_preset_with_a_duration():
    result = runner.invoke(app, ["presets"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [
        "quick",
        "array-read",
        "qd-sweep",
        "jobs-sweep",
        "bs-sweep",
        "latency-curve",
        "metadata",
        "ssd-steady",
    ]
    assert lines[0].split()[1:3] == ["52", "s"]  # the house's duration (models.units.duration)
