"""Label placement by construction (`iolab.report.chart_labels`): labels dealt into rows never overlap in a
row, thinned names stand at least their height apart, and sizes come from the font's own metrics."""

from __future__ import annotations

import random

from iolab.report.chart_labels import every, ordinal, rows, text_inches


def test_labels_in_one_row_never_overlap_and_a_new_row_opens_only_when_needed():
    rng = random.Random(7)
    for _ in range(3000):
        spans = [(rng.uniform(0, 10), rng.uniform(0.01, 3)) for _ in range(rng.randint(0, 12))]
        gap = rng.choice([0.0, 0.05])
        found = rows(spans, gap)
        for row in set(found):
            mine = sorted(s for s, r in zip(spans, found, strict=True) if r == row)
            assert all(a[0] + a[1] + gap <= b[0] for a, b in zip(mine, mine[1:], strict=False))
        for index, row in enumerate(found):  # every row below was taken where this label starts
            start = spans[index][0]
            for lower in range(row):
                before = [s for i, s in enumerate(spans) if found[i] == lower and s[0] <= start and i != index]
                assert before and max(s[0] + s[1] for s in before) + gap > start


def test_the_issue_s_two_dips_a_second_apart_go_to_two_rows():
    assert rows([(6.0, 1.2), (6.5, 0.8)]) == [0, 1]


def test_every_kth_name_kept_stands_its_height_apart_and_k_is_the_smallest():
    rng = random.Random(3)
    for _ in range(2000):
        centres = sorted(rng.uniform(0, 8) for _ in range(rng.randint(1, 200)))
        height = rng.uniform(0.01, 0.2)
        step = every(centres, height)
        kept = centres[::step]
        assert all(b - a >= height for a, b in zip(kept, kept[1:], strict=False))
        if step > 1:
            fewer = centres[:: step - 1]
            assert any(b - a < height for a, b in zip(fewer, fewer[1:], strict=False))


def test_a_label_s_width_is_measured_not_counted():
    assert text_inches("m" * 20, 7)[0] > 1.8 * text_inches("i" * 20, 7)[0]
    assert text_inches("abc", 14)[0] > 1.9 * text_inches("abc", 7)[0]
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip
