"""Where a chart's free labels go, so that none is cut off and none is written over another, by construction.

A label's size is measured with matplotlib's own text layout (the Agg renderer's metrics of the font it
draws with), never guessed from a count of characters: an `m` is twice an `i`. The page's SVG keeps text
as text, so a browser without that font (DejaVu Sans) draws it in the next one the SVG names, up to a
fifth wider; every measured width is given that room (`BROWSER_FONT_ROOM`).

Two placements use it: labels along a line (a timeline's dips) are dealt into rows, each label in the
lowest row where it clears the one before it (`rows`); labels standing on end side by side (a timeline's
point names) are thinned to every k-th when they are closer than their own height (`every`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

BROWSER_FONT_ROOM = 1.2  # a fallback font (Verdana, Arial) against DejaVu Sans, at most, with room
MEASURING_DPI = 720.0  # fine enough that the renderer's whole pixels do not round a 7 pt line down


@lru_cache(maxsize=4096)
def text_inches(text: str, size_pt: float) -> tuple[float, float]:
    """(width, height) of one line of `text` at `size_pt`, in inches, as matplotlib lays it out, with room
    for a wider browser font."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    renderer = RendererAgg(1, 1, MEASURING_DPI)
    width, height, _ = renderer.get_text_width_height_descent(text, FontProperties(size=size_pt), ismath=False)
    return width / MEASURING_DPI * BROWSER_FONT_ROOM, height / MEASURING_DPI * BROWSER_FONT_ROOM


def rows(spans: Sequence[tuple[float, float]], gap: float = 0.0) -> list[int]:
    """A row for each (start, width) label: the lowest row whose last label ends, with `gap`, before this
    one starts; labels are taken in order of their start. Two labels in one row never overlap."""
    ends: list[float] = []  # each row's right edge so far
    found = [0] * len(spans)
    for index in sorted(range(len(spans)), key=lambda i: spans[i][0]):
        start, width = spans[index]
        row = next((r for r, end in enumerate(ends) if end + gap <= start), len(ends))
        if row == len(ends):
            ends.append(-math.inf)
        ends[row] = start + width
        found[index] = row
    return found


def every(centres: Sequence[float], height: float) -> int:
    """The smallest step k such that every k-th of labels standing on end at `centres` (in order) is at
    least `height` from the next one kept: 1 when they all fit."""
    for step in range(1, max(len(centres), 1) + 1):
        kept = centres[::step]
        if all(b - a >= height for a, b in zip(kept, kept[1:], strict=False)):
            return step
    return max(len(centres), 1)


def ordinal(n: int) -> str:
    """2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
