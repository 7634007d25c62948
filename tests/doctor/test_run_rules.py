"""The run-level rules (series, arrays, hosts, steady state) on material whose answer is known."""

from __future__ import annotations

from dataclasses import replace

import pytest

from iolab.analysis.interference import Interference
from iolab.doctor.derived import ArrayView, PointSeries
from iolab.doctor.engine import evaluate
from iolab.doctor.rule import Context
from iolab.models import Severity
from iolab.models.finding import FAILED_RULE, UNREADABLE
from iolab.models.material import HostRow, SteadyOutcome

MB = 1e6


def by_id(findings, rule_id):
    return [f for f in findings if f.rule_id == rule_id]


def events(findings, rule_id):
    """A dip or step rule's findings of an event (not its statements of what the noise hid)."""
    return [f for f in by_id(findings, rule_id) if "onset" in f.evidence]


def readable(findings) -> None:
    """Evidence people can read (`iolab.models.finding.UNREADABLE`: no nan or inf, no e+ notation, no internal
    references), and no rule that failed on its input."""
    for f in findings:
        text = " ".join([f.title, f.why, f.fix, *map(str, f.evidence.values())])
        assert not UNREADABLE.search(text) and FAILED_RULE not in f.title, text


def series(values, label="all jobs"):
    """A series as `doctor.derived.point_series` builds one: a device's ("loop0 read") names its device."""
    device = None if label.endswith("all jobs") else label.split()[0]
    return PointSeries("p", label, [float(t) for t in range(1, len(values) + 1)], [v * MB for v in values], device)


def test_partial_first_and_last_seconds_are_not_dips():
    flat = [20.0] + [500.0] * 10 + [30.0]  # fio's first and last log entries cover part of a second
    assert evaluate(Context(series=[series(flat)])) == []


def test_idle_start_up_and_wind_down_of_a_device_are_not_dips():
    """A device's telemetry spans fio's start-up (loop devices set up, files opened) and its end."""
    values = [0.0, 2.0, 3.0, 1.0, 0.5] + [500.0] * 10 + [40.0, 0.0, 0.0]
    assert evaluate(Context(series=[series(values, "loop0 read")])) == []


def test_a_dip_every_device_shares_is_not_one_device_s_fault_but_a_lone_dip_is():
    def device(name, dip_at=None):
        values = [500.0] * 20
        if dip_at is not None:
            values[dip_at : dip_at + 4] = [150.0] * 4
        return series(values, f"{name} read")

    together = [device(f"loop{i}", dip_at=6) for i in range(8)]  # a busy host: all slow in the same seconds
    assert by_id(evaluate(Context(series=together)), "TEL-DIP") == []
    alone = [device(f"loop{i}", dip_at=10 if i == 5 else None) for i in range(8)]
    (dip,) = by_id(evaluate(Context(series=alone)), "TEL-DIP")
    assert dip.subject == "p: loop5 read" and dip.evidence["onset"] == "10 s"


def test_a_real_dip_is_named_with_its_onset_in_readable_units():
    values = [500.0] * 20
    values[8:12] = [100.0] * 4
    (dip,) = by_id(evaluate(Context(series=[series(values, "loop3 read")])), "TEL-DIP")
    assert dip.subject == "p: loop3 read" and dip.severity is Severity.WARNING
    assert dip.evidence["onset"] == "8 s" and dip.evidence["lowest"] == "100 MB/s" and dip.evidence["depth"] == "80%"
    readable([dip])


def test_a_step_down_is_a_warning_with_both_levels():
    values = [600.0] * 10 + [250.0] * 10
    (step,) = by_id(evaluate(Context(series=[series(values)])), "TEL-STEP")
    assert step.severity is Severity.WARNING
    assert step.evidence["level before"] == "600 MB/s" and step.evidence["level after"] == "250 MB/s"
    readable([step])


def array(together, alone, sets=()):
    return ArrayView(
        "seq-read",
        {d: v * MB for d, v in together.items()},
        {d: v * MB for d, v in alone.items()},
        [(devices, v * MB) for devices, v in sets],
    )


def test_a_drive_slow_alone_is_never_called_fine():
    """The slowest drive alone (126 against a median of 577) in a noisy alone view (peers 300 to 900): the
    linear z of -2.2 missed it alone. Eight drives are judged by their own spread (issue 40, third round: the
    envelope test judges arrays of fewer than 8), which at 45% cannot set it apart alone: it is named together,
    and the alone view says, naming no drive, how slow one would have had to be (never "fine")."""
    alone = {"l0": 577.0, "l1": 126.0, "l2": 300.0, "l3": 900.0, "l4": 577.0, "l5": 450.0, "l6": 700.0, "l7": 600.0}
    together = {"l0": 300.0, "l1": 90.0, "l2": 300.0, "l3": 301.0, "l4": 299.0, "l5": 300.0, "l6": 302.0, "l7": 298.0}
    findings = evaluate(Context(arrays=[array(together, alone)]))
    named = [f for f in by_id(findings, "ARR-OUTLIER") if f.subject == "l1"]
    assert sorted((f.subject, f.title.rsplit("(", 1)[-1]) for f in named) == [("l1", "together)")]
    assert {f.severity for f in named} == {Severity.WARNING}
    # peers alone at 300-900 could not have shown a drive at 60% of them, and the finding says so (its power)
    (power,) = [f for f in by_id(findings, "ARR-OUTLIER") if f.subject != "l1"]
    assert power.subject == "seq-read (alone)" and power.severity is Severity.INFO
    assert "8 drives spread 45% (robust sd of ln bandwidth), wider than the 30% healthy drives show, could name " in (
        power.title
    )
    assert "could name only a drive 88% or more below" in power.title  # the mixture test's reach (98%: the steps')
    assert by_id(findings, "ARR-SHARED-PATH") == []
    readable(findings)


def test_slow_only_together_when_it_keeps_up_alone():
    alone = {f"l{i}": 500.0 for i in range(6)}
    together = {**{f"l{i}": 300.0 for i in range(6)}, "l4": 150.0}
    findings = evaluate(Context(arrays=[array(together, alone)]))
    (shared,) = by_id(findings, "ARR-SHARED-PATH")
    assert shared.subject == "l4" and shared.evidence["alone"] == "500 MB/s (median 500 MB/s)"


def test_scaling_drop_only_against_a_set_of_its_own_members():
    alone = {"a": 500.0, "b": 200.0, "c": 200.0}
    sets = [(("b", "c"), 390.0), (("a", "b", "c"), 880.0)]
    assert by_id(evaluate(Context(arrays=[array({}, alone, sets)])), "ARR-SCALING-DROP") == []
    sets = [(("a", "b"), 690.0), (("a", "b", "c"), 600.0)]
    (drop,) = by_id(evaluate(Context(arrays=[array({}, alone, sets)])), "ARR-SCALING-DROP")
    assert drop.title == "seq-read: 3 drives gave 13% less than 2 of them" and drop.evidence["added"] == "c"


def test_hosts_failed_slow_and_straggling():
    rows = [
        HostRow(1, "h1", "ok", "", 10_000, 500 * MB),
        HostRow(1, "h2", "failed", "disconnected", None),
        HostRow(1, "h3", "ok", "", 7_000, 200 * MB),
    ]
    findings = evaluate(Context(hosts={"randread": rows}))
    assert [f.subject for f in by_id(findings, "HOSTS-FAILED")] == ["h2"]
    assert by_id(findings, "HOSTS-IMBALANCE")[0].evidence["slowest"] == "h3 200 MB/s"
    assert by_id(findings, "HOSTS-STRAGGLER")[0].evidence["first done"] == "h3 7.0 s"
    readable(findings)


def test_steady_state_reached_is_information_and_missed_is_a_warning():
    steady = SteadyOutcome("/dev/x", True, "steady in rounds 3-7", [100.0, 101.0, 99.0])
    missed = SteadyOutcome("/dev/y", False, "steady state not reached by round 25", [100.0, 80.0])
    found = {f.subject: f for f in by_id(evaluate(Context(steady=[steady, missed])), "RES-STEADY-STATE")}
    assert found["/dev/x"].severity is Severity.INFO and found["/dev/x"].fix == ""
    assert found["/dev/y"].severity is Severity.WARNING and found["/dev/y"].evidence["rounds"] == "100, 80"


def test_a_dip_inside_the_series_own_noise_is_not_claimed():
    rng = __import__("random").Random(7)
    noisy = [500.0 * (1 + rng.uniform(-0.25, 0.25)) for _ in range(30)]
    shallow = list(noisy)
    shallow[12:14] = [v * 0.6 for v in shallow[12:14]]  # 40% for 2 s: within what this device does anyway
    # Not claimed, and said so: what this series' noise (COV about 14%) let the rule see (issue 40).
    (hidden,) = by_id(evaluate(Context(series=[series(shallow)])), "TEL-DIP")
    assert hidden.severity is Severity.INFO and "onset" not in hidden.evidence
    assert "a 25% dip of 2 s is below what this point's noise (COV 1" in hidden.title
    shallowest = float(hidden.evidence["shallowest 2 s dip it could show"].removesuffix("%"))
    assert 25 < shallowest < 60 and "shortest 25% dip it could show" in hidden.evidence
    deep = list(noisy)
    deep[12:16] = [40.0] * 4
    (dip,) = events(evaluate(Context(series=[series(deep)])), "TEL-DIP")
    assert dip.evidence["onset"] == "12 s"
    # The same dip while something else kept a CPU busy (TEL-INTERFERENCE's test) may be the host's doing:
    # a possibility, not a warning (issue 33: a busy host's clean loop devices gave two "dips" at 2 s).
    busy = Interference(series(deep).point, 30.0, 95.0, [("stress", 95.0)])
    (doubted,) = events(evaluate(Context(series=[series(deep)], interference=[busy])), "TEL-DIP")
    assert doubted.severity is Severity.INFO and "the host was busy: a possibility" in doubted.title
    assert "95% of a CPU" in doubted.evidence["why a possibility"]
    # In a device's own counters (an array member) the dip is what the user came for (issue 42, seed 000's
    # throttled drive was shown only under "not listed"): it keeps its level and names what else was busy.
    drive = replace(series(deep, "loop3 read"), device="loop3")
    (kept,) = events(evaluate(Context(series=[drive], interference=[busy])), "TEL-DIP")
    assert kept.severity is Severity.WARNING and "the host was busy too" in kept.title
    assert "95% of a CPU" in kept.evidence["host busy too"] and "loop3's own counters" in kept.evidence["host busy too"]


def test_an_outlier_only_alone_that_kept_up_together_is_information():
    alone = {**{f"l{i}": 1500.0 + 10 * i for i in range(8)}, "l0": 1150.0}  # measured first, on a busy host
    together = {f"l{i}": 300.0 + i for i in range(8)}
    (found,) = by_id(evaluate(Context(arrays=[array(together, alone)])), "ARR-OUTLIER")
    assert found.subject == "l0" and found.severity is Severity.INFO and "re-run it alone" in found.title
    throttled = {**together, "l0": 120.0}
    both = by_id(evaluate(Context(arrays=[array(throttled, alone)])), "ARR-OUTLIER")
    assert [(f.subject, f.severity) for f in both] == [("l0", Severity.WARNING)] * 2


def _array_with_points(together, alone, sets=()):
    view = array(together, alone, sets)
    view.points = {(d,): f"seq-read-alone-{d}" for d in alone} | {
        devices: f"seq-read-x{len(devices)}" for devices, _ in sets
    }
    return view


def _seconds(point, mean, n, wobble, label="all jobs"):
    """n whole seconds around `mean` MB/s, +/- `wobble` (alternating), with partial first and last seconds."""
    values = [mean * 0.3] + [mean * (1 + wobble * (-1) ** i) for i in range(n)] + [mean * 0.2]
    return PointSeries(point, label, [float(t) for t in range(len(values))], [v * MB for v in values])


def test_an_outlier_on_a_point_the_host_was_busy_during_is_a_possibility_not_a_warning():

    alone = {f"l{i}": 500.0 + i for i in range(8)} | {"l3": 305.0}  # -39% alone, as in issue 33's false alarms
    view = _array_with_points({}, alone)
    busy = Interference("seq-read-alone-l3", 3.0, 180.0, [("stress", 180.0)])
    quiet = evaluate(Context(arrays=[view]))
    assert [(f.subject, f.severity) for f in by_id(quiet, "ARR-OUTLIER")] == [("l3", Severity.WARNING)]
    (found,) = by_id(evaluate(Context(arrays=[view], interference=[busy])), "ARR-OUTLIER")
    assert found.severity is Severity.INFO and "the host was busy" in found.title and "possibility" in found.title
    assert "other processes used 180% of a CPU" in found.evidence["why a possibility"]
    far = _array_with_points({}, alone | {"l3": 120.0})  # under half of its slowest peer: named however busy
    (named,) = by_id(evaluate(Context(arrays=[far], interference=[busy])), "ARR-OUTLIER")
    assert named.severity is Severity.WARNING


def test_scaling_drops_need_the_noise_of_the_difference_from_both_points_seconds():
    alone = {"a": 300.0, "b": 300.0, "c": 300.0, "d": 300.0}
    sets = [(("a",), 300.0), (("a", "b", "c", "d"), 276.0)]  # 8% less, as in issue 33's busy host
    view = _array_with_points({}, alone, sets)
    points = {"one": "seq-read-x1", "all": "seq-read-x4"}
    steady = [_seconds(points["one"], 300.0, 20, 0.005), _seconds(points["all"], 276.0, 20, 0.005)]
    (drop,) = by_id(evaluate(Context(arrays=[view], series=steady)), "ARR-SCALING-DROP")
    assert drop.severity is Severity.WARNING and drop.evidence["noise of the difference"].startswith("±")
    noisy = [_seconds(points["one"], 300.0, 20, 0.30), _seconds(points["all"], 276.0, 20, 0.30)]
    assert by_id(evaluate(Context(arrays=[view], series=noisy)), "ARR-SCALING-DROP") == []
    # A run that logged seconds, but these points kept too few: not evaluated, never a verdict from one second.
    other = _seconds("seq-read-alone-a", 300.0, 20, 0.005)
    (short,) = by_id(evaluate(Context(arrays=[view], series=[other])), "ARR-SCALING-DROP")
    assert short.severity is Severity.NOT_EVALUATED and "too short" in short.title
    # Imported results log no seconds at all: the tolerance alone decides, as before.
    (imported,) = by_id(evaluate(Context(arrays=[view])), "ARR-SCALING-DROP")
    assert imported.severity is Severity.WARNING and imported.evidence["noise of the difference"] == "not logged"


def _ar1(seed: int, n: int, cov: float, phi: float) -> list[float]:
    """A clean per-second series: 500 MB/s with AR(1) relative noise of marginal sd `cov`."""
    import numpy as np

    rng = np.random.default_rng(seed)
    e = np.empty(n)
    e[0] = rng.standard_normal() * cov
    for t in range(1, n):
        e[t] = phi * e[t - 1] + rng.standard_normal() * cov * (1 - phi**2) ** 0.5
    return list(500e6 * (1 + e))


@pytest.mark.parametrize("phi", [0.0, 0.4, 0.7])
def test_clean_autocorrelated_series_raise_no_dip_and_no_step(phi):
    """Issue 40: seconds in a row that wander together (AR(1) up to 0.7) are no dip and no step, at any length
    from 30 to 600 s and noise of 2 to 10%."""
    for seed, (n, cov) in enumerate([(30, 0.05), (120, 0.02), (300, 0.1), (600, 0.05)]):
        found = evaluate(Context(series=[series(_ar1(seed, n, cov, phi))]))
        assert events(found, "TEL-DIP") == [] and events(found, "TEL-STEP") == [], (n, cov)


def test_a_dip_of_almost_half_the_point_is_found_beyond_the_noise():
    """Issue 40: the noise test refused a dip longer than a third of the point (it wanted twice its length of
    seconds around it); a 45 s dip to 50% in 100 s at COV 5% is far beyond the noise."""
    import numpy as np

    rng = np.random.default_rng(40)
    values = 500e6 * (1 + 0.05 * rng.standard_normal(100))
    values[30:75] *= 0.5
    (dip,) = events(evaluate(Context(series=[series(list(values))])), "TEL-DIP")
    assert dip.evidence["onset"] == "30 s" and dip.evidence["duration"] == "45 s"


def test_short_clean_runs_whose_seconds_wander_together_rarely_raise_a_dip():
    """AR(1) phi 0.7 at COV 10-12% over 40-60 s: a wander of 10-20 s looks like a long shallow dip. Its mean and the
    mean of the seconds around it are both uncertain (as long as each other): counting only the dip's, 40 of 600
    such clean runs (seeds 0-299) had a dip; counting both, 13 (2.2%, still above the 1% aimed at: the
    correlation is read from the run itself). At most 3 of the first 120 here."""
    found = 0
    for seed in range(60):
        for n, cov in ((40, 0.1), (60, 0.12)):
            found += bool(events(evaluate(Context(series=[series(_ar1(seed, n, cov, 0.7))])), "TEL-DIP"))
    assert found <= 3


def test_the_dip_and_step_rules_segment_each_series_once(monkeypatch):
    """One list of dips per series for every rule (TEL-DIP, TEL-STEP and their power statements): each
    segmented the same series itself, and an import of fio-plot's collection took twice as long."""
    from iolab.doctor.rules import telemetry

    calls: list[int] = []
    real = telemetry.detect_dips
    monkeypatch.setattr(telemetry, "detect_dips", lambda *a, **k: calls.append(1) or real(*a, **k))
    deep = [500.0] * 12 + [40.0] * 4 + [500.0] * 14
    evaluate(Context(series=[series(deep), series([500.0, 510.0, 495.0] * 10, "other")]))
    assert len(calls) == 2
