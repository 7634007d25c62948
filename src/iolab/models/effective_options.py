"""The options fio runs a point with: the one answer the job file, the doctor and the tables read.

A point holds its workload's options; fio runs them with what iolab adds from the target (the file or
the directory iolab made, the size, O_DIRECT as the target allows, the latency histogram). That was
rebuilt three times, by the job file, the doctor and the tables, and the copies disagreed: the doctor put
`directory` at the target's path where the job file names the directory iolab made inside it, wrote
`size=0` where the job file leaves a remote device's size to fio, and the job file set `direct=0` for a
file system that refuses O_DIRECT before a workload's `buffered=0`, which fio applies later. Now
`effective_options` is built here once: the job file (`iolab.fio.run.point_jobfile`) writes it with the
logs added, the doctor judges it (`JobView.from_point`) and the tables show it (`views.tables`). It lives
with the models, not beside the renderer in `fio`, because the doctor and the views may not import fio
(tests/test_layers.py); `tests/fio/test_effective_options.py` holds the three to one answer.
"""

from __future__ import annotations

from pathlib import Path

from iolab.models.point import PER_JOB_FORMAT, Point, Target

# The options iolab sets from the target rather than the workload (what a table leaves to its target
# column): where the job works, how much of it, and iolab's latency histogram.
FROM_TARGET = ("filename", "directory", "size", "filename_format", "lat_percentiles")


def metadata_dir(target: Target) -> Path:
    """Where file create/stat/remove workloads work: beside the scratch file `iolab-scratch-RANDOM.dat`,
    the directory `iolab-metadata-RANDOM` (iolab creates both; see `iolab.runner.scratch`)."""
    return Path(target.filename).parent / Path(target.filename).stem.replace("iolab-scratch", "iolab-metadata", 1)


def files_dir(target: Target) -> Path:
    """Where the jobs of a per-job-files workload keep their own files: beside the scratch file
    `iolab-scratch-RANDOM.dat`, the directory `iolab-scratch-RANDOM.files` (iolab creates it, records
    it and removes it with all it holds; see `iolab.runner.scratch`)."""
    return Path(target.filename).with_suffix(".files")


def effective_options(point: Point) -> dict[str, str]:
    """The point's options as fio runs them, paths unescaped: the target's place and size, then the
    workload's own options (which win), then `direct` as `Point.direct` says, last, so no `buffered=` of
    the workload's can contradict it (fio lets the later of the two decide).

    A file create/stat/remove job works in its own directory and moves no data: no size, no direct. A
    directory (a metadata job's, or a per-job-files workload's) gets iolab's file-name pattern, since fio
    would otherwise name files after the job. A device on another host has no size here: fio takes it whole.
    """
    target = point.target
    if point.job.is_metadata:
        return {"directory": str(metadata_dir(target)), "filename_format": PER_JOB_FORMAT, **point.options}
    if point.per_job_files:  # each job its own file, of its share of the target's size
        place = {
            "directory": str(files_dir(target)),
            "filename_format": PER_JOB_FORMAT,
            "size": str(point.per_job_bytes),
        }
    else:
        place = {"filename": target.filename, **({"size": str(target.size_bytes)} if target.size_bytes else {})}
    options = {**place, "lat_percentiles": "1", **point.options}
    options.pop("direct", None)
    options["direct"] = "1" if point.direct else "0"
    return options
