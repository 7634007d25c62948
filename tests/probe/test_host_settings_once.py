"""Each host setting (`models.host_settings.HOST_SETTINGS`) is read once by the probe, judged by its own entry
and advised by its own text.

For every setting the test generates a /sys + /proc tree holding a value the entry's judge flags and one it
passes, counts the reads a snapshot makes of each file, and runs the doctor's rule on it: the file of each
setting is read exactly once per device or cpufreq policy, the value read is the one written, the rule fires
on the flagged value only, and the finding's advice is the entry's. A setting added to the list without a
value here fails `test_every_setting_has_values`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.models.host_settings import HOST_SETTINGS, HostSetting, names
from iolab.models.snapshot import Snapshot, TargetInfo
from iolab.probe.root import Root
from iolab.probe.snapshot import take_snapshot

DEVICE = "sdb"  # a SATA SSD: fast (rotational 0), and mq-deadline is no fault on it
POLICIES = ("policy0", "policy1")
# (a value the setting's judge flags, one it passes); None where no rule judges the setting
VALUES: dict[str, tuple[str | None, str]] = {
    "scheduler": ("bfq", "none"),
    "nr_requests": ("16", "1023"),  # the job below offers 64
    "wbt_lat_usec": ("2000", "0"),
    "read_ahead_kb": ("128", "4096"),
    "rq_affinity": (None, "1"),
    "nomerges": (None, "0"),
    "governor": ("powersave", "performance"),
}
# what the tree holds for the settings a case does not vary: a scheduler in place, so the request pool counts
BACKGROUND = {n: fine for n, (_, fine) in VALUES.items()} | {"scheduler": "mq-deadline"}
# a buffered sequential reader at depth 64: the job every block rule here applies to
JOB = {"filename": f"/dev/{DEVICE}", "rw": "read", "direct": "0", "ioengine": "libaio", "iodepth": "64"}


class CountingRoot(Root):
    """A Root that counts how often each host file is read."""

    def __init__(self, base: Path) -> None:
        super().__init__(base)
        self.reads: Counter[str] = Counter()

    def read_text(self, absolute: str) -> str | None:
        self.reads[absolute] += 1
        return super().read_text(absolute)


def _text(setting: HostSetting, value: str) -> str:
    """The file's text as the kernel shows the value (a listed file brackets the one in force)."""
    if not setting.listed:
        return value
    return " ".join(f"[{c}]" if c == value else c for c in dict.fromkeys(["none", value, "kyber"]))


def _tree(base: Path, values: dict[str, str]) -> Path:
    """A host with one fast disk and two cpufreq policies, each setting's file holding `values`."""
    files = {
        "proc/cmdline": "root=/dev/sdb1",
        "proc/sys/kernel/osrelease": "6.8.0",
        f"sys/block/{DEVICE}/size": "2097152",
        f"sys/block/{DEVICE}/dev": "8:16",
        f"sys/block/{DEVICE}/queue/rotational": "0",
        "sys/devices/system/cpu/online": "0-1",
    }
    for setting in HOST_SETTINGS:
        subjects = POLICIES if setting.per_cpu_policy else (DEVICE,)
        files.update({setting.path(s).lstrip("/"): _text(setting, values[setting.name]) for s in subjects})
    for relative, text in files.items():
        (base / relative).parent.mkdir(parents=True, exist_ok=True)
        (base / relative).write_text(text if text.endswith("\n") else text + "\n")
    return base


def _probe(tmp_path: Path, name: str, value: str) -> tuple[Snapshot, CountingRoot]:
    values = BACKGROUND | {name: value}
    root = CountingRoot(_tree(tmp_path / f"{name}-{value}", values))
    snap = take_snapshot(root)
    snap.targets = [TargetInfo(path=f"/dev/{DEVICE}", device=DEVICE, is_block_device=True)]
    return snap, root


def _findings(snap: Snapshot, rule_id: str) -> list:
    job = JobView("seq", JOB, f"/dev/{DEVICE}", "block")
    return evaluate(Context(snapshot=snap, jobs=[job]), [r for r in all_rules() if r.id == rule_id])


def test_every_setting_has_values() -> None:
    assert set(VALUES) == set(names())


@pytest.mark.parametrize("setting", HOST_SETTINGS, ids=names())
def test_each_setting_is_read_once_and_kept_as_read(tmp_path: Path, setting: HostSetting) -> None:
    for value in filter(None, VALUES[setting.name]):
        snap, root = _probe(tmp_path, setting.name, value)
        for entry in HOST_SETTINGS:  # every setting's file, not only the one this tree varies
            subjects = POLICIES if entry.per_cpu_policy else (DEVICE,)
            assert {s: root.reads[entry.path(s)] for s in subjects} == dict.fromkeys(subjects, 1), entry.name
        device = snap.device(DEVICE)
        assert device is not None
        if setting.per_cpu_policy:
            assert snap.governors == dict.fromkeys(POLICIES, value)
        else:
            assert device.host_settings[setting.name] == value


@pytest.mark.parametrize("setting", HOST_SETTINGS, ids=names())
def test_each_setting_is_judged_by_its_entry_with_its_advice(tmp_path: Path, setting: HostSetting) -> None:
    flagged, fine = VALUES[setting.name]
    if setting.rule is None:
        assert flagged is None and setting.judge is None and not setting.advice
        return
    assert flagged is not None and setting.advice
    (rule,) = [r for r in all_rules() if r.id == setting.rule]
    assert rule.fix == setting.advice
    found = _findings(_probe(tmp_path, setting.name, flagged)[0], setting.rule)
    assert [f.rule_id for f in found] == [setting.rule], found
    assert found[0].fix == setting.advice
    assert setting.judged(flagged, 64) is not None and setting.judged(fine, 64) is None
    assert _findings(_probe(tmp_path, setting.name, fine)[0], setting.rule) == []


def test_a_snapshot_stored_before_settings_were_kept_by_name_is_judged_alike() -> None:
    """An older stored snapshot has only the typed fields: they become the settings the rules read."""
    stored = {"devices": [{"name": DEVICE, "rotational": False, "scheduler": "bfq", "wbt_lat_usec": 2000}]}
    snap = Snapshot.from_dict(stored)
    assert snap.devices[0].host_settings == {"scheduler": "bfq", "wbt_lat_usec": "2000"}
    for rule_id in ("BLK-SCHED", "BLK-WBT"):
        assert [f.rule_id for f in evaluate(Context(snapshot=snap), [r for r in all_rules() if r.id == rule_id])] == [
            rule_id
        ]
