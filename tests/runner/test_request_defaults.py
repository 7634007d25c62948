"""A run's request as stored and read back (issue 41 item 8): the defaults a request built in code or read
from an older run's stored dict gets are the command line's own, and a run's identity is the one an earlier
iolab stored (running the same plan again must find an interrupted run of an older version to resume it)."""

from __future__ import annotations

from iolab.cli.request_flags import RunFlags, build_request
from iolab.runner.request import RunRequest, plan_identity

# What `iolab run` with no flag asks for, field by field: a request stored before a field existed reads back
# with these, so a resumed run does what the run stored meant.
COMMAND_LINE_DEFAULTS = {
    "plan": "quick",
    "settings": {},
    "targets": [],
    "allow_write": False,
    "verify_blank": "full",
    "allow_commands": False,
    "allow_host_changes": False,
    "allow_unknown_options": False,
    "size": None,
    "repeat": None,
    "telemetry_interval": 1.0,
    "devices": [],
    "array_modes": ["together", "alone", "scaling"],
    "subsets": ["doubling"],
    "fio": "fio",
    "command": "",
    "hosts": [],
    "skip_unreachable": False,
    "on_host_failure": "continue",
    "stopping": {},
}


def test_a_request_with_no_field_given_is_what_the_command_line_asks_with_no_flag():
    assert RunRequest().to_dict() == COMMAND_LINE_DEFAULTS
    assert build_request(RunFlags.given({}), None, []).to_dict() == COMMAND_LINE_DEFAULTS


def test_an_older_runs_stored_request_reads_back_with_those_defaults_for_what_it_lacks():
    stored = {"plan": "seq", "targets": ["/srv"], "allow_write": True}
    assert RunRequest.from_dict(stored).to_dict() == COMMAND_LINE_DEFAULTS | stored


def test_a_runs_identity_is_the_one_earlier_versions_stored():
    request = RunRequest(plan="quick", settings={"runtime": 5})
    assert plan_identity(["k2", "k1"], request, [("/srv/b", ["h2", "h1"]), ("/srv/a", [])]) == "6a07c330bf83d82b"
    assert plan_identity([], RunRequest(plan="metadata"), [("/srv/a", [])]) == "23db7c66e1934a35"
