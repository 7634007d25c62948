"""How far below its surroundings a window of a short run's seconds falls by chance, read by simulation.

A dip in a run of 8-30 s is judged against the few seconds around it. Read with the dip in it, the lag-1
correlation of seconds in a row is mostly the dip's own level (0.80 on average where the noise's phi was 0.36 in
issue 40's short runs) and hides the dip; read without it, a clean run's wander loses its correlation with its
trough and looks like a dip. No single reading of one number serves both, so the statistic here is read without
the window (`window_z`) and its cut is the same statistic's chance maximum over every window of that length in
clean AR(1) runs of the run's length at the correlation read (`chance_z`): a wander's trough, with its
correlation taken out, is what those simulated runs produce, and the cut absorbs it.
"""

from __future__ import annotations

import functools

import numpy as np

SIMS = 2000  # clean runs simulated per (length, window, phi)
PHI_STEP = 0.05  # the correlation is simulated on this grid (rounded up: the cut errs towards fewer findings)
TAIL = 40  # simulated maxima above which a rarer quantile is extrapolated (a Pareto tail, Hill's estimate)
SEED = 57


def _mean_factor(length: np.ndarray | int, rho: np.ndarray) -> np.ndarray:
    """Standard deviation of the mean of `length` AR(1) seconds over that of one second (telemetry's
    `_mean_factor`, elementwise)."""
    r = np.clip(rho, 1e-9, 0.95)
    total = length * (1.0 + r) / (1.0 - r) - 2.0 * r * (1.0 - r**length) / (1.0 - r) ** 2
    return np.sqrt(np.maximum(total, 1e-12)) / length


def window_z(logs: np.ndarray, inside: np.ndarray, level_out: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """How many standard errors the mean of the `inside` seconds lies below the mean of the others, for each row
    of `logs` (..., n) and mask `inside` (..., n): the sd of the seconds outside (ddof 1), and the lag-1
    correlation of the seconds about their own part's mean (the window's level taken out), with Kendall's
    small-sample correction kept between 0 and 0.95, both means' uncertainty counted."""
    n = logs.shape[-1]
    k = inside.sum(axis=-1)
    m = n - k
    mean_in = np.where(inside, logs, 0.0).sum(axis=-1) / k
    mean_out = np.where(inside, 0.0, logs).sum(axis=-1) / m
    centre = np.where(inside, mean_in[..., None], mean_out[..., None])
    residuals = logs - centre
    outside_ss = np.where(inside, 0.0, residuals**2).sum(axis=-1)
    sd = np.sqrt(outside_ss / np.maximum(m - 1, 1))
    if not level_out:
        residuals = logs - logs.mean(axis=-1, keepdims=True)
    denom = (residuals**2).sum(axis=-1)
    rho = (residuals[..., 1:] * residuals[..., :-1]).sum(axis=-1) / np.where(denom > 0, denom, 1.0)
    rho = np.clip(rho + (1.0 + 3.0 * rho) / n, 0.0, 0.95)
    se = sd * np.hypot(_mean_factor(k, rho), _mean_factor(m, rho))
    return (mean_out - mean_in) / np.where(se > 0, se, np.inf), rho


@functools.lru_cache(maxsize=4096)
def _maxima(n: int, length: int, phi: float, level_out: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The largest `window_z` over every window of `length` seconds in each of SIMS clean AR(1) runs of `n`
    seconds at `phi` (Gaussian shocks: the noise model the cut assumes), sorted, the top TAIL + 1 kept."""
    rng = np.random.default_rng([SEED, n, length, round(phi / PHI_STEP)])
    shocks = rng.standard_normal((SIMS, n))
    runs = np.empty((SIMS, n))
    runs[:, 0] = shocks[:, 0]
    scale = np.sqrt(1.0 - phi**2)
    for t in range(1, n):
        runs[:, t] = phi * runs[:, t - 1] + scale * shocks[:, t]
    starts = np.arange(n - length + 1)
    masks = (np.arange(n)[None, :] >= starts[:, None]) & (np.arange(n)[None, :] < starts[:, None] + length)
    shape = (SIMS, len(starts), n)
    z, rho = window_z(np.broadcast_to(runs[:, None, :], shape), np.broadcast_to(masks[None, :, :], shape), level_out)
    best = z.argmax(axis=1)
    return np.sort(z.max(axis=1))[-(TAIL + 1) :], np.quantile(rho[np.arange(SIMS), best], np.linspace(0, 1, 101))


def chance_z(n: int, length: int, phi: float, alarm: float, level_out: bool = True) -> float:
    """The `window_z` that the most extreme window of `length` seconds in a clean AR(1) run of `n` seconds at
    `phi` exceeds with probability `alarm`: the simulated maxima's quantile, or beyond the TAIL largest of them,
    a Pareto tail fitted to those (heavier than the maxima's own, so the cut errs high where it is read
    furthest)."""
    grid = min(0.95, float(np.ceil(max(phi, 0.0) / PHI_STEP - 1e-9) * PHI_STEP))
    top = _maxima(n, length, round(grid, 2), level_out)[0]
    rank = alarm * SIMS  # simulated maxima expected above the cut
    if rank >= 1.0:
        return float(top[-min(int(np.ceil(rank)), TAIL + 1)])
    base = top[0]
    hill = float(np.mean(np.log(top[1:] / base))) if base > 0 else 0.0
    if hill <= 0:
        return float(top[-1])
    return float(base * (TAIL / (SIMS * alarm)) ** hill)


def plausible_phi(n: int, length: int, read: float, level: float) -> float:
    """The largest correlation on the grid at which a clean run's most extreme window of `length` seconds leaves
    a correlation as low as `read` (without the window) at least a `level` share of the time."""
    grid = float(np.floor(max(read, 0.0) / PHI_STEP + 1e-9) * PHI_STEP)
    while grid + PHI_STEP <= 0.95 + 1e-9:
        quantiles = _maxima(n, length, round(grid + PHI_STEP, 2))[1]
        if quantiles[int(round(level * 100))] > read:
            break
        grid += PHI_STEP
    return max(grid, read)


def read_phi(logs: np.ndarray) -> np.ndarray:
    """Lag-1 correlation of each row about its mean, Kendall-corrected, kept between 0 and 0.95."""
    n = logs.shape[-1]
    r = logs - logs.mean(axis=-1, keepdims=True)
    denom = (r**2).sum(axis=-1)
    rho = (r[..., 1:] * r[..., :-1]).sum(axis=-1) / np.where(denom > 0, denom, 1.0)
    return np.clip(rho + (1.0 + 3.0 * rho) / n, 0.0, 0.95)


def window_t(logs: np.ndarray, inside: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """The t of a level shift over the `inside` seconds (a drop positive) in an AR(1) fit at a fixed `phi`
    (one per row): each second less phi times the one before, regressed on the constant and the shift."""
    p = phi[..., None]
    y = logs[..., 1:] - p * logs[..., :-1]
    d = inside.astype(float)
    b = d[..., 1:] - p * d[..., :-1]
    a = np.broadcast_to(1.0 - p, b.shape)
    saa, sab, sbb = (a * a).sum(-1), (a * b).sum(-1), (b * b).sum(-1)
    say, sby = (a * y).sum(-1), (b * y).sum(-1)
    det = saa * sbb - sab**2
    det = np.where(det > 1e-12, det, np.nan)
    ca = (sbb * say - sab * sby) / det
    cb = (saa * sby - sab * say) / det
    resid = y - ca[..., None] * a - cb[..., None] * b
    dof = y.shape[-1] - 2
    s2 = (resid**2).sum(-1) / dof
    var_b = s2 * saa / det
    t = -cb / np.sqrt(np.where(var_b > 0, var_b, np.nan))
    return np.nan_to_num(t, nan=0.0)


@functools.lru_cache(maxsize=4096)
def _t_maxima(n: int, length: int, phi: float) -> np.ndarray:
    rng = np.random.default_rng([SEED, n, length, round(phi / PHI_STEP), 1])
    shocks = rng.standard_normal((SIMS, n))
    runs = np.empty((SIMS, n))
    runs[:, 0] = shocks[:, 0]
    scale = np.sqrt(1.0 - phi**2)
    for t in range(1, n):
        runs[:, t] = phi * runs[:, t - 1] + scale * shocks[:, t]
    starts = np.arange(n - length + 1)
    masks = (np.arange(n)[None, :] >= starts[:, None]) & (np.arange(n)[None, :] < starts[:, None] + length)
    shape = (SIMS, len(starts), n)
    phis = np.broadcast_to(read_phi(runs)[:, None], shape[:2])
    z = window_t(np.broadcast_to(runs[:, None, :], shape), np.broadcast_to(masks[None, :, :], shape), phis)
    return np.sort(z.max(axis=1))[-(TAIL + 1) :]


def chance_t(n: int, length: int, phi: float, alarm: float) -> float:
    grid = min(0.95, float(np.ceil(max(phi, 0.0) / PHI_STEP - 1e-9) * PHI_STEP))
    top = _t_maxima(n, length, round(grid, 2))
    rank = alarm * SIMS
    if rank >= 1.0:
        return float(top[-min(int(np.ceil(rank)), TAIL + 1)])
    base = top[0]
    hill = float(np.mean(np.log(top[1:] / base))) if base > 0 else 0.0
    return float(base * (TAIL / (SIMS * alarm)) ** hill) if hill > 0 else float(top[-1])
