"""Parsing an import's files, in order, shared with a second process while this one stores them.

Parsing (JSON, validation, aggregation, compressing the file to keep) and storing (SQLite, the
doctor) each took about half of importing 1,000 json+ outputs on one CPU; on two they overlap. The
files are cut into chunks, and each chunk is claimed by whichever process comes to it first: the
second process takes them one after another, and this one, when it needs the next chunk to store
and the other has not started it, parses that chunk itself. So the work balances itself whatever
the share of parsing and storing (logs make parsing heavier, the doctor storing).

The second process is forked, so it starts with the files already read (`discover`) and nothing to
pickle on the way in; on the way back it sends each file's parsed jobs (results, log arrays and the
compressed file: a few KB), never the text. It is used only where it can help and cannot hurt:
enough files to pay for the fork, a second CPU to run on (one that other work leaves free: `_second_cpu`),
and a process that is still single-threaded (forking one with other threads, such as numpy's BLAS pool,
can deadlock the child; `iolab import` forks before anything loads numpy). If the child dies, the chunks it had not sent
are parsed here, so its failure costs time, not files.

Once every file is stored, the two processes judge the import's runs the same way (`judged`): each claims
the next run nobody has (a single run is the child's: it loaded the doctor before it parsed), the
second process reading the store through a connection of its own and sending the findings back for this
one to save. The doctor was the end of a large import, one process's
work (6.6 s of fio-plot's collection) while the other sat idle. A run the child claimed and did not
send (it died, or could not open the store) is judged here.
"""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import signal
from collections.abc import Iterator
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING

from iolab.errors import UserError
from iolab.imports import prefetch
from iolab.imports.discover import Candidate
from iolab.imports.fio_files import FioFile, read_fio
from iolab.imports.judging import findings_of, load_doctor
from iolab.imports.tool_files import ToolFile, read_tool
from iolab.store.db import PackedFindings, Store, pack_findings

if TYPE_CHECKING:  # loaded (with ctypes, ~8 ms of CPU) only where a second process shares the counters
    from multiprocessing.sharedctypes import Synchronized

# A file parsed, or the UserError message that says why it cannot be.
Parsed = FioFile | ToolFile | str

PARALLEL_FROM = (
    64  # files: fewer are parsed here (64 json+ outputs parse in ~10 ms; forking and ending the child ~3 ms)
)
PIPE_BYTES = 1 << 20
CHUNK = 8  # files a chunk: small enough to balance the two processes, large enough to send few messages
# Chunks this process may hold parsed ahead of the one it stores next, while the child is still on that one:
# without a bound, a child slow on one file with large logs left this process holding every other file's.
AHEAD = 8
BUSY_LOAD = 0.5  # CPUs' worth of other work: at a load average above the CPUs less this, no second CPU is free


class Reading:
    """The candidates parsed, in the order given, as an iterator; shared with a second process when that can
    help (see above), started at once so the caller can load what it needs for storing meanwhile. A context
    manager: leaving it stops the process, whatever was read."""

    def __init__(
        self,
        candidates: list[Candidate],
        logs: bool,
        parallel_from: int = PARALLEL_FROM,
        logs_seen: list[str] | None = None,
    ) -> None:
        self.logs = logs
        # the walk's logs: the second process asks the kernel to read those beside its outputs ahead (`imports.prefetch`)
        self.logs_seen = logs_seen or []
        self.chunks = [candidates[start : start + CHUNK] for start in range(0, len(candidates), CHUNK)]
        self.child: BaseProcess | None = None
        self.receiving: Connection | None = None
        self.next_chunk: Synchronized[int] | None = None
        self.next_run: Synchronized[int] | None = None
        self.orders: Connection | None = None  # to the child: the store and the runs to judge (`judged`)
        if len(candidates) >= parallel_from and _second_cpu() and _single_threaded():
            context = multiprocessing.get_context("fork")
            self.next_chunk = context.Value("i", 0)  # the first chunk neither process has claimed
            self.next_run = context.Value("i", 0)  # the same for the runs to judge
            self.receiving, sending = context.Pipe(duplex=False)
            ordered, self.orders = context.Pipe(duplex=False)
            _widen(sending)
            self.child = context.Process(target=self._child, args=(sending, ordered), daemon=True)
            self.child.start()
            sending.close()
            ordered.close()

    def __enter__(self) -> Reading:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.orders is not None:
            self.orders.close()
        if self.receiving is not None:
            self.receiving.close()
        if self.child is not None:
            if self.child.is_alive():
                self.child.kill()
            self.child.join()

    def __iter__(self) -> Iterator[Parsed]:
        ready: dict[int, list[Parsed]] = {}  # chunks parsed (by either process) before their turn
        for number, chunk in enumerate(self.chunks):
            while number not in ready:
                if self.receiving is None:  # no child, or it is gone: this process parses the rest in order
                    ready[number] = [read_one(candidate, self.logs) for candidate in chunk]
                    break
                if not self.receiving.poll() and len(ready) < AHEAD and (mine := self._claim()) is not None:
                    # nothing to store yet: parse the next chunk nobody has claimed
                    ready[mine] = [read_one(candidate, self.logs) for candidate in self.chunks[mine]]
                    continue
                try:
                    at, parsed = self.receiving.recv()
                except (EOFError, OSError):  # the child is gone: what it had claimed is parsed here
                    self._child_gone()
                    continue
                ready[at] = parsed
            yield from ready.pop(number)

    def judged(self, store: Store, runs: list[tuple[int, str]]) -> list[PackedFindings]:
        """The findings of each (run id, tool) stored, in the order given (`judging.findings_of`), as the store's
        rows (`store.db.pack_findings`: the child sends those, cheaper to send and to save), judged by
        both processes when the child is there. One run is left to the child, which loaded the doctor before it
        parsed: this one, the import's slower, then never loads it (0.1 s of CPU)."""
        found: dict[int, PackedFindings] = {}
        self._order(store, runs)
        while len(found) < len(runs):
            if self.receiving is None:  # no child, or it is gone: the runs it had not sent are judged here
                found.update(
                    {n: pack_findings(findings_of(store, *runs[n])) for n in range(len(runs)) if n not in found}
                )
                break
            mine = None if len(runs) == 1 or self.receiving.poll() else _claim(self.next_run, len(runs))
            if mine is not None:
                found[mine] = pack_findings(findings_of(store, *runs[mine]))
            else:
                self._receive(found)
        return [found[number] for number in range(len(runs))]

    def _order(self, store: Store, runs: list[tuple[int, str]]) -> None:
        """The child sent the store and the runs to judge beside this process; with none to judge, let go (it
        ends when `orders` closes)."""
        if self.orders is not None and self.receiving is not None and runs:
            try:
                self.orders.send((str(store.path), runs))
                return
            except OSError:
                pass
        self._child_gone()

    def _receive(self, found: dict[int, PackedFindings]) -> None:
        """The next run the child judged, into `found`; a child that is gone is forgotten."""
        if self.receiving is None:
            return
        try:
            number, findings = self.receiving.recv()
        except (EOFError, OSError):
            self._child_gone()
            return
        found[number] = findings

    def _claim(self) -> int | None:
        """The next chunk neither process has claimed, claimed by this one; None when all are claimed."""
        return _claim(self.next_chunk, len(self.chunks))

    def _child_gone(self) -> None:
        self.next_chunk = self.next_run = None
        if self.receiving is not None:
            self.receiving.close()
            self.receiving = None

    def _child(self, sending: Connection, orders: Connection) -> None:
        """The second process: claim the next chunk, parse it, send it, until none is left; then judge the runs
        this process is sent, likewise. Ctrl-C is for the parent, which stops the child; a parent that is gone
        closes the pipes, and the next send or wait ends it (the child's copies of the parent's ends are closed
        first, or the pipes would stay open and the child block)."""
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for parents in (self.receiving, self.orders):
            if parents is not None:
                parents.close()
        try:
            # here, not in the parent: a thread there would stop a later fork; and only where a second process runs
            folders = {candidate.path.parent for chunk in self.chunks for candidate in chunk}
            prefetch.start(prefetch.logs_to_read(self.logs_seen, folders))
            # The doctor first: this process parses the first chunks meanwhile, and the judging that ends the
            # import starts at once (loaded after the last chunk, its ~0.05 s of CPU were the whole import's wait)
            load_doctor()
            while (number := self._claim()) is not None:
                sending.send((number, [read_one(candidate, self.logs) for candidate in self.chunks[number]]))
            self._judge(sending, orders)
        except (BrokenPipeError, EOFError):
            pass  # the parent has gone, or asks for no judging: nobody is left to tell
        finally:
            sending.close()

    def _judge(self, sending: Connection, orders: Connection) -> None:
        """In the child: the runs it claims, judged on a connection of its own (one never crosses a fork) and sent.
        Any failure (the store cannot be read here, a rule's bug) ends it quietly: the parent judges what it
        did not send, and meets a bug itself."""
        path, runs = orders.recv()
        try:
            store = Store.reader(path)
            while (number := _claim(self.next_run, len(runs))) is not None:
                sending.send((number, pack_findings(findings_of(store, *runs[number]))))
        except (BrokenPipeError, EOFError):
            raise
        except Exception:  # said above: the parent judges the rest
            return


def _claim(counter: Synchronized[int] | None, total: int) -> int | None:
    """The next of `total` things (chunks, runs) neither process has claimed, by the shared `counter`, claimed by
    this one; None when all are claimed or there is no counter (no child)."""
    if counter is None:
        return None
    with counter.get_lock():
        number = counter.value
        if number >= total:
            return None
        counter.value = number + 1
        return number


def read_one(candidate: Candidate, logs: bool) -> Parsed:
    """The candidate parsed by its format; a named file of no known format is read as fio JSON, whose
    errors say what is wrong with it (no JSON, truncated, a field fio would not write)."""
    try:
        if candidate.kind in ("fio", "fio-terse", ""):
            terse = candidate.kind == "fio-terse"
            return read_fio(
                candidate.path, candidate.data, candidate.text, terse, logs, candidate.source, candidate.folders
            )
        return read_tool(candidate.path, candidate.data, candidate.text, candidate.kind)
    except UserError as exc:
        return str(exc)


def _widen(pipe: Connection) -> None:
    """A pipe of 1 MiB (Linux's most for a user, by default) instead of 64 KiB: two chunks filled the default
    while this process loaded the doctor, and the child spent 31 ms of 0.43 s (cProfile) waiting to send."""
    try:
        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass  # a smaller limit here (/proc/sys/fs/pipe-max-size): the default size only costs time


def _second_cpu() -> bool:
    """Whether a second CPU is there to run on: this process may use more than one, and other work does not keep
    them busy (the 1-minute load average below the CPUs less `BUSY_LOAD`). On a busy host the scheduler shares
    the CPUs between sessions (autogroup), so a second process only splits this one's share and adds its own
    costs: at load 6.5-7 on 2 CPUs, 1,000 json+ outputs took 2.57 and 2.79 s (1.33 and 1.35 s of CPU) in two
    processes against 2.39 and 2.57 s (1.21 and 1.22 s) in one, six alternated rounds each, twice."""
    cpus = len(os.sched_getaffinity(0))
    return cpus > 1 and os.getloadavg()[0] < cpus - BUSY_LOAD


def _single_threaded() -> bool:
    """Whether this process has one thread, as the kernel counts them (Python's own count misses BLAS's)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    return any(line.split() == ["Threads:", "1"] for line in status.splitlines())
