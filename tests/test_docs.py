"""README.md is the page a newcomer reads in five minutes, and every page it leads to is reachable and whole.

The README once grew to 975 lines, its set-up commands followed by safety details, benchmark tables and
design notes, and pages under docs/ were reached only from other pages or not at all. Here: the README
opens with the two commands that set everything up, stays at most 250 lines, links every page under
docs/, and no relative link in README.md or docs/ points at a file or heading that does not exist (a page
renamed or a heading reworded breaks a test, not a reader's click).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_README_LINES = 250

LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text without fenced blocks and inline code, where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    return [m.group(1) for m in LINK.finditer(prose(text))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor on a page; a repeated heading gets -1, -2 ... as GitHub numbers them."""
    seen: dict[str, int] = {}
    found = set()
    for match in HEADING.finditer(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(match.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken(page: Path) -> list[str]:
    """The relative links of a page whose file or heading is missing."""
    bad = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        name, _, anchor = target.partition("#")
        path = (page.parent / name).resolve() if name else page
        if not path.exists():
            bad.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            bad.append(f"{target}: no heading with that anchor in {path.name}")
    return bad


def test_the_readme_is_at_most_250_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines: move detail to a page under docs/"


def test_the_readme_starts_with_the_two_set_up_commands():
    """The title, then at once the block whose first two commands set up and run, and test."""
    text = README.read_text(encoding="utf-8")
    head = re.match(r"# [^\n]+\n+```sh\n(?P<first>[^\n]*)\n(?P<second>[^\n]*)\n", text)
    assert head, "README.md must open with its title and then a ```sh block"
    assert head["first"].split()[:2] == ["make", "run"], head["first"]
    assert head["second"].split()[:2] == ["make", "test"], head["second"]


def test_every_docs_page_is_linked_from_the_readme():
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(README.read_text(encoding="utf-8"))}
    unlinked = [f"docs/{page.name}" for page in DOCS if page.resolve() not in linked]
    assert unlinked == [], f"pages under docs/ the README does not link: {unlinked}"


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken(page) == []


def test_a_broken_link_and_a_missing_heading_are_found(tmp_path):
    """The checks above can fail: a page naming a missing file, a missing heading, a link in code ignored."""
    (tmp_path / "other.md").write_text("# Other\n\n## fio's clock (`x.py`)\n\n```\n## not a heading\n```\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[a](other.md#fios-clock-xpy) [b](missing.md) [c](other.md#not-a-heading) [d](#here)\n"
        "`[e](nowhere.md)`\n\n## Here\n"
    )
    assert broken(page) == [
        "missing.md: no such file",
        "other.md#not-a-heading: no heading with that anchor in other.md",
    ]
