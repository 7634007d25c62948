"""Pick one series per source out of a flat list of samples, for the analyses.

Telemetry writes the samples; reading them back into series is the analyses' own first step, so it
lives with them and they need nothing of the samplers.
"""

from __future__ import annotations

from collections.abc import Iterable

from iolab.models import Sample


def series_by_source(samples: Iterable[Sample], metric: str, ddir: str) -> dict[str, tuple[list[float], list[float]]]:
    """source -> (times in seconds, values), in time order."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    for s in sorted((s for s in samples if s.metric == metric and s.ddir == ddir), key=lambda s: s.t_ms):
        times, values = out.setdefault(s.source, ([], []))
        times.append(s.t_ms / 1000.0)
        values.append(s.value)
    return out


def mean_by_source(
    samples: Iterable[Sample], metric: str, ddir: str, start_s: float = 0.0, end_s: float = float("inf")
) -> dict[str, float]:
    """Mean value per source over samples whose interval ends in (start_s, end_s]."""
    out: dict[str, float] = {}
    for source, (times, values) in series_by_source(samples, metric, ddir).items():
        kept = [v for t, v in zip(times, values, strict=True) if start_s < t <= end_s]
        if kept:
            out[source] = sum(kept) / len(kept)
    return out
