"""The fio option model: names, values and what a job does, read the way fio reads them."""

from __future__ import annotations

import pytest

from iolab.errors import UserError
from iolab.fio.jobfile import JobSection, parse_jobfile, render_jobfile
from iolab.fio.options import checked_option, checked_options, effects, escape_path, extent_problem, split_paths
from iolab.models.job_options import JobOptions
from iolab.models.option_values import canonical


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("readwrite", "rw"),
        ("blocksize", "bs"),
        ("timeout", "runtime"),
        ("ss", "steadystate"),
        ("fill_fs", "fill_device"),
        ("iodepth", "iodepth"),
    ],
)
def test_aliases_become_fios_own_name(alias, name):
    assert canonical(alias) == name


def test_checked_options_canonicalise_and_refuse_the_same_option_twice():
    assert checked_options({"readwrite": "write", "blocksize": "4k"}, "job") == {"rw": "write", "bs": "4k"}
    with pytest.raises(UserError, match="same fio option"):
        checked_options({"rw": "read", "readwrite": "write"}, "job")
    with pytest.raises(UserError, match="sets this from the target"):
        checked_options({"filename": "/dev/sda"}, "job")
    assert checked_options({"filename": "/dev/sda"}, "job", allow_target=True) == {"filename": "/dev/sda"}


@pytest.mark.parametrize(
    "mode",
    [
        "write",
        "randwrite",
        "trim",
        "randtrim",
        "rw",
        "readwrite",
        "randrw",
        "trimwrite",
        "randtrimwrite",
        "write:4k",
        " randwrite ",
    ],
)
def test_every_writing_mode_writes(mode):
    mode_alone = mode.split(":")[0].strip().replace("readwrite", "rw")  # fio's one mode with two names
    assert JobOptions({"rw": mode}).writes and JobOptions({"rw": mode}).write_reasons == [f"rw={mode_alone}"]


def test_reads_only_when_nothing_writes():
    assert (
        not JobOptions({}).writes
        and not JobOptions({"rw": "randread:8", "verify": "md5", "trim_percentage": "0"}).writes
    )
    assert JobOptions({"rw": "read", "unlink": "1"}).write_reasons == ["unlink=1 deletes the files it used"]
    assert JobOptions({"rw": "read", "unlink": ""}).writes  # a bare flag is on
    assert not JobOptions({"rw": "read", "unlink": "0", "overwrite": "false"}).writes
    assert JobOptions({"readwrite": "write"}).writes  # an imported job that was never canonicalised
    assert JobOptions({"fill_fs": "1"}).write_reasons == [
        "fill_device=1 writes until the device is full"
    ]  # an alias is fio's own name
    assert (
        not JobOptions({"unlink": "0.0"}).writes
        and not JobOptions({"unlink": "00"}).writes
        and JobOptions({"unlink": "2"}).writes
    )  # as fio reads


@pytest.mark.parametrize("value", ["psync\nfilename=/dev/sda", "a\rb", "x\x00", "x\x0by", "x\u2028y", "a\x7f"])
def test_control_characters_are_refused(value):
    with pytest.raises(UserError, match="control character"):
        checked_option("ioengine", value, "plan.toml: options.ioengine")
    with pytest.raises(UserError, match="control character"):
        checked_option(value, "1", "plan.toml: options")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("opendir", "/home", "name that directory as a target"),
        ("write_iolog", "/tmp/x", "run's own directory"),
        ("read_iolog", "x.log", "replay"),
        ("mem", "mmap:/tmp/f", "names a file"),
        ("size", "${HOME}", "expand"),
        ("size", "$(1+1)", "expand"),
        ("filename_format", "../f.$jobnum", "names the files fio makes itself"),
        ("filename_format", "$jobname.$jobnum.$filenum", "names the files fio makes itself"),
        ("size", "8*$mb_memory", "expand"),
        ("filename_format", "..", "names the files fio makes itself"),
        ("rw", "wirte", "one of"),
        ("iodepth", "0", "whole number"),
        ("bad name", "1", "not a fio option name"),
        ("allow_mounted_write", "1", "mounted"),
    ],
)
def test_options_iolab_refuses(name, value, message):
    with pytest.raises(UserError, match=message):
        checked_option(name, value, "job")


def test_commands_and_engines_iolab_cannot_check():
    assert effects({"exec_prerun": "touch x"}).commands == ["exec_prerun=touch x"]
    assert effects({"ioengine": "libaio"}).commands == []
    assert effects({"ioengine": "filecreate"}).commands == []
    assert "shared library" in effects({"ioengine": "external:/tmp/e.so"}).commands[0]
    assert "shared library" in effects({"ioengine": "./e.so"}).commands[0]
    assert "not an engine iolab can check" in effects({"ioengine": "falloc"}).commands[0]


def test_paths_escape_colons_and_split_like_fio():
    assert escape_path("/mnt/a:b/iolab.dat") == "/mnt/a\\:b/iolab.dat"
    assert split_paths("/dev/a:/dev/b") == ["/dev/a", "/dev/b"]
    assert split_paths("/mnt/a\\:b/f") == ["/mnt/a:b/f"]
    with pytest.raises(UserError):
        escape_path("/mnt/a\\b")
    for path in ("/mnt/a\nb", "/mnt/a;b/f", "/mnt/a#b"):
        with pytest.raises(UserError):
            escape_path(path)


def test_extent_stays_inside_a_file():
    mib = 1 << 20
    assert extent_problem({}, mib) is None
    assert extent_problem({"size": "512k", "offset": "512k"}, mib) is None
    assert extent_problem({"size": "50%", "offset": "50%"}, mib) is None
    assert "past the file" in extent_problem({"size": "2M"}, mib)
    assert "past the file" in extent_problem({"offset": "1"}, mib)
    assert "more files" in extent_problem({"nrfiles": "2"}, mib)
    assert "not a plain size" in extent_problem({"size": "lots"}, mib)


def test_job_files_are_read_by_fios_lines_only():
    jobs = parse_jobfile("[j]\r\nrw=read\r\nbs=4k\n", "j.fio")
    assert jobs[0].options == {"rw": "read", "bs": "4k"}
    # fio ends a line at ';' or '#' wherever it is (fio --showcmd prints --bs=4k for "bs=4k;8k")
    assert parse_jobfile("; c\n[j] # x\nrw=read ;w\nbs=4k;8k\n# rw=write\n", "j.fio")[0].options == {
        "rw": "read",
        "bs": "4k",
    }
    for text in (
        "[j]\nrw=read\x0bfilename=/dev/sda\n",
        "[j\n]\nrw=read\n",
        "[a]b]\nrw=read\n",
        "include other.fio\n[j]\nrw=read\n",
    ):
        with pytest.raises(UserError):
            parse_jobfile(text, "j.fio")


def test_rendering_refuses_what_fio_would_read_differently():
    ok = {"filename": "/mnt/f", "rw": "read", "time_based": ""}
    assert render_jobfile([JobSection("iolab", ok)]) == "[iolab]\nfilename=/mnt/f\nrw=read\ntime_based\n"
    for section in (
        JobSection("iolab\n[evil]", ok),
        JobSection("iolab", {**ok, "rw": "read\nexec_prerun=x"}),
        JobSection("iolab", {"filename": "/mnt/a;b/f"}),
        JobSection("iolab#1", ok),
        JobSection("iolab", {**ok, "a\nb": "1"}),
        JobSection("iolab]", ok),
    ):
        with pytest.raises(UserError):
            render_jobfile([section])


def test_fio_is_handed_no_name_it_could_derive_a_path_from():
    """The class "fio makes a file name iolab never saw": a user's job name as the section (fio's
    $jobname), a `$` anywhere (fio expands it), a directory without iolab's own file-name pattern, a job
    without filename= or directory=. Each is refused where every job file is made."""
    ok = {"filename": "/mnt/f", "rw": "read"}
    for section in (
        JobSection("../../victim", ok),
        JobSection("j", ok),
        JobSection("iolab@../x", ok),
        JobSection("iolab", {**ok, "size": "${SIZE}"}),
        JobSection("iolab", {"filename": "/mnt/d${Z}", "rw": "read"}),
        JobSection("iolab", {**ok, "size": "8*$mb_memory"}),
        JobSection("iolab", {"directory": "/mnt/d", "rw": "read"}),
        JobSection("iolab", {"directory": "/mnt/d", "filename_format": "$jobname.$jobnum.$filenum"}),
        JobSection("iolab", {"filename": "/mnt/f", "filename_format": "iolab-job.$jobnum.$filenum"}),
        JobSection("iolab", {"rw": "read"}),
    ):
        with pytest.raises(UserError):
            render_jobfile([section])
    made = {"directory": "/mnt/d", "filename_format": "iolab-md.$jobnum.$filenum", "ioengine": "filecreate"}
    assert "[iolab]" in render_jobfile([JobSection("iolab", made)])
    assert "[iolab@loop3]" in render_jobfile([JobSection("iolab@loop3", ok)])
