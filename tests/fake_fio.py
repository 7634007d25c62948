"""A stand-in `fio` for fast tests: a shell script that runs the test's body, for what a real fio would need a
device or seconds to show (a hang, an exit status, an output file written or not)."""

from __future__ import annotations

from pathlib import Path

# finds the `--output=` argument the runner gives fio, as $out
FINDS_OUTPUT = 'for a; do case "$a" in --output=*) out="${a#--output=}";; esac; done'


def fake_fio(tmp_path: Path, body: str, prelude: str = FINDS_OUTPUT) -> str:
    """tmp_path/bin/fio running `prelude` then `body` with fio's arguments; its path."""
    fio = tmp_path / "bin" / "fio"
    fio.parent.mkdir(exist_ok=True)
    fio.write_text(f"#!/bin/sh\n{prelude}\n{body}\n")
    fio.chmod(0o755)
    return str(fio)
