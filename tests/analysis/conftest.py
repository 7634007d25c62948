"""Fixtures shared by the analysis tests."""

from __future__ import annotations

import pytest

from iolab.analysis import outlier_groups, outlier_null


@pytest.fixture
def fewer_draws(monkeypatch):
    """The outlier calibrations at a fifth of their draws (a 2% tail still holds 80 arrays), every cache they fill
    emptied before and after, so no other test sees alarms or cuts drawn this small."""
    monkeypatch.setattr(outlier_null, "DRAWS", 4_000)
    monkeypatch.setattr(outlier_groups, "CALIBRATION_DRAWS", 4_000)
    monkeypatch.setattr(outlier_groups, "SCALE_DRAWS", 1_000)
    caches = (
        outlier_groups._calibration,
        outlier_groups.cuts,
        outlier_null._null,
        outlier_null.loo_alarm,
        outlier_null.later_alarm,
    )
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()
