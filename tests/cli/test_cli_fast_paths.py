"""Command-line paths that only the end-to-end tier reached, held in the fast tier (issue 41): the refusals of
an agent's socket path and of `history --window`, and `doctor`/`probe` read from a recorded host's files, in
process (no fio, no live host read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iolab.cli.agent import _socket_path
from iolab.cli.history import MAX_WINDOW_S, _window_seconds
from iolab.errors import UserError
from tests.in_process import assert_clean_error, iolab

SYSROOT = Path(__file__).resolve().parent.parent / "data" / "sysroots" / "vm-amd"


@pytest.mark.parametrize("bad", [":", ",", " ", "\n"])
def test_a_socket_path_ssh_or_fio_cannot_take_is_refused_naming_why(tmp_path, bad):
    with pytest.raises(UserError, match="ssh's -L or fio's --client cannot take"):
        _socket_path(str(tmp_path / f"a{bad}b" / "fio.sock"))


def test_a_socket_path_too_long_to_bind_is_refused_with_its_length(tmp_path):
    with pytest.raises(UserError, match="give a shorter --socket"):
        _socket_path(str(tmp_path / ("d" * 120) / "fio.sock"))


@pytest.mark.parametrize(
    ("text", "seconds"), [("90m", 5400), ("90 min", 5400), ("48h", 172_800), ("1.5h", 5400), ("3650d", MAX_WINDOW_S)]
)
def test_a_window_is_read_in_its_unit(text, seconds):
    assert _window_seconds(text) == seconds


@pytest.mark.parametrize("text", ["0h", "0.0m", "3650.5d", "3651d", "48", "h", "48s", ""])
def test_a_window_of_nothing_past_ten_years_or_no_unit_is_refused(text):
    with pytest.raises(UserError, match="--window"):
        _window_seconds(text)


def test_doctor_and_probe_read_a_recorded_hosts_files(tmp_path):
    doctor = iolab("doctor", "--root", str(SYSROOT), "--json")
    assert doctor.returncode == 0, doctor.stderr
    probe = iolab("probe", "--root", str(SYSROOT))
    assert probe.returncode == 0 and "vda" in probe.stdout, probe.stderr
    assert "not both" in assert_clean_error(iolab("doctor", "--from", str(tmp_path / "b.tar.gz"), "--root", "/x"))
