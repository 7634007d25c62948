"""fio's numeric job options and their ranges, as fio 3.33 declares them (`fio --cmdhelp=NAME`).

fio reads `rate=1e400` as some number and runs: its own parser stops at the first character it does
not know. So iolab checks the value of every option fio declares numeric, not only those it reasons
about (`iolab.fio.options.value_problem`): a number, with the suffixes fio takes, within what fio
declares. Generated from `fio --cmdhelp=NAME` of each option `fio --cmdhelp=all` lists;
`tests/fio/test_option_types.py` compares a sample with the installed fio.
"""

from __future__ import annotations

from typing import Final

# "type: integer value" options: name -> (fio's minimum, its maximum or None where fio sets none).
# Each takes a size or time suffix (4k, 10ms), a hex value (0x...), and a comma list per direction.
INTEGER_OPTIONS: Final[dict[str, tuple[int, int | None]]] = {
    "ba": (1, None),
    "bs": (1, None),
    "buffer_compress_chunk": (0, None),
    "buffer_compress_percentage": (0, 100),
    "bwavgtime": (0, None),
    "cgroup_weight": (100, 1000),
    "cpumask": (0, None),
    "dedupe_percentage": (0, 100),
    "dedupe_working_set_percentage": (0, 100),
    "fdatasync": (0, None),
    "flow": (0, 1000),
    "flow_id": (0, None),
    "flow_sleep": (0, None),
    "fsync": (0, None),
    "gid": (0, None),
    "gtod_cpu": (0, None),
    "iodepth": (1, None),
    "iodepth_batch": (0, None),
    "iodepth_batch_complete_max": (0, None),
    "iodepth_batch_complete_min": (0, None),
    "iodepth_low": (0, None),
    "iopsavgtime": (0, None),
    "job_max_open_zones": (0, 4096),
    "log_alternate_epoch_clock_id": (0, None),
    "log_avg_msec": (0, None),
    "log_compression": (1024, 536870912),
    "log_entries": (1024, 1048576),
    "log_hist_coarseness": (0, None),
    "log_hist_msec": (0, None),
    "loops": (0, None),
    "max_latency": (0, None),
    "max_open_zones": (0, 4096),
    "nice": (-20, 19),
    "nrfiles": (0, None),
    "numjobs": (0, None),
    "offset_align": (0, None),
    "openfiles": (0, None),
    "percentage_random": (0, 100),
    "prio": (0, 7),
    "prioclass": (0, 3),
    "rate": (0, None),
    "rate_cycle": (0, None),
    "rate_iops": (0, None),
    "rate_iops_min": (0, None),
    "rate_min": (0, None),
    "replay_align": (0, None),
    "replay_scale": (0, None),
    "replay_time_scale": (1, None),
    "rwmixread": (0, 100),
    "rwmixwrite": (0, 100),
    "significant_figures": (1, 10),
    "thinktime": (0, None),
    "thinktime_blocks": (0, None),
    "thinktime_iotime": (0, None),
    "thinktime_spin": (0, None),
    "trim_backlog_batch": (0, None),
    "trim_percentage": (0, 100),
    "uid": (0, None),
    "verify_async": (0, None),
    "verify_backlog_batch": (0, None),
    "verify_interval": (80, None),
    "verify_offset": (40, None),
    "write_barrier": (0, None),
}
# "type: list of floating point values separated by ':'" options.
FLOAT_LIST_OPTIONS: Final = frozenset(
    {
        "latency_percentile",
        "merge_blktrace_iters",
        "merge_blktrace_scalars",
        "percentile_list",
        "zone_reset_frequency",
        "zone_reset_threshold",
    }
)
# "type: (null)" options: fio's sizes that also take a percentage of the target (4k, 1g, 50%).
SIZE_OPTIONS: Final = frozenset({"size", "io_size", "offset", "offset_increment", "zoneskip"})
