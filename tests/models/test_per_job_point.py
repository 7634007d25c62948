"""A point with a file per job: when it has one, and how large each job's file is."""

from __future__ import annotations

from iolab.doctor.rule import JobView
from iolab.models import Point, Target
from iolab.models.point import PER_JOB_FORMAT
from iolab.plan.planfile import parse_plan

DIR = Target("/data", "directory", "/data/iolab-scratch-0.dat", 2 << 30, scratch=True, writable=True)
FILE = Target("/data/f", "file", "/data/f", 1 << 30)


def _point(target: Target = DIR, **options: str) -> Point:
    return Point("rr", target, {"rw": "randread", "filename_format": PER_JOB_FORMAT, **options})


def test_the_targets_size_is_shared_out_among_the_jobs_in_whole_mib():
    assert _point(numjobs="4").per_job_bytes == 512 << 20
    assert _point(numjobs="3").per_job_bytes == 682 << 20  # 2 GiB / 3, rounded down to a MiB
    assert _point(numjobs="4096").per_job_bytes == 1 << 20  # never under 1 MiB
    assert _point(numjobs="4", size="100m").per_job_bytes == 100 << 20  # the job's own size wins


def test_only_a_data_job_on_a_directory_gets_files_of_its_own():
    assert _point().per_job_files
    assert not _point(FILE).per_job_files  # a file is what every job opens
    assert not _point(ioengine="filecreate").per_job_files  # file operations have their own directory
    assert not Point("rr", DIR, {"rw": "randread"}).per_job_files


def test_a_plan_asks_for_per_job_files_for_all_or_one_workload(tmp_path):
    text = 'files = "per-job"\n[options]\nrw = "read"\n[[workloads]]\nname = "a"\n[[workloads]]\nname = "b"\nfiles = "shared"\n'
    plan = parse_plan(text, "p.toml", tmp_path)
    formats = {w.name: w.options.get("filename_format") for w in plan.workloads}
    assert formats == {"a": PER_JOB_FORMAT, "b": None}


def test_the_doctor_sees_every_jobs_file_as_the_data_set():
    view = JobView.from_point(_point(numjobs="4", direct="0"), None)
    assert view.data_set_bytes == 2 << 30 and "filename" not in view.options


def test_a_job_file_s_directory_with_several_jobs_gives_each_its_own_file_as_fio_does(tmp_path):
    from iolab.models.point import PER_JOB_FORMAT
    from iolab.plan.planfile import load_plan

    job = tmp_path / "j.fio"
    job.write_text(
        f"[many]\ndirectory={tmp_path}\nnumjobs=4\nrw=read\n"
        f"[one]\nstonewall\ndirectory={tmp_path}\nrw=read\n"
        f"[named]\nstonewall\nfilename={tmp_path}/f\nnumjobs=4\nrw=read\n"
    )
    formats = {w.name: w.options.get("filename_format") for w in load_plan(job).workloads}
    assert formats == {"many": PER_JOB_FORMAT, "one": None, "named": None}  # never $jobname
