"""Counters sampled beside fio: block devices, CPUs and network interfaces."""

from iolab.telemetry.diskstats import devices_for_path
from iolab.telemetry.sampler import Sampler

__all__ = ["Sampler", "devices_for_path"]
