"""A metadata scaling on a directory under tmp_path: the calibration's create (a fio that writes fio 3.33's saved
output of a 2-thread create) sizes each thread count's create, stat and remove run on the files every thread made,
the directory is emptied between counts, and a file system without room is refused before anything runs."""

from __future__ import annotations

import os

import pytest

from iolab.errors import RunFailed, UserError
from iolab.fio.parse import aggregate, parse_output
from iolab.models import MetadataScaling, Point, Target
from iolab.runner.metadata import FileRoom, calibrate, check_room, file_room, measure_scaling
from tests.fake_fio import fake_fio
from tests.runner.fake_executor import DATA

SAVED = DATA / "metadata-filecreate.json"  # 1,000 creates by 2 threads in 335 ms


def _saved_result():
    parsed = parse_output(SAVED.read_text())
    return aggregate([e for g in parsed.groups for e in g.entries], parsed.version)


def test_a_calibration_s_rate_is_its_creates_per_thread_per_second_of_fio_s_runtime(tmp_path, workdirs):
    fio = fake_fio(tmp_path, f'cp {SAVED} "$out"')
    directory = tmp_path / "md"
    directory.mkdir()
    assert calibrate(directory, 2, 0.5, fio, workdirs) == pytest.approx(1000 / 2 / 0.335)
    failing = fake_fio(tmp_path, 'echo "fio: no space" >&2; exit 1')
    with pytest.raises(RunFailed, match="^calibrating the metadata file count failed: fio: no space$"):
        calibrate(directory, 2, 0.5, failing, workdirs)
    garbled = fake_fio(tmp_path, 'echo "not json" > "$out"')
    with pytest.raises(RunFailed, match="fio output of the metadata calibration"):
        calibrate(directory, 2, 0.5, garbled, workdirs)


def test_each_thread_count_creates_then_stats_and_removes_what_every_thread_made(tmp_path, workdirs):
    fio = fake_fio(tmp_path, f'cp {SAVED} "$out"')
    directory = tmp_path / "md"
    directory.mkdir()
    target = Target(path=str(tmp_path), kind="directory", filename=str(tmp_path / "s.dat"), size_bytes=2**20)
    ran: list[tuple[str, dict, bool]] = []
    said: list[str] = []

    def measure(point: Point, again: bool):
        ran.append((point.name, dict(point.options), again))
        if point.options["ioengine"] == "filecreate":
            threads = int(point.options["numjobs"])
            for job in range(threads):  # the last thread makes one file fewer
                for n in range(5 if job < threads - 1 else 4):
                    (directory / f"iolab-md.{job}.{n}").write_text("")
            (directory / "iolab-md.0.9").write_text("")  # after a gap: not counted
        return _saved_result()

    scaling = MetadataScaling(threads=(2, 4), runtime=1.0)
    assert measure_scaling(scaling, target, directory, fio, measure, said.append, workdirs) == []
    assert said == ["calibrating the file count (2 thread(s), 0.25 s of creates, not measured)"]
    assert [(name.split("-")[0], o["ioengine"], o["numjobs"], again) for name, o, again in ran] == [
        (ran[0][0].split("-")[0], "filecreate", "2", True),
        (ran[1][0].split("-")[0], "filestat", "2", False),
        (ran[2][0].split("-")[0], "filedelete", "2", False),
        (ran[3][0].split("-")[0], "filecreate", "4", True),
        (ran[4][0].split("-")[0], "filestat", "4", False),
        (ran[5][0].split("-")[0], "filedelete", "4", False),
    ]
    # the calibration: 1,000 / 2 threads / 0.335 s per thread, for 1 s and 20% more: 1,792 files a thread
    assert ran[0][1]["nrfiles"] == "1792"
    # the next count from the create just measured (the same saved output): 1,000 / 0.335 s / 2 threads
    assert ran[3][1]["nrfiles"] == "1792"
    assert ran[1][1]["nrfiles"] == ran[2][1]["nrfiles"] == "4"  # the fewest any thread made
    assert os.listdir(directory) == []


def test_a_create_where_a_thread_made_nothing_skips_stat_and_remove_and_says_so(tmp_path, workdirs):
    directory = tmp_path / "md"
    directory.mkdir()
    target = Target(path=str(tmp_path), kind="directory", filename=str(tmp_path / "s.dat"), size_bytes=2**20)
    ran: list[str] = []

    def measure(point: Point, again: bool):
        ran.append(point.options["ioengine"])
        return _saved_result() if point.options["ioengine"] == "filecreate" else None

    scaling = MetadataScaling(threads=(1,), runtime=1.0, files_per_thread=20)
    notes = measure_scaling(scaling, target, directory, "fio-not-run", measure, lambda _: None, workdirs)
    assert ran == ["filecreate"] and len(notes) == 1
    assert notes[0].endswith(": a thread created no file, so stat and remove were not run")


def test_a_file_system_without_room_for_the_largest_count_is_refused_with_what_would_fit(tmp_path, monkeypatch):
    room = file_room(tmp_path)  # read once, then held: other tests make and remove files on the same file system
    monkeypatch.setattr("iolab.runner.metadata.file_room", lambda directory: room)
    fits = room.files // 16
    scaling = MetadataScaling(threads=(1, fits + 1), runtime=1.0)
    target = Target(path=str(tmp_path), kind="directory", filename="x", size_bytes=0)
    with pytest.raises(UserError) as refused:
        check_room(scaling, [target])
    assert str(refused.value) == (
        f"{tmp_path} has room for {room.files:,} files ({room.said()}): {fits + 1} threads x 16 files need "
        f"{(fits + 1) * 16:,}; it holds enough for {fits} threads; free inodes and space, or give a larger file system"
    )
    check_room(MetadataScaling(threads=(1, fits), runtime=1.0), [target])


def test_room_is_the_lesser_of_inodes_and_space_less_a_tenth_kept_for_others():
    assert FileRoom("/x", 1000, 10 << 20).files == 900
    assert FileRoom("/x", 10**9, 10 << 20).files == int(0.9 * 2560)
    assert FileRoom("/x", None, 10 << 20).files == int(0.9 * 2560)  # btrfs: inodes made as needed
    assert FileRoom("/x", 12000, 230 << 20).said() == "12,000 free inodes and 230 MiB free"
    assert FileRoom("/x", None, 230 << 20).said() == "230 MiB free"
