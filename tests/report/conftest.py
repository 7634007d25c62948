"""Registers the session-wide stored fio runs as fixtures (see stored_runs.py)."""

from stored_runs import bs_sweep, qd_sweep  # noqa: F401
