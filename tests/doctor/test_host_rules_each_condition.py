"""Every host rule of the small rule modules (cpu, numa, md, nfs, lustre, kernel, mitigations, iommu, memory,
spdk) with each part of its trigger made false alone, and each threshold given just below and just above
(issue 41: `bench/mutation.py` found their `and`/`or` turned round and their bounds moved by one held by no
fast test: the tests gave each rule one case that fires and one where every condition fails at once). Each
finding is read whole: title, subject, evidence and severity."""

from __future__ import annotations

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.models import DirectionResult, Finding, Result, Severity, Snapshot
from iolab.models.snapshot import BlockDevice, FileSystem, PciPort, TargetInfo


def _run(rule_id: str, snapshot: Snapshot | None, jobs: list[JobView] | None = None) -> list[Finding]:
    return evaluate(Context(snapshot=snapshot, jobs=jobs or []), [r for r in all_rules() if r.id == rule_id])


def _titles(rule_id: str, snapshot: Snapshot | None, jobs: list[JobView] | None = None) -> list[str]:
    return [f.title for f in _run(rule_id, snapshot, jobs)]


def _job(name: str = "j", direct: bool = True, cpu: float = 10.0, iops: float = 1e4, **options: str) -> JobView:
    # `cpu` is the job's whole CPU (user + system, percent of one CPU), split 3:1 as a busy fio job splits it
    directions = {"read": DirectionResult("read", 4e8, iops, 10**6, 10**10, 10_000)}
    result = Result(directions, cpu * 0.75, cpu * 0.25, 1, "fio-3.33")
    given = {"rw": "randread", "ioengine": "libaio", "direct": "1" if direct else "0", **options}
    given.setdefault("filename", "/dev/nvme0n1")
    return JobView(name, given, given["filename"], "block", result=result)


# --- cpu.py ---------------------------------------------------------------------------------------------------


def test_the_governor_rule_counts_each_governor_short_of_performance():
    mixed = Snapshot(governors={"policy0": "powersave", "policy1": "performance", "policy2": "powersave"})
    mixed.cpufreq_driver = "intel_pstate"
    (found,) = _run("CPU-GOVERNOR", mixed)
    assert (found.title, found.subject, found.severity) == (
        "CPU governor powersave on 2 of 3 policies",
        "host",
        Severity.WARNING,
    )
    assert found.evidence == {"governors": str({"powersave": 2, "performance": 1}), "driver": "intel_pstate"}
    assert _run("CPU-GOVERNOR", Snapshot(governors={"policy0": "performance", "policy1": "performance"})) == []
    (blind,) = _run("CPU-GOVERNOR", Snapshot())
    assert blind.severity is Severity.NOT_EVALUATED and blind.subject == "host"
    assert _run("CPU-GOVERNOR", None) == []


def test_a_virtual_machine_is_named_and_bare_metal_is_not():
    (vm,) = _run("ENV-VM", Snapshot(hypervisor=True, cpu_model="AMD EPYC"))
    assert (vm.title, vm.subject, vm.evidence) == ("this host is a virtual machine", "host", {"cpu": "AMD EPYC"})
    assert _run("ENV-VM", Snapshot(hypervisor=False, cpu_model="AMD EPYC")) == []
    assert _run("ENV-VM", Snapshot(hypervisor=None)) == [] and _run("ENV-VM", None) == []


# --- numa.py --------------------------------------------------------------------------------------------------

NODES = {"node0": "0-3", "node1": "4-7"}


def _numa(node: int | None, nodes: dict[str, str] | None = None, **pin: str) -> list[Finding]:
    snap = Snapshot(
        numa_nodes=NODES if nodes is None else nodes,
        devices=[BlockDevice("nvme0n1", numa_node=node)],
        targets=[TargetInfo("/dev/nvme0n1", device="nvme0n1", is_block_device=True)],
    )
    return _run("NUMA-REMOTE", snap, [_job(**pin)])


def test_a_job_pinned_to_the_other_node_is_remote_from_either_node():
    (on0,) = _numa(0, cpus_allowed="4-7")
    assert (on0.title, on0.subject) == ("j runs on CPUs remote to nvme0n1 (node 0)", "nvme0n1")
    assert on0.evidence == {"device node": "0", "node cpus": "0-3", "job cpus": "4-7"}
    (on1,) = _numa(1, numa_cpu_nodes="0")
    assert on1.evidence == {"device node": "1", "node cpus": "4-7", "job cpus": "nodes 0"}
    assert _numa(0, cpus_allowed="3-5") == []  # one CPU of the device's node is enough
    assert _numa(1, numa_cpu_nodes="1") == [] and _numa(0) == []  # local, or not pinned at all
    assert _numa(None, cpus_allowed="4-7") == [] and _numa(-1, cpus_allowed="4-7") == []  # node unknown
    assert _numa(0, nodes={"node0": "0-7"}, cpus_allowed="4-7") == []  # one node: nothing is remote


# --- md.py ----------------------------------------------------------------------------------------------------


def test_a_parity_arrays_stripe_cache_is_named_up_to_256_and_not_above():
    def cache(level: str, size: int | None) -> list[Finding]:
        return _run(
            "MD-STRIPE-CACHE", Snapshot(devices=[BlockDevice("md0", md_level=level, md_stripe_cache_size=size)])
        )

    (found,) = cache("raid6", 256)
    assert (found.title, found.subject) == ("md0 (raid6) stripe cache is 256", "md0")
    assert found.evidence == {"level": "raid6", "stripe_cache_size": "256"}
    assert [f.title for f in cache("raid5", None)] == ["md0 (raid5) stripe cache is None"]
    assert len(cache("raid4", 1)) == 1
    assert cache("raid5", 257) == [] and cache("raid1", 256) == [] and cache("raid10", 16) == []


# --- nfs.py and lustre.py -------------------------------------------------------------------------------------


def _mounted(fs: FileSystem) -> Snapshot:
    return Snapshot(filesystems=[fs], targets=[TargetInfo(f"{fs.mount_point}/f", mount_point=fs.mount_point)])


def test_nfs_read_ahead_is_named_up_to_128_kib_with_its_rsize():
    def nfs(kb: int | None, kind: str = "nfs4", options: tuple[str, ...] = ("rw", "rsize=1048576")) -> list[Finding]:
        return _run(
            "NFS-READAHEAD", _mounted(FileSystem("/mnt/n", kind, "srv:/x", "0:53", list(options), read_ahead_kb=kb))
        )

    (found,) = nfs(128)
    assert (found.title, found.subject) == ("/mnt/n reads ahead 128 KiB", "/mnt/n")
    assert found.evidence == {"bdi": "0:53", "read_ahead_kb": "128", "rsize": "rsize=1048576"}
    assert nfs(64, "nfs", ("rw",))[0].evidence["rsize"] == "rsize=?"
    assert nfs(129) == [] and nfs(None) == [] and nfs(16, "ext4") == []


def test_nconnect_is_asked_of_nfs_mounts_only():
    def nfs(options: list[str], kind: str = "nfs") -> list[str]:
        return _titles("NFS-NCONNECT", _mounted(FileSystem("/mnt/n", kind, "srv:/x", "0:53", options)))

    assert nfs(["rw", "vers=4.2"]) == ["/mnt/n has no nconnect"]
    assert _run("NFS-NCONNECT", _mounted(FileSystem("/mnt/n", "nfs", "s:/x", "0:5", ["rw", "hard"])))[0].evidence == {
        "options": "rw,hard"
    }
    assert nfs(["rw", "nconnect=8"]) == [] and nfs(["rw"], "xfs") == []


def test_nfsd_threads_are_named_below_16():
    (found,) = _run("NFS-SERVER-THREADS", Snapshot(nfsd_threads=15))
    assert (found.title, found.subject, found.evidence) == ("nfsd runs 15 threads", "nfsd", {"threads": "15"})
    assert _run("NFS-SERVER-THREADS", Snapshot(nfsd_threads=16)) == []
    assert _run("NFS-SERVER-THREADS", Snapshot()) == [] and _run("NFS-SERVER-THREADS", None) == []


def test_a_lustre_file_system_is_full_from_75_percent():
    def lustre(used: int, kind: str = "lustre") -> list[Finding]:
        fs = FileSystem(
            "/lus", kind, "mgs@tcp:/fs", "0:60", [], size_bytes=1000, used_bytes=used, avail_bytes=1000 - used
        )
        return _run("LUS-OST-FULL", _mounted(fs))

    (found,) = lustre(750)
    assert (found.title, found.subject, found.evidence) == ("Lustre /lus is 75% full", "/lus", {"used": "75.0%"})
    assert lustre(749) == [] and lustre(900, "nfs") == []


def test_lustre_checksums_name_the_oscs_that_have_them_on():
    (found,) = _run("LUS-CHECKSUMS", Snapshot(lustre_checksums={"osc.a": "1", "osc.b": "0", "osc.c": "1"}))
    assert (found.title, found.subject) == ("checksums on for 2 OSC(s)", "lustre")
    assert found.evidence == {"osc.a": "1", "osc.c": "1"}
    assert _run("LUS-CHECKSUMS", Snapshot(lustre_checksums={"osc.a": "0"})) == []
    assert _run("LUS-CHECKSUMS", None) == []


# --- kernel.py ------------------------------------------------------------------------------------------------


def test_a_debug_kernel_is_named_by_its_release_its_config_or_its_command_line():
    def debug(**snap: object) -> list[Finding]:
        return _run("KERN-DEBUG", Snapshot(**snap))  # type: ignore[arg-type]

    config = {"CONFIG_PROVE_LOCKING": "y", "CONFIG_HZ": "1000"}
    (by_config,) = debug(kernel="6.8.0", kernel_config=config)
    assert by_config.title == "kernel 6.8.0 carries debug options"
    assert by_config.evidence == {"release": "6.8.0", "CONFIG_PROVE_LOCKING": "y"}
    (by_release,) = debug(kernel="6.8.0-debug", kernel_config={"CONFIG_HZ": "1000"})
    assert by_release.evidence == {"release": "6.8.0-debug"}
    for cmdline in ("ro slub_debug=FZ quiet", "ro debug_pagealloc=on", "slub_debug"):
        (by_cmdline,) = debug(kernel="6.8.0", cmdline=cmdline, kernel_config={"CONFIG_HZ": "1000"})
        assert by_cmdline.evidence["cmdline"] == " ".join(
            t for t in cmdline.split() if t.startswith("slub_debug") or t == "debug_pagealloc=on"
        )
    clean = {"CONFIG_PROVE_LOCKING": "n", "CONFIG_HZ": "1000"}
    assert debug(kernel="6.8.0", cmdline="ro debug_pagealloc=off quiet", kernel_config=clean) == []
    (blind,) = debug(kernel="6.8.0")  # no build config and nothing else to go on
    assert blind.severity is Severity.NOT_EVALUATED and "6.8.0" in blind.title
    assert "the kernel" in debug()[0].title and _run("KERN-DEBUG", None) == []


def test_isolcpus_is_named_only_with_managed_irq():
    (found,) = _run("KERN-ISOLCPUS-MANAGED-IRQ", Snapshot(cmdline="ro isolcpus=managed_irq,domain,2-3 quiet"))
    assert (found.subject, found.evidence) == ("host", {"cmdline": "isolcpus=managed_irq,domain,2-3"})
    assert _run("KERN-ISOLCPUS-MANAGED-IRQ", Snapshot(cmdline="ro isolcpus=2-3 managed_irq")) == []
    assert _run("KERN-ISOLCPUS-MANAGED-IRQ", Snapshot()) == []


def test_each_slow_clock_source_is_named_and_the_fast_ones_are_not():
    for slow in ("hpet", "acpi_pm", "pit", "jiffies"):
        (found,) = _run("KERN-CLOCKSOURCE", Snapshot(clocksource=slow))
        assert (found.title, found.evidence) == (f"the kernel keeps time with {slow}", {"clocksource": slow})
    assert _run("KERN-CLOCKSOURCE", Snapshot(clocksource="tsc")) == []
    assert _run("KERN-CLOCKSOURCE", Snapshot(clocksource="kvm-clock")) == []


# --- mitigations.py -------------------------------------------------------------------------------------------


def test_srso_is_named_for_safe_ret_and_for_ibpb_outside_vm_exits_only():
    def srso(value: str) -> list[str]:
        return _titles("MITIG-SRSO", Snapshot(vulnerabilities={"spec_rstack_overflow": value, "mds": "Not affected"}))

    assert srso("Mitigation: Safe RET") == ["SRSO mitigation in use: Mitigation: Safe RET"]
    assert srso("Mitigation: IBPB") == ["SRSO mitigation in use: Mitigation: IBPB"]
    assert srso("Mitigation: IBPB on VMEXIT only") == [] and srso("Not affected") == []
    assert _titles("MITIG-SRSO", Snapshot(vulnerabilities={"mds": "Not affected"})) == []
    (blind,) = _run("MITIG-SRSO", Snapshot())
    assert blind.severity is Severity.NOT_EVALUATED


def test_costly_mitigations_are_counted_and_weigh_more_on_a_cpu_bound_job():
    vulns = {
        "meltdown": "Mitigation: PTI",
        "spectre_v2": "Mitigation: Enhanced IBRS",  # enhanced IBRS is cheap
        "retbleed": "Mitigation: IBRS",
        "mds": "Not affected",
    }
    (found,) = _run("MITIG-OTHER", Snapshot(vulnerabilities=vulns), [_job(cpu=10.0)])
    assert (found.title, found.severity) == ("2 costly mitigation(s) active: meltdown, retbleed", Severity.INFO)
    (busy,) = _run("MITIG-OTHER", Snapshot(vulnerabilities=vulns), [_job(cpu=90.0)])
    assert busy.severity is Severity.WARNING
    (near,) = _run("MITIG-OTHER", Snapshot(vulnerabilities=vulns), [_job(cpu=89.9)])
    assert near.severity is Severity.INFO
    assert _run("MITIG-OTHER", Snapshot(vulnerabilities={"spectre_v2": "Mitigation: Enhanced IBRS"})) == []
    assert _run("MITIG-OTHER", Snapshot()) == []


# --- iommu.py -------------------------------------------------------------------------------------------------


def _iommu(domain: str | None, cmdline: str = "ro", transport: str | None = "pcie", **snap: object) -> Snapshot:
    port = PciPort("0000:01:00.0", iommu_type=domain)
    drive = BlockDevice("nvme0n1", nvme_controller="nvme0", transport=transport, pcie=port)
    return Snapshot(devices=[drive], cmdline=cmdline, **snap)  # type: ignore[arg-type]


def test_a_strict_domain_is_named_with_the_hosts_iommu_and_a_lazy_one_is_not():
    (found,) = _run("IOMMU-STRICT", _iommu("DMA", "ro intel_iommu=on", iommu_units=["dmar0", "dmar1"]))
    assert (found.title, found.subject) == ("nvme0n1 DMA goes through a strict IOMMU domain", "nvme0n1")
    assert found.evidence == {"group type": "DMA", "IOMMU": "dmar0,dmar1", "cmdline iommu": "intel_iommu=on"}
    (forced,) = _run("IOMMU-STRICT", _iommu("DMA-FQ", "ro iommu.strict=1", iommu_group_types={"7": "DMA-FQ"}))
    assert forced.evidence == {"group type": "DMA-FQ", "IOMMU": "?", "cmdline iommu": "iommu.strict=1"}
    assert _run("IOMMU-STRICT", _iommu("DMA-FQ", iommu_units=["dmar0"])) == []
    assert _run("IOMMU-STRICT", _iommu("DMA")) == []  # no IOMMU active on the host: its groups say nothing
    assert _run("IOMMU-STRICT", _iommu("DMA", transport="tcp", iommu_units=["dmar0"])) == []
    (blind,) = _run("IOMMU-STRICT", _iommu(None, iommu_units=["dmar0"]))
    assert blind.severity is Severity.NOT_EVALUATED and blind.subject == "nvme0n1"


def test_a_lazy_domain_is_information_until_a_job_is_cpu_bound_or_past_a_million_iops():
    lazy = _iommu("DMA-FQ", iommu_units=["AMD-Vi"])
    (quiet,) = _run("IOMMU-TRANSLATED", lazy, [_job(cpu=69.0, iops=1e6)])
    assert (quiet.title, quiet.evidence, quiet.severity) == (
        "nvme0n1 DMA is translated (lazy IOMMU)",
        {"group type": "DMA-FQ"},
        Severity.INFO,
    )
    assert _run("IOMMU-TRANSLATED", lazy, [_job(cpu=70.0)])[0].severity is Severity.WARNING
    assert _run("IOMMU-TRANSLATED", lazy, [_job(cpu=5.0, iops=1.1e6)])[0].severity is Severity.WARNING
    assert _run("IOMMU-TRANSLATED", _iommu("DMA", iommu_units=["AMD-Vi"])) == []
    assert _run("IOMMU-TRANSLATED", _iommu(None, iommu_units=["AMD-Vi"])) == []  # IOMMU-STRICT says it once


# --- memory.py ------------------------------------------------------------------------------------------------


def test_thp_always_is_named_unless_every_job_is_direct():
    always = Snapshot(thp_enabled="always")
    (found,) = _run("MEM-THP", always)
    assert (found.title, found.subject, found.evidence) == (
        "transparent huge pages: always",
        "host",
        {"enabled": "always"},
    )
    assert len(_run("MEM-THP", always, [_job(direct=True), _job("b", direct=False)])) == 1
    assert _run("MEM-THP", always, [_job(direct=True)]) == []
    assert _run("MEM-THP", Snapshot(thp_enabled="madvise")) == [] and _run("MEM-THP", None) == []


# --- spdk.py --------------------------------------------------------------------------------------------------


def test_a_job_on_an_spdk_engine_counts_as_fabric_whatever_its_device():
    local = Snapshot(devices=[BlockDevice("nvme0n1", transport="pcie")])
    assert _titles("SPDK-QD-SWEEP", local, [_job(ioengine="spdk_bdev", iodepth="4")]) == [
        "1 fabric result(s), all at iodepth 4"
    ]
    assert _run("SPDK-QD-SWEEP", local, [_job(ioengine="spdk", iodepth="4")])[0].evidence == {"jobs": "1"}
    assert _run("SPDK-QD-SWEEP", local, [_job(iodepth="4")]) == []
    rdma = Snapshot(
        devices=[BlockDevice("nvme0n1", transport="rdma")],
        targets=[TargetInfo("/dev/nvme0n1", device="nvme0n1", is_block_device=True)],
    )
    assert _titles("SPDK-QD-SWEEP", rdma, [_job(iodepth="1")]) == ["1 fabric result(s), all at iodepth 1"]
