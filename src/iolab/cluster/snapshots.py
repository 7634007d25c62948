"""What each host of a multi-host run is: a snapshot taken over SSH.

Where iolab is installed on the host, its own `iolab probe --json` gives
the full snapshot the doctor reads; elsewhere a few standard commands give
the minimum a reader needs to tell hosts apart (kernel, CPUs, memory,
boot options). A host reached only through its fio server gets what that
server said of itself.
"""

from __future__ import annotations

import json

from iolab.cluster.servers import HostState
from iolab.cluster.ssh import run_remote

MINIMAL_FIELDS = ("kernel", "arch", "cpus", "mem_kib", "cmdline")
MINIMAL_PROBE = "uname -r; uname -m; nproc; awk '/^MemTotal/ {print $2}' /proc/meminfo; cat /proc/cmdline"


def host_snapshot(state: HostState) -> dict:
    """The host's snapshot as a dict, saying where it came from."""
    snapshot: dict = {"host": state.name, "fio_server": dict(state.identity)}
    if state.spec.ssh is None:
        return {**snapshot, "source": "fio server probe"}
    full = run_remote(state.spec.ssh, "iolab probe --json", timeout_s=120)
    if full.ok:
        try:
            return {**snapshot, "source": "iolab probe", "snapshot": json.loads(full.stdout)}
        except json.JSONDecodeError:
            pass
    minimal = run_remote(state.spec.ssh, MINIMAL_PROBE)
    if not minimal.ok:
        return {**snapshot, "source": "fio server probe", "problem": minimal.error or minimal.stderr.strip()[-200:]}
    values = minimal.stdout.splitlines()
    return {
        **snapshot,
        "source": "minimal probe over ssh",
        **dict(zip(MINIMAL_FIELDS, values, strict=False)),
    }  # a field the host could not read is missing
