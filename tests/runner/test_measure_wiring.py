"""How a point's measuring is wired (runner.measure.Measurer), with fakes: what fio's run polls to stop (the
stopping rule's watch, the held devices' watch, or both: either stops it), and telemetry beside fio, which a
failure to start makes a note, never a failed point, and which on other hosts watches only this host's
network (no devices, no CPU)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from iolab.errors import UserError
from iolab.models import Point, Target
from iolab.runner import measure
from iolab.runner.measure import Measurer

POINT = Point("p", Target("/dev/sdz", "block", "/dev/sdz", 1 << 30), {"rw": "randread"})


def _devices(names: list[str], stopped: bool) -> SimpleNamespace:
    return SimpleNamespace(held=SimpleNamespace(watch=SimpleNamespace(names=names, stopped=lambda: stopped)))


def test_without_held_devices_only_the_stopping_rule_is_polled():
    rule = lambda: True  # noqa: E731
    assert Measurer._polled(_devices([], True), rule) is rule  # type: ignore[arg-type]
    assert Measurer._polled(_devices([], True), None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(("device_stop", "rule_stop"), [(False, False), (True, False), (False, True), (True, True)])
def test_held_devices_and_the_rule_are_both_polled_and_either_stops_fio(device_stop, rule_stop):
    polled = Measurer._polled(_devices(["sdz"], device_stop), lambda: rule_stop)  # type: ignore[arg-type]
    assert polled is not None and polled() is (device_stop or rule_stop)
    alone = Measurer._polled(_devices(["sdz"], device_stop), None)  # type: ignore[arg-type]
    assert alone is not None and alone() is device_stop


class Sampler:
    made: list[tuple[list[str], float, bool]] = []
    refuse = ""

    def __init__(self, devices: list[str], interval_s: float, cpu: bool) -> None:
        Sampler.made.append((devices, interval_s, cpu))

    def start(self) -> None:
        if Sampler.refuse:
            raise UserError(Sampler.refuse)


@pytest.fixture
def sampler(monkeypatch):
    Sampler.made, Sampler.refuse = [], ""
    monkeypatch.setattr(measure, "Sampler", Sampler)
    return Sampler


def _measurer(local: bool, interval: float | None, notes: list[str]) -> SimpleNamespace:
    return SimpleNamespace(
        telemetry_interval=interval,
        executor=SimpleNamespace(local=local),
        _devices=lambda point: ["sdz"],
        note=notes.append,
    )


def test_telemetry_watches_the_point_s_devices_and_cpu_here_and_only_the_network_for_other_hosts(sampler):
    notes: list[str] = []
    assert isinstance(Measurer._start_sampler(_measurer(True, 0.5, notes), POINT), Sampler)  # type: ignore[arg-type]
    assert isinstance(Measurer._start_sampler(_measurer(False, 1.0, notes), POINT), Sampler)  # type: ignore[arg-type]
    assert sampler.made == [(["sdz"], 0.5, True), ([], 1.0, False)] and notes == []
    assert Measurer._start_sampler(_measurer(True, None, notes), POINT) is None  # type: ignore[arg-type]
    assert len(sampler.made) == 2  # --no-telemetry: none made


def test_telemetry_that_cannot_start_is_a_note_and_the_point_goes_on(sampler):
    sampler.refuse = "no such device sdz"
    notes: list[str] = []
    assert Measurer._start_sampler(_measurer(True, 1.0, notes), POINT) is None  # type: ignore[arg-type]
    assert notes == ["telemetry off: no such device sdz"]
