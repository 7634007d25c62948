"""Host-state rules no fast test named, each both ways (issue 41: `bench/mutation.py --whole` finds their
conditions held by none): an md array resyncing, a sync mount, dm-crypt under the target, a power-saving ASPM
policy, NVMe bound to a userspace driver, and fabric results all at one queue depth."""

from __future__ import annotations

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.models import DirectionResult, Finding, Result, Snapshot
from iolab.models.snapshot import BlockDevice, FileSystem, TargetInfo


def _run(rule_id: str, ctx: Context) -> list[Finding]:
    return evaluate(ctx, [r for r in all_rules() if r.id == rule_id])


def _titles(rule_id: str, snapshot: Snapshot, jobs: list[JobView] | None = None) -> list[str]:
    return [f.title for f in _run(rule_id, Context(snapshot=snapshot, jobs=jobs or []))]


def test_an_md_array_doing_anything_but_idle_or_frozen_is_busy():
    def busy(action: str | None) -> list[str]:
        return _titles("BG-RAID-SYNC", Snapshot(devices=[BlockDevice("md0", md_level="raid5", md_sync_action=action)]))

    assert busy("resync") == ["md0 is busy: resync"] and busy("check") == ["md0 is busy: check"]
    assert busy("idle") == [] and busy("frozen") == [] and busy(None) == []


def test_a_sync_mount_names_its_sync_options():
    def mounted(options: list[str]) -> list[str]:
        return _titles(
            "FS-SYNC-MOUNT", Snapshot(filesystems=[FileSystem("/data", "ext4", "/dev/sdb", "8:16", options)])
        )

    assert mounted(["rw", "sync", "data=journal"]) == ["/data is mounted sync,data=journal"]
    assert mounted(["rw", "dirsync"]) == ["/data is mounted dirsync"]
    assert mounted(["rw", "relatime", "data=ordered"]) == []


def test_dm_crypt_under_the_target_is_named_with_its_members():
    crypt = BlockDevice("dm-0", dm_uuid="CRYPT-LUKS2-abc-root", slaves=["nvme0n1p3"])
    linear = BlockDevice("dm-1", dm_uuid="LVM-xyz", slaves=["nvme0n1p4"])
    (found,) = _run("BLK-DMCRYPT", Context(snapshot=Snapshot(devices=[crypt, linear])))
    assert (found.title, found.evidence["members"]) == ("dm-0 is dm-crypt", "nvme0n1p3")
    assert _titles("BLK-DMCRYPT", Snapshot(devices=[linear, BlockDevice("sda")])) == []


def test_only_a_power_saving_aspm_policy_is_named():
    assert _titles("PCIE-ASPM", Snapshot(aspm_policy="powersupersave")) == ["PCIe ASPM policy is powersupersave"]
    assert _titles("PCIE-ASPM", Snapshot(aspm_policy="powersave")) == ["PCIe ASPM policy is powersave"]
    assert _titles("PCIE-ASPM", Snapshot(aspm_policy="performance")) == []
    assert _titles("PCIE-ASPM", Snapshot(aspm_policy="default")) == []


def test_nvme_bound_to_a_userspace_driver_is_named_per_address():
    snapshot = Snapshot(userspace_nvme={"0000:01:00.0": "vfio-pci", "0000:02:00.0": "uio_pci_generic"})
    assert _titles("SPDK-DRIVER", snapshot) == [
        "NVMe 0000:01:00.0 is bound to vfio-pci",
        "NVMe 0000:02:00.0 is bound to uio_pci_generic",
    ]
    assert _titles("SPDK-DRIVER", Snapshot()) == []


def _fabric_job(name: str, iodepth: int, engine: str = "libaio") -> JobView:
    result = Result({"read": DirectionResult("read", 1e9, 2e5, 10**6, 10**10, 10_000)}, 10.0, 10.0, 1, "fio-3.33")
    options = {"rw": "randread", "ioengine": engine, "iodepth": str(iodepth), "filename": "/dev/nvme1n1"}
    return JobView(name, options, "/dev/nvme1n1", "block", result=result)


def test_fabric_results_all_at_one_depth_are_a_single_point_not_a_curve():
    over_tcp = Snapshot(
        devices=[BlockDevice("nvme1n1", nvme_controller="nvme1", transport="tcp")],
        targets=[TargetInfo("/dev/nvme1n1", device="nvme1n1", is_block_device=True)],
    )
    one = [_fabric_job("a", 32), _fabric_job("b", 32)]
    assert _titles("SPDK-QD-SWEEP", over_tcp, one) == ["2 fabric result(s), all at iodepth 32"]
    assert _titles("SPDK-QD-SWEEP", over_tcp, [*one, _fabric_job("c", 128)]) == []
    local = Snapshot(
        devices=[BlockDevice("nvme1n1", nvme_controller="nvme1", transport="pcie")],
        targets=[TargetInfo("/dev/nvme1n1", device="nvme1n1", is_block_device=True)],
    )
    assert _titles("SPDK-QD-SWEEP", local, one) == []
    assert _titles("SPDK-QD-SWEEP", local, [_fabric_job("s", 8, engine="spdk")]) == [
        "1 fabric result(s), all at iodepth 8"
    ]
