"""A run's invariants are checked once a point (`JobView.violations`): the engine sorts valid points from invalid
ones with them, and RES-INVARIANT reads the same list. Both computed them before (~2,000 checks judging 1,000
imported points). Held here on real fio outputs with one result broken by hand: every invariant runs once per
measured point, and RES-INVARIANT names exactly the points whose own options and result break one, each as
`analysis.invariants.violations` says, computed apart."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from iolab.analysis import invariants
from iolab.doctor.engine import INVARIANT_RULE, diagnose_run
from iolab.imports import import_paths
from iolab.store.db import open_store
from iolab.store.queries import run_material

DATA = Path(__file__).parents[1] / "data" / "fio"


@pytest.fixture
def material(tmp_path, monkeypatch):
    """A run of real fio outputs (the quick preset's five points, with their logs), its second measured point's read rate doubled (IOPS x block size is then not
    the rate, nor is bytes over time)."""
    monkeypatch.setenv("IOLAB_HOME", str(tmp_path / "home"))
    store = open_store()
    try:
        outcome = import_paths([str(DATA / "quick")], store, "test")
        found = run_material(store, outcome.runs[0].run_id)
    finally:
        store.close()
    measured = [r for r in found.records if r.result is not None]
    assert len(measured) >= 5
    broken = measured[1]
    assert broken.result is not None
    ddir, direction = next((d, v) for d, v in broken.result.directions.items() if v.bw_bytes > 0)
    result = replace(
        broken.result,
        directions={**broken.result.directions, ddir: replace(direction, bw_bytes=direction.bw_bytes * 2)},
    )
    found.records[found.records.index(broken)] = replace(broken, result=result)
    return found


def test_each_invariant_checked_once_a_point_and_the_broken_one_named(material, monkeypatch):
    calls = {"checks": 0}

    def counted(check):
        def count(*args):
            calls["checks"] += 1
            return check(*args)

        return count

    expected = {
        r.point.name: [v.invariant for v in invariants.violations(r.result, r.point.job)]
        for r in material.records
        if r.result is not None
    }
    monkeypatch.setattr(invariants, "INVARIANTS", tuple(counted(check) for check in invariants.INVARIANTS))
    findings = diagnose_run(material)
    measured = sum(r.result is not None for r in material.records)
    assert calls["checks"] == len(invariants.INVARIANTS) * measured
    named = {}
    for f in findings:
        if f.rule_id == INVARIANT_RULE:
            named.setdefault(f.subject, []).append(f.evidence["invariant"])
    assert named == {name: found for name, found in expected.items() if found}
    assert len(named) == 1
