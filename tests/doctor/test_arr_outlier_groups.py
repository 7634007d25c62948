"""ARR-OUTLIER on a group of drives slow together (issue 40, fourth round): named as a group, with the PCI function
the group shares where the snapshot knows the drives' paths; drives of two models each judged against their own
kind; and the power for a group where the array could not have named one."""

from __future__ import annotations

import math

from iolab.doctor.derived import ArrayView
from iolab.doctor.engine import evaluate
from iolab.doctor.rule import Context
from iolab.models import Severity
from iolab.models.snapshot import BlockDevice, PciPort, Snapshot

MB = 1e6


def _view(together: dict[str, float]) -> ArrayView:
    return ArrayView("seq-read", {d: v * MB for d, v in together.items()}, {}, [])


def _drives(n: int, spread: float = 0.03) -> dict[str, float]:
    return {f"sd{i}": 500.0 * math.exp(spread * math.sin(1.7 * i + 0.3)) for i in range(n)}


def _snapshot(names: list[str], hba: dict[str, str], models: dict[str, str] | None = None) -> Snapshot:
    """Each drive behind its HBA (an endpoint function) under one root port; its model where given."""
    root = PciPort("0000:40:01.1")
    devices = [
        BlockDevice(name, model=(models or {}).get(name), pcie=PciPort(hba[name]), upstream=[root]) for name in names
    ]
    return Snapshot(devices=devices)


def _outlier(context: Context):
    return [f for f in evaluate(context) if f.rule_id == "ARR-OUTLIER"]


def test_a_slow_hba_group_is_named_as_a_group_with_the_path_it_shares():
    """Ten of 30 drives at half the others' speed: one warning names the ten as a group (not ten drives), and the
    HBA every one of them hangs off, which the other drives do not, is in its title."""
    values = _drives(30)
    group = [f"sd{i}" for i in range(10)]
    for name in group:
        values[name] *= 0.5
    hba = {name: "0000:41:00.0" if name in group else "0000:42:00.0" for name in values}
    findings = _outlier(Context(arrays=[_view(values)], snapshot=_snapshot(list(values), hba)))
    (named,) = [f for f in findings if f.severity is Severity.WARNING]
    assert named.subject == "+".join(group)
    assert named.title.startswith("10 drives are slow together (together): sd0, sd1")
    assert "they share 0000:41:00.0, which the other drives do not" in named.title
    assert named.evidence["shared path"] == "0000:41:00.0"
    assert "or they are a slower drive model" in named.title  # the snapshot holds no models


def test_without_paths_the_group_says_what_it_cannot_know():
    values = _drives(24)
    for i in range(6):
        values[f"sd{i}"] *= 0.5
    (named,) = [f for f in _outlier(Context(arrays=[_view(values)])) if f.severity is Severity.WARNING]
    assert named.evidence["shared path"].startswith("not known")
    assert "they share" not in named.title and "the run does not know the drives' models" in named.title


def test_drives_of_two_models_are_each_judged_against_their_own_kind():
    """Twelve drives of a model at 70% of the other sixteen's speed: judged as one array they are a slow group;
    the snapshot knows the two models, so each is judged against its own kind: no warning but for a drive of
    the faster model at 40% of its kind, and one finding of information names the two models."""
    values = _drives(28)
    slower = [f"sd{i}" for i in range(12)]
    for name in slower:
        values[name] *= 0.7
    values["sd20"] *= 0.4
    models = {name: "SLOW-1TB" if name in slower else "FAST-2TB" for name in values}
    hba = dict.fromkeys(values, "0000:41:00.0")
    findings = _outlier(Context(arrays=[_view(values)], snapshot=_snapshot(list(values), hba, models)))
    assert [f.subject for f in findings if f.severity is Severity.WARNING] == ["sd20"]
    (kinds,) = [f for f in findings if "models" in f.title]
    assert kinds.severity is Severity.INFO and "FAST-2TB: 16 drives; SLOW-1TB: 12 drives" in kinds.title
    unknown = _outlier(Context(arrays=[_view(values)]))  # no snapshot: one array, the slower model a slow group
    (group,) = [f for f in unknown if f.severity is Severity.WARNING]
    assert set(group.subject.split("+")) == {*slower, "sd20"} and "slower drive model" in group.title


def test_an_array_that_could_not_name_a_group_says_how_slow_one_would_have_to_be():
    """Twelve drives spread 60%: neither a lone drive nor three drives slow together at 60% of the median could
    be named, and the finding of information states both powers."""
    values = _drives(12, spread=0.8)
    (power,) = [f for f in _outlier(Context(arrays=[_view(values)])) if f.severity is Severity.INFO]
    assert "could name three or more drives slow together (behind one HBA or switch) only at " in power.title
    assert "such a group at 60% would go unseen" in power.title
