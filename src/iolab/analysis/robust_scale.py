"""Robust scales of a few values with their small-sample factors: the MAD's and Qn's (Croux and Rousseeuw 1992).

Their own module because both the outlier tests (`analysis.outliers`) and the simulated null of their backstop
(`analysis.outlier_null`) scale by them, and each of those imports the other's figures lazily: here neither has to
import the other for a factor (the import cycle outlier_null -> outliers -> outlier_null that `tests/test_layers.py`
refused).
"""

from __future__ import annotations

from collections.abc import Sequence

# Croux & Rousseeuw (1992) small-sample correction factors of MAD for n = 2..9 (n / (n - 0.8) above): without
# them a MAD of 6 drives is about 17% too small, and a healthy drive of a small array scores past the cut.
MAD_SMALL = {2: 1.196, 3: 1.495, 4: 1.363, 5: 1.206, 6: 1.200, 7: 1.140, 8: 1.129, 9: 1.107}
# Croux & Rousseeuw (1992) small-sample correction factors of Qn for n = 2..9.
QN_SMALL = {2: 0.399, 3: 0.994, 4: 0.512, 5: 0.844, 6: 0.611, 7: 0.857, 8: 0.669, 9: 0.872}


def qn_scale(values: Sequence[float]) -> float:
    """Qn estimate of the standard deviation: 2.2219 x the k-th smallest pairwise distance,
    k = C(h, 2), h = n // 2 + 1, with the finite-sample factor. O(n^2), fine for arrays of drives."""
    n = len(values)
    if n < 2:
        return 0.0
    distances = sorted(abs(a - b) for i, a in enumerate(values) for b in values[i + 1 :])
    h = n // 2 + 1
    k = h * (h - 1) // 2
    factor = QN_SMALL.get(n, n / (n + 1.4) if n % 2 else n / (n + 3.8))
    return 2.2219 * factor * float(distances[k - 1])


def mad_factor(count: int) -> float:
    """Croux and Rousseeuw's small-sample factor of the MAD for `count` values."""
    return MAD_SMALL.get(count, count / (count - 0.8))
