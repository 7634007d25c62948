"""Every host-file setting and `--hosts` form at the edge of what it takes, both sides (issue 41: the fast
tests gave each check one bad value, far from its bound: a socket path one byte short of the limit, port 1
and 65535, the 1024th host, a name of 253 characters, and each transport's choice were held by none)."""

from __future__ import annotations

import pytest

from iolab.cluster.hosts import FIO_PORT, MAX_HOSTS, SOCKET_PATH_MAX, HostSpec, parse_hosts, read_hostfile
from iolab.errors import UserError


def _file(tmp_path, text: str) -> list[HostSpec]:
    path = tmp_path / "hosts"
    path.write_text(text)
    return read_hostfile(str(path))


@pytest.mark.parametrize(
    ("setting", "taken"),
    [
        ("ssh=no", True),
        ("ssh=admin@node-1.lab", True),
        ("ssh=-oProxyCommand=x", False),
        ("ssh=a@b@c", False),
        ("fio=/opt/fio-3.36/bin/fio", True),
        ("fio=-fio", False),
        ("fio=fio;rm", False),
        ("target=/mnt/data", True),
        ("target=mnt/data", False),
        ("target=/mnt/a\\b", False),
        (f"socket=/{'s' * (SOCKET_PATH_MAX - 1)}", True),  # 107 bytes: what sun_path holds
        (f"socket=/{'s' * SOCKET_PATH_MAX}", False),
        ("socket=/run/a,b", False),
        ("address=10.0.0.7", True),
        ("address=[fe80::1]", True),
        ("address=-x", False),
        ("port=1", True),
        ("port=65535", True),
        ("port=0", False),
        ("port=65536", False),
        ("port=+80", False),
        ("port=", False),
    ],
)
def test_each_setting_takes_what_it_becomes_up_to_its_bound_and_refuses_past_it(tmp_path, setting, taken):
    if taken:
        (host,) = _file(tmp_path, f"n1 {setting}\n")
        key, _, value = setting.partition("=")
        shown = {"ssh": host.ssh, "fio": host.fio, "target": host.target, "socket": host.socket}
        shown |= {"address": host.address, "port": str(host.port)}
        assert shown[key] == (None if value == "no" else value)
    else:
        with pytest.raises(UserError, match="hosts line 1: "):
            _file(tmp_path, f"n1 {setting}\n")


def test_a_setting_given_twice_or_without_a_value_is_refused(tmp_path):
    with pytest.raises(UserError, match="ssh is set twice"):
        _file(tmp_path, "n1 ssh=a ssh=b\n")
    with pytest.raises(UserError, match="'ssh' is not a setting"):
        _file(tmp_path, "n1 ssh\n")


def test_each_way_of_reaching_a_server_is_its_transport(tmp_path):
    hosts = _file(
        tmp_path,
        "a\nb ssh=no\nc port=9000\nd address=10.0.0.4\ne socket=/run/fio.sock\nf ssh=no socket=/run/f.sock\n",
    )
    assert [(h.name, h.transport) for h in hosts] == [
        ("a", "ssh"),
        ("b", "tcp"),
        ("c", "tcp"),
        ("d", "tcp"),
        ("e", "socket"),
        ("f", "socket"),
    ]
    assert [(h.address, h.port, h.ssh) for h in hosts[2:4]] == [("c", 9000, "c"), ("10.0.0.4", FIO_PORT, "d")]
    assert HostSpec.from_dict(hosts[4].to_dict()) == hosts[4]


def test_two_hosts_on_one_server_are_refused_only_when_they_share_both_address_and_port(tmp_path):
    assert len(_file(tmp_path, "a address=10.0.0.1 port=1\nb address=10.0.0.1 port=2\n")) == 2
    assert len(_file(tmp_path, "a socket=/s\nb socket=/s\n")) == 2  # one socket on each of two hosts
    assert len(_file(tmp_path, "a ssh=x socket=/s\nb ssh=x socket=/t\n")) == 2
    with pytest.raises(UserError, match="share one fio server address and port"):
        _file(tmp_path, "a address=10.0.0.1 port=2\nb address=10.0.0.1 port=2\n")


def test_the_host_list_takes_up_to_1024_hosts_and_names_of_253_characters():
    assert len(parse_hosts(",".join(f"h{i}" for i in range(MAX_HOSTS)))) == MAX_HOSTS
    with pytest.raises(UserError, match=f"{MAX_HOSTS + 1} hosts; iolab drives at most {MAX_HOSTS}"):
        parse_hosts(",".join(f"h{i}" for i in range(MAX_HOSTS + 1)))
    assert parse_hosts("n" * 253)[0].name == "n" * 253
    with pytest.raises(UserError, match="is not a host name"):
        parse_hosts("n" * 254)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a,,b", "an empty host name"),
        ("a:0", "outside 1..65535"),
        ("a:x", "port 'x' is not a TCP port"),
        ("a:٣", "is not a TCP port"),  # a digit, but not an ASCII one
        ("a,a", "host a is named twice"),
        ("a:8765,a:8765", "named twice"),
    ],
)
def test_a_bad_host_list_is_refused_naming_the_problem(text, message):
    with pytest.raises(UserError, match=message):
        parse_hosts(text)


def test_a_port_in_the_list_is_a_tcp_server_and_none_is_one_iolab_starts():
    plain, ported = parse_hosts("n1,n2:1")
    assert (plain.port, plain.tcp, plain.transport) == (FIO_PORT, False, "ssh")
    assert (ported.port, ported.tcp, ported.transport, ported.tcp_arg) == (1, True, "tcp", "n2,1")
