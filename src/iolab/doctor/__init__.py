"""The doctor: rules that turn a Snapshot, runs or job files into Findings."""

from iolab.doctor.engine import all_rules, diagnose, lint_jobs, rules_markdown

__all__ = ["all_rules", "diagnose", "lint_jobs", "rules_markdown"]
