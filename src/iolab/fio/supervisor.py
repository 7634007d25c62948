"""fio's keeper: the process between iolab and fio that makes sure fio never outlives iolab.

iolab starts this file as a script (`python -I supervisor.py FD -- fio ...`,
standard library only, so it starts in milliseconds), and it starts fio.
Neither a parent-death signal nor a process-group kill can stop a fio run
on its own: fio's job processes call setsid(), so they leave fio's group,
and they are fio's children, not iolab's. So the keeper:

- makes itself a child subreaper: when fio's main process dies, its job
  processes become the keeper's children, never init's, and stay in reach;
- holds the read end of a pipe whose only write end is in iolab. The kernel
  closes that end when iolab dies, however it dies (SIGKILL included), and
  the keeper sees end-of-file at once and kills every process below it. If
  iolab is already gone when the keeper starts, fio never starts;
- forwards SIGINT (iolab's "stop, and write your results") to fio and its
  jobs, and takes SIGTERM or SIGHUP as "kill them all now";
- when fio's main process exits, kills whatever it left behind, so a job
  process that never exits cannot keep writing;
- given `--remove DIR` (the temporary directory iolab made for this fio run:
  its job file and output), removes it when iolab died first, since iolab
  can no longer remove it itself. Nothing else is ever removed.

Its exit status is fio's (128 + N when a signal N ended fio).

While fio runs the keeper sleeps in one select() on three descriptors: the
lifeline, a pidfd of fio (readable when fio exits) and the wakeup pipe of its
signal handlers. It wakes only when something happened, never on a timer:
polling ten times a second cost 0.07-0.09% of a CPU beside fio
(bench/overhead.py), more than iolab's own process. Kernels without pidfd
(before 5.3) fall back to polling every POLL_S.
"""

from __future__ import annotations

import ctypes
import os
import select
import shutil
import signal
import sys
import time

POLL_S = 0.1
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, found from the parent links in /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


class Keeper:
    """Runs one fio command and answers for every process it makes."""

    def __init__(self, lifeline: int, command: list[str], orphaned_dir: str | None = None) -> None:
        self.lifeline = lifeline
        self.command = command
        self.orphaned_dir = orphaned_dir
        self.fio_pid = 0
        self.fio_status: int | None = None
        self.kill_all = False
        self.fio_exit: int | None = None  # a pidfd of fio: readable once fio has exited
        self.woken: int | None = None  # read end of the signal handlers' wakeup pipe

    def iolab_gone(self, wait: float | None) -> bool:
        """True once iolab has closed (or lost) its end of the lifeline. Waits at most `wait` seconds (None:
        until the lifeline, fio's exit or a signal wakes the keeper)."""
        watched = [fd for fd in (self.lifeline, self.fio_exit, self.woken) if fd is not None]
        try:
            ready, _, _ = select.select(watched, [], [], wait)
        except InterruptedError:
            return False
        if self.woken in ready:
            os.read(self.woken, 512)  # the signal numbers: the handlers have run and set what they set
        return self.lifeline in ready and os.read(self.lifeline, 1) == b""

    def start(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1)
        pid = os.fork()
        if pid == 0:  # fio: dies with the keeper too, should the keeper itself be killed
            try:
                libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
                os.close(self.lifeline)
                os.execv(self.command[0], self.command)  # the path iolab checked (`programs`): no PATH search
            except OSError as exc:
                os.write(2, f"cannot start {self.command[0]}: {exc.strerror}\n".encode())
            os._exit(127)
        self.fio_pid = pid
        try:
            self.fio_exit = os.pidfd_open(pid)
        except (AttributeError, OSError):  # no pidfd here: iolab_gone polls instead
            self.fio_exit = None

    def reap(self) -> None:
        """Collect every exited child, noting fio's own status."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            if pid == self.fio_pid:
                self.fio_status = os.waitstatus_to_exitcode(status)

    def kill_everything(self) -> None:
        """SIGKILL every process below the keeper until none is left."""
        while True:
            below = descendants(os.getpid())
            if not below:
                break
            signal_all(below, signal.SIGKILL)
            time.sleep(0.01)  # a moment for the kernel to finish the kills
            self.reap()

    def orphaned(self) -> int:
        """iolab is gone: nothing of this run may outlive it, its temporary directory included."""
        self.kill_everything()
        if self.orphaned_dir is not None:
            shutil.rmtree(self.orphaned_dir, ignore_errors=True)
        return 128 + signal.SIGKILL

    def run(self) -> int:
        if self.iolab_gone(0):
            return self.orphaned()
        self.start()
        wait = None if self.fio_exit is not None and self.woken is not None else POLL_S
        while self.fio_status is None:
            if self.iolab_gone(wait):
                return self.orphaned()
            if self.kill_all:
                self.kill_everything()
                return 128 + signal.SIGKILL
            self.reap()
        # fio has exited: a late SIGINT must not end the keeper (Python restores its default action while
        # the interpreter shuts down) and turn fio's status into "killed by SIGINT".
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.kill_everything()  # job processes fio left behind
        status = self.fio_status
        return status if status >= 0 else 128 - status


def main(argv: list[str]) -> int:
    """`supervisor.py FD [--remove DIR] -- COMMAND...`"""
    lifeline, rest = int(argv[1]), argv[2:]
    orphaned_dir = None
    if rest[0] == "--remove":
        orphaned_dir, rest = rest[1], rest[2:]
    keeper = Keeper(lifeline, rest[1:], orphaned_dir)

    def stop(signum: int, frame: object) -> None:
        signal_all(descendants(os.getpid()), signal.SIGINT)

    def kill(signum: int, frame: object) -> None:
        keeper.kill_all = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, kill)
    signal.signal(signal.SIGHUP, kill)
    woken, wake = os.pipe()
    os.set_blocking(wake, False)
    os.set_blocking(woken, False)
    signal.set_wakeup_fd(wake)  # a signal makes the keeper's select() return, so it acts on it at once
    keeper.woken = woken
    return keeper.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
