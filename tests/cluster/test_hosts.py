"""Host lists and host files: what users write, and the errors they get."""

from __future__ import annotations

import pytest

from iolab.cluster.hosts import FIO_PORT, parse_hosts, read_hostfile
from iolab.errors import UserError


def test_host_list_with_ports():
    hosts = parse_hosts("node01, node02:8766")
    assert [(h.name, h.address, h.port, h.ssh, h.transport) for h in hosts] == [
        ("node01", "node01", FIO_PORT, "node01", "ssh"),  # a server iolab starts over ssh, on a Unix socket
        ("node02", "node02", 8766, "node02", "tcp"),  # a port: a server already listening on TCP
    ]
    assert hosts[1].tcp_arg == "node02,8766"


def test_hostfile_settings_and_comments(tmp_path):
    path = tmp_path / "hosts"
    path.write_text(
        "# the NFS clients\nc1 address=10.0.0.1 ssh=admin@c1 fio=/opt/fio target=/mnt/nfs\n\nc2 ssh=no  # agent\n"
        "c3 ssh=admin@c3 socket=/root/.local/share/iolab/agent/fio.sock\nc4\n"
    )
    c1, c2, c3, c4 = read_hostfile(str(path))
    assert (c1.address, c1.ssh, c1.fio, c1.target) == ("10.0.0.1", "admin@c1", "/opt/fio", "/mnt/nfs")
    assert (c2.address, c2.ssh, c2.port) == ("c2", None, FIO_PORT)
    assert [h.transport for h in (c1, c2, c3, c4)] == ["tcp", "tcp", "socket", "ssh"]
    assert c3.socket == "/root/.local/share/iolab/agent/fio.sock"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("c1 prot=1\n", "line 1: 'prot=1' is not a setting"),
        ("c1\nc1\n", "host c1 is named twice"),
        ("c1 port=99999\n", "line 1: port: '99999' is outside 1..65535"),
        ("c1 address=10.0.0.1\nc2 address=10.0.0.1\n", "share one fio server address"),
        ("# nobody\n", "no hosts named"),
        ("c1 socket=relative.sock\n", "line 1: socket='relative.sock' is not an absolute path"),
        ("c1 socket=/a:b\n", "is not an absolute path of at most 107 bytes"),
        (f"c1 socket=/{'a' * 107}\n", "is not an absolute path of at most 107 bytes"),
        ("c1 socket=/s port=1\n", "socket= and port=/address= are two ways"),
        ("c1 socket=/s\nc2 ssh=c1 socket=/s\n", "share one fio server socket"),
    ],
)
def test_hostfile_errors_name_the_problem(tmp_path, text, message):
    path = tmp_path / "hosts"
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        read_hostfile(str(path))


@pytest.mark.parametrize(
    ("path", "device"),
    [
        ("/dev/nvme0n1", True),
        ("/dev/disk/by-id/nvme-eui.0025", True),
        ("/dev/shm", False),
        ("/dev/shm/iolab", False),
        ("/dev/hugepages/", False),
        ("/dev/shmem", True),
        ("/dev/shm/../nvme0n1", True),
        ("/dev/./shm/x", False),
        ("/mnt/data", False),
    ],
)
def test_a_path_under_dev_is_a_device_unless_it_is_a_ram_directory(path, device):
    from iolab.cluster.cluster import is_device_path

    assert is_device_path(path) is device
