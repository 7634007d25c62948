"""Which imported files make one run: the outputs of one sitting, not of one folder.

A folder of a cron job's hourly outputs is a series over time: imported as one run, `history` saw one
run and the per-day COV one day. A sweep run back to back (fio once per queue depth) is one sitting,
and one run is what its user means. So files are grouped by when they ran: a file joins the run of a
file of the same tool whose time it overlaps or follows within `SESSION_GAP` seconds; any other file
starts a run of its own. Files that do not say when they ran (terse output) share one run per tool.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Seconds between one output's end and the next one's start that still count as one sitting: a sweep's
# invocations follow each other within seconds (a file laid out, caches dropped); a scheduled series is
# apart by its interval (a quarter of an hour or more, as `schedule install` is used).
SESSION_GAP = 300.0


@dataclass(frozen=True)
class Span:
    """When one file's runs took place, in seconds since the epoch."""

    start: float
    end: float


@dataclass
class Sessions:
    """Files assigned to sittings as they come, in any order; a sitting is numbered once and keeps its number."""

    gap: float = SESSION_GAP
    spans: dict[tuple[str, int], Span] = field(default_factory=dict)  # (tool, sitting) -> its extent so far

    def sitting(self, tool: str, span: Span | None) -> int | None:
        """The sitting `span` belongs to (None: the file does not say when it ran)."""
        if span is None:
            return None
        for (other_tool, number), extent in self.spans.items():
            if other_tool == tool and span.start <= extent.end + self.gap and span.end >= extent.start - self.gap:
                self.spans[(tool, number)] = Span(min(extent.start, span.start), max(extent.end, span.end))
                return number
        number = len(self.spans)
        self.spans[(tool, number)] = span
        return number
