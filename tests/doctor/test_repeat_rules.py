"""Repeats: one far from its siblings is named; a spread above the plan's COV target says by how much."""

from __future__ import annotations

from iolab.analysis.stability import far_repeats
from iolab.doctor.engine import diagnose_run
from iolab.models import Point, PointRecord, Target
from iolab.models.material import RunMaterial
from iolab.models.result import DirectionResult, Result

TARGET = Target(path="/dev/x", kind="block", filename="/dev/x", size_bytes=1 << 30)


def _records(bandwidths: list[float]) -> list[PointRecord]:
    out = []
    for repeat, bw in enumerate(bandwidths):
        result = Result(
            {"read": DirectionResult("read", bw, bw / 2**20, 1000, int(bw * 10), 10_000, None)}, 5.0, 5.0, 1, "fio-3.33"
        )
        point = Point("seqread", TARGET, {"rw": "read", "bs": "1m", "iodepth": "32"}, repeat)
        out.append(PointRecord(repeat + 1, 1, repeat + 1, point, "ok", result=result))
    return out


def _findings(bandwidths: list[float], cov_target: float | None = None) -> dict[str, list]:
    found: dict[str, list] = {}
    for f in diagnose_run(RunMaterial(records=_records(bandwidths), cov_target=cov_target)):
        found.setdefault(f.rule_id, []).append(f)
    return found


def test_a_repeat_at_a_twelfth_of_its_siblings_is_named():
    found = _findings([1_190e6, 1_210e6, 103e6, 1_200e6, 1_195e6])
    (far,) = found["RES-REPEAT-OUTLIER"]
    assert far.title == "seqread: repeat 3 gave 103 MB/s, the other 4 1,190 MB/s to 1,210 MB/s"


def test_ordinary_spread_has_no_odd_repeat():
    assert "RES-REPEAT-OUTLIER" not in _findings([1_190e6, 1_230e6, 1_150e6, 1_200e6, 1_260e6])
    assert far_repeats([100.0, 140.0, 60.0, 120.0, 80.0]) == []  # noisy, but no single odd one
    assert far_repeats([100.0, 10.0]) == []  # two repeats cannot say which is odd


def test_a_missed_cov_target_is_a_warning_that_says_by_how_much():
    spread = [1_000e6, 1_400e6, 700e6, 1_200e6, 900e6]
    (missed,) = _findings(spread, cov_target=0.03)["RES-COV-TARGET"]
    assert missed.title.startswith("seqread: COV 26.0% over 5 repeats, 23.0 points above the 3% target")
    assert missed.severity.value == "warning"
    assert "RES-COV-TARGET" not in _findings(spread)  # without an adaptive target, nothing to miss
    assert "RES-COV-TARGET" not in _findings([1_000e6, 1_010e6, 990e6], cov_target=0.03)


def _scaling_records(by_jobs: dict[int, list[float]]) -> list[PointRecord]:
    out = []
    for jobs, bandwidths in by_jobs.items():
        for repeat, bw in enumerate(bandwidths):
            result = Result(
                {"write": DirectionResult("write", bw, bw / 4096, 1000, int(bw * 10), 10_000, None)},
                5.0,
                5.0,
                jobs,
                "fio-3.33",
            )
            point = Point(f"rw-j{jobs}", TARGET, {"rw": "randwrite", "bs": "4k", "numjobs": str(jobs)}, repeat)
            out.append(PointRecord(len(out) + 1, 1, len(out) + 1, point, "ok", result=result))
    return out


def test_scaling_claims_a_drop_only_beyond_the_repeats_noise():
    def claims(by_jobs: dict[int, list[float]]) -> list[str]:
        return [
            f.title
            for f in diagnose_run(RunMaterial(records=_scaling_records(by_jobs)))
            if f.rule_id == "RES-NONMONOTONIC-SCALING"
        ]

    assert claims({1: [60e6, 64e6, 62e6], 4: [65e6, 66e6, 64e6], 16: [6.3e6, 6.1e6, 6.5e6]}) == [
        "numjobs=16 gives 6.3 MB/s, less than 65.0 MB/s at numjobs=4"
    ]
    # 8% lower at 4 jobs, but the repeats spread by 20%: inside the noise, no claim of a drop; the finding
    # states its power instead (issue 40: a drop of that size is below what these points can show)
    assert claims({1: [50e6, 70e6, 60e6], 4: [45e6, 65e6, 55e6]}) == [
        "numjobs=4 gives 8% less than numjobs=1: a drop of 8% is below what 2 points at noise 10.1% can show "
        "(it takes more than 30%)"
    ]
    # 4% lower: below the 5% that is a finding at any noise, so no power to state either
    assert claims({1: [50e6, 70e6, 60e6], 4: [48e6, 68e6, 57e6]}) == []


def test_large_sets_are_judged_at_once_as_one_by_one(monkeypatch):
    import random

    from iolab.analysis import stability

    rng = random.Random(11)
    for _ in range(60):
        n = rng.randint(3, 60)
        values = [rng.choice((1.0, 100.0)) * rng.uniform(90, 110) for _ in range(n)]
        values[rng.randrange(n)] *= rng.choice((0.2, 1.0, 3.0))  # sometimes one odd repeat
        if rng.random() < 0.3:
            values = [round(v, -1) for v in values]  # ties, even counts: medians between two values
        monkeypatch.setattr(stability, "VECTOR_FROM", 10**9)
        one_by_one = far_repeats(values)
        monkeypatch.setattr(stability, "VECTOR_FROM", 3)
        monkeypatch.setattr(stability, "LOAD_NUMPY_FROM", 0)  # at once even where nothing has loaded numpy
        assert far_repeats(values) == one_by_one, values
