"""The NVMe SMART reader and the PCIe chain reader over fake trees whose every field holds a distinct generated
value, so a field read into another's place, a bound moved by one, or a chain read in the wrong order fails
(issue 41: the captured trees held one drive whose counters are mostly 0, and one PCI chain)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from iolab.probe.nvme import read_smart
from iolab.probe.pci import parse_link_speed, pci_chain
from iolab.probe.root import Root

FIELDS = {  # nvme-cli's key -> NvmeSmart's field
    "critical_warning": "critical_warning",
    "avail_spare": "avail_spare",
    "spare_thresh": "spare_thresh",
    "percent_used": "percent_used",
    "media_errors": "media_errors",
    "num_err_log_entries": "num_err_log_entries",
    "warning_temp_time": "warning_temp_time",
    "critical_comp_time": "critical_comp_time",
}


def _commands(tmp_path: Path, log: str, ident: str | None) -> Root:
    commands = tmp_path / "iolab" / "commands"
    commands.mkdir(parents=True, exist_ok=True)
    (commands / "nvme-smart-log-nvme0.json").write_text(log)
    if ident is not None:
        (commands / "nvme-id-ctrl-nvme0.json").write_text(ident)
    return Root(tmp_path)


@pytest.mark.parametrize("seed", range(4))
def test_every_smart_field_is_read_into_its_own_place(tmp_path, seed):
    rng = random.Random(seed)
    values = dict(zip(FIELDS, rng.sample(range(1, 10**6), len(FIELDS)), strict=True))
    temperature, wctemp, cctemp = rng.sample(range(150, 400), 3)
    log = {**values, "temperature": temperature}
    smart, why = read_smart(
        _commands(tmp_path, json.dumps(log), json.dumps({"wctemp": wctemp, "cctemp": cctemp})), "nvme0"
    )
    assert why == "" and smart is not None
    assert {field: getattr(smart, field) for field in FIELDS.values()} == {FIELDS[k]: v for k, v in values.items()}
    assert (smart.temperature_k, smart.wctemp_k, smart.cctemp_k) == (temperature, wctemp, cctemp)


@pytest.mark.parametrize(("given", "kelvin"), [(149, 422), (150, 150), (1, 274), (0, None), (-5, 268)])
def test_a_temperature_under_150_is_celsius_and_0_unknown(tmp_path, given, kelvin):
    smart, _ = read_smart(
        _commands(tmp_path, json.dumps({"temperature": given}), json.dumps({"wctemp": given})), "nvme0"
    )
    assert smart is not None and (smart.temperature_k, smart.wctemp_k) == (kelvin, kelvin)


def test_an_id_ctrl_that_is_not_json_leaves_only_the_thresholds_unknown(tmp_path):
    smart, why = read_smart(_commands(tmp_path, json.dumps({"media_errors": 2}), "nvme: permission denied"), "nvme0")
    assert why == "" and smart is not None and (smart.media_errors, smart.wctemp_k, smart.cctemp_k) == (2, None, None)
    smart, why = read_smart(_commands(tmp_path / "b", "{not json", None), "nvme0")
    assert smart is None and why == "nvme smart-log for nvme0 is not JSON"


@pytest.mark.parametrize(
    ("text", "gts"),
    [("16.0 GT/s PCIe", 16.0), ("8 GT/s", 8.0), ("  2.5 GT/s", 2.5), ("Unknown", None), ("", None), (None, None)],
)
def test_a_link_speed_is_read_in_either_kernels_words(text, gts):
    assert parse_link_speed(text) == gts


def _port(tree: Path, rel: str, gts: str, width: int, group: str | None = None, aer: str | None = None) -> None:
    path = tree / rel
    path.mkdir(parents=True, exist_ok=True)
    (path / "current_link_speed").write_text(f"{gts} GT/s PCIe\n")
    (path / "max_link_speed").write_text("32.0 GT/s PCIe\n")
    (path / "current_link_width").write_text(f"{width}\n")
    (path / "max_link_width").write_text("16\n")
    if aer is not None:
        (path / "aer_dev_fatal").write_text(f"Undefined 0\nTOTAL_ERR_FATAL {aer}\n")
    if group is not None:
        groups = tree / "sys/kernel/iommu_groups" / group
        groups.mkdir(parents=True, exist_ok=True)
        (groups / "type").write_text("DMA-FQ\n")
        (path / "iommu_group").symlink_to(groups)


def test_the_chain_is_the_endpoint_and_its_bridges_nearest_first(tmp_path):
    root_port, switch, endpoint = "0000:00:01.0", "0000:01:00.0", "0000:02:00.0"
    base = "sys/devices/pci0000:00"
    _port(tmp_path, f"{base}/{root_port}", "16.0", 16, aer="3")
    _port(tmp_path, f"{base}/{root_port}/{switch}", "8.0", 8, aer="x")
    _port(tmp_path, f"{base}/{root_port}/{switch}/{endpoint}", "4.0", 4, group="17")
    path = f"/{base}/{root_port}/{switch}/{endpoint}/nvme/nvme0/nvme0n1"
    end, upstream = pci_chain(Root(tmp_path), path)
    assert end is not None
    assert (end.address, end.current_gts, end.current_width, end.iommu_group, end.iommu_type) == (
        endpoint,
        4.0,
        4,
        "17",
        "DMA-FQ",
    )
    assert (end.max_gts, end.max_width, end.aer_fatal) == (32.0, 16, None)
    assert [(p.address, p.current_gts, p.current_width, p.aer_fatal) for p in upstream] == [
        (switch, 8.0, 8, None),  # a TOTAL line that is not a number: unknown
        (root_port, 16.0, 16, 3),
    ]
    assert pci_chain(Root(tmp_path), "/sys/devices/virtual/block/loop0") == (None, [])
