"""Host rules on the snapshot flags that decide them, both ways (issue 41: `bench/mutation.py --whole` left
these held by no fast test): a rotational disk that is not NVMe, a bare-metal host, a kernel command line with
slub_debug, transparent huge pages beside direct-only jobs, a PCIe port without AER files, a mount with the
discard option, and the titles of the multi-host rules that a user reads first."""

from __future__ import annotations

from iolab.doctor.engine import all_rules, evaluate
from iolab.doctor.rule import Context, JobView
from iolab.models import Finding, Severity, Snapshot
from iolab.models.material import HostRow
from iolab.models.snapshot import BlockDevice, FileSystem, PciPort

MB = 1_000_000


def _run(rule_id: str, ctx: Context) -> list[Finding]:
    return evaluate(ctx, [r for r in all_rules() if r.id == rule_id])


def test_only_an_nvme_namespace_that_says_rotational_is_named():
    devices = [
        BlockDevice("sda", rotational=True),
        BlockDevice("nvme0n1", nvme_controller="nvme0", rotational=False),
        BlockDevice("nvme1n1", nvme_controller="nvme1", rotational=True),
    ]
    found = _run("BLK-ROTATIONAL-MISREPORT", Context(snapshot=Snapshot(devices=devices)))
    assert [(f.subject, f.title) for f in found] == [("nvme1n1", "nvme1n1 (NVMe) reports rotational=1")]


def test_a_virtual_machine_is_named_and_bare_metal_is_not():
    assert _run("ENV-VM", Context(snapshot=Snapshot(hypervisor=False, cpu_model="EPYC"))) == []
    (vm,) = _run("ENV-VM", Context(snapshot=Snapshot(hypervisor=True, cpu_model="EPYC")))
    assert vm.title == "this host is a virtual machine"


def test_slub_debug_and_page_alloc_debugging_on_the_command_line_are_a_debug_kernel():
    def found(cmdline: str) -> list[str]:
        snap = Snapshot(kernel="6.8.0-31-generic", cmdline=cmdline, kernel_config={"CONFIG_KASAN": "n"})
        return [f.evidence.get("cmdline", "") for f in _run("KERN-DEBUG", Context(snapshot=snap))]

    assert found("ro quiet slub_debug=FZP debug_pagealloc=on debug_pagealloc=off") == [
        "slub_debug=FZP debug_pagealloc=on"
    ]
    assert found("ro quiet debug_pagealloc=off") == []


def test_transparent_huge_pages_matter_to_buffered_jobs_not_to_direct_ones():
    snap = Snapshot(thp_enabled="always")
    direct = [JobView.from_options("d", {"rw": "read", "direct": "1"})]
    buffered = [*direct, JobView.from_options("b", {"rw": "read", "direct": "0"})]
    assert _run("MEM-THP", Context(snapshot=snap, jobs=direct)) == []
    assert [f.title for f in _run("MEM-THP", Context(snapshot=snap, jobs=buffered))] == [
        "transparent huge pages: always"
    ]


def test_a_port_without_aer_files_counts_no_errors_and_correctable_ones_alone_are_information():
    def aer(**counts: int) -> list[Severity]:
        device = BlockDevice("nvme0n1", nvme_controller="nvme0", pcie=PciPort("0000:01:00.0", **counts))
        return [f.severity for f in _run("PCIE-AER", Context(snapshot=Snapshot(devices=[device])))]

    assert aer() == []
    assert aer(aer_correctable=3) == [Severity.INFO]
    assert aer(aer_nonfatal=1) == [Severity.WARNING]


def test_a_mount_with_discard_is_online_discard_and_is_not_an_untrimmed_ssd():
    ssd = BlockDevice("sdb", major_minor="8:16", rotational=False, discard_max_bytes=2 << 30)

    def found(options: list[str]) -> dict[str, list[str]]:
        mount = FileSystem("/data", "ext4", "/dev/sdb", "8:16", options)
        snap = Snapshot(devices=[ssd], filesystems=[mount], fstrim_timer="disabled")
        return {i: [f.title for f in _run(i, Context(snapshot=snap))] for i in ("FS-DISCARD-ONLINE", "FS-NO-TRIM")}

    assert found(["rw", "discard"]) == {"FS-DISCARD-ONLINE": ["/data is mounted with discard"], "FS-NO-TRIM": []}
    assert found(["rw", "discard=async"])["FS-NO-TRIM"] == []
    assert found(["rw", "noatime"]) == {
        "FS-DISCARD-ONLINE": [],
        "FS-NO-TRIM": ["/data on SSD sdb is not trimmed (fstrim.timer disabled)"],
    }


def test_the_multi_host_titles_give_the_slow_hosts_share_and_both_hosts_times():
    rows = [HostRow(1, "h1", "ok", "", 10_000, 500 * MB), HostRow(1, "h2", "ok", "", 7_000, 200 * MB)]
    (slow,) = _run("HOSTS-IMBALANCE", Context(hosts={"randread": rows}))
    assert slow.title == "randread: h2 reached 40% of h1's bandwidth"
    (early,) = _run("HOSTS-STRAGGLER", Context(hosts={"randread": rows}))
    assert early.title == "randread: h2 was done after 7 s, h1 after 10 s"
