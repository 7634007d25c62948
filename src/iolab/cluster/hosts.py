"""Which hosts a multi-host run drives, as the user named them.

`--hosts a,b:8766` names hosts (with a fio server port each), and
`--hostfile FILE` holds one host a line with optional settings:

    # name      settings (all optional)
    node01      address=10.0.0.1 port=8765 ssh=admin@node01 fio=/opt/fio/bin/fio target=/mnt/lustre
    node02      ssh=no

`address` is where fio's server listens (default: the name); `ssh` is
where iolab logs in to start that server and take a snapshot (default:
the name; `no` means the server is already running, e.g. `iolab agent`,
and nothing is done over SSH); `target` replaces the run's target on that
host.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from iolab.errors import UserError
from iolab.numbers import whole
from iolab.textfile import read_input

FIO_PORT = 8765
HOSTFILE_KEYS = ("address", "port", "ssh", "fio", "target")
# More hosts than one fio client can drive sensibly from one machine: a typo or a generated file gone wrong.
MAX_HOSTS = 1024
# Names and addresses end up on command lines (ssh, fio --client) and in a remote
# shell: host names, IPv4 and IPv6 literals only, never an option or shell syntax.
_HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,252}|\[?[0-9A-Fa-f:.]+\]?")
_SSH = re.compile(r"([A-Za-z0-9_][A-Za-z0-9._-]{0,63}@)?(" + _HOST.pattern + ")")
_FIO = re.compile(r"[A-Za-z0-9_./+-]{1,4096}")


@dataclass(frozen=True)
class HostSpec:
    """One host of a multi-host run."""

    name: str
    address: str
    port: int = FIO_PORT
    ssh: str | None = None
    fio: str = "fio"
    target: str | None = None

    @property
    def client_arg(self) -> str:
        """What `fio --client=` takes for this host: address and port."""
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
            continue
        name, _, port = item.partition(":")
        _host_name(name, "--hosts", "host name")
        hosts.append(HostSpec(name=name, address=name, port=_port(port, "--hosts") if port else FIO_PORT, ssh=name))
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
        name, settings = _host_name(fields[0], where, "host name"), {}
        for field_text in fields[1:]:
            key, sep, value = field_text.partition("=")
            if not sep or key not in HOSTFILE_KEYS or not value:
                raise UserError(
                    f"{where}: {field_text[:80]!r} is not a setting (key=value with key one of "
                    f"{', '.join(HOSTFILE_KEYS)})"
                )
            if key in settings:
                raise UserError(f"{where}: {key} is set twice")
            settings[key] = _setting(key, value, where)
        ssh = settings.get("ssh", name)
        hosts.append(
            HostSpec(
                name=name,
                address=settings.get("address", name),
                port=_port(settings["port"], where) if "port" in settings else FIO_PORT,
                ssh=None if ssh == "no" else ssh,
                fio=settings.get("fio", "fio"),
                target=settings.get("target"),
            )
        )
    return _checked(hosts, path)


def _host_name(text: str, where: str, what: str) -> str:
    if not _HOST.fullmatch(text):
        raise UserError(f"{where}: {text[:80]!r} is not a {what} (letters, digits, '.', '-', '_'; or an IP address)")
    return text


def _setting(key: str, value: str, where: str) -> str:
    """A host-file setting checked for what it becomes: an address, an ssh destination, a program, a path."""
    if key == "address":
        return _host_name(value, where, "host address")
    if key == "ssh" and value != "no" and not _SSH.fullmatch(value):
        raise UserError(f"{where}: ssh={value[:80]!r} is not [user@]host or no")
    if key == "fio" and (not _FIO.fullmatch(value) or value.startswith("-")):
        raise UserError(f"{where}: fio={value[:80]!r} is not a program path (letters, digits, / . _ + -)")
    if key == "target" and (not value.startswith("/") or not value.isprintable() or "\\" in value):
        raise UserError(f"{where}: target={value[:80]!r} is not an absolute path")
    return value


def _checked(hosts: list[HostSpec], source: str) -> list[HostSpec]:
    if not hosts:
        raise UserError(f"{source}: no hosts named")
    if len(hosts) > MAX_HOSTS:
        raise UserError(f"{source}: {len(hosts)} hosts; iolab drives at most {MAX_HOSTS} from one client")
    seen: set[str] = set()
    for host in hosts:
        if host.name in seen:
            raise UserError(f"{source}: host {host.name} is named twice")
        seen.add(host.name)
    endpoints = [(h.address, h.port) for h in hosts]
    if len(set(endpoints)) < len(endpoints):
        raise UserError(f"{source}: two hosts share one fio server address and port; give each its own")
    return hosts
