"""`iolab agent`: this host as one of the hosts of a multi-host run."""

from __future__ import annotations

import os
import shutil
from typing import Annotated

import typer

from iolab.cli import app
from iolab.errors import UserError


@app.command()
def agent(
    bind: Annotated[str, typer.Option(help="Address fio's server listens on. It runs ANY job it is sent, so keep it "
                                           "on loopback (reach it through an SSH tunnel) or a private network.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port (fio's default is 8765).")] = 8765,
    fio: Annotated[str, typer.Option(help="The fio binary.")] = "fio",
) -> None:
    """Serve fio jobs for a multi-host run (`fio --server`), in the foreground until Ctrl-C."""
    path = shutil.which(fio)
    if path is None:
        raise UserError(f"{fio} not found; install fio (apt-get install fio, dnf install fio)")
    typer.echo(f"fio server on {bind}:{port}: it runs whatever job a client sends, so keep this address private; "
               f"on the controller: iolab run ... --hostfile FILE (a line `NAME address={bind} port={port} ssh=no`)",
               err=True)
    os.execv(path, [path, f"--server={bind},{port}"])
