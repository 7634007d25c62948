"""Every unmeasured phase is kept with its time and outcome (runner.phases.PhaseLog), and a run's page
says each kind once, with every problem (views.run.phase_facts)."""

from __future__ import annotations

import pytest

from iolab.errors import RunFailed
from iolab.models import PhaseRecord
from iolab.runner.phases import PhaseLog
from iolab.store.db import open_store
from iolab.store.queries import run_phases
from iolab.views.run import phase_facts


def test_a_phase_is_kept_ok_with_a_problem_or_with_the_error_that_ended_it(tmp_path) -> None:
    store = open_store(tmp_path)
    run_id = store.create_run("p", "iolab run", ["/x"], "fio-3.33", {}, "identity")
    log = PhaseLog(store, run_id)
    with log.phase("fill", "/x/scratch (64 MiB)"):
        pass
    with log.phase("cache drop", "page cache", point_id=None) as problems:
        problems.append("could not drop the page cache (Permission denied)")
    with pytest.raises(RunFailed), log.phase("pre command", "false"):
        raise RunFailed("pre-point command failed: false")
    kept = run_phases(store, run_id)
    assert [(p.kind, p.outcome) for p in kept] == [
        ("fill", "ok"),
        ("cache drop", "could not drop the page cache (Permission denied)"),
        ("pre command", "pre-point command failed: false"),
    ]
    assert all(p.seconds >= 0 and p.started > 0 for p in kept)


def test_a_page_says_each_kind_once_with_its_count_time_and_every_problem() -> None:
    phases = [PhaseRecord("fill", "/x/s (1 GiB)", 1.0, 3.25)]
    phases += [PhaseRecord("cache drop", "page cache", 2.0 + i, 0.1, "ok", point_id=i) for i in range(3)]
    phases += [PhaseRecord("cache drop", "page cache", 9.0, 0.1, "denied", point_id=9)]
    facts = dict(phase_facts(phases))
    assert facts["phase: fill"] == "/x/s (1 GiB): 3.2 s, ok"
    assert facts["phase: cache drop"] == "page cache (before points): 4 times, 0.4 s, denied"
