"""Host and method rules at their thresholds, on snapshots built here (issue 41: `bench/mutation.py --whole`
found these branches held by no fast test): Lustre and NFS mounts, fio pinned off the device's NUMA node,
an NVMe behind a lazy (DMA-FQ) IOMMU domain, costly mitigations beside a job at exactly 90% CPU, PCIe
bridges of which one has no known ceiling, a direction fio did not run, and a raw device's sampled blocks."""

from __future__ import annotations

from iolab.analysis.device_traffic import DeviceTraffic
from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.models import DirectionResult, Finding, Result, Severity, Snapshot
from iolab.models.snapshot import BlockDevice, FileSystem, PciPort, TargetInfo

GIB = 1 << 30


def _run(rule_id: str, ctx: Context) -> list[Finding]:
    return evaluate(ctx, [r for r in all_rules() if r.id == rule_id])


def _mount(fs_type: str, used_percent: float, options: list[str] | None = None) -> FileSystem:
    size = 1000 * GIB
    return FileSystem(
        "/mnt/share", fs_type, "server:/export", "0:52", options or [], size, round(size * used_percent / 100)
    )


def test_a_lustre_mount_is_full_from_75_percent():
    def full(used: float) -> list[tuple[str, Severity]]:
        found = _run("LUS-OST-FULL", Context(snapshot=Snapshot(filesystems=[_mount("lustre", used)])))
        return [(f.evidence["used"], f.severity) for f in found]

    assert full(74.9) == []
    assert full(75.0) == [("75.0%", Severity.WARNING)]
    # the same fullness on another kind of mount is not Lustre's
    assert _run("LUS-OST-FULL", Context(snapshot=Snapshot(filesystems=[_mount("nfs4", 90.0)]))) == []


def test_lustre_checksums_count_only_the_oscs_that_have_them_on():
    values = {"osc.fs-OST0000": "1", "osc.fs-OST0001": "0", "osc.fs-OST0002": "1"}
    (found,) = _run("LUS-CHECKSUMS", Context(snapshot=Snapshot(lustre_checksums=values)))
    assert found.title == "checksums on for 2 OSC(s)"
    assert _run("LUS-CHECKSUMS", Context(snapshot=Snapshot(lustre_checksums={"osc.a": "0"}))) == []


def test_an_nfs_mount_without_nconnect_is_named_and_one_with_it_is_not():
    one = Snapshot(filesystems=[_mount("nfs4", 10, ["rw", "rsize=1048576"])])
    (found,) = _run("NFS-NCONNECT", Context(snapshot=one))
    assert found.subject == "/mnt/share" and found.evidence["options"] == "rw,rsize=1048576"
    many = Snapshot(filesystems=[_mount("nfs", 10, ["rw", "nconnect=8"])])
    assert _run("NFS-NCONNECT", Context(snapshot=many)) == []


def test_nfs_read_ahead_is_named_at_128_kib_and_not_above():
    def at(kb: int) -> list[str]:
        mount = _mount("nfs4", 10, ["rsize=1048576"])
        mount = FileSystem(**{**mount.__dict__, "read_ahead_kb": kb})
        return [f.evidence["rsize"] for f in _run("NFS-READAHEAD", Context(snapshot=Snapshot(filesystems=[mount])))]

    assert at(128) == ["rsize=1048576"] and at(129) == []


def test_few_nfs_server_threads_are_named_below_16():
    assert [f.title for f in _run("NFS-SERVER-THREADS", Context(snapshot=Snapshot(nfsd_threads=15)))] == [
        "nfsd runs 15 threads"
    ]
    assert _run("NFS-SERVER-THREADS", Context(snapshot=Snapshot(nfsd_threads=16))) == []


NODES = {"node0": "0-3", "node1": "4-7"}


def _numa(options: dict[str, str], device_node: int = 1, nodes: dict[str, str] = NODES) -> list[Finding]:
    snapshot = Snapshot(
        numa_nodes=nodes,
        devices=[BlockDevice("nvme0n1", numa_node=device_node)],
        targets=[TargetInfo("/dev/nvme0n1", device="nvme0n1", is_block_device=True)],
    )
    job = JobView.from_options("j", {"filename": "/dev/nvme0n1", "rw": "randread", **options})
    return _run("NUMA-REMOTE", Context(snapshot=snapshot, jobs=[job]))


def test_fio_pinned_to_another_nodes_cpus_is_remote_and_one_shared_cpu_is_not():
    (remote,) = _numa({"cpus_allowed": "0-3"})
    assert remote.subject == "nvme0n1" and remote.evidence["node cpus"] == "4-7"
    assert _numa({"cpus_allowed": "3-4"}) == []  # CPU 4 is the device's node's
    (by_node,) = _numa({"numa_cpu_nodes": "0"})
    assert by_node.evidence["job cpus"] == "nodes 0"
    assert _numa({"numa_cpu_nodes": "1"}) == []


def test_numa_remote_needs_two_nodes_a_known_device_node_and_a_pinned_job():
    assert _numa({"cpus_allowed": "0-3"}, nodes={"node0": "0-7"}) == []
    assert _numa({"cpus_allowed": "0-3"}, device_node=-1) == []
    assert _numa({}) == []  # unpinned: FIO-UNPINNED speaks about it


def _nvme(iommu_type: str | None) -> Snapshot:
    port = PciPort("0000:01:00.0", 16.0, 16.0, 4, 4, iommu_group="12", iommu_type=iommu_type)
    return Snapshot(iommu_units=["dmar0"], devices=[BlockDevice("nvme0n1", nvme_controller="nvme0", pcie=port)])


def _busy_job(cpu_per_job: float) -> JobView:
    result = Result({"read": DirectionResult("read", 1e9, 1e5, 100_000, 10**9, 10_000)}, cpu_per_job, 0.0, 1, "3.33")
    return JobView("j", {"rw": "randread"}, result=result)


def test_a_lazy_iommu_domain_is_translated_and_not_strict():
    (translated,) = _run("IOMMU-TRANSLATED", Context(snapshot=_nvme("DMA-FQ")))
    assert translated.subject == "nvme0n1" and translated.severity is Severity.INFO
    assert _run("IOMMU-STRICT", Context(snapshot=_nvme("DMA-FQ"))) == []
    assert _run("IOMMU-TRANSLATED", Context(snapshot=_nvme("identity"))) == []
    (strict,) = _run("IOMMU-STRICT", Context(snapshot=_nvme("DMA")))
    assert strict.evidence["group type"] == "DMA"


def test_translation_escalates_from_70_percent_cpu_per_job():
    def level(cpu: float) -> Severity:
        (found,) = _run("IOMMU-TRANSLATED", Context(snapshot=_nvme("DMA-FQ"), jobs=[_busy_job(cpu)]))
        return found.severity

    assert level(69.9) is Severity.INFO and level(70.0) is Severity.WARNING


def test_an_unreadable_domain_type_is_not_evaluated_by_strict_and_silent_in_translated():
    (unread,) = _run("IOMMU-STRICT", Context(snapshot=_nvme(None)))
    assert unread.severity is Severity.NOT_EVALUATED
    assert _run("IOMMU-TRANSLATED", Context(snapshot=_nvme(None))) == []


def test_costly_mitigations_escalate_at_exactly_90_percent_cpu_per_job():
    snapshot = Snapshot(vulnerabilities={"meltdown": "Mitigation: PTI", "spectre_v2": "Mitigation: Enhanced IBRS"})

    def level(cpu: float) -> Severity:
        (found,) = _run("MITIG-OTHER", Context(snapshot=snapshot, jobs=[_busy_job(cpu)]))
        assert found.title == "1 costly mitigation(s) active: meltdown"
        return found.severity

    assert level(89.9) is Severity.INFO and level(90.0) is Severity.WARNING


def _bridges(*ceilings: tuple[float | None, int | None]) -> Snapshot:
    """An NVMe capable of Gen4 x4 under bridges of the given (GT/s, width), in order from the device."""
    ports = [PciPort(f"0000:00:0{i}.0", gts, gts, width, width) for i, (gts, width) in enumerate(ceilings)]
    device = BlockDevice("nvme0n1", pcie=PciPort("0000:01:00.0", 16.0, 16.0, 4, 4), upstream=ports)
    return Snapshot(devices=[device])


def test_the_slowest_known_bridge_limits_the_device_and_an_unknown_one_is_passed_over():
    (found,) = _run("PCIE-SLOT-LIMITED", Context(snapshot=_bridges((8.0, 4), (None, None), (8.0, 1), (16.0, 8))))
    assert found.evidence["limiting port"] == "0000:00:02.0" and found.evidence["port ceiling"] == "985 MB/s"
    assert _run("PCIE-SLOT-LIMITED", Context(snapshot=_bridges((None, 4), (16.0, 4)))) == []


def test_a_direction_fio_did_not_run_is_never_unseen_whatever_the_device_moved():
    traffic = DeviceTraffic("rd", {"read": 900 << 20}, {"read": 900e6, "write": 500e6}, ("sda",))
    assert _run("RES-WRITES-UNSEEN", Context(traffic=[traffic])) == []
    assert _run("RES-FROM-CACHE", Context(traffic=[traffic])) == []
    # the device's count missing for a direction fio ran is a device that moved nothing in it
    (unseen,) = _run("RES-FROM-CACHE", Context(traffic=[DeviceTraffic("rd", {"read": 16 << 20}, {}, ("sda",))]))
    assert unseen.evidence["device read"] == "0 B"


def _sampled(with_data: int | None, sampled: int | None = 64) -> list[Finding]:
    target = TargetInfo("/dev/sdb", device="sdb", is_block_device=True)
    target = TargetInfo(**{**target.__dict__, "blocks_sampled": sampled, "blocks_with_data": with_data})
    job = JobView.from_options("rd", {"filename": "/dev/sdb", "rw": "randread"})
    return _run("FIO-UNWRITTEN-READ", Context(snapshot=Snapshot(targets=[target]), jobs=[job]))


def test_a_device_half_of_whose_sampled_blocks_hold_data_counts_as_written():
    assert _sampled(32) == []
    (zeros,) = _sampled(31)
    assert zeros.evidence["blocks of zeros"] == "33 of 64"
    (unknown,) = _sampled(None)  # never sampled: cannot be told apart from a fresh device
    assert unknown.title == "rd reads /dev/sdb with no fill before it"
    assert len(_sampled(40, None)) == 1
