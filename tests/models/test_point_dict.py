"""A point's stored form: the same dict `dataclasses.asdict` gives, read back to an equal point."""

from __future__ import annotations

from dataclasses import asdict

from iolab.models import Point, Target


def test_to_dict_equals_asdict_and_round_trips():
    points = [
        Point("seq", Target("/d", "directory", "/d/iolab-scratch-x.dat", 1 << 30, scratch=True), {"rw": "read"}),
        Point(
            "array",
            Target("/dev/md0", "group", "/dev/a:/dev/b", 2 << 40, members=("/dev/a", "/dev/b"), hosts=("h1", "h2")),
            {"rw": "randread", "bs": "4k"},
            repeat=2,
            host_settings={"scheduler": "none"},
        ),
    ]
    for point in points:
        stored = point.to_dict()
        assert stored == asdict(point)
        assert Point.from_dict(stored) == point
        stored["options"]["rw"] = "write"  # a copy: changing it leaves the point as it was
        stored["target"]["path"] = "/elsewhere"
        assert point.options["rw"] != "write" and point.target.path != "/elsewhere"
