"""What a host's state says of its server for each transport, and which server-log lines are trouble (issue
41: the fake-host tests reached each transport through a whole bring-up, and read one log line)."""

from __future__ import annotations

import pytest

from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState, _Replies, server_trouble


@pytest.mark.parametrize(
    ("spec", "client", "reported", "where"),
    [
        (HostSpec("n1", "10.0.0.1", 9000, ssh=None, tcp=True), "10.0.0.1,9000", "10.0.0.1", "10.0.0.1:9000"),
        (HostSpec("n1", "n1", ssh="admin@n1", tcp=True), "n1,8765", "n1", "n1:8765"),
        (
            HostSpec("n1", "n1", ssh=None, socket="/run/f.sock"),
            "sock:/run/f.sock",
            "/run/f.sock",
            "the Unix socket /run/f.sock",
        ),
        (
            HostSpec("n1", "n1", ssh="n1", socket="/run/f.sock"),
            "sock:/run/f.sock",
            "/run/f.sock",
            "n1's Unix socket /run/f.sock",
        ),
        (
            HostSpec("n1", "n1", ssh="n1"),
            "sock:n1: not forwarded",
            "n1: not forwarded",
            "n1's Unix socket /tmp/d/fio.sock",
        ),
    ],
)
def test_each_transport_names_its_server_by_its_own_address(spec, client, reported, where):
    state = HostState(spec, piddir="/tmp/d")
    assert (state.name, state.client_arg, state.reported, state.where) == ("n1", client, reported, where)


@pytest.mark.parametrize(
    ("line", "trouble"),
    [
        ("fio: server.c:2341: fio_server_send_start: Assertion `sk_out->sk != -1' failed.", True),
        ("fio: unable to open '/dev/nvme9n1' for write", True),
        ("fio: pid=77, got signal=9 ... error", True),
        ("FIO: CANNOT allocate", True),
        ("fio: server got op [PROBE]", False),
        ("client <127.0.0.1> connected", False),
        ("the job said: fio: error", False),  # a fio: line, but not at its start
    ],
)
def test_only_a_failed_assertion_or_a_fio_line_of_failure_is_trouble(line, trouble):
    assert server_trouble(f"  {line}  \n") == ([line] if trouble else [])


def test_replies_of_several_servers_go_to_the_address_named_before_each():
    hosts = [HostState(HostSpec(n, n, 8765, ssh=None, tcp=True)) for n in ("10.0.0.1", "10.0.0.2", "10.0.0.3")]
    replies = _Replies(hosts)
    said = [
        "client: got cmd op PROBE from 10.0.0.2 (pdu=120)",
        "hostname=b, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.36, flags=1",
        "hostname=stray, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.36, flags=1",  # names no sender: not kept
        "client: removed <10.0.0.3>",
        "fio: debug option net",
        "fio: connect: Connection refused",
    ]
    assert [replies.read(line) for line in said] == [False] * 6
    answers = replies.answers(expired=False)
    assert answers["10.0.0.2"] == {"hostname": "b", "os": "Linux", "arch": "x86-64", "fio": "fio-3.36"}
    assert answers["10.0.0.1"] == "no fio server answered at 10.0.0.1:8765 (fio: connect: Connection refused)"
    assert answers["10.0.0.3"].startswith("no fio server answered at 10.0.0.3:8765")  # type: ignore[union-attr]
    assert replies.answers(expired=True)["10.0.0.1"] == "its fio server did not answer within 30 s"
    assert replies.read("client: removed <10.0.0.1>")  # every server answered or gone: done
