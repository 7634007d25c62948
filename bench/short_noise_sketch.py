"""Tuning harness (not committed): 'short' tuning seeds' eligible recall by length bin, clean twins' false count,
and short phi-0.7 clean runs (8-30 s, COV 10-12%) with a dip."""
import math, sys, time, resource
sys.path.insert(0, "bench")  # run from the repo root
import numpy as np
import dips_envelope as de
from iolab.doctor.rules import telemetry

rules = [r for r in de.all_rules() if r.id in de.RULES]

def short(first, count):
    found = {}; false = 0; rows = []
    for seed in range(first, first + count):
        case = de.draw(seed, "short")
        planted, each = de.series(case, True)
        clean, _ = de.series(case, False)
        hits, _ = de.read(planted, rules)
        sd = de.robust_cov(clean)
        fh = de.read(clean, rules)[0]
        false += len(fh) > 0
        if fh: print("FALSE", seed, case.seconds, round(case.phi,2), case.tails, round(case.cov,3), fh)
        dip, loss = case.dips[0], each[0]
        onset, length = de.held(loss, 1.0, telemetry.PARAMS.shoulder) or (dip.onset, dip.length)
        depth = float(loss.max())
        if not (depth >= 0.3 and depth >= 3 * sd and length >= telemetry.PARAMS.min_duration_s - 1e-9):
            continue
        ok = any(h[0] < dip.onset + dip.length and h[0] + h[1] > dip.onset for h in hits)
        b = de.bin_of(math.floor(length + 1e-9), de.LENGTH_BINS)
        f, n = found.get(b, (0, 0)); found[b] = (f + ok, n + 1)
        rows.append((seed, ok))
    return found, false, rows

def wander(count, phi=0.7):
    from iolab.doctor.rule import Context
    from iolab.doctor.engine import evaluate
    from iolab.doctor.derived import PointSeries
    hit = 0
    for seed in range(count):
        rng = np.random.default_rng([seed, 57])
        n = int(rng.integers(8, 31)); cov = float(rng.uniform(0.1, 0.12))
        e = np.empty(n); e[0] = rng.standard_normal() * cov
        for t in range(1, n):
            e[t] = phi * e[t - 1] + rng.standard_normal() * cov * (1 - phi**2) ** 0.5
        v = list(500e6 * (1 + e))
        s = PointSeries("p", "all jobs", [float(t) for t in range(1, n + 1)], v)
        hit += any(f.rule_id == "TEL-DIP" and "onset" in f.evidence for f in evaluate(Context(series=[s])))
    return hit

if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1200
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 3_800_000
    found, false, rows = short(first, count)
    tot = sum(n for f, n in found.values()); fnd = sum(f for f, n in found.values())
    print("eligible", fnd, "of", tot, {k: v for k, v in sorted(found.items())}, "clean false", false, "of", count)
    if len(sys.argv) <= 3:
        print("phi0.7 short clean with dip", wander(600), "of 600")
    r = resource.getrusage(resource.RUSAGE_SELF); print("cpu", round(r.ru_utime + r.ru_stime, 1))
    import json; json.dump(rows, open(f"/tmp/short_noise_rows_{first}_{count}.json", "w"))
