"""`iolab agent`: this host as one of the hosts of a multi-host run."""

from __future__ import annotations

import shutil
from typing import Annotated

import typer

from iolab.cli.application import app
from iolab.errors import RunFailed, UserError


@app.command()
def agent(
    bind: Annotated[
        str,
        typer.Option(
            help="Address fio's server listens on. It runs ANY job it is sent, so keep it "
            "on loopback (reach it through an SSH tunnel) or a private network."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port (fio's default is 8765).")] = 8765,
    fio: Annotated[str, typer.Option(help="The fio binary.")] = "fio",
) -> None:
    """Serve fio jobs for a multi-host run (`fio --server`), in the foreground until Ctrl-C."""
    path = shutil.which(fio)
    if path is None:
        raise UserError(f"{fio} not found; install fio (apt-get install fio, dnf install fio)")
    _check_bind(bind, port)
    typer.echo(
        f"fio server on {bind}:{port}: it runs whatever job a client sends, so keep this address private; "
        f"on the controller: iolab run ... --hostfile FILE (a line `NAME address={bind} port={port} ssh=no`)",
        err=True,
    )
    _serve([path, f"--server={bind},{port}"])


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


def _serve(argv: list[str]) -> None:
    """Runs fio's server until Ctrl-C or SIGTERM (passed on to it: exit 0). A server that stops by
    itself failed (its bind lost to a race, or fio died): exit 3, whatever fio's own exit code says."""
    import signal
    import subprocess

    server = subprocess.Popen(argv)
    stopped = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopped
        stopped = True
        server.send_signal(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)
    code = server.wait()
    if not stopped:
        raise RunFailed(
            f"fio's server stopped by itself (exit {code}; its message is above): nothing is listening any more"
        )
