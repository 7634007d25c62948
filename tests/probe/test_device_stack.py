"""The device-stack resolver over /sys trees laid out as the kernel lays them out: generated stacks of disks,
partitions, holders (device-mapper, md), loop devices over devices at any offset and over files, mounts and
swap, each one checked both ways against the stack it was built from."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from iolab.errors import UserError
from iolab.probe import device_stack
from iolab.probe.root import Root


@dataclass
class FakeHost:
    """A /sys and /proc tree written as stacks are built on it, with what was built kept beside it."""

    base: Path
    numbers: dict[str, str] = field(default_factory=dict)
    lower: dict[str, list[str]] = field(default_factory=dict)  # device -> the devices it is built on
    mounts: list[tuple[str, str]] = field(default_factory=list)  # (mount point, device)
    swaps: list[str] = field(default_factory=list)
    file_loops: set[str] = field(default_factory=set)  # loop devices over a file on a mounted device

    def _dir(self, name: str, parent: str | None = None) -> Path:
        if parent is None:
            path = self.base / "sys/devices/virtual/block" / name
        else:
            path = Path(os.path.realpath(self.base / "sys/class/block" / parent)) / name
        path.mkdir(parents=True)
        number = f"{7 + len(self.numbers) // 200}:{len(self.numbers) % 200}"
        self.numbers[name] = number
        (path / "dev").write_text(number + "\n")
        (path / "holders").mkdir()
        (path / "slaves").mkdir()
        for link in (self.base / "sys/class/block" / name, self.base / "sys/dev/block" / number):
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
        if parent is None:
            (self.base / "sys/block").mkdir(parents=True, exist_ok=True)
            (self.base / "sys/block" / name).symlink_to(path)
        return path

    def disk(self, name: str) -> None:
        self._dir(name)
        self.lower[name] = []

    def partition(self, disk: str, name: str) -> None:
        (self._dir(name, disk) / "partition").write_text("1\n")
        self.lower[name] = [disk]

    def holder(self, name: str, members: list[str]) -> None:
        path = self._dir(name)
        for member in members:
            (path / "slaves" / member).symlink_to(self.base / "sys/class/block" / member)
            (self.base / "sys/class/block" / member / "holders" / name).symlink_to(path)
        self.lower[name] = list(members)

    def loop(self, name: str, under: str, offset: int) -> None:
        path = self._dir(name) / "loop"
        path.mkdir()
        (path / "backing_file").write_text(f"/dev/{under}\n")
        (path / "offset").write_text(f"{offset}\n")
        self.lower[name] = [under]

    def file_loop(self, name: str, mount_point: str) -> None:
        path = self._dir(name) / "loop"
        path.mkdir()
        (path / "backing_file").write_text(f"{mount_point}/disk.img\n")
        (path / "offset").write_text("0\n")
        self.lower[name] = [dict(self.mounts)[mount_point]]
        self.file_loops.add(name)

    def mount(self, device: str, point: str) -> None:
        self.mounts.append((point, device))

    def swap(self, device: str) -> None:
        self.swaps.append(device)

    def write_proc(self) -> Root:
        proc = self.base / "proc/self"
        proc.mkdir(parents=True, exist_ok=True)
        # every third mount as btrfs shows it: an anonymous device number, the device named by its source
        lines = [
            f"{i + 20} 1 {'0:' + str(40 + i) if i % 3 == 2 else self.numbers[d]} / {p} rw - "
            f"{'btrfs' if i % 3 == 2 else 'ext4'} /dev/{d} rw"
            for i, (p, d) in enumerate(self.mounts)
        ]
        (proc / "mountinfo").write_text("\n".join(lines) + "\n")
        swaps = ["Filename Type Size Used Priority"] + [f"/dev/{d} partition 1024 0 -2" for d in self.swaps]
        (self.base / "proc/swaps").write_text("\n".join(swaps) + "\n")
        return Root(self.base)

    # what was built, read back without the resolver
    def uppers(self, device: str) -> set[str]:
        """Every device built on `device`, transitively, except loop devices over a file (those sit on a mount)."""
        found: set[str] = set()
        queue = [device]
        while queue:
            below = queue.pop()
            for upper, lowers in self.lower.items():
                if below in lowers and upper not in self.file_loops and upper not in found:
                    found.add(upper)
                    queue.append(upper)
        return found

    def bottoms(self, device: str) -> list[str]:
        lowers = self.lower[device]
        return sorted({b for lower in lowers for b in self.bottoms(lower)}) if lowers else [device]


def _generate(base: Path, seed: int) -> FakeHost:
    """A random host: a few disks, then 12 stackings, each on a device made before it."""
    rng = random.Random(seed)
    host = FakeHost(base)
    for i in range(rng.randint(1, 3)):
        host.disk(f"sd{'abc'[i]}")
    counter = {"p": 0, "dm": 0, "md": 0, "loop": 0, "mnt": 0}
    for _ in range(12):
        devices = list(host.lower)
        kind = rng.choice(["partition", "dm", "md", "loop", "loop", "file-loop", "mount", "swap"])
        on = rng.choice(devices)
        if kind == "partition" and not host.lower[on] or kind == "partition" and on.startswith("loop"):
            counter["p"] += 1
            host.partition(on, f"{on}p{counter['p']}")
        elif kind in ("dm", "md"):
            name = f"{'dm-' if kind == 'dm' else 'md'}{counter[kind]}"
            counter[kind] += 1
            host.holder(name, rng.sample(devices, rng.randint(1, min(3, len(devices)))))
        elif kind == "loop":
            host.loop(f"loop{counter['loop']}", on, rng.choice([0, 512, 64 << 20]))
            counter["loop"] += 1
        elif kind == "file-loop" and host.mounts:
            host.file_loop(f"loop{counter['loop']}", rng.choice(host.mounts)[0])
            counter["loop"] += 1
        elif kind == "mount":
            counter["mnt"] += 1
            host.mount(on, f"/mnt/m{counter['mnt']}")
        elif kind == "swap":
            host.swap(on)
    return host


# Nine of the first 40 seeds that together build what all 40 build: every kind of device (partition, dm, md, loop
# at an offset, loop over a file) on every kind it was built on, holders of 2 and 3 members, mounts (ext4 and
# btrfs, named by their source) and swap on every kind, stacks 3 to 6 or more devices deep, hosts of 1-3 disks (50 such
# features). Each host costs about 0.3 CPU-s, through the captured tree's held opens.
SPANNING_SEEDS = [0, 4, 8, 10, 13, 14, 15, 25, 37]


@pytest.mark.parametrize("seed", SPANNING_SEEDS)
def test_every_stacking_is_seen_from_below_and_every_device_maps_to_its_bottom(tmp_path, seed):
    """Whatever was built on a device shows in `above` (partitions, holders and loop devices by name, mounts
    and swap of any of them); every device's `beneath` is the whole devices its stack was built on."""
    host = _generate(tmp_path, seed)
    root = host.write_proc()
    for device in host.lower:
        found = device_stack.above(device, root)
        uppers = host.uppers(device)
        assert {a.name for a in found if a.kind in ("partition", "holder", "loop")} == uppers, device
        stack = uppers | {device}
        assert {a.name for a in found if a.kind == "mount"} == {p for p, d in host.mounts if d in stack}, device
        assert {a.on for a in found if a.kind == "swap"} == {d for d in host.swaps if d in stack}, device
        assert sorted(device_stack.beneath(device, root)) == host.bottoms(device), device


def test_a_loop_device_at_an_offset_and_a_mount_on_it_are_named_from_the_disk(tmp_path):
    host = FakeHost(tmp_path)
    host.disk("nvme0n1")
    host.loop("loop7", "nvme0n1", 64 << 20)
    host.partition("loop7", "loop7p1")
    host.mount("loop7p1", "/srv/data")
    root = host.write_proc()
    said = sorted(a.describe("nvme0n1") for a in device_stack.above("nvme0n1", root))
    assert said == [
        "loop7 is backed by it (at offset 67108864)",
        "loop7p1 is a partition of loop7",
        "loop7p1 is mounted at /srv/data",
    ]
    assert device_stack.state(["nvme0n1"], root) == frozenset(said)


def test_an_unknown_device_is_a_usage_error(tmp_path):
    host = FakeHost(tmp_path)
    host.disk("sda")
    with pytest.raises(UserError, match="no block device named 'sdz'"):
        device_stack.beneath("sdz", host.write_proc())
