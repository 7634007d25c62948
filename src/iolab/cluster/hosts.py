"""Which hosts a multi-host run drives, as the user named them.

`--hosts a,b:8766` names hosts, and `--hostfile FILE` holds one host a
line with optional settings:

    # name      settings (all optional)
    node01      ssh=admin@node01 fio=/opt/fio/bin/fio target=/mnt/lustre
    node02      ssh=admin@node02 socket=/root/.local/share/iolab/agent/fio.sock
    node03      address=10.0.0.3 port=8765 ssh=no

How the controller reaches each host's fio server (`HostSpec.transport`):
- "ssh" (the default): iolab logs in over `ssh` (default: the name), starts
  a fio server on a Unix socket in a 0700 directory of that user, and
  forwards it to a socket of its own through ssh: only that user and root
  can drive it.
- "socket" (`socket=PATH`): a server already running on that Unix socket
  (`iolab agent`), forwarded through ssh, or on this host with `ssh=no`.
- "tcp" (`port=`, `address=`, or `ssh=no` without a socket; `--hosts
  name:PORT`): a server already listening on TCP (`iolab agent --insecure
  --bind`), which every user who can reach that address can drive too.
`ssh` also takes the host's snapshot; `target` replaces the run's target
on that host.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass

from iolab.errors import UserError
from iolab.numbers import whole
from iolab.textfile import read_input

FIO_PORT = 8765
HOSTFILE_KEYS = ("address", "port", "ssh", "fio", "target", "socket")
# sun_path holds 108 bytes with the terminating NUL: a longer socket path cannot be bound or connected to.
SOCKET_PATH_MAX = 107
# More hosts than one fio client can drive sensibly from one machine: a typo or a generated file gone wrong.
MAX_HOSTS = 1024
# What a multi-host run does when a host fails (--on-host-failure): here, not in `cluster`, so that checking
# the flag loads no cluster machinery (every `iolab run` checks it).
ON_FAILURE = ("continue", "stop")
# Names and addresses end up on command lines (ssh, fio --client) and in a remote
# shell: host names, IPv4 and IPv6 literals only, never an option or shell syntax.
_HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,252}|\[?[0-9A-Fa-f:.]+\]?")
_SSH = re.compile(r"([A-Za-z0-9_][A-Za-z0-9._-]{0,63}@)?(" + _HOST.pattern + ")")
_FIO = re.compile(r"[A-Za-z0-9_./+-]{1,4096}")
# A socket path goes into ssh's -L (where ':' separates) and fio's --client= (where ',' does): neither, nor space.
_SOCKET = re.compile(rf"/[A-Za-z0-9_./+-]{{1,{SOCKET_PATH_MAX - 1}}}")


@dataclass(frozen=True)
class HostSpec:
    """One host of a multi-host run."""

    name: str
    address: str
    port: int = FIO_PORT
    ssh: str | None = None
    fio: str = "fio"
    target: str | None = None
    socket: str | None = None  # a running server's Unix socket on that host (`iolab agent`)
    tcp: bool = False  # reached on TCP at address:port (port= or address= given)

    @property
    def transport(self) -> str:
        """ "ssh" (iolab starts a server on a Unix socket over ssh), "socket" (a running server's Unix socket,
        forwarded through ssh or on this host) or "tcp" (a running server on TCP, which iolab never starts)."""
        if self.socket:
            return "socket"
        return "tcp" if self.tcp or self.ssh is None else "ssh"

    @property
    def tcp_arg(self) -> str:
        """What `fio --client=` takes for a TCP server: address and port."""
        return f"{self.address},{self.port}"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> HostSpec:
        return cls(**data)


def _port(text: str, where: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise UserError(f"{where}: port {text[:24]!r} is not a TCP port (1-65535)")
    return whole(text, f"{where}: port", 1, 65535)


def parse_hosts(text: str) -> list[HostSpec]:
    """`--hosts a,b:8766,c`: names with optional fio ports; SSH goes to the name."""
    hosts = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            raise UserError(f"--hosts {text[:80]!r}: an empty host name; write the names comma-separated (a,b,c)")
        name, _, port = item.partition(":")
        _host_name(name, "--hosts", "host name")
        tcp = bool(port)  # name:PORT is a server already listening on TCP there
        hosts.append(
            HostSpec(name=name, address=name, port=_port(port, "--hosts") if tcp else FIO_PORT, ssh=name, tcp=tcp)
        )
    return _checked(hosts, "--hosts")


def read_hostfile(path: str) -> list[HostSpec]:
    """Hosts from a host file (format in the module docstring); errors name the line."""
    lines = read_input(path, "host file").splitlines()
    hosts = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        where = f"{path} line {number}"
        hosts.append(_host_line(_host_name(fields[0], where, "host name"), _settings(fields[1:], where), where))
    return _checked(hosts, path)


def _settings(fields: list[str], where: str) -> dict[str, str]:
    """A host line's key=value settings, each checked for what it becomes, none given twice."""
    settings: dict[str, str] = {}
    for field_text in fields:
        key, sep, value = field_text.partition("=")
        if not sep or key not in HOSTFILE_KEYS or not value:
            raise UserError(
                f"{where}: {field_text[:80]!r} is not a setting (key=value with key one of {', '.join(HOSTFILE_KEYS)})"
            )
        if key in settings:
            raise UserError(f"{where}: {key} is set twice")
        settings[key] = _setting(key, value, where)
    return settings


def _host_line(name: str, settings: dict[str, str], where: str) -> HostSpec:
    """One host of a host file: reached by its socket, or by TCP when a port or address is given."""
    ssh = settings.get("ssh", name)
    tcp = "port" in settings or "address" in settings
    if "socket" in settings and tcp:
        raise UserError(f"{where}: socket= and port=/address= are two ways to reach a server; give one")
    return HostSpec(
        name=name,
        address=settings.get("address", name),
        port=_port(settings["port"], where) if "port" in settings else FIO_PORT,
        ssh=None if ssh == "no" else ssh,
        fio=settings.get("fio", "fio"),
        target=settings.get("target"),
        socket=settings.get("socket"),
        tcp=tcp,
    )


def _host_name(text: str, where: str, what: str) -> str:
    if not _HOST.fullmatch(text):
        raise UserError(f"{where}: {text[:80]!r} is not a {what} (letters, digits, '.', '-', '_'; or an IP address)")
    return text


def _setting(key: str, value: str, where: str) -> str:
    """A host-file setting checked for what it becomes: an address, an ssh destination, a program, a path."""
    if key == "address":
        return _host_name(value, where, "host address")
    check = _SETTING_CHECKS.get(key)
    if check is not None and not check[0](value):
        raise UserError(f"{where}: {key}={value[:80]!r} {check[1]}")
    return value


_SETTING_CHECKS: dict[str, tuple[Callable[[str], bool], str]] = {
    "ssh": (lambda v: v == "no" or _SSH.fullmatch(v) is not None, "is not [user@]host or no"),
    "fio": (
        lambda v: _FIO.fullmatch(v) is not None and not v.startswith("-"),
        "is not a program path (letters, digits, / . _ + -)",
    ),
    "target": (lambda v: v.startswith("/") and v.isprintable() and "\\" not in v, "is not an absolute path"),
    "socket": (
        lambda v: _SOCKET.fullmatch(v) is not None,
        f"is not an absolute path of at most {SOCKET_PATH_MAX} bytes (letters, digits, / . _ + -), "
        "as `iolab agent` prints it",
    ),
}


def _checked(hosts: list[HostSpec], source: str) -> list[HostSpec]:
    if not hosts:
        raise UserError(f"{source}: no hosts named")
    if len(hosts) > MAX_HOSTS:
        raise UserError(f"{source}: {len(hosts)} hosts; iolab drives at most {MAX_HOSTS} from one client")
    twice = [name for name, n in Counter(h.name for h in hosts).items() if n > 1]
    if twice:
        raise UserError(f"{source}: host {twice[0]} is named twice")
    _check_endpoints(hosts, source)
    return hosts


def _check_endpoints(hosts: list[HostSpec], source: str) -> None:
    """Refuse two hosts reaching one fio server: their results could not be told apart."""
    endpoints = [(h.address, h.port) for h in hosts if h.transport == "tcp"]
    if len(set(endpoints)) < len(endpoints):
        raise UserError(f"{source}: two hosts share one fio server address and port; give each its own")
    sockets = [(h.ssh, h.socket) for h in hosts if h.transport == "socket"]
    if len(set(sockets)) < len(sockets):
        raise UserError(f"{source}: two hosts share one fio server socket on one host; give each its own")
