"""Asking many fio servers their version with one fio client, on real servers at 127.0.0.x."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import HostState, probe_servers
from tests.cluster.servers import FIO, fio_servers, free_port, tree, wait_listening

ADDRESSES = ["127.0.0.51", "127.0.0.52", "127.0.0.53"]


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_one_client_asks_every_server_and_names_the_one_that_did_not_answer():
    """Every live server's reply lands on its own host (two share an address, on other ports), a host with
    no server gets fio's own words, and no server is left serving the killed client."""
    with fio_servers(ADDRESSES) as (port, procs):
        other = free_port(ADDRESSES[0])
        extra = subprocess.Popen([FIO, f"--server={ADDRESSES[0]},{other}"], stdout=subprocess.DEVNULL)
        try:
            wait_listening(ADDRESSES[0], other)
            hosts = [HostSpec(f"h{n}", a, port, tcp=True) for n, a in enumerate(ADDRESSES, 1)]
            hosts += [
                HostSpec("same-address", ADDRESSES[0], other, tcp=True),
                HostSpec("none", "127.0.0.54", port, tcp=True),
            ]
            answers = dict(
                zip([h.name for h in hosts], probe_servers([HostState(h) for h in hosts], FIO or "fio"), strict=True)
            )
            for name in ("h1", "h2", "h3", "same-address"):
                assert isinstance(answers[name], dict) and answers[name]["fio"].startswith("fio-"), answers
            assert isinstance(answers["none"], str)
            assert "no fio server answered at 127.0.0.54" in answers["none"] and "connect" in answers["none"]
            deadline = time.monotonic() + 10
            while any(len(tree(p.pid)) > 1 for p in [*procs.values(), extra]) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert all(len(tree(p.pid)) == 1 for p in [*procs.values(), extra])
        finally:
            extra.kill()
            extra.wait()


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_the_probe_leaves_nothing_in_the_servers_log(tmp_path):
    """The probe's client is killed once the server has answered. With a job to run, the server started it
    for a client already gone and fio aborted it: "Assertion `sk_out->sk != -1' failed" in the log of
    `iolab agent` after every run (5 probes, 5 such lines, before the probe's job was made empty)."""
    address = "127.0.0.55"
    port = free_port(address)
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen([FIO or "fio", f"--server={address},{port}"], stdout=out, stderr=out)
    try:
        wait_listening(address, port)
        for _ in range(3):
            (answer,) = probe_servers([HostState(HostSpec("h", address, port, tcp=True))], FIO or "fio")
            assert isinstance(answer, dict), answer
        deadline = time.monotonic() + 5
        while len(tree(server.pid)) > 1 and time.monotonic() < deadline:  # what served the probes has ended
            time.sleep(0.1)
    finally:
        server.kill()
        server.wait()
    assert log.read_text() == ""
