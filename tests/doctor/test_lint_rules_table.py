"""Lint on real job files and the rule table as docs/rules.md shows it, without running iolab (moved from
test_lint_and_cli.py, whose other tests run the `iolab` command end to end)."""

from __future__ import annotations

import re
from pathlib import Path

from iolab.doctor import lint_jobs, rules_markdown
from iolab.doctor.engine import all_rules
from iolab.fio.jobfile import read_jobfile
from iolab.models import Severity

DATA = Path(__file__).resolve().parents[1] / "data"
SEED_JOB = DATA / "jobs" / "seed003_seq_read.fio"
REPO = Path(__file__).resolve().parents[2]


def test_lint_seed_job_reports_engine_size_and_file_not_buffered():
    findings = lint_jobs(read_jobfile(SEED_JOB), mem_total_bytes=16 * 2**30)
    by_id = {f.rule_id: f for f in findings}
    assert by_id["FIO-SYNC-ENGINE-QD"].severity is Severity.WARNING
    assert by_id["FIO-SYNC-ENGINE-QD"].evidence["ioengine"] == "(default)"
    assert by_id["FIO-CACHE-SIZE"].evidence["distinct bytes"] == "1.0 GiB"
    assert by_id["FIO-FILE-TARGET"].evidence["target"] == "/tmp/fio-test"
    assert "FIO-BUFFERED" not in by_id  # the job asks for direct=1
    assert "FIO-SHORT-RUN" not in by_id  # time_based, 30 s


def test_lint_flags_buffered_when_direct_is_absent(tmp_path):
    job = tmp_path / "buffered.fio"
    job.write_text(SEED_JOB.read_text().replace("direct=1\n", ""))
    ids = {f.rule_id for f in lint_jobs(read_jobfile(job), mem_total_bytes=16 * 2**30)}
    assert "FIO-BUFFERED" in ids


def test_rules_md_is_up_to_date():
    committed = (REPO / "docs" / "rules.md").read_text()
    assert committed == rules_markdown(), "regenerate with: iolab doctor --rules-md > docs/rules.md"


def test_every_finding_comes_from_a_registered_rule():
    """One diagnosis stage: a Finding is made only by a doctor Rule (or read back from the store), so every
    finding ID iolab can emit is in the rule table, and so in docs/rules.md."""
    src = REPO / "src" / "iolab"
    makers = sorted(str(path.relative_to(src)) for path in src.rglob("*.py") if "Finding(" in path.read_text())
    assert makers == ["doctor/rule.py", "store/queries.py"]
    committed = (REPO / "docs" / "rules.md").read_text()
    ids = {r.id for r in all_rules()}
    assert all(f"## {rule_id}\n" in committed for rule_id in ids)
    assert all(re.fullmatch(r"[A-Z]+(-[A-Z0-9]+)+", rule_id) for rule_id in ids), "one ID scheme: FAMILY-NAME"
