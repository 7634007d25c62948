"""The guard registry: a switched-off guard returns its allow value, a condition guard reads off, and
switching off is scoped to the block (iolab.guards)."""

from __future__ import annotations

import pytest

from iolab import guards


@pytest.fixture(autouse=True)
def _registry_as_it_was():
    """The test guards registered here leave the registry as they found it: the guard table's test, run in
    the same process after these, reads every registered guard."""
    before = dict(guards.GUARDS)
    yield
    guards.GUARDS.clear()
    guards.GUARDS.update(before)


def test_a_switched_off_guard_returns_its_allow_value_and_comes_back_on() -> None:
    calls: list[int] = []

    @guards.guard("test-list-guard", "nothing: a test", allow=[])
    def refusals(n: int) -> list[str]:
        calls.append(n)
        return ["refused"]

    assert refusals(1) == ["refused"]
    with guards.switched_off("test-list-guard"):
        first = refusals(2)
        first.append("x")  # the allow value is a copy, never the shared default
        assert refusals(3) == []
    assert refusals(4) == ["refused"]
    assert calls == [1, 4]
    assert guards.GUARDS["test-list-guard"].where.endswith("refusals")


def test_a_condition_guard_is_active_unless_switched_off_and_unknown_names_fail() -> None:
    guards.register("test-flag-guard", "nothing: a test", "tests.test_guards_registry")
    assert guards.active("test-flag-guard")
    with guards.switched_off("test-flag-guard"):
        assert not guards.active("test-flag-guard")
    assert guards.active("test-flag-guard")
    with pytest.raises(KeyError):
        guards.active("no-such-guard")
    with pytest.raises(KeyError), guards.switched_off("no-such-guard"):
        pass
    with pytest.raises(ValueError):
        guards.register("test-flag-guard", "nothing", "elsewhere")
