"""Text another user controls never reaches a terminal raw: every page iolab prints shows a control character
as its escape (`\\x1b`), and only iolab's own styling is sent to the terminal as it is.

iolab prints host text: process names, mount points (a user's FUSE mount is named as they like), fio's error
lines, file names of an imported folder, device models, job, plan and host names, notes. Rich passes ESC
through (it drops only BEL, BS, VT, FF and CR), so a name like '\\x1b]0;title\\x07' or '\\x1b[2J' would set
root's terminal title, clear its screen or write its clipboard (OSC 52). Escaping at each reader is a list
that is never complete; here the text is escaped where it leaves iolab, whatever it holds and wherever it came
from:

- a page (`report.formats.renderer`: every format, to a terminal, a pipe or a file) goes through `shown`;
- a Rich console made by `escaping_console` escapes every string it is given as Rich makes it text, before Rich
  measures it (a table's columns are as wide as the escapes they show), and then the text of every segment it
  renders (text built some other way), not the colours it draws around them, and marks what it writes `Styled`:
  its only control characters are iolab's own;
- `guard_streams` (the `iolab` command's start) puts `EscapingStream` on standard output and error, so every
  other line (print, typer.echo, the error handler quoting a user's path) is escaped too.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from functools import cache
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderResult
    from rich.text import Text

# C0 but newline and tab, DEL, C1, and the bidi embeddings, overrides and isolates (which reorder what
# follows them on the line: a name could show another name)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with each control character (see `_CONTROL`) shown as its Python escape (`\\x1b`, `\\u202e`)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda found: ascii(found.group())[1:-1], text)


def printable_text(text: Text) -> Text:
    """A Rich `text` with its controls escaped as `printable` does, each style kept on the characters it was on (a
    style over a control character covers its escape). Text already escaped is returned as it is: escaping twice
    would show `\\\\x1b` for a name that holds ESC."""
    plain = text.plain
    grown = {found.start(): len(printable(found.group())) - 1 for found in _CONTROL.finditer(plain)}
    if not grown:
        return text
    from rich.text import Span

    moved, extra = [], 0  # moved[i]: where the character at i (or the end, i = len) is once escaped
    for i in range(len(plain) + 1):
        moved.append(i + extra)
        extra += grown.get(i, 0)
    escaped = text.blank_copy(printable(plain))
    escaped.spans = [Span(moved[min(s.start, len(plain))], moved[min(s.end, len(plain))], s.style) for s in text.spans]
    return escaped


class Styled(str):
    """Text whose control characters are iolab's own (colours an `escaping_console` drew around escaped text): the one
    kind of text `shown` and `EscapingStream` pass as it is."""


def shown(text: str) -> str:
    """What of `text` may reach a terminal: `Styled` text as it is, any other with its controls escaped."""
    return text if isinstance(text, Styled) else printable(text)


class EscapingStream:
    """A text stream (standard output or error) that writes what it is given through `shown`."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        return self.raw.write(shown(text) if isinstance(text, str) else text)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding, buffer...: the stream's own
        return getattr(self.raw, name)


def guard_streams() -> None:
    """Escape every line the process writes to standard output and error from now on."""
    if not isinstance(sys.stdout, EscapingStream):
        sys.stdout = EscapingStream(sys.stdout)  # type: ignore[assignment]
    if not isinstance(sys.stderr, EscapingStream):
        sys.stderr = EscapingStream(sys.stderr)  # type: ignore[assignment]


class _StyledFile:
    """What an `escaping_console` writes into: its target (a file, or standard output or error as they are when it
    writes), handed the text as `Styled`, since the console escaped every character it did not draw."""

    def __init__(self, target: Callable[[], TextIO]) -> None:
        self.target = target

    def write(self, text: str) -> int:
        return self.target().write(Styled(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target(), name)


class _Escaped:
    """A renderable drawn as Rich draws it, each segment's text escaped (its style, iolab's, kept)."""

    def __init__(self, inner: ConsoleRenderable) -> None:
        self.inner = inner

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.segment import Segment

        for segment in console.render(self.inner, options):
            yield segment if segment.control else Segment(printable(segment.text), segment.style)


class _EscapeHook:
    """Rich's render hook (`rich.console.RenderHook`, not subclassed: importing Rich is left to the commands
    that print with it): every renderable a console prints is drawn escaped."""

    def process_renderables(self, renderables: Iterable[ConsoleRenderable]) -> list[ConsoleRenderable]:
        return [_Escaped(r) for r in renderables]


@cache
def _escaping_console_type() -> type[Console]:
    """Rich's `Console` whose strings are escaped as they become text (`render_str`: what `print`, a table's cells,
    titles and captions, and measuring a string all go through), so Rich measures the escape it will show: a
    name holding ESC takes the four columns of `\\x1b` in its table's layout, not the none of ESC. Made on first
    use: importing Rich is left to the commands that print with it."""
    from rich.console import Console

    class EscapingConsole(Console):
        def render_str(self, text: str, **options: Any) -> Text:
            return printable_text(super().render_str(text, **options))

    return EscapingConsole


def escaping_console(file: TextIO | None = None, stderr: bool = False, **options: Any) -> Console:
    """A Rich console that escapes every character of the text it prints, and draws its own colours: the
    only kind iolab prints with. `file`: where it writes (standard output or, with `stderr`, error, as they
    are when it writes)."""
    if file is not None:
        target: Callable[[], TextIO] = lambda: file  # noqa: E731
    else:
        target = (lambda: sys.stderr) if stderr else (lambda: sys.stdout)
    made = _escaping_console_type()(file=_StyledFile(target), **options)  # type: ignore[arg-type]
    made.push_render_hook(_EscapeHook())  # type: ignore[arg-type]
    return made
