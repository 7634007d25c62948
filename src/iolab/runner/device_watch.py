"""The devices a run writes, watched for the whole run: nothing may come to sit on them.

The write guard judges a device once, before the run. The O_EXCL hold (`iolab.runner.blank.held`) then
stops a mount, md or device-mapper from claiming it, but not a loop device: `losetup -o 64M` on a held
device succeeds, and a file system made on that loop device is overwritten by the run's next write. So
the stack on each written device (`iolab.probe.device_stack.above`: partitions, holders, loop devices at
any offset, mounts, swap) is read when the hold starts and again before every point, twice a second while
fio runs (`iolab.runner.measure`), and at the end; any difference stops the run at once (fio is asked to
stop, the run fails with exit 3) naming what appeared.
"""

from __future__ import annotations

from collections.abc import Iterable

from iolab import guards
from iolab.errors import RunFailed
from iolab.probe import device_stack
from iolab.probe.device_stack import kernel_name
from iolab.probe.root import Root

GUARD = "device-watch"
guards.register(
    GUARD,
    "a partition, holder, loop device (at any offset), mount or swap appearing on a device while the run writes it",
    "iolab.runner.device_watch.DeviceWatch",
)


class DeviceWatch:
    """What sits on each written device when the hold began, and whether that has changed since."""

    def __init__(self, devices: Iterable[str], root: Root | None = None) -> None:
        self.root = root or Root()
        self.names = {device: kernel_name(device, self.root) for device in devices}
        self.before = {device: self._now(device) for device in self.names}
        self.found: str | None = None

    def _now(self, device: str) -> frozenset[str]:
        return device_stack.state([self.names[device]], self.root)

    def change(self) -> str | None:
        """What appeared on (or left) a written device since the hold began, or None. Once found, it stays."""
        if self.found is None and guards.active(GUARD):
            for device, before in self.before.items():
                now = self._now(device)
                if now != before:
                    said = [f"{what} appeared" for what in sorted(now - before)]
                    said += [f"{what} went away" for what in sorted(before - now)]
                    self.found = f"{device} changed while iolab was writing it: {'; '.join(said)}"
                    break
        return self.found

    def stopped(self) -> bool:
        """For polling while fio runs (`iolab.fio.run.run_fio`'s `watch`): True once something changed."""
        return self.change() is not None

    def check(self, when: str) -> None:
        """RunFailed naming the change when the stack moved (`when`: where the run stopped)."""
        found = self.change()
        if found:
            raise RunFailed(f"{found}; stopped {when} so that nothing more is written to it")
