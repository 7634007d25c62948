"""Where imported points came from: source file, its SHA-256, the tool and its version.

Kept beside the points (table `provenance`, migration 0009) so that importing the same bytes twice
names the run that already holds them instead of storing them again, and so that `ls` and `show`
can say a run was imported, and from what.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from iolab.store.db import Store
from iolab.store.params import in_chunks


@dataclass(frozen=True)
class Provenance:
    source: str  # the file's path as it was imported
    sha256: str  # of its bytes
    tool: str  # "fio", "ior", "mdtest", "iozone"
    version: str  # as the tool printed it ("fio-2.1.3", "IOR-3.3.0+dev"), "" when it did not


def record_provenance(store: Store, point_ids: list[int], origin: Provenance) -> None:
    with store.transaction():
        store.conn.executemany(
            "INSERT OR REPLACE INTO provenance (point_id, source, sha256, tool, version) VALUES (?, ?, ?, ?, ?)",
            [(point_id, origin.source, origin.sha256, origin.tool, origin.version) for point_id in point_ids],
        )


def describe_imported_run(
    store: Store, run_id: int, label: str, files: list[str], fio_versions: str, began: list[float], host: str = ""
) -> None:
    """An imported run once all its files are stored: its label, its files and fio versions, the host its
    outputs name ("" when they name none: not the importing machine's), and dated when its tool ran, not
    when it was imported (`history` orders runs by it): from its earliest output to its latest, where they say."""
    with store.transaction():
        store.conn.execute(
            "UPDATE runs SET label = ?, targets = ?, fio_version = ?, host = ? WHERE id = ?",
            (label, json.dumps(files), fio_versions, host, run_id),
        )
        if began:
            store.conn.execute(
                "UPDATE runs SET started_at = ?, finished_at = ? WHERE id = ?", (min(began), max(began), run_id)
            )


def runs_holding(store: Store, digests: list[str]) -> dict[str, int]:
    """SHA-256 -> the run already holding points imported from a file with those bytes, for those held."""
    held: dict[str, int] = {}
    for chunk, marks in in_chunks(digests):
        for digest, run_id in store.conn.execute(
            "SELECT provenance.sha256, MIN(points.run_id) FROM provenance JOIN points ON points.id = provenance.point_id"
            f" WHERE provenance.sha256 IN ({marks}) GROUP BY provenance.sha256",
            chunk,
        ):
            held[digest] = int(run_id)
    return held


def imported_runs(store: Store, run_ids: list[int]) -> dict[int, dict[str, object]]:
    """For each imported run among `run_ids`: its tools, versions and how many files it came from."""
    if not run_ids:
        return {}
    marks = ",".join("?" * len(run_ids))
    found: dict[int, dict[str, set[str]]] = {}
    for run_id, tool, version, source in store.conn.execute(
        f"SELECT points.run_id, tool, version, source FROM provenance JOIN points ON points.id = provenance.point_id"
        f" WHERE points.run_id IN ({marks})",
        run_ids,
    ):
        entry = found.setdefault(run_id, {"tools": set(), "versions": set(), "files": set()})
        entry["tools"].add(tool)
        entry["files"].add(source)
        if version:
            entry["versions"].add(version)
    return {
        run_id: {"tools": sorted(e["tools"]), "versions": sorted(e["versions"]), "files": len(e["files"])}
        for run_id, e in found.items()
    }
