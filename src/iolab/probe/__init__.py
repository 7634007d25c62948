"""Read the host: kernel, CPU, block devices, PCIe, NVMe SMART, file systems.

Every read goes through one `Root`, so a captured tree or support bundle can
be analysed like the live machine.
"""

from iolab.probe.root import Root
from iolab.probe.snapshot import take_snapshot

__all__ = ["Root", "take_snapshot"]
