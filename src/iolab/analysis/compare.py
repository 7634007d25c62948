"""A against B: is B faster, slower, the same, or can these runs not tell?

Method (reference/analysis.md §4, "recommended verdict procedure"):

- Work on log values. Throughput and latency are positive and their noise is
  multiplicative, so a log turns "B is 10% slower" into a symmetric shift and
  a ratio B/A into a difference of means.
- Effect: ratio = exp(mean log B - mean log A), the ratio of geometric means.
  Under log-normal noise the geometric mean estimates the median, so this is
  a ratio of typical values that uses every repeat, and its 95% CI is the Welch
  log-scale t interval (exp of the CI of the log difference) -- not a
  bootstrap, which under-covers at the n = 3..10 of benchmark repeats. Using
  the same Welch statistics for CI and test makes "p < alpha" and "the CI
  excludes no change" one and the same fact. This ratio is *the* change:
  each side's figure is shown as its geometric mean (`geometric_mean`), so
  the change is the ratio of the two figures beside it, in every format. With
  one run on a side there is no interval and no verdict, but the change is
  still the ratio of the two runs.
- Test: Welch's t on logs, checked by Mann-Whitney U (exact when there are no
  ties and the samples are small). When the U test could reach alpha with
  these sample sizes and does not, the verdict is inconclusive: the two tests
  disagree, so an outlier or a skew is driving the t-test.
- Lone outlier repeats: a repeat that `analysis.stability.far_repeats` flags on its side (at least 3
  repeats; 25% from the others' median and beyond 4 robust standard deviations of them: the rule of
  RES-REPEAT-OUTLIER on a run's page) is left out of that side's figure and of the test, and the verdict
  says which (`Verdict.far_a`, `far_b`). One bad hour among seven at 213 MB/s (63 MB/s) pulled A's
  geometric mean to 179 and widened its log spread fourfold: a -40% step read "-27.7%, inconclusive".
  Kept rather than a median figure: the change stays the ratio of the two figures shown, with the Welch
  interval whose coverage at n = 3..10 is known, and the page names the repeat it left out.
- Verdict:
  faster/slower when Welch p < alpha, the U test agrees, and the whole CI of
  the change lies beyond `noise_floor` (Criterion's noise threshold, and its
  default of 1%). Without a floor, "faster" would mean only "the CI excludes
  no change": two runs of the same configuration on a device throttled to a
  fixed rate differ by 0.1-0.3% with almost no noise, so at alpha = 5% one
  comparison in twenty of identical setups called B "0.2% faster" (seen in
  CI). Nobody buys a drive for 0.2%; below the floor a measured difference
  is reported, and the verdict is equivalent or inconclusive;
  equivalent when TOST on the log ratio rejects both one-sided hypotheses
  of a change beyond +/- `equivalence_margin` at alpha (the 1 - 2 alpha CI
  lies inside the margin);
  otherwise inconclusive, with the repeats per side that would settle it.

The Student t distribution is computed here from the regularized incomplete
beta function (DLMF 8.17.22 continued fraction) so that neither this module
nor the change-point search in `history` needs scipy (which takes ~1 s to
import, more than a whole 10,000-point history analysis).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from iolab.analysis.stability import far_repeats
from iolab.analysis.student_t import t_quantile, t_sf

KINDS = ("faster", "slower", "equivalent", "inconclusive")


@dataclass(frozen=True)
class CompareParams:
    higher_is_better: bool = True  # False for latency
    alpha: float = 0.05
    equivalence_margin: float = 0.05  # TOST bounds: ratio within [1 - m, 1 + m]
    noise_floor: float = 0.01  # faster/slower only when the whole CI is beyond +/- this change (Criterion's default)
    power: float = 0.80  # for the repeats-needed estimate
    max_repeats: int = 1000  # cap of the repeats-needed estimate


@dataclass(frozen=True)
class WelchTest:
    """A two-sample t-test of mean B - mean A (Welch's)."""

    diff: float  # mean_b - mean_a
    se: float  # standard error of diff
    df: float  # Welch-Satterthwaite degrees of freedom (n_a + n_b - 2 when neither side spreads)
    t: float
    p: float  # two-sided


def welch_test(mean_a: float, var_a: float, n_a: int, mean_b: float, var_b: float, n_b: int) -> WelchTest:
    """Welch's t from summary statistics (sample variances, n - 1).

    Zero spread on both sides is not an error: identical means give p = 1,
    different means are a certain difference (p = 0), which is what the
    numbers say (e.g. a quantized counter that never moved).
    """
    if n_a < 2 or n_b < 2:
        raise ValueError("Welch's t needs at least 2 values per side")
    diff = mean_b - mean_a
    ua, ub = var_a / n_a, var_b / n_b
    se = math.sqrt(ua + ub)
    if se == 0.0:
        df = float(n_a + n_b - 2)
        if diff == 0.0:
            return WelchTest(diff, 0.0, df, 0.0, 1.0)
        return WelchTest(diff, 0.0, df, math.copysign(math.inf, diff), 0.0)
    df = (ua + ub) ** 2 / (ua * ua / (n_a - 1) + ub * ub / (n_b - 1))
    t = diff / se
    return WelchTest(diff, se, df, t, min(1.0, 2.0 * t_sf(abs(t), df)))


# --------------------------------------------------------------------------- Mann-Whitney U


def _u_counts(m: int, n: int) -> list[int]:
    """Number of orderings giving each U = 0..m*n (no ties): coefficients of the Gaussian binomial."""
    counts = [1] + [0] * (m * n)
    for i in range(1, m + 1):
        # multiply by (1 - q^(n+i)), then divide by (1 - q^i); both exact in integers
        for j in range(m * n, n + i - 1, -1):
            counts[j] -= counts[j - n - i]
        for j in range(i, m * n + 1):
            counts[j] += counts[j - i]
    return counts


# Up to this many arrangements (8 vs 8) the U distribution with ties is enumerated exactly.
_ENUMERATE_LIMIT = 12_870


@dataclass(frozen=True)
class MannWhitney:
    """Two-sided Mann-Whitney U test of B against A."""

    u: float  # U of B: pairs (a, b) with b > a, ties counting one half
    p: float
    method: str  # "exact" (counted null distribution) or "normal" (approximation)
    min_p: float  # the smallest p these sizes and ties allow; 0 for the approximation


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> MannWhitney:
    """Mann-Whitney U, exact whenever it is cheap.

    Without ties the null distribution is counted in closed form (any size
    up to 25 per side). With ties, small samples get the exact permutation
    distribution of U on mid-ranks, because the normal approximation there
    claims p = 0.05 where no arrangement of 3 vs 3 can give less than 0.1.
    Larger samples use the normal approximation with tie and continuity
    corrections.
    """
    m, n = len(b), len(a)
    pooled = sorted([(v, 1) for v in b] + [(v, 0) for v in a])
    ranks, tie_term = _mid_ranks([v for v, _ in pooled])
    rank_sum_b = sum(r for r, (_, side) in zip(ranks, pooled, strict=True) if side == 1)
    u = rank_sum_b - m * (m + 1) / 2.0
    if tie_term == 0.0 and m * n <= 2500 and min(m, n) <= 25:
        return _exact_without_ties(u, m, n)
    if math.comb(m + n, m) <= _ENUMERATE_LIMIT:
        return _exact_with_ties(u, m, n, ranks)
    return _normal_approximation(u, m, n, tie_term)


def _normal_approximation(u: float, m: int, n: int, tie_term: float) -> MannWhitney:
    """U's two-sided p by the normal approximation, with tie and continuity corrections (larger samples)."""
    total_n = m + n
    var = m * n / 12.0 * ((total_n + 1) - tie_term / (total_n * (total_n - 1)))
    if var <= 0.0:
        return MannWhitney(u, 1.0, "normal", 0.0)
    z = max(0.0, abs(u - m * n / 2.0) - 0.5) / math.sqrt(var)
    return MannWhitney(u, min(1.0, math.erfc(z / math.sqrt(2.0))), "normal", 0.0)


def _mid_ranks(ordered: Sequence[float]) -> tuple[list[float], float]:
    """(each sorted value's rank, ties sharing their mid-rank; the tie term, sum of t^3 - t per tied group)."""
    ranks: list[float] = [0.0] * len(ordered)
    tie_term = 0.0
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[i]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2.0 + 1.0
        size = j - i + 1
        tie_term += size**3 - size
        i = j + 1
    return ranks, tie_term


def _exact_without_ties(u: float, m: int, n: int) -> MannWhitney:
    """U's two-sided p from the closed-form count of arrangements (no ties)."""
    counts = _u_counts(min(m, n), max(m, n))
    total = sum(counts)
    k = int(round(u))
    tail = min(sum(counts[: k + 1]), sum(counts[k:]))
    return MannWhitney(u, min(1.0, 2.0 * tail / total), "exact", min(1.0, 2.0 * counts[0] / total))


def _exact_with_ties(u: float, m: int, n: int, ranks: Sequence[float]) -> MannWhitney:
    """U's two-sided p from every arrangement of the mid-ranks (small samples with ties)."""
    import itertools

    import numpy as np

    picks = np.array(list(itertools.combinations(range(m + n), m)), dtype=np.intp)
    null = np.round(np.asarray(ranks)[picks].sum(axis=1) - m * (m + 1) / 2.0, 9)
    observed = round(u, 9)
    tail = min(np.mean(null <= observed), np.mean(null >= observed))
    extreme = min(np.mean(null <= null.min()), np.mean(null >= null.max()))
    return MannWhitney(u, float(min(1.0, 2.0 * tail)), "exact", float(min(1.0, 2.0 * extreme)))


# --------------------------------------------------------------------------- verdict


@dataclass(frozen=True)
class Verdict:
    """The comparison of B against A, with everything needed to check it.

    `change` and the CI are B/A - 1 of the metric itself (so for latency a
    positive change is slower). p-values are None when not computed.
    """

    params: CompareParams
    kind: str  # one of KINDS
    n_a: int
    n_b: int
    ratio: float | None = None  # geometric-mean ratio B/A (also with one value a side: then no interval)
    ci_low: float | None = None  # 95% CI of B/A - 1
    ci_high: float | None = None
    p_welch: float | None = None
    p_mwu: float | None = None
    mwu_method: str = ""
    p_tost: float | None = None
    log_sd: float | None = None  # pooled stddev of the log values: the noise, as a relative figure
    repeats_needed: int | None = None  # per side, when inconclusive and estimable
    dropped: int = 0  # NaN values left out
    far_a: tuple[float, ...] = ()  # A's lone outlier repeats, left out of its figure and the test (`kept_values`)
    far_b: tuple[float, ...] = ()
    evaluated: bool = True
    reason: str = ""  # why not evaluated, or why inconclusive
    notes: list[str] = field(default_factory=list)

    @property
    def change(self) -> float | None:
        return None if self.ratio is None else self.ratio - 1.0


def _clean(values: Sequence[float]) -> tuple[list[float], int]:
    """Values without NaN, and how many NaN were left out."""
    kept = [float(v) for v in values if not math.isnan(float(v))]
    return kept, len(values) - len(kept)


def _mean_var(values: list[float]) -> tuple[float, float]:
    mean = math.fsum(values) / len(values)
    return mean, math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)


def kept_values(values: Sequence[float]) -> tuple[list[float], tuple[float, ...]]:
    """A side's repeats a verdict rests on, and its lone outlier repeats left out (`far_repeats`: the rule of
    RES-REPEAT-OUTLIER). NaN stays for `_clean` to count; a side with a non-positive value keeps every value
    (it is not evaluated at all)."""
    finite = [float(v) for v in values if not math.isnan(float(v))]
    if any(v <= 0.0 for v in finite):
        return list(values), ()
    far = {f.index for f in far_repeats(finite)}
    kept = [v for i, v in enumerate(finite) if i not in far] + [v for v in values if math.isnan(float(v))]
    return kept, tuple(finite[i] for i in sorted(far))


def side_figure(values: Sequence[float]) -> float | None:
    """A side's one figure as every format shows it: the geometric mean of the repeats its verdict rests on."""
    return geometric_mean(kept_values(values)[0])


def geometric_mean(values: Sequence[float]) -> float | None:
    """exp(mean log): each side's figure, so that B/A of the figures is the verdict's ratio. None when a value
    is not positive and finite (a failed run has no log) or there are none. Held between the lowest and the
    highest value, where a mean lies: exp(log(x)) of identical repeats can land an ulp above them all, and a
    whisker from the figure to the highest repeat was then negative (`iolab report --html` crashed)."""
    kept = [float(v) for v in values if not math.isnan(float(v))]
    if not kept or any(v <= 0.0 or math.isinf(v) for v in kept):
        return None
    mean = math.exp(math.fsum(math.log(v) for v in kept) / len(kept))
    return min(max(mean, min(kept)), max(kept))


def repeats_needed(log_sd: float, distance: float, alpha: float, power: float, two_sided: bool) -> int | None:
    """Runs per side for a test at `alpha` to have `power` when the log effect is `distance` from its bound.

    n = 2 s^2 (t_{1-a} + t_{power})^2 / distance^2, iterated because the t
    quantiles depend on n (df = 2n - 2). For a difference test a = alpha/2;
    for TOST each one-sided test uses a = alpha (and, with the effect near one
    bound, that test decides the power). None when the distance is not positive.
    """
    if distance <= 0.0:
        return None
    if log_sd == 0.0:
        return 2
    tail = alpha / 2.0 if two_sided else alpha
    n = 2
    for _ in range(50):
        df = 2 * n - 2
        need = 2.0 * log_sd**2 * (t_quantile(1.0 - tail, df) + t_quantile(power, df)) ** 2 / distance**2
        new = max(2, math.ceil(need))
        if new == n:
            break
        n = new
    return n


def compare_samples(a: Sequence[float], b: Sequence[float], params: CompareParams | None = None) -> Verdict:
    """Compare repeats of configuration B against A (e.g. bandwidth in bytes/s of each run).

    NaN values are left out and counted. Zero or negative values cannot be
    compared on a log scale (a failed run is not a slow run): the verdict is
    then not evaluated, with the reason.
    """
    params = _checked(params or CompareParams())
    (kept_a, far_a), (kept_b, far_b) = kept_values(a), kept_values(b)
    xa, drop_a = _clean(kept_a)
    xb, drop_b = _clean(kept_b)
    dropped = drop_a + drop_b
    # Every verdict starts from this one; `replace` keeps each field's type checked (a dict of kwargs would not).
    base = Verdict(
        params=params, kind="inconclusive", n_a=len(xa), n_b=len(xb), dropped=dropped, far_a=far_a, far_b=far_b
    )
    unevaluated = _not_evaluated(base, xa, xb)
    if unevaluated is not None:
        return unevaluated

    la, lb = [math.log(v) for v in xa], [math.log(v) for v in xb]
    mean_a, var_a = _mean_var(la)
    mean_b, var_b = _mean_var(lb)
    welch = welch_test(mean_a, var_a, len(la), mean_b, var_b, len(lb))
    if welch.se > 0.0:
        half = t_quantile(1.0 - params.alpha / 2.0, welch.df) * welch.se
    else:
        half = 0.0
    d = welch.diff
    ratio = math.exp(d)
    ci_low, ci_high = math.exp(d - half) - 1.0, math.exp(d + half) - 1.0

    lower_bound, upper_bound = math.log1p(-params.equivalence_margin), math.log1p(params.equivalence_margin)
    p_tost = _tost_p(welch, lower_bound, upper_bound)

    mwu = mann_whitney(xa, xb)
    pooled_var = ((len(la) - 1) * var_a + (len(lb) - 1) * var_b) / (len(la) + len(lb) - 2)
    log_sd = math.sqrt(pooled_var)
    mwu_can_decide = mwu.min_p < params.alpha
    notes = _verdict_notes(params, mwu_can_decide, (len(xa), len(xb)), dropped, (far_a, far_b))
    result = replace(
        base,
        ratio=ratio,
        ci_low=ci_low,
        ci_high=ci_high,
        p_welch=welch.p,
        p_mwu=mwu.p,
        mwu_method=mwu.method,
        p_tost=p_tost,
        log_sd=log_sd,
        notes=notes,
    )
    significant = welch.p < params.alpha
    mwu_agrees = mwu.p < params.alpha or not mwu_can_decide
    beyond_noise = ci_low > params.noise_floor or ci_high < -params.noise_floor
    if significant and mwu_agrees and beyond_noise:
        b_larger = ci_low > 0.0
        kind = "faster" if b_larger == params.higher_is_better else "slower"
        return replace(result, kind=kind)
    if p_tost < params.alpha:
        return replace(result, kind="equivalent")

    reason = _inconclusive_reason(significant, mwu_agrees, params)
    needed = _repeats_to_decide(d, log_sd, (lower_bound, upper_bound), max(len(xa), len(xb)), params)
    return replace(result, reason=reason, repeats_needed=needed)


def _verdict_notes(
    params: CompareParams,
    mwu_can_decide: bool,
    sizes: tuple[int, int],
    dropped: int,
    far: tuple[Sequence[float], Sequence[float]],
) -> list[str]:
    """What a reader of the verdict must know: Mann-Whitney unable to decide, NaNs and outlier repeats
    left out."""
    notes: list[str] = []
    if not mwu_can_decide:
        notes.append(
            f"Mann-Whitney cannot reach p<{params.alpha:g} with n={sizes[0]}/{sizes[1]}; "
            "a difference rests on Welch alone"
        )
    if dropped:
        notes.append(f"{dropped} NaN value(s) left out")
    for side, values in zip(("A", "B"), far, strict=True):
        if values:
            shown = ", ".join(f"{v:.4g}" for v in values)
            notes.append(
                f"{side}'s lone outlier repeat(s) {shown} left out: far from the others (as RES-REPEAT-OUTLIER)"
            )
    return notes


def _inconclusive_reason(significant: bool, mwu_agrees: bool, params: CompareParams) -> str:
    """Why a comparison that shows neither a difference beyond the noise nor equivalence is inconclusive."""
    if significant and not mwu_agrees:
        return "Welch's t and Mann-Whitney disagree (an outlier or skew?)"
    if significant:
        return f"the difference is real but the CI reaches into the ±{params.noise_floor:.0%} noise floor"
    return "neither a difference nor equivalence is shown"


def _checked(params: CompareParams) -> CompareParams:
    if not 0.0 < params.alpha < 0.5:
        raise ValueError("alpha must be in (0, 0.5)")
    if not 0.0 < params.equivalence_margin < 1.0:
        raise ValueError("equivalence_margin must be in (0, 1)")
    if not 0.0 <= params.noise_floor < params.equivalence_margin:
        raise ValueError("noise_floor must be at least 0 and below the equivalence margin")
    return params


def _not_evaluated(base: Verdict, xa: list[float], xb: list[float]) -> Verdict | None:
    """The verdict when the samples cannot be compared as ratios (a value not above 0, or infinite), or give
    no interval (fewer than 2 per side: the ratio of geometric means only); None when they can."""
    if any(v <= 0.0 or math.isinf(v) for v in xa + xb):
        return replace(
            base,
            evaluated=False,
            reason="zero, negative or infinite values (failed runs?) cannot be compared as ratios",
        )
    if len(xa) >= 2 and len(xb) >= 2:
        return None
    gm_a, gm_b = geometric_mean(xa), geometric_mean(xb)
    ratio = gm_b / gm_a if gm_a is not None and gm_b is not None else None
    reason = "no interval at n = 1: 2 runs per side give one, and a verdict" if xa and xb else "a side has no value"
    return replace(base, ratio=ratio, evaluated=False, reason=reason)


def _tost_p(welch: WelchTest, lower_bound: float, upper_bound: float) -> float:
    """The p-value of the two one-sided tests that the log ratio lies within the equivalence bounds."""
    d = welch.diff
    if welch.se > 0.0:
        return max(t_sf((d - lower_bound) / welch.se, welch.df), t_sf((upper_bound - d) / welch.se, welch.df))
    return 0.0 if lower_bound < d < upper_bound else 1.0


def _repeats_to_decide(
    d: float, log_sd: float, bounds: tuple[float, float], n: int, params: CompareParams
) -> int | None:
    """Repeats per side that would show the difference beyond the noise floor or the equivalence, whichever
    needs fewer: at least one more than the `n` there are, at most `params.max_repeats`; None when neither can."""
    lower_bound, upper_bound = bounds
    detect = repeats_needed(log_sd, abs(d) - math.log1p(params.noise_floor), params.alpha, params.power, True)
    equivalence = repeats_needed(log_sd, min(d - lower_bound, upper_bound - d), params.alpha, params.power, False)
    options = [count for count in (detect, equivalence) if count is not None]
    return min(max(min(options), n + 1), params.max_repeats) if options else None
