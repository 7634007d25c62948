"""Every fio option iolab knows, one typed row each: the one table every option rule derives from.

fio keeps its options in one table (`options.c`: name, aliases, type, range, default, help per row);
iolab's reading of them was spread over five (the write guard's class per option, its lists of path,
host, command and writing options, the value checks, the aliases and defaults, the numeric types), which
had to be kept equal by tests. Here one `OptionSpec` row per option says all of it, and the rest derive:
the guard's allowlist and its refusals (`iolab.fio.options`), the value checks, `canonical` (aliases),
fio's defaults and which options count in seconds (`JobOptions`), what writes (`JobOptions.write_reasons`).

Rows follow fio 3.33 (`fio --cmdhelp=all`, and `fio --enghelp=ENGINE` for each engine iolab vouches
for); `tests/fio/test_option_spec.py` compares them with the installed fio: a fio that grows an option
fails there until the option has a row, and an option without a row is refused by name
(`--allow-unknown-options` passes it, and then needs `--allow-write` and `--allow-commands` as well).

Safety classes: TARGET (iolab sets it from a checked target), PATH (names a path or a job of its own:
refused, `why` says what to do instead), COMMAND (runs a program or loads code: needs --allow-commands),
HOST (changes the host beyond the target: needs --allow-commands), WRITES (changes data whatever `rw`
says: needs --allow-write on a target iolab may write), READS (decides what is read or written on the
target: `rw`, verification), HARMLESS (tunes how the I/O is done, timed or reported).

Pure data (models import nothing), so the doctor, the views and the plan read options by it without fio.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Safety classes (what the write guard asks of an option).
TARGET: Final = "target"
PATH: Final = "path"
COMMAND: Final = "command"
HOST: Final = "host"
WRITES: Final = "writes"
READS: Final = "reads"
HARMLESS: Final = "harmless"

# Types: what the value is. INTEGER is fio's "integer value" (a size or time suffix, hex, a comma list per
# direction) within fio's declared `low`-`high`; SIZE bytes with fio's suffixes or a percentage of the
# target (fio's "(null)" type); FLOAT_LIST numbers separated by ':' (`high` bounds each); SECONDS a time
# whose plain number is seconds; TEXT anything else (strings, flags), fio's to read.
TEXT: Final = "text"
INTEGER: Final = "integer"
SIZE: Final = "size"
FLOAT_LIST: Final = "float list"
SECONDS: Final = "seconds"

# Value checks of iolab's own, where it reasons about the value more strictly than fio's type says.
RW: Final = "rw"  # one of fio's modes, with an optional size after ':'
WHOLE: Final = "whole"  # a whole number in ASCII digits within `bounds`
BLOCK_SIZE: Final = "block size"  # each direction's size from 1 byte to 1 GiB
DURATION: Final = "duration"  # a time iolab can read back (30, 30s, 2m)
ENGINE: Final = "engine"  # a non-empty name; whether iolab can vouch for it is `engine_problem`'s
MEM_MODE: Final = "memory mode"  # refused when it names a file (mem=mmap:/path), passed otherwise
IOLAB_FORMAT: Final = "iolab's file-name pattern"  # only iolab's own patterns pass (`named_by_iolab`)
# The check each type implies where a row names none.
_TYPE_CHECKS: Final = {INTEGER: INTEGER, SIZE: SIZE, FLOAT_LIST: FLOAT_LIST}


@dataclass(frozen=True)
class OptionSpec:
    """One fio option: its names, what its value is, fio's default, what it does to the host and why.

    `low`/`high` are fio's declared range of an INTEGER (None: fio sets no maximum) or the bound of a
    FLOAT_LIST's numbers; `bounds` is iolab's own, tighter, range for a WHOLE check (fio's numjobs
    range starts at 0 and has no end; fio itself stops at 4096 jobs). `why` says, for any class but
    HARMLESS, what the option does beyond reading the target (and for PATH, what to do instead).
    """

    name: str
    safety: str
    why: str = ""
    aliases: tuple[str, ...] = ()
    type: str = TEXT
    low: int | None = None
    high: int | None = None
    check: str | None = None
    bounds: tuple[int, int] | None = None
    default: str | None = None

    @property
    def value_check(self) -> str | None:
        """The check of this option's value: its own, else its type's; None: fio's to judge."""
        return self.check or _TYPE_CHECKS.get(self.type)

    @property
    def refused(self) -> bool:
        """A PATH option refused whatever its value (`mem` and `filename_format` are judged by theirs)."""
        return self.safety == PATH and self.check is None


ROWS: Final[tuple[OptionSpec, ...]] = (
    OptionSpec(
        "allow_file_create", HARMLESS, why="fio may create files: only in iolab's own directories or iolab's new files"
    ),
    OptionSpec("allow_mounted_write", PATH, why="turns off fio's own refusal to write to a mounted device"),
    OptionSpec("allrandrepeat", HARMLESS),
    OptionSpec("atomic", HARMLESS),
    OptionSpec("ba", HARMLESS, aliases=("blockalign",), type=INTEGER, low=1),
    OptionSpec("block_error_percentiles", HARMLESS),
    OptionSpec("bs", HARMLESS, aliases=("blocksize",), type=INTEGER, low=1, check=BLOCK_SIZE, default="4k"),
    OptionSpec("bs_unaligned", HARMLESS, aliases=("blocksize_unaligned",)),
    OptionSpec("bsrange", HARMLESS, aliases=("blocksize_range",)),
    OptionSpec("bssplit", HARMLESS),
    OptionSpec("buffer_compress_chunk", HARMLESS, type=INTEGER, low=0),
    OptionSpec("buffer_compress_percentage", HARMLESS, type=INTEGER, low=0, high=100),
    OptionSpec("buffer_pattern", HARMLESS),
    OptionSpec("buffered", HARMLESS),
    OptionSpec("bwavgtime", HARMLESS, type=INTEGER, low=0),
    OptionSpec("cgroup", HOST, why="creates a cgroup and moves fio into it"),
    OptionSpec("cgroup_nodelete", HOST, why="leaves the cgroup it made behind"),
    OptionSpec("cgroup_weight", HOST, why="sets the weight of a cgroup", type=INTEGER, low=100, high=1000),
    OptionSpec("clat_percentiles", HARMLESS),
    OptionSpec("clocksource", HARMLESS),
    OptionSpec("cmd_type", HARMLESS),
    OptionSpec("cmdprio", HARMLESS),
    OptionSpec("cmdprio_bssplit", HARMLESS),
    OptionSpec("cmdprio_class", HARMLESS),
    OptionSpec("cmdprio_percentage", HARMLESS),
    OptionSpec("continue_on_error", HARMLESS),
    OptionSpec("cpuchunks", HARMLESS),
    OptionSpec("cpuload", HARMLESS),
    OptionSpec("cpumask", HARMLESS, type=INTEGER, low=0),
    OptionSpec("cpumode", HARMLESS),
    OptionSpec("cpus_allowed", HARMLESS),
    OptionSpec("cpus_allowed_policy", HARMLESS),
    OptionSpec("create_fsync", HARMLESS),
    OptionSpec("create_on_open", HARMLESS, why="when files are made: iolab names them"),
    OptionSpec("create_only", WRITES, why="lays out (writes) its files and stops"),
    OptionSpec("create_serialize", HARMLESS),
    OptionSpec("dedupe_global", HARMLESS),
    OptionSpec("dedupe_mode", HARMLESS),
    OptionSpec("dedupe_percentage", HARMLESS, type=INTEGER, low=0, high=100),
    OptionSpec("dedupe_working_set_percentage", HARMLESS, type=INTEGER, low=0, high=100),
    OptionSpec("description", HARMLESS),
    OptionSpec("direct", HARMLESS),
    OptionSpec("directory", TARGET, why="names the target directory: iolab sets it from the targets it checked"),
    OptionSpec("disable_bw_measurement", HARMLESS, aliases=("disable_bw",)),
    OptionSpec("disable_clat", HARMLESS),
    OptionSpec("disable_lat", HARMLESS),
    OptionSpec("disable_slat", HARMLESS),
    OptionSpec("disk_util", HARMLESS),
    OptionSpec("do_verify", READS, why="reads back and checks written data"),
    OptionSpec("end_fsync", HARMLESS),
    OptionSpec("error_dump", HARMLESS),
    OptionSpec("exec_postrun", COMMAND, why="runs a program"),
    OptionSpec("exec_prerun", COMMAND, why="runs a program"),
    OptionSpec("exit_on_io_done", HARMLESS),
    OptionSpec("exit_what", HARMLESS),
    OptionSpec("exitall", HARMLESS),
    OptionSpec("exitall_on_error", HARMLESS),
    OptionSpec("experimental_verify", HARMLESS),
    OptionSpec("fadvise_hint", HARMLESS),
    OptionSpec("fallocate", HARMLESS),
    OptionSpec("fdatasync", HARMLESS, type=INTEGER, low=0),
    OptionSpec("file_append", WRITES, why="appends to the file"),
    OptionSpec("file_service_type", HARMLESS),
    OptionSpec("filename", TARGET, why="names the target: iolab sets it from the targets it checked"),
    OptionSpec("filename_format", PATH, why="makes file names (only iolab's own patterns pass)", check=IOLAB_FORMAT),
    OptionSpec("filesize", HARMLESS, type=SIZE),
    OptionSpec("fill_device", WRITES, why="writes until the device is full", aliases=("fill_fs",)),
    OptionSpec("fixedbufs", HARMLESS),
    OptionSpec("flow", HARMLESS, type=INTEGER, low=0, high=1000),
    OptionSpec("flow_id", HARMLESS, type=INTEGER, low=0),
    OptionSpec("flow_sleep", HARMLESS, type=INTEGER, low=0),
    OptionSpec("force_async", HARMLESS),
    OptionSpec("fsync", HARMLESS, type=INTEGER, low=0),
    OptionSpec("fsync_on_close", HARMLESS),
    OptionSpec("gid", HOST, why="runs the jobs as another group", type=INTEGER, low=0),
    OptionSpec("group_reporting", HARMLESS),
    OptionSpec("gtod_cpu", HARMLESS, type=INTEGER, low=0),
    OptionSpec("gtod_reduce", HARMLESS),
    OptionSpec("hipri", HARMLESS),
    OptionSpec("hipri_percentage", HARMLESS),
    OptionSpec("hugepage-size", HARMLESS),
    OptionSpec("ignore_error", HARMLESS),
    OptionSpec("ignore_zone_limits", HARMLESS),
    # not an option but fio's job-file directive (`include FILE`), refused as one too if it comes as `include=`
    OptionSpec(
        "include", PATH, why="pulls in another job file iolab never checked; paste the included file's jobs into it"
    ),
    OptionSpec("invalidate", READS, why="drops the files' page cache"),
    OptionSpec("io_size", HARMLESS, aliases=("io_limit",), type=SIZE),
    OptionSpec("io_submit_mode", HARMLESS),
    # bounds: the kernel's AIO and io_uring rings stop at 65535 entries
    OptionSpec("iodepth", HARMLESS, type=INTEGER, low=1, check=WHOLE, bounds=(1, 65535), default="1"),
    OptionSpec("iodepth_batch", HARMLESS, aliases=("iodepth_batch_submit",), type=INTEGER, low=0),
    OptionSpec("iodepth_batch_complete_max", HARMLESS, type=INTEGER, low=0),
    OptionSpec("iodepth_batch_complete_min", HARMLESS, aliases=("iodepth_batch_complete",), type=INTEGER, low=0),
    OptionSpec("iodepth_low", HARMLESS, type=INTEGER, low=0),
    OptionSpec(
        "ioengine", COMMAND, why="an engine fio lacks is loaded as a shared library", check=ENGINE, default="psync"
    ),
    OptionSpec("iopsavgtime", HARMLESS, type=INTEGER, low=0),
    OptionSpec("ioscheduler", HOST, why="switches the device's I/O scheduler (and leaves it switched)"),
    OptionSpec("job_max_open_zones", HARMLESS, type=INTEGER, low=0, high=4096),
    OptionSpec("kb_base", HARMLESS),
    OptionSpec("lat_percentiles", HARMLESS),
    OptionSpec("latency_percentile", HARMLESS, type=FLOAT_LIST, high=100),
    OptionSpec("latency_run", HARMLESS),
    OptionSpec("latency_target", HARMLESS),
    OptionSpec("latency_window", HARMLESS),
    OptionSpec("lockfile", HARMLESS),
    OptionSpec("lockmem", HARMLESS),
    OptionSpec("log_alternate_epoch", HARMLESS),
    OptionSpec("log_alternate_epoch_clock_id", HARMLESS, type=INTEGER, low=0),
    OptionSpec("log_avg_msec", HARMLESS, type=INTEGER, low=0),
    OptionSpec("log_compression", HARMLESS, type=INTEGER, low=1024, high=536870912),
    OptionSpec("log_compression_cpus", HARMLESS),
    OptionSpec("log_entries", HARMLESS, type=INTEGER, low=1024, high=1048576),
    OptionSpec("log_hist_coarseness", HARMLESS, type=INTEGER, low=0),
    OptionSpec("log_hist_msec", HARMLESS, type=INTEGER, low=0),
    OptionSpec("log_max_value", HARMLESS),
    OptionSpec("log_offset", HARMLESS),
    OptionSpec("log_prio", HARMLESS),
    OptionSpec("log_store_compressed", HARMLESS),
    OptionSpec("log_unix_epoch", HARMLESS),
    OptionSpec("loops", HARMLESS, type=INTEGER, low=0, default="1"),
    OptionSpec("max_latency", HARMLESS, type=INTEGER, low=0),
    OptionSpec("max_open_zones", HARMLESS, type=INTEGER, low=0, high=4096),
    OptionSpec(
        "mem", PATH, why="a memory mode may name a file fio creates (mmap:/path)", check=MEM_MODE, aliases=("iomem",)
    ),
    OptionSpec(
        "merge_blktrace_file",
        PATH,
        why="writes a merged trace file whose replay does I/O to whatever files it names; replay it with fio itself",
    ),
    OptionSpec("merge_blktrace_iters", HARMLESS, type=FLOAT_LIST),
    OptionSpec("merge_blktrace_scalars", HARMLESS, type=FLOAT_LIST),
    OptionSpec("name", PATH, why="renames the job, and fio makes file names from it"),
    OptionSpec("new_group", HARMLESS),
    OptionSpec("nice", HARMLESS, type=INTEGER, low=-20, high=19),
    OptionSpec("nonvectored", HARMLESS),
    OptionSpec("norandommap", HARMLESS),
    OptionSpec("nowait", HARMLESS),
    OptionSpec("nrfiles", HARMLESS, aliases=("nr_files",), type=INTEGER, low=0),
    OptionSpec("numa_cpu_nodes", HARMLESS),
    OptionSpec("numa_mem_policy", HARMLESS),
    OptionSpec("number_ios", HARMLESS),
    # bounds: fio's REAL_MAX_JOBS is 4096
    OptionSpec("numjobs", HARMLESS, type=INTEGER, low=0, check=WHOLE, bounds=(1, 4096), default="1"),
    OptionSpec("offset", HARMLESS, aliases=("fileoffset",), type=SIZE),
    OptionSpec("offset_align", HARMLESS, type=INTEGER, low=0),
    OptionSpec("offset_increment", HARMLESS, type=SIZE),
    OptionSpec(
        "opendir", PATH, why="makes fio use every file under a directory; name that directory as a target instead"
    ),
    OptionSpec("openfiles", HARMLESS, type=INTEGER, low=0),
    OptionSpec("overwrite", WRITES, why="overwrites the file's data"),
    OptionSpec("per_job_logs", HARMLESS),
    OptionSpec("percentage_random", HARMLESS, type=INTEGER, low=0, high=100),
    OptionSpec("percentile_list", HARMLESS, type=FLOAT_LIST, high=100),
    OptionSpec("pre_read", READS, why="reads the files before the job"),
    OptionSpec("prio", HARMLESS, type=INTEGER, low=0, high=7),
    OptionSpec("prioclass", HARMLESS, type=INTEGER, low=0, high=3),
    OptionSpec("profile", PATH, why="adds jobs of a built-in profile, with devices of its own"),
    OptionSpec("ramp_time", HARMLESS, type=SECONDS, check=DURATION, default="0"),
    OptionSpec("random_distribution", HARMLESS),
    OptionSpec("random_generator", HARMLESS),
    OptionSpec("randrepeat", HARMLESS),
    OptionSpec("randseed", HARMLESS),
    OptionSpec("rate", HARMLESS, type=INTEGER, low=0),
    OptionSpec("rate_cycle", HARMLESS, aliases=("ratecycle",), type=INTEGER, low=0),
    OptionSpec("rate_ignore_thinktime", HARMLESS),
    OptionSpec("rate_iops", HARMLESS, type=INTEGER, low=0),
    OptionSpec("rate_iops_min", HARMLESS, type=INTEGER, low=0),
    OptionSpec("rate_min", HARMLESS, aliases=("ratemin",), type=INTEGER, low=0),
    OptionSpec("rate_process", HARMLESS),
    OptionSpec("read_beyond_wp", HARMLESS),
    OptionSpec("read_iolog", PATH, why="replays I/O to whatever files a log names; replay it with fio itself"),
    OptionSpec("read_iolog_chunked", PATH, why="replays I/O to whatever files a log names; replay it with fio itself"),
    OptionSpec("readfua", HARMLESS),
    OptionSpec("refill_buffers", HARMLESS),
    OptionSpec("registerfiles", HARMLESS),
    OptionSpec("replay_align", HARMLESS, type=INTEGER, low=0),
    OptionSpec("replay_no_stall", HARMLESS),
    OptionSpec("replay_redirect", PATH, why="sends replayed I/O to a device it names; replay it with fio itself"),
    OptionSpec("replay_scale", HARMLESS, type=INTEGER, low=0),
    OptionSpec("replay_skip", HARMLESS),
    OptionSpec("replay_time_scale", HARMLESS, type=INTEGER, low=1),
    OptionSpec("runtime", HARMLESS, aliases=("timeout",), type=SECONDS, check=DURATION),
    OptionSpec(
        "rw",
        READS,
        why="the I/O direction: reads, or writes when its mode writes",
        aliases=("readwrite",),
        check=RW,
        default="read",
    ),
    OptionSpec("rw_sequencer", HARMLESS),
    OptionSpec("rwmixread", HARMLESS, type=INTEGER, low=0, high=100, check=WHOLE, bounds=(0, 100)),
    OptionSpec("rwmixwrite", HARMLESS, type=INTEGER, low=0, high=100, check=WHOLE, bounds=(0, 100)),
    OptionSpec("scramble_buffers", HARMLESS),
    OptionSpec("serialize_overlap", HARMLESS),
    OptionSpec("sg_write_mode", HARMLESS),
    OptionSpec("significant_figures", HARMLESS, type=INTEGER, low=1, high=10),
    OptionSpec("size", HARMLESS, type=SIZE),
    OptionSpec("slat_percentiles", HARMLESS),
    OptionSpec("sqthread_poll", HARMLESS),
    OptionSpec("sqthread_poll_cpu", HARMLESS),
    OptionSpec("startdelay", HARMLESS, type=SECONDS),
    OptionSpec("stat_type", HARMLESS),
    OptionSpec("stats", HARMLESS),
    OptionSpec("steadystate", HARMLESS, aliases=("ss",)),
    OptionSpec("steadystate_duration", HARMLESS, aliases=("ss_dur",), type=SECONDS),
    OptionSpec("steadystate_ramp_time", HARMLESS, aliases=("ss_ramp",), type=SECONDS),
    OptionSpec("stonewall", HARMLESS, aliases=("wait_for_previous",)),
    OptionSpec("stream_id", HARMLESS),
    OptionSpec("sync", HARMLESS),
    OptionSpec("sync_file_range", HARMLESS),
    OptionSpec("thinktime", HARMLESS, type=INTEGER, low=0),
    OptionSpec("thinktime_blocks", HARMLESS, type=INTEGER, low=0),
    OptionSpec("thinktime_blocks_type", HARMLESS),
    OptionSpec("thinktime_iotime", HARMLESS, type=INTEGER, low=0),
    OptionSpec("thinktime_spin", HARMLESS, type=INTEGER, low=0),
    OptionSpec("thp", HARMLESS),
    OptionSpec("thread", HARMLESS),
    OptionSpec("time_based", HARMLESS),
    OptionSpec("trim_backlog", WRITES, why="trims verified blocks"),
    OptionSpec("trim_backlog_batch", HARMLESS, type=INTEGER, low=0),
    OptionSpec("trim_percentage", WRITES, why="trims verified blocks", type=INTEGER, low=0, high=100),
    OptionSpec("trim_verify_zero", HARMLESS),
    OptionSpec("uid", HOST, why="runs the jobs as another user", type=INTEGER, low=0),
    OptionSpec("uncached", HARMLESS),
    OptionSpec("unified_rw_reporting", HARMLESS),
    OptionSpec(
        "unique_filename", HARMLESS, why="prefixes names fio makes (only iolab's patterns) with the client's address"
    ),
    OptionSpec("unit_base", HARMLESS),
    OptionSpec("unlink", WRITES, why="deletes the files it used"),
    OptionSpec("unlink_each_loop", WRITES, why="deletes the files it used"),
    OptionSpec("userspace_reap", HARMLESS),
    OptionSpec("verify", READS, why="reads back and checks written data"),
    OptionSpec("verify_async", HARMLESS, type=INTEGER, low=0),
    OptionSpec("verify_backlog", HARMLESS),
    OptionSpec("verify_backlog_batch", HARMLESS, type=INTEGER, low=0),
    OptionSpec("verify_dump", HARMLESS),
    OptionSpec("verify_fatal", HARMLESS),
    OptionSpec("verify_interval", HARMLESS, type=INTEGER, low=80),
    OptionSpec("verify_offset", HARMLESS, type=INTEGER, low=40),
    OptionSpec("verify_only", READS, why="reads back and checks written data"),
    OptionSpec("verify_pattern", HARMLESS),
    OptionSpec("verify_state_load", PATH, why="reads a verify state file fio finds by the job's name"),
    OptionSpec(
        "verify_state_save",
        HARMLESS,
        why="a state file in fio's working directory, iolab's own, named after iolab's job",
    ),
    OptionSpec("wait_for", PATH, why="names another job (one job per point)"),
    OptionSpec("write_barrier", HARMLESS, type=INTEGER, low=0),
    OptionSpec(
        "write_bw_log",
        PATH,
        why="writes a log file of its own; iolab keeps fio's output and its logs in the run's own directory",
    ),
    OptionSpec("write_hint", HARMLESS),
    OptionSpec(
        "write_hist_log",
        PATH,
        why="writes a log file of its own; iolab keeps fio's output and its logs in the run's own directory",
    ),
    OptionSpec(
        "write_iolog",
        PATH,
        why="writes a log file of its own; iolab keeps fio's output and its logs in the run's own directory",
    ),
    OptionSpec(
        "write_iops_log",
        PATH,
        why="writes a log file of its own; iolab keeps fio's output and its logs in the run's own directory",
    ),
    OptionSpec(
        "write_lat_log",
        PATH,
        why="writes a log file of its own; iolab keeps fio's output and its logs in the run's own directory",
    ),
    OptionSpec("writefua", HARMLESS),
    OptionSpec("zero_buffers", HARMLESS),
    OptionSpec("zone_reset_frequency", WRITES, why="resets zones", type=FLOAT_LIST),
    OptionSpec("zone_reset_threshold", WRITES, why="resets zones", type=FLOAT_LIST),
    OptionSpec("zonecapacity", HARMLESS),
    OptionSpec("zonemode", HARMLESS),
    OptionSpec("zonerange", HARMLESS),
    OptionSpec("zonesize", HARMLESS),
    OptionSpec("zoneskip", HARMLESS, type=SIZE),
)

# The table by fio's own name. Every lookup reads it at the call, so a row taken out (a test standing in
# for a fio newer than iolab) is gone from every rule at once.
SPECS: Final[dict[str, OptionSpec]] = {row.name: row for row in ROWS}
# alias -> fio's own name (fio 3.33 has 20; `fio --cmdhelp=NAME` prints "alias:").
ALIASES: Final[dict[str, str]] = {alias: row.name for row in ROWS for alias in row.aliases}


def canonical(name: str) -> str:
    """fio's own name of an option this table knows an alias of (`readwrite` -> `rw`), else the name."""
    return ALIASES.get(name, name)


def spec(name: str) -> OptionSpec | None:
    """The row of an option by any of its names; None when iolab has never classified it."""
    return SPECS.get(canonical(name))


def default(name: str) -> str | None:
    """fio's default of an option iolab reads where a job leaves it out (psync is fio's on Linux), or None:
    flags left out are off, and the rest are fio's to decide."""
    row = SPECS.get(canonical(name))
    return None if row is None else row.default


def in_seconds(name: str) -> bool:
    """Whether a plain number in the option is seconds (a time option), not a size or count."""
    row = SPECS.get(canonical(name))
    return row is not None and row.type == SECONDS


def names_of(safety: str) -> list[str]:
    """The options of one safety class, by fio's own names, in table order."""
    return [row.name for row in SPECS.values() if row.safety == safety]
