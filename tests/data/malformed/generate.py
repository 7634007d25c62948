#!/usr/bin/env python3
"""Writes the malformed-input corpus: files and command lines a careless or hostile user gives iolab.

Every case must end in exit 2, a message of at most two lines and no
traceback, within 10 s (tests/cli/test_malformed.py runs them all). The
fio JSON cases are real fio output (tests/data/fio, from generate.sh there)
cut short or with one field spoiled; the plans, job files and host files
start from small valid ones and break one thing each. Re-run after adding
a mutation:  python3 tests/data/malformed/generate.py
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
FIO_DATA = HERE.parent / "fio"
TOOLS_DATA = HERE.parent

# Numbers no int64 or double holds, and the non-numbers a damaged file shows where a number stands
# (issue 30, item 9): each is put in turn where the real output has a number iolab reads.
HUGE = ("1e999", "1" + "0" * 400, "9" * 5000, "-1e999", "nan")
NOT_A_NUMBER = ("abc", "-inf")
BOM = "\ufeff"

PLAN = """name = "p"
[options]
ioengine = "libaio"
bs = "4k"
[[workloads]]
name = "w"
options = { rw = "randread", iodepth = 4 }
"""
JOB = "[global]\nioengine=libaio\nbs=4k\n[j]\nrw=randread\niodepth=4\n"


def plan_cases() -> list[tuple[str, str]]:
    """(description, TOML text) for broken plans."""
    cases = [
        ("empty file", ""),
        ("only a comment", "# nothing\n"),
        ("not toml", "this is not = = toml\n"),
        ("unclosed table", "[options\nbs = 4k\n"),
        ("unclosed string", 'name = "p\n'),
        ("binary", "\x00\x01\x02\xff"),
        ("duplicate key", 'name = "a"\nname = "b"\n'),
        ("no workloads", 'name = "p"\n'),
        ("workloads a table", 'name = "p"\n[workloads]\nname = "w"\n'),
        ("workloads a string", 'workloads = "w"\n'),
        ("workloads a number", "workloads = 5\n"),
        ("workloads of numbers", "workloads = [1, 2]\n"),
        ("name a number", PLAN.replace('name = "p"', "name = 5")),
        ("name an array", PLAN.replace('name = "p"', "name = [1]")),
        ("name with a newline", PLAN.replace('name = "p"', 'name = "p\\nq"')),
        ("name 20k characters", PLAN.replace('name = "p"', f'name = "{"x" * 20_000}"')),
        ("workload name 10k characters", PLAN.replace('name = "w"', f'name = "{"w" * 10_000}"')),
        ("workload name with a slash", PLAN.replace('name = "w"', 'name = "../../etc"')),
        ("workload name with a NUL", PLAN.replace('name = "w"', 'name = "w\\u0000"')),
        ("workload name with an escape", PLAN.replace('name = "w"', 'name = "w\\u001b[31m"')),
        ("two workloads with one name", PLAN + '[[workloads]]\nname = "w"\noptions = { rw = "read" }\n'),
        ("unknown top-level key", PLAN + "colour = 3\n"),
        ("unknown workload key", PLAN.replace("options = {", "optoins = { x = 1 }\noptions = {")),
        ("targets a string", PLAN.replace('name = "p"', 'name = "p"\ntargets = "/tmp"')),
        ("targets of numbers", PLAN.replace('name = "p"', 'name = "p"\ntargets = [1]')),
        ("empty target", PLAN.replace('name = "p"', 'name = "p"\ntargets = [""]')),
        ("target with a newline", PLAN.replace('name = "p"', 'name = "p"\ntargets = ["/tmp\\nexec_prerun=id"]')),
        ("unknown target group", PLAN.replace('name = "p"', 'name = "p"\ntargets = ["@nope"]')),
        ("target group a string", PLAN.replace('name = "p"', 'name = "p"\ntarget_groups = "x"')),
        ("options a string", PLAN.replace('[options]\nioengine = "libaio"\nbs = "4k"', 'options = "bs=4k"')),
        ("option not fio's", PLAN.replace('bs = "4k"', "bogus_option = 1")),
        ("option misspelt", PLAN.replace('bs = "4k"', 'blocksize_typo = "4k"')),
        ("option an array", PLAN.replace('bs = "4k"', 'bs = ["4k"]')),
        ("option a table", PLAN.replace('bs = "4k"', "bs = { a = 1 }")),
        ("option a date", PLAN.replace('bs = "4k"', "bs = 1979-05-27")),
        ("option nan", PLAN.replace('bs = "4k"', "bs = nan")),
        ("option inf", PLAN.replace('bs = "4k"', "bs = inf")),
        ("option negative", PLAN.replace('bs = "4k"', "bs = -4096")),
        ("option 2^64", PLAN.replace('bs = "4k"', "bs = 18446744073709551616")),
        ("option with a newline", PLAN.replace('bs = "4k"', 'bs = "4k\\nfilename=/dev/sda"')),
        ("engine with a newline", PLAN.replace('ioengine = "libaio"', 'ioengine = "psync\\nfilename=/dev/sda"')),
        ("option with a carriage return", PLAN.replace('bs = "4k"', 'bs = "4k\\rrw=write"')),
        ("option with a NUL", PLAN.replace('bs = "4k"', 'bs = "4k\\u0000"')),
        ("option with a tab", PLAN.replace('bs = "4k"', 'bs = "4k\\tx"')),
        ("option value 5000 characters", PLAN.replace('bs = "4k"', f'bs = "{"4" * 5000}"')),
        ("filename option", PLAN.replace('bs = "4k"', 'filename = "/dev/sda"')),
        ("directory option", PLAN.replace('bs = "4k"', 'directory = "/etc"')),
        ("opendir option", PLAN.replace('bs = "4k"', 'opendir = "/home"')),
        ("filename_format option", PLAN.replace('bs = "4k"', 'filename_format = "/etc/$jobnum"')),
        ("write_iolog option", PLAN.replace('bs = "4k"', 'write_iolog = "/etc/cron.d/x"')),
        ("read_iolog option", PLAN.replace('bs = "4k"', 'read_iolog = "/etc/shadow"')),
        ("write_bw_log option", PLAN.replace('bs = "4k"', 'write_bw_log = "/etc/x"')),
        ("exec_prerun option", PLAN.replace('bs = "4k"', 'exec_prerun = "touch /tmp/iolab-pwned"')),
        ("exec_postrun option", PLAN.replace('bs = "4k"', 'exec_postrun = "rm -rf /"')),
        ("ioengine external", PLAN.replace('ioengine = "libaio"', 'ioengine = "external:/tmp/evil.so"')),
        ("rw not a mode", PLAN.replace('rw = "randread"', 'rw = "sideways"')),
        ("rw a number", PLAN.replace('rw = "randread"', "rw = 3")),
        (
            "rw write on default target",
            PLAN.replace('rw = "randread"', 'rw = "write"').replace(
                'name = "p"', 'name = "p"\ntargets = ["/dev/null/x"]'
            ),
        ),
        ("iodepth zero", PLAN.replace("iodepth = 4", "iodepth = 0")),
        ("iodepth negative", PLAN.replace("iodepth = 4", "iodepth = -1")),
        ("iodepth huge", PLAN.replace("iodepth = 4", "iodepth = 99999999999")),
        ("iodepth a word", PLAN.replace("iodepth = 4", 'iodepth = "deep"')),
        ("iodepth a float", PLAN.replace("iodepth = 4", "iodepth = 4.5")),
        ("numjobs a million", PLAN.replace("iodepth = 4", "numjobs = 1000000")),
        ("numjobs zero", PLAN.replace("iodepth = 4", "numjobs = 0")),
        ("bs zero", PLAN.replace('bs = "4k"', 'bs = "0"')),
        ("bs a word", PLAN.replace('bs = "4k"', 'bs = "big"')),
        ("bs 1 PiB", PLAN.replace('bs = "4k"', 'bs = "1p"')),
        ("runtime a word", PLAN.replace('bs = "4k"', 'runtime = "forever"')),
        ("runtime negative", PLAN.replace('bs = "4k"', "runtime = -5")),
        ("runtime 1e300", PLAN.replace('bs = "4k"', "runtime = 1e300")),
        ("size negative", PLAN.replace('bs = "4k"', 'size = "-1g"')),
        ("size a word", PLAN.replace('bs = "4k"', 'size = "lots"')),
        ("rwmixread 150", PLAN.replace('bs = "4k"', "rwmixread = 150")),
        ("boolean bs", PLAN.replace('bs = "4k"', "bs = true")),
        ("alias twice", PLAN.replace('bs = "4k"', 'bs = "4k"\nblocksize = "8k"')),
        ("readwrite and rw", PLAN.replace('rw = "randread"', 'rw = "randread", readwrite = "read"')),
        ("axes a string", PLAN.replace("options = {", 'axes = "bs"\noptions = {')),
        ("empty axis", PLAN.replace("options = {", "axes = { bs = [] }\noptions = {")),
        ("axis not a list", PLAN.replace("options = {", 'axes = { bs = "4k" }\noptions = {')),
        ("axis of tables", PLAN.replace("options = {", "axes = { bs = [{ a = 1 }] }\noptions = {")),
        ("axis not fio's", PLAN.replace("options = {", "axes = { nonsense = [1, 2] }\noptions = {")),
        ("axis filename", PLAN.replace("options = {", 'axes = { filename = ["/dev/sda"] }\noptions = {')),
        (
            "axis value with a newline",
            PLAN.replace("options = {", 'axes = { bs = ["4k\\nexec_prerun=id"] }\noptions = {'),
        ),
        (
            "axis nested 40 deep",
            PLAN.replace("options = {", "axes = { bs = " + "[" * 40 + "1" + "]" * 40 + " }\noptions = {"),
        ),
        (
            "a million points",
            PLAN.replace(
                "options = {",
                "axes = { iodepth = ["
                + ", ".join(str(i) for i in range(1, 101))
                + "], bs = ["
                + ", ".join(f'"{i}k"' for i in range(1, 101))
                + "], numjobs = ["
                + ", ".join(str(i) for i in range(1, 101))
                + "] }\noptions = {",
            ),
        ),
        ("zip of unknown axes", PLAN.replace("options = {", 'zip = [["bs", "iodepth"]]\noptions = {')),
        ("zip a string", PLAN.replace("options = {", 'zip = "bs"\noptions = {')),
        (
            "exclude not a rule",
            PLAN.replace("options = {", 'axes = { bs = ["4k", "8k"] }\nexclude = ["bs ==="]\noptions = {'),
        ),
        ("exclude a number", PLAN.replace("options = {", "exclude = [5]\noptions = {")),
        (
            "exclude unknown axis",
            PLAN.replace("options = {", 'axes = { bs = ["4k", "8k"] }\nexclude = ["qd == 4"]\noptions = {'),
        ),
        ("repeat a number", PLAN + "repeat = 3\n"),
        ("repeat count zero", PLAN + "[repeat]\ncount = 0\n"),
        ("repeat count negative", PLAN + "[repeat]\ncount = -3\n"),
        ("repeat count a billion", PLAN + "[repeat]\ncount = 1000000000\n"),
        ("repeat count a string", PLAN + '[repeat]\ncount = "3"\n'),
        ("repeat max a billion", PLAN + "[repeat]\nadaptive = true\nmax = 1000000000\n"),
        ("repeat cov_target 5", PLAN + "[repeat]\ncov_target = 5.0\n"),
        ("repeat metric unknown", PLAN + '[repeat]\nmetric = "speed"\n'),
        ("phases a string", PLAN + 'phases = "drop"\n'),
        ("phase command not a string", PLAN + "[phases]\npre_point = [5]\n"),
        ("phase command empty", PLAN + '[phases]\npre_point = [""]\n'),
        ("phase command unbalanced quote", PLAN + '[phases]\npre_point = ["echo \'a"]\n'),
        ("phase command without allow-commands", PLAN + '[phases]\npre_point = ["touch /tmp/iolab-pwned"]\n'),
        ("precondition without options", PLAN + '[phases.precondition]\nscope = "once"\n'),
        ("precondition unknown scope", PLAN + '[phases.precondition]\noptions = { rw = "write" }\nscope = "always"\n'),
        ("precondition filename", PLAN + '[phases.precondition]\noptions = { rw = "write", filename = "/dev/sda" }\n'),
        ("job file missing", PLAN.replace('name = "w"', 'name = "w"\njob = "no-such-job.fio"')),
        ("job is a directory", PLAN.replace('name = "w"', 'name = "w"\njob = "/"')),
        ("job is /dev/zero", PLAN.replace('name = "w"', 'name = "w"\njob = "/dev/zero"')),
        ("deeply nested tables", "a = " + "{ b = " * 60 + "1" + " }" * 60 + "\n"),
        ("deeply nested arrays", "a = " + "[" * 500 + "]" * 500 + "\n"),
        ("invalid utf-8", 'name = "\udcff"\n'),
        # numbers beyond int64 or a double, and values the dry run passed (issue 30, item 9)
        ("byte-order mark", BOM + PLAN),
        ("byte-order mark then not toml", BOM + "this is not = = toml\n"),
        ("target_ci a word", PLAN + '[stopping]\ntarget_ci = "abc"\n'),
        ("target_ci 1e999%", PLAN + '[stopping]\ntarget_ci = "1e999%"\n'),
        ("target_ci negative", PLAN + '[stopping]\ntarget_ci = "-2%"\n'),
        ("target_ci 100%", PLAN + "[stopping]\ntarget_ci = 1.0\n"),
        ("stopping max_s inf", PLAN + "[stopping]\nmax_s = inf\n"),
        ("stopping max_s 1e400", PLAN + "[stopping]\nmax_s = 1e400\n"),
        ("stopping min_s nan", PLAN + "[stopping]\nmin_s = nan\n"),
        ("rw suffix negative", PLAN.replace('rw = "randread"', 'rw = "read:-5"')),
        ("rw suffix a word", PLAN.replace('rw = "randread"', 'rw = "randread:abc"')),
        ("rw suffix 1e999", PLAN.replace('rw = "randread"', 'rw = "randread:1e999"')),
        ("rw suffix beyond int64", PLAN.replace('rw = "randread"', f'rw = "randread:{"9" * 30}"')),
        ("iodepth 10^400", PLAN.replace("iodepth = 4", "iodepth = 1" + "0" * 400)),
        ("iodepth 5000 digits", PLAN.replace("iodepth = 4", "iodepth = " + "9" * 5000)),
        ("iodepth -10^400", PLAN.replace("iodepth = 4", "iodepth = -1" + "0" * 400)),
        ("runtime 1e400", PLAN.replace('bs = "4k"', "runtime = 1e400")),
        ("repeat count 10^30", PLAN + "[repeat]\ncount = 1" + "0" * 30 + "\n"),
        ("repeat cov_target 1e400", PLAN + "[repeat]\nadaptive = true\ncov_target = 1e400\n"),
        ("axis of 10^400", PLAN.replace("options = {", "axes = { iodepth = [1, 1" + "0" * 400 + "] }\noptions = {")),
        (
            "exclude with 10^400",
            PLAN.replace(
                "options = {", 'axes = { bs = ["4k", "8k"] }\nexclude = ["iodepth > 1' + "0" * 400 + '"]\noptions = {'
            ),
        ),
    ]
    return cases


def job_cases() -> list[tuple[str, str]]:
    """(description, job file text) for broken fio job files."""
    return [
        ("empty", ""),
        ("only comments", "; nothing\n# here\n"),
        ("option before any section", "bs=4k\n[j]\nrw=read\n"),
        ("unclosed section", "[j\nrw=read\n"),
        ("empty section name", "[]\nrw=read\n"),
        ("section name with a slash", "[../../x]\nrw=read\n"),
        ("unknown option", "[j]\nrw=read\nbogus_option=1\n"),
        ("misspelt option", "[j]\nrw=read\niodepht=4\n"),
        ("rw not a mode", "[j]\nrw=sideways\n"),
        ("readwrite alias write on a device", "[j]\nreadwrite=write\nfilename=/dev/null/x\n"),
        ("rw and readwrite", "[j]\nrw=read\nreadwrite=write\n"),
        ("iodepth a word", "[j]\nrw=read\niodepth=deep\n"),
        ("iodepth negative", "[j]\nrw=read\niodepth=-4\n"),
        ("iodepth zero", "[j]\nrw=read\niodepth=0\n"),
        ("numjobs a million", "[j]\nrw=read\nnumjobs=1000000\n"),
        ("bs a word", "[j]\nrw=read\nbs=big\n"),
        ("bs zero", "[j]\nrw=read\nbs=0\n"),
        ("runtime a word", "[j]\nrw=read\nruntime=forever\n"),
        ("runtime negative", "[j]\nrw=read\nruntime=-1\n"),
        ("size negative", "[j]\nrw=read\nsize=-1g\n"),
        ("exec_prerun", "[j]\nrw=read\nexec_prerun=touch /tmp/iolab-pwned\n"),
        ("exec_postrun", "[j]\nrw=read\nexec_postrun=touch /tmp/iolab-pwned\n"),
        ("exec_prerun in global", "[global]\nexec_prerun=touch /tmp/iolab-pwned\n[j]\nrw=read\n"),
        ("opendir", "[j]\nrw=write\nopendir=/home\n"),
        ("directory", "[j]\nrw=write\ndirectory=/etc\n"),
        ("filename_format", "[j]\nrw=write\nfilename_format=/etc/$jobnum\n"),
        ("write_iolog", "[j]\nrw=read\nwrite_iolog=/etc/cron.d/iolab\n"),
        ("read_iolog", "[j]\nrw=read\nread_iolog=/etc/shadow\n"),
        ("write_bw_log outside", "[j]\nrw=read\nwrite_bw_log=/etc/x\n"),
        ("write_lat_log outside", "[j]\nrw=read\nwrite_lat_log=/etc/x\n"),
        ("write_hist_log outside", "[j]\nrw=read\nwrite_hist_log=/etc/x\n"),
        ("write_iops_log outside", "[j]\nrw=read\nwrite_iops_log=/etc/x\n"),
        ("filename two paths", "[j]\nrw=read\nfilename=/dev/sda:/dev/sdb\n"),
        ("filename with an unescaped colon", "[j]\nrw=write\nfilename=/tmp/a:b\n"),
        ("external engine", "[j]\nrw=read\nioengine=external:/tmp/evil.so\n"),
        ("exec engine", "[j]\nrw=read\nioengine=exec\nprogram=/bin/sh\n"),
        ("include", "include /etc/passwd\n[j]\nrw=read\n"),
        ("include relative", "include ../../../../etc/shadow\n[j]\nrw=read\n"),
        ("environment expansion", "[j]\nrw=${IOLAB_NO_SUCH_VARIABLE}\n"),
        ("arithmetic expansion", "[j]\nrw=read\nbs=$((4096*))\n"),
        ("NUL byte", "[j]\nrw=read\x00\n"),
        ("escape sequence", "[j]\nrw=read\nbs=4k\x1b[2J\n"),
        ("carriage return injection", "[j]\nrw=read\rfilename=/dev/sda\n"),
        ("binary garbage", "\xff\xfe\x00\x01garbage\n"),
        ("value 5000 characters", "[j]\nrw=read\nbs=" + "4" * 5000 + "\n"),
        ("5000 sections", "".join(f"[j{i}]\nrw=read\n" for i in range(5000))),
        ("section name 10k characters", f"[{'j' * 10_000}]\nrw=read\n"),
        ("trim on a device", "[j]\nrw=randtrim\nfilename=/dev/null/x\n"),
        ("verify write", "[j]\nrw=read\nverify=md5\ndo_verify=1\nverify_only=0\nfilename=/dev/null/x\nrw=write\n"),
        ("trimwrite", "[j]\nrw=trimwrite\nfilename=/dev/null/x\n"),
        ("unlink on a file", "[j]\nrw=read\nunlink=1\nfilename=/etc/hostname\n"),
        ("filename /etc/passwd extended", "[j]\nrw=read\nfilename=/etc/hostname\nsize=1g\noffset=1g\n"),
        ("cgroup option", "[j]\nrw=read\ncgroup=/\n"),
        ("ioscheduler option", "[j]\nrw=read\nioscheduler=bfq\n"),
        ("uid option", "[j]\nrw=read\nuid=0\n"),
        ("stonewall only", "[j]\nstonewall\n[k]\nstonewall\n"),
        ("only global", "[global]\nrw=read\n"),
        ("option without value that needs one", "[j]\nrw\n"),
        ("deeply nested includes marker", "[j]\nrw=read\n" + "include x.fio\n" * 100),
        ("a plan's TOML given as a job file", PLAN),
    ]


def _spoil(data: dict, path: list[str | int], value: object) -> dict:
    out = json.loads(json.dumps(data))
    node = out
    for part in path[:-1]:
        node = node[part]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


_DELETE = object()


def json_cases() -> list[tuple[str, str]]:
    """(description, text) of fio output spoiled: cut short, one field wrong, shapes that are not fio's."""
    real = (FIO_DATA / "randrw-json.json").read_text()
    plus = (FIO_DATA / "randread-4jobs.json").read_text()
    data = json.loads(real)
    cases = [
        ("empty", ""),
        ("whitespace", "  \n "),
        ("null", "null"),
        ("a number", "42"),
        ("a string", '"fio"'),
        ("a list", "[]"),
        ("list of jobs", json.dumps(data["jobs"])),
        ("empty object", "{}"),
        ("no jobs", json.dumps({"fio version": "fio-3.33"})),
        ("jobs empty", json.dumps({"fio version": "fio-3.33", "jobs": []})),
        ("jobs a dict", json.dumps({"fio version": "fio-3.33", "jobs": {}})),
        ("jobs of numbers", json.dumps({"fio version": "fio-3.33", "jobs": [1, 2]})),
        ("a job with only a name", json.dumps({"fio version": "fio-3.33", "jobs": [{"jobname": "x"}]})),
        ("a job with no name", json.dumps({"fio version": "fio-3.33", "jobs": [{"read": {}}]})),
        (
            "directions empty",
            json.dumps({"fio version": "fio-3.33", "jobs": [{"jobname": "x", "read": {}, "write": {}}]}),
        ),
        ("text only", "fio: this is not json at all\n"),
        ("deep nesting", "[" * 20_000 + "]" * 20_000),
        ("deep nesting objects", '{"a":' * 10_000 + "1" + "}" * 10_000),
        ("two documents both broken", real[: len(real) // 2] + real[: len(real) // 3]),
        ("invalid utf-8", real.replace('"fio version"', '"fio\udcff version"', 1)),
        ("NUL inside", real.replace('"jobs"', '"jo\x00bs"', 1)),
        ("NaN everywhere", real.replace(": 0,", ": NaN,")),
        ("Infinity everywhere", real.replace(": 0,", ": Infinity,")),
        ("-Infinity everywhere", real.replace(": 0,", ": -Infinity,")),
    ]
    for fraction in (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999):
        cases.append((f"json cut at {fraction:.1%}", real[: int(len(real) * fraction)]))
    for fraction in (0.1, 0.5, 0.9, 0.999):
        cases.append((f"json+ cut at {fraction:.1%}", plus[: int(len(plus) * fraction)]))
    job = ["jobs", 0]
    spoiled = [
        ("version missing", ["fio version"], _DELETE),
        ("version a number", ["fio version"], 3.33),
        ("version garbage", ["fio version"], "not-fio"),
        ("jobname a number", [*job, "jobname"], 7),
        ("jobname a list", [*job, "jobname"], ["x"]),
        ("jobname with a newline", [*job, "jobname"], "a\nb"),
        ("jobname 20k characters", [*job, "jobname"], "j" * 20_000),
        ("error a string", [*job, "error"], "bad"),
        ("read missing", [*job, "read"], _DELETE),
        ("read a list", [*job, "read"], []),
        ("read a string", [*job, "read"], "fast"),
        ("read iops NaN", [*job, "read", "iops"], float("nan")),
        ("read iops infinite", [*job, "read", "iops"], float("inf")),
        ("read iops negative", [*job, "read", "iops"], -100.0),
        ("read iops 1e300", [*job, "read", "iops"], 1e300),
        ("read iops a string", [*job, "read", "iops"], "fast"),
        ("read iops null", [*job, "read", "iops"], None),
        ("read bw negative", [*job, "read", "bw"], -1),
        ("read bw 1e30", [*job, "read", "bw"], 10**30),
        ("read bw a list", [*job, "read", "bw"], [1]),
        ("read bw_bytes negative", [*job, "read", "bw_bytes"], -1),
        ("read io_bytes negative", [*job, "read", "io_bytes"], -5),
        ("read total_ios negative", [*job, "read", "total_ios"], -5),
        ("read total_ios 2^70", [*job, "read", "total_ios"], 2**70),
        ("read total_ios a float", [*job, "read", "total_ios"], 1.5),
        ("read runtime negative", [*job, "read", "runtime"], -1000),
        ("read runtime a century", [*job, "read", "runtime"], 100 * 365 * 86400 * 1000),
        ("read clat_ns missing", [*job, "read", "clat_ns"], _DELETE),
        ("read clat_ns a number", [*job, "read", "clat_ns"], 5),
        ("read clat mean NaN", [*job, "read", "clat_ns", "mean"], float("nan")),
        ("read clat mean negative", [*job, "read", "clat_ns", "mean"], -1.0),
        ("read clat max infinite", [*job, "read", "clat_ns", "max"], float("inf")),
        ("read lat_ns a list", [*job, "read", "lat_ns"], [1, 2]),
        ("read lat mean a string", [*job, "read", "lat_ns", "mean"], "slow"),
        ("read lat stddev negative", [*job, "read", "lat_ns", "stddev"], -3.0),
        ("read percentile negative", [*job, "read", "clat_ns", "percentile"], {"99.000000": -5}),
        ("read percentile key not a number", [*job, "read", "clat_ns", "percentile"], {"ninety": 5}),
        ("read percentile a list", [*job, "read", "clat_ns", "percentile"], [1, 2]),
        ("write iops NaN", [*job, "write", "iops"], float("nan")),
        ("write bw negative", [*job, "write", "bw"], -1),
        ("write a number", [*job, "write"], 0),
        ("usr_cpu NaN", [*job, "usr_cpu"], float("nan")),
        ("usr_cpu negative", [*job, "usr_cpu"], -5.0),
        ("sys_cpu a string", [*job, "sys_cpu"], "busy"),
        ("ctx negative", [*job, "ctx"], -1),
        ("job options a list", [*job, "job options"], ["rw=read"]),
        ("job options values numbers", [*job, "job options"], {"rw": 5}),
        ("iodepth_level a list", [*job, "iodepth_level"], [1]),
        ("latency_ns a string", [*job, "latency_ns"], "fast"),
        ("disk_util a dict", ["disk_util"], {"name": "sda"}),
        ("disk_util entries strings", ["disk_util"], ["sda"]),
        ("timestamp a string", ["timestamp"], "yesterday"),
        ("timestamp negative", ["timestamp"], -1),
        ("timestamp 1e30", ["timestamp"], 10**30),
        ("elapsed negative", [*job, "elapsed"], -1),
        ("global options a list", ["global options"], [1]),
    ]
    for description, path, value in spoiled:
        try:
            cases.append((description, json.dumps(_spoil(data, path, value), indent=2)))
        except (KeyError, IndexError, TypeError):
            continue
    plus_data = json.loads(plus)
    bins = plus_data["jobs"][0]["read"]["clat_ns"].get("bins") or plus_data["jobs"][0]["read"]["lat_ns"].get("bins")
    key = "clat_ns" if plus_data["jobs"][0]["read"]["clat_ns"].get("bins") else "lat_ns"
    first = next(iter(bins))
    for description, value in (
        ("bins negative count", {first: -5}),
        ("bins key not a number", {"fast": 3}),
        ("bins a list", [1, 2]),
        ("bins count NaN", {first: float("nan")}),
        ("bins count 2^70", {first: 2**70}),
        ("bins key negative", {"-5": 3}),
        ("bins count a string", {first: "many"}),
    ):
        cases.append((f"json+ {description}", json.dumps(_spoil(plus_data, ["jobs", 0, "read", key, "bins"], value))))
    return cases


def _numbers_at(data: dict, path: list[str | int], label: str) -> list[tuple[str, str]]:
    """The real document with the number at `path` replaced by each of HUGE and NOT_A_NUMBER, written as
    JSON text would hold it (1e999 and 10^400 are valid JSON numbers; json.dumps cannot write them)."""
    cases = []
    try:
        marked = json.dumps(_spoil(data, path, "@NUMBER@"))
    except (KeyError, IndexError, TypeError):
        return cases
    for value in HUGE + NOT_A_NUMBER:
        literal = value if value not in NOT_A_NUMBER else json.dumps(value)
        literal = {"nan": "NaN", "-inf": "-Infinity"}.get(value, literal)
        cases.append(
            (f"{label} = {value[:12]}{'...' if len(value) > 12 else ''}", marked.replace('"@NUMBER@"', literal))
        )
    return cases


def json_number_cases() -> list[tuple[str, str]]:
    """fio JSON and json+ with one number iolab reads beyond int64 or a double (10^400 was an OverflowError)."""
    data = json.loads((FIO_DATA / "randrw-json.json").read_text())
    plus = json.loads((FIO_DATA / "randread-4jobs.json").read_text())
    job = ["jobs", 0]
    cases = []
    for path in (
        [*job, "read", "iops"],
        [*job, "read", "bw"],
        [*job, "read", "bw_bytes"],
        [*job, "read", "io_bytes"],
        [*job, "read", "runtime"],
        [*job, "read", "total_ios"],
        [*job, "read", "clat_ns", "mean"],
        [*job, "read", "clat_ns", "N"],
        [*job, "write", "lat_ns", "max"],
        [*job, "usr_cpu"],
        [*job, "job_runtime"],
        [*job, "error"],
    ):
        cases += _numbers_at(data, path, ".".join(map(str, path)))
    percentiles = data["jobs"][0]["read"]["clat_ns"]["percentile"]
    cases += _numbers_at(data, [*job, "read", "clat_ns", "percentile", next(iter(percentiles))], "a percentile")
    key = "clat_ns" if plus["jobs"][0]["read"]["clat_ns"].get("bins") else "lat_ns"
    first = next(iter(plus["jobs"][0]["read"][key]["bins"]))
    cases += _numbers_at(plus, [*job, "read", key, "bins", first], "json+ bin count")
    return cases


def _first_run(text: str, end_mark: str) -> str:
    """The output up to the end of its first run (a file of one run, as a tool writes it): the real files
    hold 8 to 20 runs, and 46 spoilt copies of each would be megabytes of the same text."""
    at = text.index(end_mark)
    return text[: text.index("\n", at + 1) + 1]


def _replace_token(line: str, index: int, value: str) -> str:
    """`line` with its `index`-th whitespace-separated word replaced, the rest of the line as it was."""
    words = line.split()
    words[index] = value
    return " ".join(words)


def ior_text_cases() -> list[tuple[str, str]]:
    """Real IOR text outputs (3.0 to 3.3) with a summary or results figure spoiled, a column missing,
    cut short, or with control characters: Test# missing was a KeyError, Test# = 1e999 an OverflowError."""
    cases = []
    for path in sorted((TOOLS_DATA / "ior").glob("*.txt")):
        text = _first_run(path.read_text(), "\nFinished")
        lines = text.splitlines(keepends=True)
        tag = path.stem.split("-")[1]
        header_at = next(i for i, ln in enumerate(lines) if ln.startswith("Operation"))
        header = lines[header_at].split()
        row_at = header_at + 1
        for column in ("Test#", "#Tasks", "xsize", "blksiz"):
            if column in header:
                at = header.index(column)
                for value in HUGE + NOT_A_NUMBER:
                    spoiled = lines.copy()
                    spoiled[row_at] = _replace_token(lines[row_at], at, value) + "\n"
                    cases.append((f"IOR {tag} summary {column} = {value[:12]}", "".join(spoiled)))
                renamed = lines.copy()
                renamed[header_at] = lines[header_at].replace(f" {column} ", " Spoilt ", 1)
                cases.append((f"IOR {tag} summary without its {column} column", "".join(renamed)))
        table_at = next((i for i, ln in enumerate(lines) if ln.startswith("access ") and "bw(MiB/s)" in ln), None)
        if table_at is not None:
            columns = lines[table_at].split()
            result_at = next(i for i in range(table_at + 1, len(lines)) if lines[i].startswith(("write", "read")))
            for column in ("bw(MiB/s)", "total(s)"):
                for value in HUGE:
                    spoiled = lines.copy()
                    spoiled[result_at] = _replace_token(lines[result_at], columns.index(column), value) + "\n"
                    cases.append((f"IOR {tag} result {column} = {value[:12]}", "".join(spoiled)))
        for fraction in (0.1, 0.5, 0.9):
            cases.append((f"IOR {tag} cut at {fraction:.0%}", text[: int(len(text) * fraction)]))
        cases.append((f"IOR {tag} NUL in the summary", text.replace("Summary of all tests", "Summary\x00of all tests")))
    return cases


def ior_json_cases() -> list[tuple[str, str]]:
    """IOR's JSON summary with a figure beyond a double or int64, a key missing, or cut short."""
    text = (TOOLS_DATA / "ior" / "compspec-ior-4.0.0rc1.json").read_text()
    data = json.loads(text)
    cases = []
    for key in ("transferSize", "numTasks", "blockSize", "bwMeanMIB"):
        cases += _numbers_at(data, ["summary", 0, key], f"IOR JSON summary {key}")
    for key in ("operation", "transferSize", "numTasks"):
        cases.append((f"IOR JSON summary without {key}", json.dumps(_spoil(data, ["summary", 0, key], _DELETE))))
    for fraction in (0.3, 0.7, 0.99):
        cases.append((f"IOR JSON cut at {fraction:.0%}", text[: int(len(text) * fraction)]))
    return cases


def mdtest_cases() -> list[tuple[str, str]]:
    """Real mdtest 1.9 outputs with a rate or the iteration count beyond a double, or cut short."""
    cases = []
    for path in sorted((TOOLS_DATA / "mdtest").glob("*.txt")):
        text = _first_run(path.read_text(), "\n-- finished at")
        tag = path.stem.split("-")[1]
        rate = re.search(r"^(\s+File creation\s*:\s+)(\S+)", text, re.MULTILINE)
        assert rate is not None, path
        for value in HUGE:
            cases.append((f"mdtest {tag} rate = {value[:12]}", text[: rate.start(2)] + value + text[rate.end(2) :]))
        iterations = re.search(r"\(of (\d+) iterations?\)", text)
        assert iterations is not None, path
        for value in ("1" + "0" * 400, "9" * 5000, "0"):
            spoiled = text[: iterations.start(1)] + value + text[iterations.end(1) :]
            cases.append((f"mdtest {tag} iterations = {value[:12]}", spoiled))
        for fraction in (0.2, 0.6):
            cases.append((f"mdtest {tag} cut at {fraction:.0%}", text[: int(len(text) * fraction)]))
    return cases


def iozone_cases() -> list[tuple[str, str]]:
    """Real IOzone outputs (auto mode, -R report) with a size or figure beyond int64 or a double, or cut."""
    cases = []
    for path in sorted((TOOLS_DATA / "iozone").glob("*.txt")):
        text = path.read_text()
        tag = path.stem.split("-")[-1]
        row = re.search(r"^(\s+)(\d+)(\s+)(\d+)(\s+)(\d+)", text, re.MULTILINE)
        if row is None:  # the -R report: "size" "figure" rows
            row = re.search(r'^"(\d+)"(\s+)(\d+)', text, re.MULTILINE)
            assert row is not None, path
            size_group, figure_group = 1, 3
        else:
            size_group, figure_group = 2, 6
        for value in HUGE[1:3]:
            spoiled = text[: row.start(size_group)] + value + text[row.end(size_group) :]
            cases.append((f"IOzone {tag} file size = {value[:12]}", spoiled))
        for value in ("1e999", "9" * 400):
            spoiled = text[: row.start(figure_group)] + value + text[row.end(figure_group) :]
            cases.append((f"IOzone {tag} figure = {value[:12]}", spoiled))
        for fraction in (0.1, 0.5):
            cases.append((f"IOzone {tag} cut at {fraction:.0%}", text[: int(len(text) * fraction)]))
    return cases


def host_cases() -> list[tuple[str, str]]:
    """(description, host file text) for broken host files."""
    return [
        ("empty", ""),
        ("only comments", "# none\n"),
        ("port a word", "node01 port=http\n"),
        ("port zero", "node01 port=0\n"),
        ("port too big", "node01 port=70000\n"),
        ("port negative", "node01 port=-1\n"),
        ("unknown key", "node01 colour=red\n"),
        ("setting without value", "node01 port\n"),
        ("setting with empty value", "node01 address=\n"),
        ("duplicate host", "node01\nnode01\n"),
        ("name with a semicolon", "node01;reboot\n"),
        ("name with a backtick", "`reboot`\n"),
        ("name with a dollar", "$(reboot)\n"),
        ("name starting with a dash", "-oProxyCommand=reboot\n"),
        ("ssh with a dash", "node01 ssh=-oProxyCommand=reboot\n"),
        ("address with a space quote", "node01 address='a b'\n"),
        ("address with a comma", "node01 address=a,b\n"),
        ("target relative", "node01 target=relative/path\n"),
        ("target with a newline escape", "node01 target=/tmp\\nexec_prerun=id\n"),
        ("target with a colon", "node01 target=/tmp/a:b\n"),
        ("fio relative with shell", "node01 fio=$(reboot)\n"),
        ("name 10k characters", "n" * 10_000 + "\n"),
        ("binary", "\x00\xff\x01\n"),
        ("NUL in name", "node\x0001\n"),
        ("escape sequence", "node01\x1b[2J\n"),
        ("5000 hosts", "".join(f"node{i}\n" for i in range(5000))),
        ("key repeated", "node01 port=1 port=2\n"),
        ("port 10^400", "node01 port=1" + "0" * 400 + "\n"),
        ("port 5000 digits", "node01 port=" + "9" * 5000 + "\n"),
        ("port in Arabic-Indic digits", "node01 port=\u0663\u0663\n"),
        ("byte-order mark then a bad port", BOM + "node01 port=http\n"),
    ]


def command_cases() -> list[tuple[str, list[str]]]:
    """(description, argv after `iolab`) for bad command lines; {dir} is a fresh empty directory."""
    return [
        ("run empty target", ["run", ""]),
        ("run missing target", ["run", "{dir}/no-such-dir"]),
        # issue 39 (item 7): accepted before, each through the command as a user types it
        ("run interval nan", ["run", "{dir}", "--dry-run", "--interval", "nan"]),
        ("run max-seconds inf", ["run", "{dir}", "--dry-run", "--stop-when-known", "--max-seconds", "inf"]),
        ("run array-modes x", ["run", "--dry-run", "--devices", "/dev/null,/dev/zero", "--array-modes", "x"]),
        ("run hosts with an empty name", ["run", "{dir}", "--dry-run", "--hosts", "a,,b"]),
        ("ls limit beyond int64", ["ls", "--limit", "99999999999999999999999"]),
        ("run runtime zero", ["run", "{dir}", "--runtime", "0"]),
        ("run runtime negative", ["run", "{dir}", "--runtime", "-5"]),
        ("run runtime a word", ["run", "{dir}", "--runtime", "long"]),
        ("run runtime 1e99", ["run", "{dir}", "--runtime", "1" + "0" * 99]),
        ("run runtime beyond fio", ["run", "{dir}", "--runtime", "99999999999"]),
        ("run ramp negative", ["run", "{dir}", "--ramp", "-1"]),
        ("run size a word", ["run", "{dir}", "--size", "big"]),
        ("run size zero", ["run", "{dir}", "--size", "0"]),
        ("run size negative", ["run", "{dir}", "--size", "-1G"]),
        ("run size an exabyte", ["run", "{dir}", "--size", "1E"]),
        ("run size too small", ["run", "{dir}", "--size", "1k"]),
        ("run unknown preset", ["run", "{dir}", "--preset", "nope"]),
        ("run preset and plan", ["run", "x.toml", "{dir}", "--preset", "quick"]),
        ("run missing plan", ["run", "{dir}/missing.toml", "{dir}"]),
        ("run plan is a directory", ["run", "{dir}/plan.toml", "{dir}"]),
        ("run repeat zero", ["run", "{dir}", "--repeat", "0"]),
        ("run repeat a billion", ["run", "{dir}", "--repeat", "1000000000"]),
        ("run resume of no run", ["run", "--resume", "12345"]),
        ("run resume negative", ["run", "--resume", "-1"]),
        ("run resume huge", ["run", "--resume", "99999999999999999999999"]),
        ("run devices unknown", ["run", "--devices", "/dev/no-such-device"]),
        ("run devices empty", ["run", "--devices", ""]),
        ("run devices a file", ["run", "--devices", "/etc/hostname"]),
        ("run target /dev/null", ["run", "/dev/null"]),
        ("run target /proc file", ["run", "/proc/self/status"]),
        ("run target with a newline", ["run", "{dir}/a\nexec_prerun=id"]),
        ("run adaptive without qd-sweep", ["run", "{dir}", "--adaptive"]),
        ("run hosts empty", ["run", "{dir}", "--hosts", ""]),
        ("run hosts bad port", ["run", "{dir}", "--hosts", "a:99999"]),
        ("run hosts shell", ["run", "{dir}", "--hosts", "$(reboot)"]),
        ("run hostfile missing", ["run", "{dir}", "--hostfile", "{dir}/no-hosts"]),
        ("run on-host-failure unknown", ["run", "{dir}", "--hosts", "a", "--on-host-failure", "explode"]),
        ("show no run", ["show", "4242"]),
        ("show negative", ["show", "--", "-5"]),
        ("show huge", ["show", "99999999999999999999999"]),
        ("show a word", ["show", "latest-ish"]),
        ("compare no runs", ["compare", "1", "2"]),
        ("compare huge", ["compare", "1", "99999999999999999999"]),
        ("report no run", ["report", "77"]),
        ("report huge", ["report", "99999999999999999999"]),
        ("export unknown format", ["export", "--format", "xls"]),
        ("history unknown metric", ["history", "--metric", "speed"]),
        ("import missing file", ["import", "{dir}/missing.json"]),
        ("import a directory without json", ["import", "{dir}"]),
        ("import /dev/zero", ["import", "/dev/zero"]),
        ("plan check missing", ["plan", "check", "{dir}/missing.toml"]),
        ("lint missing", ["lint", "{dir}/missing.fio"]),
        ("tag no run", ["tag", "4242", "x"]),
        ("diff-env no runs", ["diff-env", "1", "2"]),
        ("schedule install without target", ["schedule", "install", "--every", "1h", "--cron-file", "{dir}/cron"]),
        (
            "schedule bad interval",
            ["schedule", "install", "--every", "sometimes", "{dir}", "--cron-file", "{dir}/cron"],
        ),
        ("agent bad port", ["agent", "--port", "0"]),
        ("agent port too big", ["agent", "--port", "70000"]),
        ("tag runs written as tags", ["tag", "6", "7", "8", "before"]),
        ("tag backwards range", ["tag", "8-6", "before"]),
        ("note empty part in a list", ["note", "1,,2", "text"]),
        ("compare backwards range", ["compare", "13-6", "1"]),
        ("compare window not a date", ["compare", "2025-13-01..", "1"]),
        ("compare since not a date", ["compare", "1", "2", "--since", "yesterday"]),
        ("report range past any run", ["report", "1-99999999999999999999"]),
        ("export window negative", ["export", "--window", "-5d", "--csv", "{dir}/x.csv"]),
        ("export window 1e999 days", ["export", "--window", "1e999d", "--csv", "{dir}/x.csv"]),
        ("export window 10^400 days", ["export", "--window", "1" + "0" * 400 + "d", "--csv", "{dir}/x.csv"]),
        ("export window zero", ["export", "--window", "0h", "--json", "{dir}/x.json"]),
        ("export cov-target 1e999", ["export", "--cov-target", "1e999", "--csv", "{dir}/x.csv"]),
        ("export cov-target nan", ["export", "--cov-target", "nan%", "--csv", "{dir}/x.csv"]),
        ("history window a century of centuries", ["history", "--window", "99999999999999d"]),
        ("history min-runs 10^400", ["history", "--min-runs", "1" + "0" * 400]),
        ("run runtime 1e999", ["run", "{dir}", "--runtime", "1e999"]),
        ("run runtime nan", ["run", "{dir}", "--runtime", "nan"]),
        ("run ramp inf", ["run", "{dir}", "--ramp", "inf"]),
        ("run size 1e999G", ["run", "{dir}", "--size", "1e999G"]),
        ("run size 10^400", ["run", "{dir}", "--size", "1" + "0" * 400]),
        ("run repeat 10^400", ["run", "{dir}", "--repeat", "1" + "0" * 400]),
        ("run target-ci a word", ["run", "{dir}", "--stop-when-known", "--target-ci", "abc"]),
        ("run target-ci 1e999%", ["run", "{dir}", "--stop-when-known", "--target-ci", "1e999%"]),
        ("run max-seconds inf", ["run", "{dir}", "--stop-when-known", "--max-seconds", "inf"]),
        ("show 5000 digits", ["show", "9" * 5000]),
        ("tag 10^400", ["tag", "1" + "0" * 400, "x"]),
    ]


# Cases that turn out valid: a field iolab does not read spoiled, or an input
# fio and iolab rightly take. They must still be taken cleanly (exit 0).
ACCEPTED = {
    ("plan", "workload name with a slash"),  # a name, never a path: iolab makes no file of it
    ("job", "section name with a slash"),
    ("plan", "rw write on default target"),  # the command line's target replaces the plan's: a scratch file
    ("plan", "axis not a list"),  # one value is an axis of one
    ("job", "directory"),  # a new scratch file of iolab's own in that directory, removed afterwards
    ("job", "stonewall only"),  # fio's default job: sequential reads
    ("hosts", "target with a colon"),  # escaped for fio, one path
    ("json", "version missing"),
    ("json", "version garbage"),  # informational: stored as given
    ("json", "read clat_ns missing"),  # total latency stands in, as for fio before 3.0
    ("plan", "byte-order mark"),  # a BOM (Windows editors write one) is not the plan's text: read as TOML
    # a tool's output cut short keeps the runs that finished before the cut, as a file of fewer runs would
    *(("iozone", f"IOzone R cut at {f}") for f in ("10%", "50%")),
    # IOR JSON: bwMeanMIB is read only for a test without per-iteration results, and a summary row
    # without an operation is not a test's row (the other tests of the file are taken)
    *(("iorjson", f"IOR JSON summary bwMeanMIB = {v}") for v in ("nan", "abc", "-inf")),
    ("iorjson", "IOR JSON summary without operation"),
    # fields iolab does not read outside the jobs (the file is kept whole beside the run); every value of a
    # job is a finite number that is not negative, read or not (`ctx negative`, `latency_ns a string` and
    # `elapsed negative` are refused since issue 39), and a list of such numbers is one
    *(
        ("json", what)
        for what in (
            "iodepth_level a list",
            "disk_util a dict",
            "disk_util entries strings",
            "timestamp a string",
            "timestamp negative",
            "timestamp 1e30",
            "global options a list",
        )
    ),
}


def main() -> None:
    if CASES.exists():
        shutil.rmtree(CASES)
    CASES.mkdir()
    index = []
    kinds = (
        ("plan", ".toml", plan_cases(), ["run", "--dry-run", "{file}", "{dir}"]),
        ("job", ".fio", job_cases(), ["run", "--dry-run", "{file}", "{dir}"]),
        ("json", ".json", json_cases(), ["import", "{file}"]),
        ("hosts", ".hosts", host_cases(), ["run", "--dry-run", "{dir}", "--hostfile", "{file}"]),
        ("numbers", ".json", json_number_cases(), ["import", "{file}"]),
        ("ior", ".txt", ior_text_cases(), ["import", "{file}"]),
        ("iorjson", ".json", ior_json_cases(), ["import", "{file}"]),
        ("mdtest", ".txt", mdtest_cases(), ["import", "{file}"]),
        ("iozone", ".txt", iozone_cases(), ["import", "{file}"]),
    )
    for kind, suffix, cases, argv in kinds:
        for number, (description, text) in enumerate(cases, 1):
            name = f"{kind}-{number:03d}{suffix}"
            (CASES / name).write_bytes(text.encode("utf-8", "surrogateescape"))
            expect = "accepted" if (kind, description) in ACCEPTED else "error"
            index.append(
                {"id": f"{kind}-{number:03d}", "why": description, "file": name, "argv": argv, "expect": expect}
            )
    for number, (description, argv) in enumerate(command_cases(), 1):
        expect = "accepted" if ("cli", description) in ACCEPTED else "error"
        index.append({"id": f"cli-{number:03d}", "why": description, "file": None, "argv": argv, "expect": expect})
    (HERE / "cases.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(index)} cases in {HERE.relative_to(HERE.parents[2])}")


if __name__ == "__main__":
    main()
