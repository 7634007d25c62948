"""A result's fields, declared once: the `results` column each is stored in, what kind of value it holds and
where it comes from in a parsed direction (`DirectionResult`, its `LatencyStats`).

Four consumers read this one tuple and nothing else: the store's INSERT (`store.db`), its SELECT back into
a `DirectionResult` (`store.queries`), the integrity check that finds rows no reader can use
(`store.integrity`) and the CSV columns (`report.csv_output`). A field added here (with its column, by a
migration) is written, read, checked and exported with no other change; `tests/store/test_result_fields.py`
adds one and sees it in all four.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from iolab.models.result import PERCENTILES, DirectionResult, LatencyStats

TEXT, NUMBER, PERCENTILE_MAP = "text", "number", "percentiles"


@dataclass(frozen=True)
class ResultField:
    """One stored figure of a direction: its `results` column, its kind (`TEXT`, `NUMBER`, or the
    `PERCENTILE_MAP` stored as a JSON object) and the attribute it is read from, on the direction or, with
    `latency`, on its latency summary (NULL in the store, an empty cell in CSV, when it has none)."""

    column: str
    kind: str
    attr: str
    latency: bool = False

    def get(self, direction: DirectionResult) -> object:
        """The value in a parsed direction (None for a latency field of a direction without latency)."""
        holder = direction.latency if self.latency else direction
        return None if holder is None else getattr(holder, self.attr)

    def stored(self, direction: DirectionResult) -> object:
        """The value as its column holds it (percentiles as JSON with the percentile as text: '{"99.0": 812}')."""
        value = self.get(direction)
        if self.kind != PERCENTILE_MAP:
            return value
        return json.dumps({str(p): v for p, v in value.items()}) if isinstance(value, dict) else "{}"

    def loaded(self, raw: object) -> object:
        """The column's value back as the model holds it."""
        if self.kind == PERCENTILE_MAP:
            return {float(p): v for p, v in json.loads(str(raw)).items()}
        return raw

    def cells(self, direction: DirectionResult) -> dict[str, object]:
        """The CSV cells of this field: one under its column, or one per reported percentile."""
        if self.kind != PERCENTILE_MAP:
            return {self.column: self.get(direction)}
        value = self.get(direction)
        shown = set(self.csv_columns())
        return {c: v for p, v in (value.items() if isinstance(value, dict) else ()) if (c := f"lat_p{p:g}_ns") in shown}

    def csv_columns(self) -> tuple[str, ...]:
        """The CSV headers of this field, in order."""
        return tuple(f"lat_p{p:g}_ns" for p in PERCENTILES) if self.kind == PERCENTILE_MAP else (self.column,)


# The direction comes first: with the point it keys the row. The latency summary's first field (its kind)
# says whether a direction has one at all (`has_latency`).
RESULT_FIELDS: tuple[ResultField, ...] = (
    ResultField("ddir", TEXT, "ddir"),
    ResultField("bw_bytes", NUMBER, "bw_bytes"),
    ResultField("iops", NUMBER, "iops"),
    ResultField("total_ios", NUMBER, "total_ios"),
    ResultField("io_bytes", NUMBER, "io_bytes"),
    ResultField("runtime_ms", NUMBER, "runtime_ms"),
    ResultField("lat_kind", TEXT, "kind", latency=True),
    ResultField("lat_count", NUMBER, "count", latency=True),
    ResultField("lat_mean_ns", NUMBER, "mean_ns", latency=True),
    ResultField("lat_stddev_ns", NUMBER, "stddev_ns", latency=True),
    ResultField("lat_min_ns", NUMBER, "min_ns", latency=True),
    ResultField("lat_max_ns", NUMBER, "max_ns", latency=True),
    ResultField("percentiles", PERCENTILE_MAP, "percentiles", latency=True),
)


def latency_gate(fields: tuple[ResultField, ...]) -> ResultField:
    """The field whose NULL says a direction has no latency summary (the first latency field)."""
    return next(f for f in fields if f.latency)


def direction_of(row: Mapping[str, object], fields: tuple[ResultField, ...]) -> DirectionResult:
    """A stored `results` row (by column name) as the parsed direction it was stored from."""
    values: dict[bool, dict[str, Any]] = {False: {}, True: {}}  # the direction's own, its latency summary's
    for f in fields:
        values[f.latency][f.attr] = f.loaded(row[f.column])
    latency = LatencyStats(**values[True]) if row[latency_gate(fields).column] else None
    return DirectionResult(**values[False], latency=latency)
