"""Outlier drives by a mixture model: each drive's posterior odds of being slow, up to two slow drives at once.

Why (issue 40, twelfth round): the leave-out steps weigh the worst drive against the others' sample spread, and a
milder slow drive among those others widens it (masking): at 8-15 drives spread 10-30% the shipped steps named 4-5
points fewer drives at or below 60% of their peers than the oracle bound. A step-down cannot name the masked pair
without loosening the step a healthy drive behind a single fault meets (docs/arrays.md, ninth and tenth rounds).
The eleventh round's reference (bench/outlier_told_generator.py) showed what does: sum over every way of having
at most two slow drives, so that a milder drive is part healthy, part slow by how well each reading fits, and
integrate the peers' spread out rather than estimate it once.

The model, stated (not the bench's generator): an array is clean with chance 1/2, has one slow drive (1/4) or two
(1/4), every drive or pair alike; healthy drives' ln rates are normal about an unknown centre (flat prior) with an
unknown spread tau (log-uniform on `TAU_RANGE`: it holds each drive's noise of its mean); a slow drive's rate is
log-uniform on `SLOW_RANGE` of the healthy centre (anywhere from 1% to 97%: a machine states no more than "below
its peers"). The centre integrates in closed form (a normal in it, cut to where every slow drive is inside its
range), the spread on a grid, so a drive's odds cost O(n^2 x grid): about a millisecond at 15 drives, some 5 at 32
(the floor's bisection, some 15 of them, is worked out only where a report's floor is read).

The cut is not a nominal rate: it is simulated per array size by bench/outlier_mixture_cuts.py over clean arrays
drawn as the benches draw them (normal and flat peers, heavy-tailed AR(1) seconds, drives behind one HBA sharing
noise) and stored in `CUTS`; an array of a size outside the table is not judged by this test.

In steps (issue 40, thirteenth round; `outliers._mixture_steps`): the drive of the highest odds is named where it
passes, set aside, and the others judged again at the cut of their size (hence cuts down to 6 drives). Judged at
once, the prior gave a pair 4/(n - 1) of a single's weight, so once one drive was plainly slow another drive's prior
odds of being slow too were 4n/(n - 1) times those of a drive of a clean array, which the cut, held on clean arrays,
never saw: behind one slow drive the test named a healthy twin more often than the oracle bound (docs/arrays.md).
Drives slow independently (a pair 1/n of a single) mended that and lost the pair's rescue of a far drive a milder
one masks (tuning sets, thirteenth round); in steps the first keeps the rescue and the rest are held as a clean array.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

SLOW_RANGE = (0.01, 0.97)  # a slow drive's rate over the healthy centre: log-uniform between these
TAU_RANGE = (0.02, 0.8)  # the healthy drives' spread (sd of ln rate, noise included): log-uniform
TAU = np.exp(np.linspace(math.log(TAU_RANGE[0]), math.log(TAU_RANGE[1]), 40))
_LOW, _HIGH = math.log(SLOW_RANGE[0]), math.log(SLOW_RANGE[1])
_WIDTH = _HIGH - _LOW
# A drive below this (ln) of the median is weighed as at it: the prior holds no slow drive past 1% of the centre, and
# a drive at a millionth would fit the healthy spread better than a centre 100 times its level (it did almost no work)
_DEEPEST = math.log(2 * SLOW_RANGE[0])
# From this many drives judged on, a slow drive's density is stated per the healthy spread, 1 / (KAPPA tau), in place
# of the flat 1 / _WIDTH (issue 40, round 59): with the flat density a configuration of k slow drives gains tau^k on
# the clean one, so the pairs outweigh the singles more the wider the spread and S (the log odds less ln spread,
# which takes out one power) rose with the peers' true sigma on noise-free normal arrays (16-32 drives, the 99.5%
# quantile 2.3-2.5 at sigma 12% to 2.7-2.8 at 25%). Per tau every configuration scales alike, so the log odds are
# unchanged by any shift and scale of the ln rates (within the range and grid) and the cut is on them directly.
# KAPPA makes the two densities equal at tau = 0.15, the middle of the envelope's 1-30%.
SCALED_FROM = 16
KAPPA = _WIDTH / 0.15

BISECTIONS = 14  # halvings of the floor's search (4.6 ln units): to 0.03% of the median
SPREAD_FLOOR = 0.005  # the array's robust spread (sd of ln rate) below this counts as this (`OutlierParams.mad_floor`)
# The cut on S = a drive's posterior log odds of being slow - `spread_term` (ln of the array's robust spread below
# `SCALED_FROM` drives, else 0), by array size (drives judged): bench/outlier_mixture_cuts.py writes this table (its
# docstring says how and why the spread); a size not in it is not judged by the mixture test.
CUTS_ALARM = 0.005  # the share of clean arrays the table's cuts hold, with the group search (`array_alarm`)
CUTS: dict[int, float] = {
    6: 3.220,
    7: 3.572,
    8: 3.502,
    9: 3.354,
    10: 2.930,
    11: 3.032,
    12: 3.054,
    13: 3.271,
    14: 3.117,
    15: 2.943,
    16: 1.111,
    17: 1.111,
    18: 0.833,
    19: 0.877,
    20: 0.823,
    21: 0.823,
    22: 0.670,
    23: 0.673,
    24: 0.590,
    25: 0.570,
    26: 1.188,
    27: 1.506,
    28: 0.720,
    29: 0.873,
    30: 0.662,
    31: 0.564,
    32: 0.564,
}  # end of the table


# Numerical Recipes' erfc fit: erfc(u) = t exp(-u^2 + P(t)), t = 1 / (1 + u / 2); P's coefficients, highest first
_ERFC_FIT = (
    0.17087277,
    -0.82215223,
    1.48851587,
    -1.13520398,
    0.27886807,
    -0.18628806,
    0.09678418,
    0.37409196,
    1.00002368,
    -1.26551223,
)


def _log_q(x: np.ndarray) -> np.ndarray:
    """ln Q(x), Q the normal upper tail, element-wise, accurate far into either tail: Numerical Recipes' erfc
    (Chebyshev fit, relative error under 1.2e-7 everywhere) taken in logs, so a tail of 40 sds does not underflow."""
    u = np.abs(x) / math.sqrt(2)
    t = 1 / (1 + 0.5 * u)
    poly = np.zeros_like(t)
    for coefficient in _ERFC_FIT:  # Horner, highest power first
        poly = poly * t + coefficient
    upper = math.log(0.5) + np.log(t) - u**2 + poly  # ln Q(|x|)
    return np.where(x >= 0, upper, np.log1p(-np.exp(upper)))


def _log_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ln(Phi(b) - Phi(a)) for a <= b, element-wise: ln(Q(lo) - Q(hi)) with lo <= hi taken on the side of the
    smaller tails, so both are accurate."""
    upper = a > -b  # the interval lies more above 0 than below: Q(a) - Q(b); else Q(-b) - Q(-a)
    lo, hi = _log_q(np.where(upper, a, -b)), _log_q(np.where(upper, b, -a))
    with np.errstate(divide="ignore"):
        return lo + np.log1p(-np.exp(np.minimum(hi - lo, 0.0)))


def _log_evidence(
    z: np.ndarray, excess: np.ndarray, first: np.ndarray, second: np.ndarray, slow_width: np.ndarray
) -> np.ndarray:
    """ln of each configuration's likelihood (configurations x `TAU`), up to a constant common to all: `first` and
    `second` are the drives slow in each (index n, one past the last drive: none); z the drives' ln rates (slow is
    low); `excess` each drive's own noise variance beyond its peers' typical noise (a healthy drive's ln rate has
    variance tau^2 + its excess: the spread already holds a typical drive's noise). Each sum over the healthy
    drives is the sum over all less the slow ones' terms: O(configurations x grid), with no product of a
    configurations x drives matrix (which at 32 drives cost six times as much, most of it in BLAS threads).
    `slow_width`: ln of the width a slow drive's density is spread over, per `TAU` (`_slow_width`)."""
    n = z.size
    precision = 1 / (TAU[None, :] ** 2 + excess[:, None])  # drives x TAU
    none = np.zeros((1, TAU.size))

    def healthy(terms: np.ndarray) -> np.ndarray:  # each configuration's sum of `terms` (drives x TAU) over its healthy
        padded = np.vstack([terms, none])
        return terms.sum(axis=0)[None, :] - padded[first] - padded[second]

    weight = healthy(precision)  # the centre's precision, configurations x TAU
    mean = healthy(precision * z[:, None]) / weight
    ss = healthy(precision * z[:, None] ** 2) - weight * mean**2
    out = 0.5 * healthy(np.log(precision / (2 * math.pi))) - ss / 2 - 0.5 * np.log(weight / (2 * math.pi))
    k = (first < n).astype(int) + (second < n)
    any_slow = k > 0
    if any_slow.any():
        f, g = first[any_slow], second[any_slow]
        above, below = np.append(z, -np.inf), np.append(z, np.inf)
        lo = np.maximum(above[f], above[g]) - _HIGH  # the centre sits above every slow drive by at least 3% ...
        hi = np.minimum(below[f], below[g]) - _LOW  # ... and by at most 100 times
        spread = 1 / np.sqrt(weight[any_slow])
        centre = mean[any_slow]
        inside = _log_between((lo[:, None] - centre) / spread, (hi[:, None] - centre) / spread)
        out[any_slow] += inside - k[any_slow][:, None] * slow_width[None, :]
    return out


def _slow_width(n: int) -> np.ndarray:
    """ln of the width (ln units) a slow drive's density spreads over, per `TAU`: the flat range's below
    `SCALED_FROM` drives, KAPPA tau from it on (the comment at `SCALED_FROM` says why)."""
    return np.full(TAU.size, math.log(_WIDTH)) if n < SCALED_FROM else np.log(KAPPA * TAU)


def spread_term(n: int, spread: float) -> float:
    """What S takes from the log odds in an array of n drives judged whose robust spread is `spread`: ln of it where
    the slow density is flat (the odds grow as ln spread), 0 where it is stated per tau (`SCALED_FROM`)."""
    return math.log(max(spread, SPREAD_FLOOR)) if n < SCALED_FROM else 0.0


def log_odds(z: Sequence[float] | np.ndarray, excess: Sequence[float] | np.ndarray | None = None) -> np.ndarray:
    """Each drive's posterior log odds of being slow (module docstring), given the drives' ln rates `z` (slow is
    low: pass -ln where high is worse) and each one's own noise variance beyond its peers' typical (`excess`, in
    ln units squared; None: 0). Needs 3 drives or more."""
    z = np.asarray(z, dtype=float)
    n = z.size
    noise = np.zeros(n) if excess is None else np.asarray(excess, dtype=float)
    a, b = np.triu_indices(n, 1)
    # the configurations: clean, each single slow drive, each pair (index n: no drive)
    first = np.concatenate([[n], np.arange(n), a])
    second = np.concatenate([[n], np.full(n, n), b])
    prior = np.concatenate([[math.log(0.5)], np.full(n, math.log(0.25 / n)), np.full(len(a), math.log(0.5 / len(a)))])
    evidence = _log_evidence(np.maximum(z - float(np.median(z)), _DEEPEST), noise, first, second, _slow_width(n))
    top = evidence.max()
    weight = np.exp(evidence - top).mean(axis=1) * np.exp(prior)  # the spread's prior: each grid point alike
    slow = np.bincount(first, weight, n + 1)[:n] + np.bincount(second, weight, n + 1)[:n]
    posterior = slow / weight.sum()
    with np.errstate(divide="ignore"):
        return np.log(posterior) - np.log1p(-np.minimum(posterior, 1 - 1e-16))


def excess(own: Sequence[float]) -> np.ndarray:
    """Each drive's own noise variance (its relative standard error, squared) beyond the median of the drives': the
    part of its noise the peers' spread does not already hold (as the leave-out test weighs it)."""
    own2 = np.asarray(own, dtype=float) ** 2
    return np.maximum(0.0, own2 - float(np.median(own2))) if own2.size else own2


def cut(n: int, spread: float, alarm: float = CUTS_ALARM) -> float | None:
    """The cut on log odds in an array of n drives judged whose robust spread (sd of ln rate) is `spread`: the
    table's cut on S plus `spread_term` (`CUTS`); None where the table does not hold n. At an `alarm` below the
    table's (a class of a split array judged at its share, `outliers.find_outliers_by_class`), the cut rises by
    ln(CUTS_ALARM / alarm): a likelihood ratio passes k under the null with chance at most 1/k (Markov), so the
    share of clean arrays past the cut falls at least in proportion (judged at the full cut each, two models of
    8-15 drives alarmed 0.9% of clean arrays at sigma 20-30%, twelfth round)."""
    base = CUTS.get(n)
    if base is None:
        return None
    return base + spread_term(n, spread) + max(0.0, math.log(CUTS_ALARM / alarm))


def reach(
    z: Sequence[float] | np.ndarray,
    spread_of: Callable[[np.ndarray], float],
    centre: float,
    alarm: float = CUTS_ALARM,
) -> float:
    """How far below `centre` (ln units, slow is low; a positive number) a further drive would have to be for the
    mixture test to name it among the drives `z` (those named too: it judges them all), at the cut of one drive
    more (at `alarm`) and the robust spread `spread_of` gives the drives with it: bisection on its level between
    the centre and `SLOW_RANGE`'s lower end; inf where no level within it is named or no cut holds."""
    z = np.asarray(z, dtype=float)
    if cut(z.size + 1, 1.0) is None:
        return math.inf

    def passes(depth: float) -> bool:
        with_it = np.append(z, centre - depth)
        return bool(log_odds(with_it)[-1] > cut(with_it.size, spread_of(with_it), alarm))

    low, high = 0.0, -_LOW
    if not passes(high):
        return math.inf
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        low, high = (low, middle) if passes(middle) else (middle, high)
    return high
