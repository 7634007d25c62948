"""A name the host gives (a mount point, a device, a job) is not a figure: a finding whose subject reads like
one ('/tmp/garbage-7a5e-4b', a uuid's '5e-4') is made, while a figure no one can read in the rest of its
title is still the rule's bug. (A leaked mount under such a directory made FS-DISCARD-ONLINE 'not
evaluated: rule failed' in whatever test ran the doctor next.)"""

from __future__ import annotations

import random

import pytest

from iolab.doctor.engine import all_rules

DISCARD = next(r for r in all_rules() if r.id == "FS-DISCARD-ONLINE")


def _uuid_like(rng: random.Random) -> str:
    return "-".join("".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12))


def test_a_subject_that_reads_like_a_figure_is_a_name():
    rng = random.Random(7)
    names = [f"/tmp/pytest-of-root/garbage-{_uuid_like(rng)}/home" for _ in range(400)] + [
        "/mnt/5e-4",
        "/srv/nan",
        "/inf",
    ]
    for name in names:
        found = DISCARD.finding(f"{name} is mounted with discard", name, {"options": "rw,discard"})
        assert found.title.startswith(name)


@pytest.mark.parametrize("figure", ["nan", "inf", "1e+44"])
def test_an_unreadable_figure_beside_the_name_is_still_the_rule_s_bug(figure):
    with pytest.raises(ValueError, match="no one can read"):
        DISCARD.finding(f"/mnt/data is {figure}% full", "/mnt/data")


def test_the_suite_s_stored_finding_check_is_the_same_judgement():
    """tests/conftest.py judges stored findings with `unreadable_part` and their subject: a title naming a
    directory another test mounted ('.../bb8e-77d8...') is a name there too, while the same title judged
    without its subject reads as 8e-7."""
    from iolab.models.finding import unreadable_part

    name = "/tmp/pytest-of-root/garbage-1b87ae99-2759-4391-bb8e-77d80b97a87e/iolab-home"
    title = f"{name} is mounted with discard"
    assert unreadable_part(title, {"options": "ro,discard"}, name) is None
    assert unreadable_part(title, {"options": "ro,discard"}) == "title"
