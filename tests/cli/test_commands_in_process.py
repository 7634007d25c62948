"""Commands the fast tier reached only through end-to-end subprocesses, run in process (typer's CliRunner) with
fakes for what they would start (issue 41 item 8): `run`'s notes and exit codes around a fake executor,
`report` with and without an output option, `schedule install` into a scratch cron file and unit directory,
and `agent`'s arguments up to the fio server it would serve (never started)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from iolab.cli import app
from iolab.errors import RunFailed, UserError
from iolab.runner.execute import RunOutcome
from iolab.store.db import open_store
from tests.store.test_series import SEQ_READ, _bw, _run

BRACKETED = "give it in [host] and [bold]not bold[/bold]"


def invoke(*args: str) -> tuple[int, str]:
    """The exit code and everything said of one command, iolab's errors mapped as the console script maps them
    (`iolab.cli.main`: the message, exit 2 for bad input, 3 for a failed run)."""
    shown = CliRunner().invoke(app, list(args))
    if isinstance(shown.exception, (UserError, RunFailed)):
        return shown.exception.exit_code, shown.output + str(shown.exception)
    return shown.exit_code, shown.output


def _fake_execute(monkeypatch, **outcome):  # type: ignore[no-untyped-def]
    """`execute` replaced by one that stores a finished run of one point and returns `outcome`'s fields."""
    import iolab.runner.execute

    def execute(request, store, progress, resume=None, fresh=False):  # type: ignore[no-untyped-def]
        run_id, _ = _run(store, "seq", SEQ_READ, [_bw(400)])
        return RunOutcome(run_id, "complete", **outcome)

    monkeypatch.setattr(iolab.runner.execute, "execute", execute)


@pytest.mark.parametrize("quiet", [True, False])
def test_run_says_notes_and_warnings_verbatim_brackets_and_all(monkeypatch, tmp_path, quiet):
    _fake_execute(monkeypatch, notes=[f"note {BRACKETED}"], warnings=[f"warning {BRACKETED}"])
    shown = CliRunner().invoke(app, ["run", "--no-report", *(["--quiet"] if quiet else []), str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    assert ("note: note " + BRACKETED in said) is not quiet  # a note is for a person watching, not for cron
    assert ("note: warning " + BRACKETED in said) is quiet  # a warning is said even with --quiet
    assert "Sequential read: 400 MB/s" in shown.stdout  # the run's tables on standard output


def test_run_resumed_with_quiet_says_how_many_points_it_kept(monkeypatch, tmp_path):
    _fake_execute(monkeypatch, resumed=True, skipped=1)
    shown = CliRunner().invoke(app, ["run", "--no-report", "--quiet", str(tmp_path)])
    assert "(1 finished point kept); --fresh starts anew" in shown.output
    _fake_execute(monkeypatch, resumed=True, skipped=3)
    assert "(3 finished points kept)" in CliRunner().invoke(app, ["run", "--no-report", "-q", str(tmp_path)]).output


@pytest.mark.parametrize(
    ("outcome", "said"),
    [
        (
            {"failed": ["seq: fio exited 1", "other"]},
            "2 point(s) failed, the others are kept in run 1: seq: fio exited 1",
        ),
        (
            {"failed_hosts": ["b: gone", "c: lost"]},
            "host(s) failed during run 1, whose points are kept without them: b: gone; c: lost",
        ),
    ],
)
def test_a_run_with_failed_points_or_hosts_exits_3_naming_them(monkeypatch, tmp_path, outcome, said):
    _fake_execute(monkeypatch, **outcome)
    code, shown = invoke("run", "--no-report", str(tmp_path))
    assert code == 3 and said in " ".join(shown.split())


def _stored_run(iolab_home: Path) -> int:
    store = open_store(iolab_home)
    run_id, _ = _run(store, "seq", SEQ_READ, [_bw(400), _bw(404)])
    store.close()
    return run_id


def test_report_with_no_output_option_prints_the_text_tables_and_with_html_only_writes_the_page(iolab_home, tmp_path):
    run_id = _stored_run(iolab_home)
    runner = CliRunner()
    text = runner.invoke(app, ["report", str(run_id)])
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith(f"Run {run_id}\n  Sequential read: 402 MB/s")  # the mean of the two repeats
    document = json.loads(runner.invoke(app, ["report", str(run_id), "--json"]).stdout)
    assert [run["id"] for run in document["runs"]] == [run_id]
    page = tmp_path / "page.html"
    only = runner.invoke(app, ["report", str(run_id), "--html", str(page)])
    assert only.exit_code == 0 and only.stdout == "" and page.read_text().startswith("<!DOCTYPE html>")
    both = runner.invoke(app, ["report", str(run_id), "--html", str(page), "--format", "markdown"])
    assert both.stdout.startswith("#") and f"Run {run_id}" in both.stdout


PLAN = '[options]\nrw = "randread"\nbs = "4k"\nsize = "1m"\nruntime = 1\ntime_based = true\nioengine = "psync"\n'


def test_schedule_install_writes_a_cron_line_running_this_iolab_on_absolute_targets(tmp_path, monkeypatch):
    plan = tmp_path / "nightly plan.toml"
    plan.write_text(PLAN)
    cron, lock = tmp_path / "cron.d" / "iolab", tmp_path / "lock"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    shown = CliRunner().invoke(
        app,
        ["schedule", "install", str(plan), "data", "--every", "1h", "--cron-file", str(cron), "--lock-file", str(lock)],
    )
    assert shown.exit_code == 0, shown.output
    line = cron.read_text().splitlines()[-1]
    assert line.startswith("0 * * * * ") and f"{tmp_path / 'data'}" in line  # a relative target made absolute
    assert "scheduled nightly-plan: every 1h" in shown.output  # the name from the plan file, made safe


def test_schedule_install_dry_run_installs_nothing_and_needs_a_target(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(PLAN)
    units = tmp_path / "units"
    runner = CliRunner()
    dry = runner.invoke(
        app, ["schedule", "install", str(plan), str(tmp_path), "--every", "6h", "--unit-dir", str(units), "--dry-run"]
    )
    assert dry.exit_code == 0, dry.output
    assert (
        "OnCalendar=*-*-* 00/6:00:00" in dry.output
        and "nothing installed (--dry-run): p would run every 6h" in dry.output
    )
    assert not units.exists()
    code, bare = invoke("schedule", "install", str(plan), "--every", "6h", "--unit-dir", str(units))
    assert code == 2 and "must name its targets" in bare
    code, missing = invoke(
        "schedule", "install", str(tmp_path / "nope.toml"), "--every", "1h", "--unit-dir", str(units)
    )
    assert code == 2 and "does not exist" in missing


@pytest.fixture
def served(monkeypatch):  # type: ignore[no-untyped-def]
    """`iolab agent` with fio found at /usr/bin/fio and its server never started: the argv it would serve."""
    import iolab.cli.agent

    calls: list[tuple[list[str], Path | None]] = []
    monkeypatch.setattr(iolab.cli.agent.programs, "find", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(iolab.cli.agent, "_serve", lambda argv, sock: calls.append((argv, sock)))
    return calls


def test_agent_serves_on_a_private_unix_socket_by_default_and_says_how_to_reach_it(served, iolab_home):
    shown = CliRunner().invoke(app, ["agent"])
    assert shown.exit_code == 0, shown.output
    sock = iolab_home / "agent" / "fio.sock"
    assert served == [(["/usr/bin/fio", f"--server=sock:{sock}"], sock)]
    assert f"fio server on the Unix socket {sock}" in shown.output and f"socket={sock}" in shown.output
    assert os.stat(sock.parent).st_mode & 0o777 == 0o700


def test_agent_on_tcp_needs_insecure_and_says_who_can_drive_it(served):
    code, refused = invoke("agent", "--bind", "127.0.0.1", "--port", "18765")
    assert code == 2 and "or add --insecure" in refused and not served
    code, alone = invoke("agent", "--insecure")  # --insecure alone: no TCP asked for
    assert code == 2 and "--insecure goes with --bind" in alone
    code, both = invoke("agent", "--bind", "127.0.0.1", "--insecure", "--socket", "/tmp/x.sock")
    assert code == 2 and "not both" in both
    code, shown = invoke("agent", "--bind", "127.0.0.1", "--port", "18765", "--insecure")
    assert code == 0, shown
    assert served == [(["/usr/bin/fio", "--server=127.0.0.1,18765"], None)]
    assert "INSECURE: fio server on TCP 127.0.0.1:18765: every user of this host can make it read" in " ".join(
        shown.split()
    )
    code, remote = invoke("agent", "--bind", "0.0.0.0", "--port", "18766", "--insecure")
    assert code == 0 and "every user of this host and of every host that can reach 0.0.0.0" in " ".join(remote.split())


def test_agent_refuses_a_missing_fio_and_a_socket_path_fio_cannot_take(monkeypatch, tmp_path):
    import iolab.cli.agent

    monkeypatch.setattr(iolab.cli.agent, "_serve", lambda argv, sock: pytest.fail("served"))
    code, missing = invoke("agent", "--fio", "no-such-fio-binary")
    assert code == 2 and "no-such-fio-binary not found" in missing
    monkeypatch.setattr(iolab.cli.agent.programs, "find", lambda name: "/usr/bin/fio")
    code, spaced = invoke("agent", "--socket", str(tmp_path / "a b.sock"))
    assert code == 2 and "a space" in spaced
    code, long = invoke("agent", "--socket", str(tmp_path / ("s" * 120)))
    assert code == 2 and "a Unix socket's is at most" in long
    (tmp_path / "file").write_text("")
    code, taken = invoke("agent", "--socket", str(tmp_path / "file"))
    assert code == 2 and "is not a socket" in taken


def test_run_dry_run_lists_each_point_and_repeat_and_what_it_writes_and_runs_nothing(monkeypatch, tmp_path):
    import iolab.runner.execute

    monkeypatch.setattr(iolab.runner.execute, "execute", lambda *a, **k: pytest.fail("a dry run ran"))
    data = tmp_path / "data"
    data.mkdir()
    code, said = invoke("run", "--dry-run", "--runtime", "2", "--repeat", "2", str(data))
    assert code == 0, said
    lines = said.splitlines()
    points = [line for line in lines if line.startswith("  ")]
    assert len(points) == 10 and lines[-1] == "10 points, estimated 48 s"
    assert points[0].startswith(f"  seqread-1m-qd32 on {data}: ") and "runtime=2s" in points[0]
    assert points[1].startswith(f"  seqread-1m-qd32 repeat 2 on {data}: ")
    (writes,) = [line for line in lines if line.startswith("writes: ")]
    assert writes.startswith(f"writes: scratch file {data}/iolab-scratch-") and "removed afterwards" in writes
    assert not list(data.iterdir())  # nothing made


def test_run_refuses_two_plans_a_missing_plan_and_a_format_it_cannot_write(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(PLAN)
    code, said = invoke("run", "--dry-run", "--preset", "quick", str(plan), str(tmp_path))
    assert code == 2 and "give one plan: a plan file or --preset, not both" in said
    code, said = invoke("run", "--dry-run", str(tmp_path / "none.toml"), str(tmp_path))
    assert code == 2 and "none.toml: no such plan file" in said
    code, said = invoke("run", "--dry-run", "--format", "prometheus", str(tmp_path))
    assert code == 2 and "cannot write" in said


def test_clean_with_nothing_left_behind_says_so(iolab_home):
    for args in (["clean"], ["clean", "--dry-run"]):
        code, said = invoke(*args)
        assert code == 0 and said.strip() == "nothing to clean: no scratch or host settings left by killed runs"


SYSROOT = Path(__file__).resolve().parents[1] / "data" / "sysroots" / "vm-amd"


def test_doctor_of_a_captured_tree_names_its_findings_and_a_saved_bundle_gives_the_live_host_s(tmp_path):
    code, said = invoke("doctor", "--root", str(SYSROOT), "--json")
    assert code == 0, said
    found = {(f["rule_id"], f["severity"]) for f in json.loads(said)}
    assert {("MITIG-SRSO", "warning"), ("ENV-VM", "info")} <= found
    code, said = invoke("probe", "--root", str(SYSROOT), "--json")
    assert code == 0 and json.loads(said)["kernel"] == "6.18.44-fc-v769"
    bundle = tmp_path / "host.tar.gz"
    code_before, before = invoke("doctor", "--json")
    code, said = invoke("probe", "--save", str(bundle))
    assert code == 0 and said.startswith("saved ") and f"`iolab doctor --from {bundle}`" in said
    code, from_bundle = invoke("doctor", "--from", str(bundle), "--json")
    code_after, after = invoke("doctor", "--json")
    assert code == code_before == code_after == 0
    # The bundle is the host as it was read, between two reads of the live host. Other workers' loop devices
    # and mounts come and go meanwhile, so each read may differ: the bundle holds every rule both live reads
    # found and none that neither found (on a quiet host all three are the same).
    rules, found_before, found_after = (
        {f["rule_id"] for f in json.loads(said)} for said in (from_bundle, before, after)
    )
    assert found_before & found_after <= rules <= found_before | found_after, (found_before, rules, found_after)


def test_doctor_and_probe_refuse_a_root_beside_a_bundle_and_print_the_catalogue(tmp_path):
    code, said = invoke("doctor", "--from", str(tmp_path / "b.tar.gz"), "--root", str(SYSROOT))
    assert code == 2 and "use either --from BUNDLE or --root DIR, not both" in said
    code, said = invoke("probe", "--save", str(tmp_path / "b.tar.gz"), "--root", str(SYSROOT))
    assert code == 2 and "--save captures the live machine" in said
    code, said = invoke("doctor", "--rules-md")
    assert code == 0 and said.startswith("# Doctor rules\n") and "MITIG-SRSO" in said


def test_report_png_writes_the_charts_into_a_directory_or_says_why_it_cannot(iolab_home, tmp_path):
    run_id = _stored_run(iolab_home)
    charts = tmp_path / "charts"
    code, said = invoke("report", str(run_id), "--png", str(charts))
    written = sorted(p.suffix for p in charts.iterdir())
    assert code == 0 and written and set(written) == {".png"} and f"wrote {len(written)} charts into {charts}" in said
    blocked = tmp_path / "file"
    blocked.write_text("")
    code, said = invoke("report", str(run_id), "--png", str(blocked / "charts"))
    assert code == 2 and f"cannot create {blocked / 'charts'} for the PNG charts: " in said
    assert said.rstrip().endswith("; choose another --png")
