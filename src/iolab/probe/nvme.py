"""NVMe health through nvme-cli (`smart-log`, `id-ctrl` in JSON), live or captured.

The SMART log is not in sysfs, so it is read with the `nvme` tool when it
is installed (root needed) and kept in bundles under iolab/commands/.
"""

from __future__ import annotations

import json
from typing import Any

from iolab.models.snapshot import NvmeSmart
from iolab.probe.root import Root


def _int(value: Any) -> int | None:
    """nvme-cli prints 128-bit counters as JSON numbers, and some fields as objects."""
    if isinstance(value, dict):
        value = value.get("value")
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _kelvin(value: Any) -> int | None:
    """Temperatures are Kelvin in nvme-cli JSON; a value below 150 can only be Celsius."""
    number = _int(value)
    if number is None or number == 0:
        return None
    return number + 273 if number < 150 else number


def read_smart(root: Root, controller: str) -> tuple[NvmeSmart | None, str]:
    """SMART log of /dev/<controller>, or (None, why it could not be read)."""
    text, reason = root.command(
        f"nvme-smart-log-{controller}.json", ["nvme", "smart-log", f"/dev/{controller}", "-o", "json"]
    )
    if text is None:
        return None, reason
    try:
        log = json.loads(text[text.index("{") :])
    except ValueError:
        return None, f"nvme smart-log for {controller} is not JSON"
    ident_text, _ = root.command(
        f"nvme-id-ctrl-{controller}.json", ["nvme", "id-ctrl", f"/dev/{controller}", "-o", "json"]
    )
    ident: dict[str, Any] = {}
    if ident_text:
        try:
            ident = json.loads(ident_text[ident_text.index("{") :])
        except ValueError:
            ident = {}
    smart = NvmeSmart(
        critical_warning=_int(log.get("critical_warning")),
        temperature_k=_kelvin(log.get("temperature")),
        avail_spare=_int(log.get("avail_spare")),
        spare_thresh=_int(log.get("spare_thresh")),
        percent_used=_int(log.get("percent_used", log.get("percentage_used"))),
        media_errors=_int(log.get("media_errors")),
        num_err_log_entries=_int(log.get("num_err_log_entries")),
        warning_temp_time=_int(log.get("warning_temp_time")),
        critical_comp_time=_int(log.get("critical_comp_time")),
        wctemp_k=_kelvin(ident.get("wctemp")),
        cctemp_k=_kelvin(ident.get("cctemp")),
    )
    return smart, ""
