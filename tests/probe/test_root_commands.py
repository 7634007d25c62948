"""A command the probe runs on the live machine (probe.root.Root.command): its output, kept for a bundle when
recording; a program not installed, one that fails (its first line of complaint, or its exit status) or one
that runs too long is a reason, never a traceback; a captured tree answers from what it captured."""

from __future__ import annotations

import sys

from iolab.probe.root import COMMANDS_DIR, Root


def test_a_live_command_s_output_is_kept_for_the_bundle_when_recording():
    root = Root("/", record=True)
    assert root.command("hello", [sys.executable, "-c", "print('hi')"]) == ("hi\n", "")
    assert root.captured == {f"{COMMANDS_DIR}/hello": b"hi\n"}
    assert Root("/").command("hello", [sys.executable, "-c", "print('hi')"]) == ("hi\n", "")


def test_what_cannot_run_is_a_reason():
    live = Root("/")
    assert live.command("x", ["iolab-no-such-program"]) == (None, "`iolab-no-such-program` is not installed")
    failing = [sys.executable, "-c", "import sys; sys.stderr.write('bad flag\\nmore\\n'); sys.exit(3)"]
    assert live.command("x", failing) == (None, f"`{' '.join(failing)}` failed: bad flag")
    silent = [sys.executable, "-c", "raise SystemExit(4)"]
    assert live.command("x", silent) == (None, f"`{' '.join(silent)}` failed: exit 4")
    slow = [sys.executable, "-c", "import time; time.sleep(5)"]
    text, why = live.command("x", slow, timeout=0.2)
    assert text is None and why.startswith(f"`{' '.join(slow)}` failed: Command") and "timed out" in why


def test_a_captured_tree_answers_from_what_it_captured(tmp_path):
    (tmp_path / "iolab/commands").mkdir(parents=True)
    (tmp_path / "iolab/commands/lsblk.json").write_text("{}")
    tree = Root(tmp_path)
    assert tree.command("lsblk.json", ["lsblk", "-J"]) == ("{}", "")
    assert tree.command("nvme.json", ["nvme", "list"]) == (None, "`nvme list` not captured in this tree")
