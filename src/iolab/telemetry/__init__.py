"""Counters sampled beside fio: block devices, CPUs and network interfaces."""

from iolab.telemetry.diskstats import devices_for_path, member_devices
from iolab.telemetry.sampler import Sampler
from iolab.telemetry.series import mean_by_source, series_by_source

__all__ = ["Sampler", "devices_for_path", "mean_by_source", "member_devices", "series_by_source"]
