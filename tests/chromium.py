"""Headless Chromium for checking HTML reports as a browser sees them (tests and bench).

A plain module, not a conftest, so tests and `bench/` can both import it.
Only Chromium's own switches are used (`--dump-dom`, `--screenshot`), since
no browser-automation download is possible here. Console errors are caught
two ways: Chromium's console log on stderr, and a probe script put in front
of the page (`probe_copy`) that records `window.onerror` and any `alert()`
into attributes of <html>, which `--dump-dom` then shows.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
SWITCHES = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
)
# Runs before anything else on the page; the report's own CSP comes after it, so it is allowed.
PROBE = (
    "<script>(function(){var h=document.documentElement;h.setAttribute('data-errors','');"
    "window.onerror=function(m){h.setAttribute('data-errors',h.getAttribute('data-errors')+m+'|');};"
    "window.alert=function(m){h.setAttribute('data-alerted',String(m));};})();</script>"
)
CONSOLE_LINE = re.compile(r"CONSOLE.*|Uncaught.*|Refused to .*")


def chromium_skip_reason() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing: apt-get install -y chromium"
    return None


@dataclass(frozen=True)
class Browse:
    """What one Chromium invocation printed, how long it took, and its console messages."""

    stdout: str
    console: list[str]
    seconds: float


def run_chromium(url: str, *extra: str, timeout: float = 60.0) -> Browse:
    """Chromium on `url` with a fresh profile; stdout, console lines from stderr, wall time."""
    with tempfile.TemporaryDirectory(prefix="iolab-chromium-") as profile:
        argv = [str(CHROMIUM), *SWITCHES, f"--user-data-dir={profile}", *extra, url]
        started = time.perf_counter()
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, env={**os.environ, "HOME": profile}, check=False
        )
        seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return Browse(done.stdout, CONSOLE_LINE.findall(done.stderr), seconds)


def dump_dom(path: Path, screenshot: Path | None = None, size: str = "1280,4000") -> Browse:
    """The page's DOM as Chromium built it; with `screenshot`, the same load also writes a PNG of the page at
    `size` (one browser start instead of two: the DOM does not depend on the window's size)."""
    shot = [f"--screenshot={screenshot}", f"--window-size={size}", "--hide-scrollbars"] if screenshot else []
    return run_chromium(path.resolve().as_uri(), "--dump-dom", *shot)


def probe_copy(report: Path, into: Path) -> Path:
    """A copy of the report with the error/alert probe as the first thing in <head>."""
    text = report.read_text(encoding="utf-8")
    copy = into / f"probed-{report.name}"
    copy.write_text(text.replace("<head>", "<head>" + PROBE, 1), encoding="utf-8")
    return copy


def quick_run_page(home: Path, data: Path, out: Path, head: str, allow_write: bool = False) -> tuple[Path, str]:
    """A quick run (1 s a point) on the scratch directory `data`, its HTML page written into `out` with `head`
    (a measuring script) added to its <head>: the page a browser test opens, and the HTML as iolab made it."""
    from iolab.report.html import render_html
    from iolab.runner.execute import execute
    from iolab.runner.progress import SilentProgress
    from iolab.runner.request import PresetSettings, RunRequest
    from iolab.store.db import open_store
    from iolab.views.run import load_run

    request = RunRequest(
        plan="quick",
        settings=PresetSettings(runtime=1, ramp=0),
        targets=[str(data)],
        allow_write=allow_write,
        size=64 << 20,
        telemetry_interval=None,
    )
    store = open_store(home)
    run_id = execute(request, store, SilentProgress()).run_id
    html, _ = render_html([load_run(store, run_id)])
    store.close()
    page = out / "quick.html"
    page.write_text(html.replace("<head>", "<head>" + head, 1), encoding="utf-8")
    return page, html


def html_attribute(dom: str, name: str) -> str:
    """An attribute a measuring script set on <html>; the assertion says the script did not run."""
    match = re.search(rf'<html[^>]*\b{name}="([^"]*)"', dom)
    assert match, f"{name} missing: the measuring script did not run"
    return match[1]
