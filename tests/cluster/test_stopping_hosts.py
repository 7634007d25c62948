"""Stopping when known (and --devices) refused on many hosts, and why: what fio 3.33's client/server mode shows while a
point runs, seen on real fio servers at 127.0.0.x."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.cluster.servers import FIO, fio_servers, free_port, hostfile, wait_listening
from tests.iolab_cli import assert_clean_error, iolab

ADDRESSES = ["127.0.0.41", "127.0.0.42"]
JOB = "[rr]\nioengine=psync\nbs=4k\nrw=randread\ntime_based=1\nruntime=3\nrate=8m\nfilename={file}\nsize=4M\n"


def documents(text: str) -> list[dict]:
    """The JSON documents fio wrote one after another."""
    decoder, found, at = json.JSONDecoder(), [], text.find("{")
    while at >= 0:
        doc, end = decoder.raw_decode(text, at)
        found.append(doc)
        at = text.find("{", end)
    return found


def client_run(tmp_path: Path, port: int) -> tuple[list[int], str]:
    """fio as client of both servers with --status-interval=1, its output file's size every 0.2 s while it
    runs, and what the file held at the end."""
    argv = [FIO, "--output-format=json", f"--output={tmp_path / 'out.json'}", "--eta=never", "--status-interval=1"]
    for number, address in enumerate(ADDRESSES, 1):
        job = tmp_path / f"job{number}.fio"
        job.write_text(JOB.format(file=tmp_path / f"data{number}.dat"))
        argv += [f"--client={address},{port}", str(job)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sizes = []
    while proc.poll() is None:
        out = tmp_path / "out.json"
        sizes.append(out.stat().st_size if out.exists() else 0)
        time.sleep(0.2)
    assert proc.returncode == 0
    return sizes, (tmp_path / "out.json").read_text()


def test_fio_clients_status_interval_gives_nothing_until_the_end(tmp_path):
    """The client's --status-interval is its own: the servers are not told, and the output file stays empty
    until every host has finished, then holds one document with each host's final figures."""
    with fio_servers(ADDRESSES) as (port, _):
        sizes, text = client_run(tmp_path, port)
    assert len(sizes) >= 10 and max(sizes[:-2]) == 0, sizes  # 3 s of I/O and nothing written meanwhile
    (doc,) = documents(text)
    names = [e["jobname"] for e in doc["client_stats"]]
    assert sorted(names) == ["All clients", "rr", "rr"]


def test_servers_with_a_status_interval_corrupt_the_all_clients_total(tmp_path):
    """Servers started with --status-interval=1 do send interim figures, but the client writes them only at
    the end, as more entries of the one document, and adds the first ones into its "All clients" entry."""
    port = free_port(ADDRESSES[0])
    servers = [
        subprocess.Popen(
            [FIO, f"--server={a},{port}", "--status-interval=1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        for a in ADDRESSES
    ]
    try:
        for address in ADDRESSES:
            wait_listening(address, port)
        sizes, text = client_run(tmp_path, port)
    finally:
        for server in servers:
            server.kill()
            server.wait()
    assert max(sizes[:-2]) == 0, sizes
    (doc,) = documents(text)
    hosts = [e for e in doc["client_stats"] if e["jobname"] != "All clients"]
    (every,) = [e for e in doc["client_stats"] if e["jobname"] == "All clients"]
    assert len(hosts) > len(ADDRESSES)  # interim entries beside the final ones
    final = {entry["hostname"]: entry["read"]["total_ios"] for entry in hosts}  # each host's last entry: its final
    assert every["read"]["total_ios"] < sum(final.values())


@pytest.mark.parametrize("how", ["flag", "plan", "dry-run"])
def test_stop_when_known_with_hosts_is_refused_before_any_host_is_contacted(tmp_path, iolab_home, how):
    """Exit 2 with the reason, whether asked on the command line or by the plan, in a dry run too; the
    hosts (nothing listens there) are never contacted, or the message would be about them."""
    hosts = hostfile(tmp_path / "hosts", ADDRESSES, free_port(ADDRESSES[0]))
    if how == "plan":
        plan = tmp_path / "plan.toml"
        plan.write_text('[options]\nrw = "randread"\nbs = "4k"\n\n[stopping]\ntarget_ci = "2%"\n')
        argv = ["run", str(plan), str(tmp_path), "--hostfile", str(hosts)]
    else:
        argv = ["run", "--preset", "quick", str(tmp_path), "--hostfile", str(hosts), "--stop-when-known"]
        argv += ["--dry-run"] if how == "dry-run" else []
    message = assert_clean_error(iolab(*argv))
    assert "runs on one host only" in message and "no per-second figures" in message


@pytest.mark.parametrize("dry", [False, True])
def test_devices_with_hosts_is_refused_by_the_same_check(tmp_path, iolab_home, dry):
    """The other combination `check_hosts` refuses, before any host is contacted."""
    hosts = hostfile(tmp_path / "hosts", ADDRESSES, free_port(ADDRESSES[0]))
    argv = ["run", "--devices", "/dev/loop*", "--hostfile", str(hosts), *(["--dry-run"] if dry else [])]
    assert "--devices and --hosts do not go together" in assert_clean_error(iolab(*argv))
