"""The doctor's verdict on an imported run: the same diagnosis stage as a run of iolab's own.

A function of the stored run alone (its points, logs and options, read back from the store), so either
of an import's two processes can judge it (`imports.reading`): on fio-plot's collection the doctor
judged 161 runs at the end of the import, seconds of one process's work while the other sat idle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iolab.models import Finding
    from iolab.store.db import Store


def load_doctor() -> None:
    """Load the doctor (its rules, the store's queries) ahead: an import's second process does it once it has
    parsed its last file, while the storing process stores the last ones, then judges (`imports.reading`).
    numpy is not loaded here: an import without logs never needs it (~0.1 s of CPU a process)."""
    import iolab.doctor.engine
    import iolab.store.queries  # noqa: F401


def findings_of(store: Store, run_id: int, tool: str) -> list[Finding]:
    """The imported run's findings: method and results (there is no snapshot of the host the output came
    from, so no host rules). fio's method rules advise fio options (ramp_time=, direct=1...), which mean
    nothing to another tool's run: they are kept for fio only."""
    from iolab.doctor.engine import diagnose_run
    from iolab.store.queries import run_material

    findings = diagnose_run(run_material(store, run_id))
    return [f for f in findings if tool == "fio" or f.family != "method"]
