"""`iolab agent`: this host as one of the hosts of a multi-host run.

fio's server runs any job it is sent, as the user it runs as. By default the
agent's server listens on a Unix socket in a 0700 directory of that user
(`iolab.cluster.sockets`): only that user and root can drive it, and the
controller reaches it through ssh (`socket=PATH` in its host file). TCP,
which every local user shares (loopback included) and every host that can
reach the address, only with `--insecure` beside `--bind`, and the agent
says on start who can then drive it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from iolab import guards, programs
from iolab.cli.application import app
from iolab.errors import RunFailed, UserError

TCP_GUARD = guards.register(
    "agent-tcp-needs-insecure",
    "`iolab agent` on TCP (where every local user, and every host that can reach the address, can drive its "
    "fio server) unless --insecure is given beside --bind",
    "iolab.cli.agent.listen_argv",
)
FIO_PORT = 8765


@app.command()
def agent(
    socket_path: Annotated[
        str | None,
        typer.Option(
            "--socket",
            help="The Unix socket fio's server listens on (default IOLAB_HOME/agent/fio.sock); its directory is "
            "made 0700, or refused unless only you can enter it. Reach it from the controller through ssh: "
            "a host-file line `NAME ssh=USER@HOST socket=PATH`.",
        ),
    ] = None,
    bind: Annotated[
        str | None,
        typer.Option(
            help="Listen on TCP at this address instead (needs --insecure): EVERY user who can reach it, every "
            "local user for 127.0.0.1, can make fio read and write any file you can."
        ),
    ] = None,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help=f"TCP port with --bind (default {FIO_PORT}).")
    ] = None,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure", help="Accept TCP (--bind): anyone who can connect to it drives the fio server as you."
        ),
    ] = False,
    fio: Annotated[str, typer.Option(help="The fio binary.")] = "fio",
) -> None:
    """Serve fio jobs for a multi-host run (`fio --server`), in the foreground until Ctrl-C."""
    path = programs.find(fio)
    if path is None:
        raise UserError(f"{fio} not found; install fio (apt-get install fio, dnf install fio)")
    argv, said, sock = listen_argv(path, socket_path, bind, port, insecure)
    typer.echo(said, err=True)
    _serve(argv, sock)


def listen_argv(
    fio: str, socket_path: str | None, bind: str | None, port: int | None, insecure: bool
) -> tuple[list[str], str, Path | None]:
    """fio's server command line, what the agent says on start of who can drive it, and its Unix socket."""
    tcp = bind is not None or port is not None
    if tcp and not insecure and guards.active(TCP_GUARD.name):
        raise UserError(
            "--bind/--port listen on TCP, where every user of this host (and every host that can reach it) can "
            "make fio write any file as you; leave them out (a Unix socket only you can reach, through ssh) "
            "or add --insecure"
        )
    if insecure and bind is None:
        raise UserError("--insecure goes with --bind ADDRESS (TCP); without them the agent listens on a Unix socket")
    if tcp:
        if socket_path is not None:
            raise UserError("give --socket (a Unix socket) or --bind (TCP), not both")
        address, number = bind or "127.0.0.1", port or FIO_PORT
        _check_bind(address, number)
        return [fio, f"--server={address},{number}"], _insecure_notice(address, number), None
    sock = _socket_path(socket_path)
    said = (
        f"fio server on the Unix socket {sock} (its directory is 0700: only {_who()} can drive it); "
        f"on the controller, a host-file line: NAME ssh={_user()}@THIS-HOST socket={sock}"
    )
    return [fio, f"--server=sock:{sock}"], said, sock


def _insecure_notice(address: str, port: int) -> str:
    """Who can drive a fio server on TCP at `address`, said plainly."""
    import ipaddress

    try:
        loopback = ipaddress.ip_address(address).is_loopback
    except ValueError:
        loopback = address == "localhost"
    who = (
        "every user of this host" if loopback else f"every user of this host and of every host that can reach {address}"
    )
    return (
        f"INSECURE: fio server on TCP {address}:{port}: {who} can make it read and write any file {_user()} can "
        f"(it runs whatever job it is sent); on the controller: NAME address={address} port={port} ssh=no"
    )


def _who() -> str:
    """Who, besides nobody, can connect to a socket in a 0700 directory of this user."""
    return "root" if os.geteuid() == 0 else f"{_user()} and root"


def _user() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return f"uid {os.geteuid()}"


def _socket_path(text: str | None) -> Path:
    """The agent's socket: its directory private (made 0700, or refused), its path short enough to bind, and
    no server already on it (fio would take the name over from a live one)."""
    from iolab.cluster.hosts import SOCKET_PATH_MAX
    from iolab.cluster.sockets import connectable, private_socket_dir
    from iolab.store.db import home_dir

    path = Path(os.path.abspath(text)) if text else home_dir() / "agent" / "fio.sock"
    if len(os.fsencode(path)) > SOCKET_PATH_MAX:
        raise UserError(
            f"the socket path {path} is {len(os.fsencode(path))} bytes; a Unix socket's is at most "
            f"{SOCKET_PATH_MAX}: give a shorter --socket"
        )
    if not path.name or any(c in str(path) for c in ":,") or not str(path).isprintable() or " " in str(path):
        raise UserError(
            f"the socket path {str(path)!r} holds ':', ',' or a space, which ssh's -L or fio's --client cannot take"
        )
    private_socket_dir(path.parent)
    if connectable(str(path), 1.0):
        raise UserError(f"a server already listens on {path}: stop it, or give another --socket")
    if path.is_socket():  # one a stopped server left: fio would not bind over it ("Address already in use")
        path.unlink()
    elif os.path.lexists(path):
        raise UserError(f"{path} exists and is not a socket: remove it, or give another --socket")
    return path


def _check_bind(bind: str, port: int) -> None:
    """Refuses an address this host cannot listen on, before fio does: fio prints its bind error and then
    exits 0, which a service manager would take for a clean stop."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(bind, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as fio does: TIME_WAIT is no conflict
            probe.bind(address)
    except (OSError, UnicodeError) as exc:
        raise UserError(
            f"cannot listen on {bind}:{port}: {getattr(exc, 'strerror', None) or exc}; "
            "choose another --port, or a --bind address of this host"
        ) from None


def _serve(argv: list[str], sock: Path | None) -> None:
    """Runs fio's server until Ctrl-C or SIGTERM (passed on to it: exit 0). A server that stops by
    itself failed (its bind lost to a race, or fio died): exit 3, whatever fio's own exit code says.
    A socket it leaves behind is removed (the next agent could not bind over it)."""
    import signal
    import subprocess

    server: subprocess.Popen[bytes] | None = None
    stopped = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopped
        stopped = True
        if server is not None:
            server.send_signal(signum)

    # Caught before the server starts, so each is the default in it (exec resets a caught signal, not an ignored
    # one): an agent started in the background by a non-interactive shell ignores SIGINT, and a server started
    # before the handlers inherited that and never heard the Ctrl-C passed on to it.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    server = programs.start(argv)
    if stopped:  # a signal came before there was a server to pass it on to
        server.terminate()
    code = server.wait()
    if sock is not None and sock.is_socket():
        sock.unlink()
    if not stopped:
        raise RunFailed(
            f"fio's server stopped by itself (exit {code}; its message is above): nothing is listening any more"
        )
