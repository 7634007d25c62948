"""Another tool's output (IOR, mdtest, IOzone) as points of an import run, one per iteration.

The path the tool worked on is the point's target as shown, but not part of its identity
(`Target.filename` stays empty): harnesses give every run a fresh scratch folder (akrr:
`ior.4B5i3sf5v`, then `ior.T6Bzgebs1`), and the same workload on the same system must stay one
series for `history` and match itself in `compare`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from iolab.imports.sessions import Span
from iolab.models import Point, Target, TargetKind
from iolab.store.db import Artifact, PackedArtifact, Store
from iolab.tools import ior, iozone, mdtest
from iolab.tools.model import ToolOutput

READERS = {
    "ior": ior.parse_text,
    "ior-json": ior.parse_json,
    "mdtest": mdtest.parse,
    "iozone": iozone.parse,
}


@dataclass
class ToolFile:
    path: Path
    source: str  # the path with links resolved, as its points' provenance keeps it
    output: ToolOutput
    kept: PackedArtifact  # the file itself, kept with its first point

    @property
    def version(self) -> str:
        return self.output.version

    @property
    def started(self) -> float | None:
        """When the tool's first run in the file began, where it says."""
        return min((p.started for p in self.output.points if p.started is not None), default=None)

    @property
    def span(self) -> Span | None:
        """When its runs began, first to last (these tools say when a run began, not how long it took)."""
        began = [p.started for p in self.output.points if p.started is not None]
        return Span(min(began), max(began)) if began else None


def read_tool(path: Path, data: bytes, text: str, kind: str) -> ToolFile:
    """The file (its bytes, their text) parsed as `kind` says (UserError when it is not that tool's output)."""
    output = READERS[kind](text, str(path))
    return ToolFile(path, str(path.resolve()), output, Artifact(f"{output.tool}.txt", data).packed())


def store_tool(store: Store, run_id: int, file: ToolFile) -> list[int]:
    """Plan and record every iteration of every point of the file in `run_id`; their ids. Where the file
    came from is their provenance."""
    ids: list[int] = []
    kind: TargetKind = "directory" if file.output.tool == "mdtest" else "file"
    for point in file.output.points:
        target = Target(path=point.target, kind=kind, filename="", size_bytes=0, direct=point.direct)
        planned = [Point(point.name, target, point.options, repeat) for repeat in range(len(point.repeats))]
        when = point.started or time.time()
        for point_id, result in zip(store.plan_points(run_id, planned), point.repeats, strict=True):
            # the output itself once per file: an IOzone table holds hundreds of points
            store.record_point(point_id, result, [], [] if ids else [file.kept], when, when)
            ids.append(point_id)
    return ids
