"""What a run tells the person watching it, as it goes."""

from __future__ import annotations

from typing import Protocol

from iolab.models import Point, Result


class Progress(Protocol):
    """Callbacks the runner makes; the CLI supplies a terminal implementation."""

    def run_started(self, run_id: int, points: list[Point], notes: list[str]) -> None: ...

    def phase(self, message: str) -> None: ...

    def point_started(self, index: int, total: int, point: Point) -> None: ...

    def point_finished(self, index: int, total: int, point: Point, result: Result | None, error: str) -> None: ...


class SilentProgress:
    """Progress that prints nothing (tests, --quiet)."""

    def run_started(self, run_id: int, points: list[Point], notes: list[str]) -> None:
        pass

    def phase(self, message: str) -> None:
        pass

    def point_started(self, index: int, total: int, point: Point) -> None:
        pass

    def point_finished(self, index: int, total: int, point: Point, result: Result | None, error: str) -> None:
        pass
