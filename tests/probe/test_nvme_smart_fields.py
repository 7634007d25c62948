"""How nvme-cli's SMART log is read (probe.nvme.read_smart), over captured command output: 128-bit counters
as numbers or as {"value": n} objects, a true/false or missing field as unknown (never 1 or 0), temperatures
in Kelvin with a value below 150 read as Celsius (older nvme-cli), 0 as unknown; output that is not JSON says
so."""

from __future__ import annotations

import json

import pytest

from iolab.probe.nvme import read_smart
from iolab.probe.root import Root


def _tree(tmp_path, log: object, ident: object = None) -> Root:
    commands = tmp_path / "iolab" / "commands"
    commands.mkdir(parents=True)
    text = log if isinstance(log, str) else "nvme: note before the JSON\n" + json.dumps(log)
    (commands / "nvme-smart-log-nvme0.json").write_text(text)
    if ident is not None:
        (commands / "nvme-id-ctrl-nvme0.json").write_text(json.dumps(ident))
    return Root(tmp_path)


def test_counters_flags_and_temperatures_are_read_as_nvme_cli_writes_them(tmp_path):
    log = {
        "critical_warning": 0,
        "temperature": 310,
        "avail_spare": {"value": 100},
        "spare_thresh": True,
        "percentage_used": 3,
        "media_errors": 340282366920938463463374607431768211455,
        "num_err_log_entries": "12",
    }
    smart, why = read_smart(_tree(tmp_path, log, {"wctemp": 70, "cctemp": 0}), "nvme0")
    assert why == "" and smart is not None
    assert (smart.critical_warning, smart.temperature_k, smart.avail_spare, smart.spare_thresh) == (0, 310, 100, None)
    assert smart.percent_used == 3 and smart.media_errors == 2**128 - 1 and smart.num_err_log_entries == 12
    assert smart.warning_temp_time is None  # missing: unknown, not 0
    assert (smart.wctemp_k, smart.cctemp_k) == (343, None)  # 70 can only be Celsius; 0 is unknown


@pytest.mark.parametrize(("given", "kelvin"), [(149, 422), (150, 150), (1, 274), (-5, 268), ({"value": 320}, 320)])
def test_a_temperature_below_150_is_celsius(tmp_path, given, kelvin):
    smart, _ = read_smart(_tree(tmp_path, {"temperature": given}), "nvme0")
    assert smart is not None and smart.temperature_k == kelvin


def test_output_that_is_not_json_says_so(tmp_path):
    assert read_smart(_tree(tmp_path, "{ not json"), "nvme0") == (None, "nvme smart-log for nvme0 is not JSON")
