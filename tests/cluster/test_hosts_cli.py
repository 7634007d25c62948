"""Bad --hosts and --hostfile options on the command line: a one-line error, never a traceback (end to end: the
`iolab` command; the parsing itself is unit-tested in test_hosts.py)."""

from __future__ import annotations

from tests.iolab_cli import assert_clean_error, iolab


def test_cli_rejects_bad_host_options(tmp_path):
    proc = iolab("run", str(tmp_path), "--hosts", "a:notaport")
    assert "not a TCP port" in assert_clean_error(proc)
    proc = iolab("run", str(tmp_path), "--hostfile", str(tmp_path / "missing"))
    assert "cannot read host file" in assert_clean_error(proc)
    for empty in ("a,,b", "a,", ",a", " , "):
        proc = iolab("run", str(tmp_path), "--hosts", empty, "--dry-run")
        assert "an empty host name" in assert_clean_error(proc)
    proc = iolab("run", str(tmp_path), "--hosts", "a", "--on-host-failure", "retry")
    assert "use one of continue, stop" in assert_clean_error(proc)
