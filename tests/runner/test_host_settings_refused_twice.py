"""When the kernel refuses a plan's host setting while iolab tries the plan's values before a run, the
originals are put back and the run is refused (runner.host_settings.HostSettings.prepare); when putting one
back fails too, the refusal says which, so the user knows what is still changed. Over the captured VM tree,
with writes made to fail after the first."""

from __future__ import annotations

import errno

import pytest

from iolab.errors import UserError
from iolab.probe.root import Root
from iolab.runner import host_settings
from iolab.runner.host_settings import HostSettings
from tests.runner.test_host_settings import QUEUE, on_vda, points, read, store, tree  # noqa: F401


def _writes_then_refuses(monkeypatch, allowed: int) -> None:  # type: ignore[no-untyped-def]
    real = host_settings.write_setting
    count = {"n": 0}

    def write(root: Root, path: str, value: str) -> None:
        count["n"] += 1
        if count["n"] > allowed:
            raise OSError(errno.EACCES, "Permission denied")
        real(root, path, value)

    monkeypatch.setattr(host_settings, "write_setting", write)


def test_a_refusal_whose_put_back_fails_too_names_what_is_still_changed(tree, store, monkeypatch):  # noqa: F811
    _writes_then_refuses(monkeypatch, allowed=1)  # the scheduler is set, nr_requests refused, put back refused
    with pytest.raises(UserError) as refused:
        HostSettings(store, Root(tree)).prepare(points({"scheduler": "none", "nr_requests": "64"}), on_vda)
    assert str(refused.value) == (
        "the kernel refused nr_requests = 64 on vda: Permission denied; nothing was changed "
        f"(could not put back {QUEUE}/scheduler = mq-deadline: Permission denied)"
    )
    assert read(tree, f"{QUEUE}/scheduler") == "none"  # still changed, as the message says (a plain file here)


def test_a_refusal_put_back_in_full_says_only_that_nothing_was_changed(tree, store, monkeypatch):  # noqa: F811
    real = host_settings.write_setting

    def refuse_nr_requests(root: Root, path: str, value: str) -> None:
        if path.endswith("nr_requests") and value == "64":
            raise OSError(errno.EINVAL, "Invalid argument")
        real(root, path, value)

    monkeypatch.setattr(host_settings, "write_setting", refuse_nr_requests)
    with pytest.raises(UserError) as refused:
        HostSettings(store, Root(tree)).prepare(points({"scheduler": "none", "nr_requests": "64"}), on_vda)
    assert str(refused.value) == "the kernel refused nr_requests = 64 on vda: Invalid argument; nothing was changed"
    assert read(tree, f"{QUEUE}/scheduler") == "mq-deadline"  # put back
