"""Runs and points as plain JSON-ready dicts, for `--json` and scripts."""

from __future__ import annotations

from dataclasses import asdict

from iolab.models import PointRecord, Run


def run_dict(run: Run) -> dict:
    return asdict(run)


def record_dict(record: PointRecord) -> dict:
    data = {
        "id": record.id,
        "seq": record.seq,
        "key": record.point.key,
        "name": record.point.name,
        "status": record.status,
        "error": record.error,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "target": asdict(record.point.target),
        "options": record.point.options,
        "repeat": record.point.repeat,
        "result": None,
    }
    if record.result is not None:
        result = asdict(record.result)
        for direction in result["directions"].values():
            lat = direction.get("latency")
            if lat:
                lat["percentiles"] = {str(p): v for p, v in lat["percentiles"].items()}
                lat.pop("bins", None)
        data["result"] = result
    return data
