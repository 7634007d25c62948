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

from dataclasses import asdict, dataclass
from pathlib import Path

from iolab.errors import UserError

FIO_PORT = 8765
HOSTFILE_KEYS = ("address", "port", "ssh", "fio", "target")


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
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise UserError(f"{where}: port {text!r} is not a TCP port (1-65535)")
    return int(text)


def parse_hosts(text: str) -> list[HostSpec]:
    """`--hosts a,b:8766,c`: names with optional fio ports; SSH goes to the name."""
    hosts = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, _, port = item.partition(":")
        hosts.append(HostSpec(name=name, address=name, port=_port(port, "--hosts") if port else FIO_PORT, ssh=name))
    return _checked(hosts, "--hosts")


def read_hostfile(path: str) -> list[HostSpec]:
    """Hosts from a host file (format in the module docstring); errors name the line."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise UserError(f"cannot read host file {path}: {exc.strerror}") from None
    hosts = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        where = f"{path} line {number}"
        name, settings = fields[0], {}
        for field_text in fields[1:]:
            key, sep, value = field_text.partition("=")
            if not sep or key not in HOSTFILE_KEYS:
                raise UserError(f"{where}: {field_text!r} is not a setting (key=value with key one of "
                                f"{', '.join(HOSTFILE_KEYS)})")
            settings[key] = value
        ssh = settings.get("ssh", name)
        hosts.append(HostSpec(
            name=name,
            address=settings.get("address", name),
            port=_port(settings["port"], where) if "port" in settings else FIO_PORT,
            ssh=None if ssh == "no" else ssh,
            fio=settings.get("fio", "fio"),
            target=settings.get("target"),
        ))
    return _checked(hosts, path)


def _checked(hosts: list[HostSpec], source: str) -> list[HostSpec]:
    if not hosts:
        raise UserError(f"{source}: no hosts named")
    seen: set[str] = set()
    for host in hosts:
        if host.name in seen:
            raise UserError(f"{source}: host {host.name} is named twice")
        seen.add(host.name)
    endpoints = [(h.address, h.port) for h in hosts]
    if len(set(endpoints)) < len(endpoints):
        raise UserError(f"{source}: two hosts share one fio server address and port; give each its own")
    return hosts
