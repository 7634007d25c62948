"""Which fio is the measuring one: the fio that iolab's keeper started, never a `fio --version` probe.

Since fio runs under its keeper (`iolab.fio.supervisor`), the fio that measures is iolab's grandchild:
iolab -> keeper -> fio (-> fio's job processes). iolab's own children named fio are the probes it runs
to read fio's version and help, which exit within milliseconds; a test that starts a clock on one of
them starts it before the measured fio exists.
"""

from __future__ import annotations

from pathlib import Path


def children(pid: int) -> list[int]:
    """The pids whose parent is `pid` (every thread's children list: a child may be any thread's)."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(kid) for kid in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def name_of(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def measuring_fio(iolab_pid: int) -> int | None:
    """The pid of the fio a keeper below `iolab_pid` runs, or None while there is none."""
    for keeper in children(iolab_pid):
        if name_of(keeper) == "fio":  # a probe, or fio's own job processes below it
            continue
        for kid in children(keeper):
            if name_of(kid) == "fio":
                return kid
    return None
