"""A run's request read back from the store for --resume (runner.request.RunRequest.from_dict): what it
names is kept, and a key this iolab does not know (a request an older or newer iolab stored) is left out,
never a traceback."""

from __future__ import annotations

from iolab.runner.request import RunRequest


def test_a_stored_request_comes_back_as_it_was_without_keys_this_iolab_does_not_know():
    request = RunRequest(plan="seq", targets=["/srv"], allow_write=True, repeat=3, stopping={"target": "2%"})
    stored = request.to_dict() | {"a_later_option": True}
    assert RunRequest.from_dict(stored) == request
    assert RunRequest.from_dict({"plan": "quick", "gone": 1}) == RunRequest(plan="quick")
