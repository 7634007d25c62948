"""Remote commands and the host snapshots made of them, for each outcome ssh can have, through a stand-in ssh
(`$IOLAB_SSH_COMMAND`) that plays the far host (issue 41: the fast tests' fake hosts answered every probe, so
which probe a snapshot fell back to, what a failed login says, and which minimal field a line is were held by
none)."""

from __future__ import annotations

import json
import sys

import pytest

from iolab.cluster import snapshots
from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState
from iolab.cluster.snapshots import MINIMAL_PROBE, host_snapshot
from iolab.cluster.ssh import CONNECT_TIMEOUT_S, RemoteResult, run_remote, ssh_argv

# The stand-in: the last argument is the remote command; the script says what the far host would.
FAKE = """
import json, sys, time
command = sys.argv[-1]
plan = json.load(open(sys.argv[1]))
answer = plan.get(command, plan.get("*"))
if answer is None:
    sys.exit(127)
if answer.get("sleep"):
    time.sleep(answer["sleep"])
sys.stdout.write(answer.get("out", ""))
sys.stderr.write(answer.get("err", ""))
sys.exit(answer.get("code", 0))
"""


@pytest.fixture
def far(tmp_path, monkeypatch):
    """Set what the far host answers to each command ({command: {out, err, code, sleep}})."""
    script, plan = tmp_path / "fake_ssh.py", tmp_path / "plan.json"
    script.write_text(FAKE)
    monkeypatch.setenv("IOLAB_SSH_COMMAND", f"{sys.executable} {script} {plan}")

    def answer(**commands: dict) -> None:
        plan.write_text(json.dumps({("*" if k == "other" else k): v for k, v in commands.items()}))

    return answer


def test_the_argv_carries_batch_mode_and_the_connect_bound_before_the_destination(monkeypatch):
    monkeypatch.setenv("IOLAB_SSH_COMMAND", "ssh -F '/my config'")
    assert ssh_argv("admin@n1", "uname -r") == [
        "ssh",
        "-F",
        "/my config",
        "-o",
        "BatchMode=yes",
        "-o",
        f"ConnectTimeout={CONNECT_TIMEOUT_S}",
        "admin@n1",
        "uname -r",
    ]


def test_ssh_failing_itself_is_an_error_naming_its_last_line_and_a_failing_command_is_not(far):
    far(other={"err": "debug1: x\nPermission denied (publickey).\n", "code": 255})
    failed = run_remote("n1", "true")
    assert (failed.ok, failed.error) == (False, "ssh n1 failed: Permission denied (publickey).")
    far(other={"code": 255})
    assert run_remote("n1", "true").error == "ssh n1 failed: no message"
    far(other={"out": "x\n", "err": "no such file\n", "code": 1})
    done = run_remote("n1", "cat /nope")
    assert (done.ok, done.error, done.returncode, done.stdout, done.stderr) == (False, "", 1, "x\n", "no such file\n")


def test_a_host_that_does_not_answer_in_time_is_said_so(far):
    far(other={"sleep": 5})
    slow = run_remote("n1", "true", timeout_s=0.6)
    assert (slow.ok, slow.error) == (False, "ssh n1 did not answer within 0.6 s")  # not "1 s", nor 0.2 s as "0 s"


def test_without_an_ssh_client_the_install_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("IOLAB_SSH_COMMAND", str(tmp_path / "no-ssh"))
    assert run_remote("n1", "true").error == "the ssh client is not installed (install openssh-client)"


def _state(ssh: str | None = "n1") -> HostState:
    state = HostState(HostSpec("n1", "n1", ssh=ssh))
    state.identity = {"fio": "fio-3.36"}
    return state


@pytest.fixture
def answers(monkeypatch):
    """The far host's answers to the snapshot's commands, without a process: {command: RemoteResult}."""
    table: dict[str, RemoteResult] = {}

    def remote(destination: str, command: str, timeout_s: float = 60.0) -> RemoteResult:
        assert destination == "n1" and timeout_s == (120 if command == "iolab probe --json" else 60.0)
        return table.get(command) or RemoteResult(255, "", "", "ssh n1 failed: Connection refused")

    monkeypatch.setattr(snapshots, "run_remote", remote)
    return table


def test_a_snapshot_comes_from_iolab_probe_then_the_minimal_probe_then_the_fio_server(answers):
    answers["iolab probe --json"] = RemoteResult(0, '{"kernel": "6.8"}', "")
    assert host_snapshot(_state()) == {
        "host": "n1",
        "fio_server": {"fio": "fio-3.36"},
        "source": "iolab probe",
        "snapshot": {"kernel": "6.8"},
    }
    answers["iolab probe --json"] = RemoteResult(127, "", "iolab: command not found")
    answers[MINIMAL_PROBE] = RemoteResult(0, "6.1.0\nx86_64\n16\n65536\nro quiet\n", "")
    assert host_snapshot(_state()) == {
        "host": "n1",
        "fio_server": {"fio": "fio-3.36"},
        "source": "minimal probe over ssh",
        "kernel": "6.1.0",
        "arch": "x86_64",
        "cpus": "16",
        "mem_kib": "65536",
        "cmdline": "ro quiet",
    }
    answers["iolab probe --json"] = RemoteResult(0, "not json", "")
    answers[MINIMAL_PROBE] = RemoteResult(0, "6.1.0\naarch64\n", "")
    short = host_snapshot(_state())
    assert (short["source"], short["arch"], "cpus" in short) == ("minimal probe over ssh", "aarch64", False)
    answers[MINIMAL_PROBE] = RemoteResult(2, "", "x" * 300 + "\n")
    said = host_snapshot(_state())
    assert (said["source"], said["problem"]) == ("fio server probe", "x" * 200)
    del answers[MINIMAL_PROBE]
    assert host_snapshot(_state())["problem"] == "ssh n1 failed: Connection refused"
    bare = host_snapshot(_state(ssh=None))
    assert bare == {"host": "n1", "fio_server": {"fio": "fio-3.36"}, "source": "fio server probe"}


def test_what_the_far_command_says_comes_back_whole(far):
    far(other={"out": "here\n"})
    done = run_remote("n1", "anything")
    assert (done.ok, done.returncode, done.stdout, done.error) == (True, 0, "here\n", "")
