"""Student's t distribution: its tail probability and quantiles, exact to about 1e-14 for any degrees of freedom.

One implementation for every interval and test in iolab (the comparisons'
Welch test, the stability of repeats, the charts' error bars): a printed
table interpolated in 1/df was 0.02 off at df = 121 and cannot take the
fractional degrees of freedom of Welch's test.
"""

from __future__ import annotations

import math
from functools import lru_cache


def _incomplete_beta(x: float, a: float, b: float) -> float:
    """Regularized incomplete beta I_x(a, b), by the continued fraction (modified Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):  # the fraction converges fast only below the mean
        return 1.0 - _incomplete_beta(1.0 - x, b, a)
    log_front = a * math.log(x) + b * math.log1p(-x) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(log_front) * fraction / a


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with `df` (possibly fractional) degrees of freedom."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    tail = 0.5 * _incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
    return tail if t >= 0 else 1.0 - tail


@lru_cache(maxsize=4096)
def t_quantile(q: float, df: float) -> float:
    """The q quantile of Student's t: Newton's method on `t_sf`, kept inside a bisection bracket. Kept per
    (q, df): the repeats' intervals ask for the same few (0.975 at n - 1) thousands of times, each about 35
    tail evaluations, and the answer is a pure function of its arguments."""
    if not 0.0 < q < 1.0:
        raise ValueError("q must be in (0, 1)")
    if q < 0.5:
        return -t_quantile(1.0 - q, df)
    target = 1.0 - q
    low, high = 0.0, 1.0
    while t_sf(high, df) > target:
        low, high = high, high * 2.0
    log_norm = math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
    x = 0.5 * (low + high)
    for _ in range(100):
        excess = t_sf(x, df) - target  # decreasing in x
        if excess == 0.0:
            break
        if excess > 0.0:
            low = x
        else:
            high = x
        density = math.exp(log_norm - (df + 1.0) / 2.0 * math.log1p(x * x / df))
        step = x + excess / density if density > 0.0 else math.nan
        if abs(step - x) <= 1e-14 * x:
            return step
        x = step if low < step < high else 0.5 * (low + high)
        if high - low <= 1e-14 * x:
            break
    return x
