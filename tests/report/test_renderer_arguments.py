"""Every view a command prints, in every format that writes it, called as the commands and the tests call it.

The views are the very objects the commands hand their renderer (captured from `iolab show`, `report`,
`compare`, `history`, `export`, `ls`, `diff-env`, `probe`, `doctor` and `lint` on a store of two imports of one
real fio output), so a view added to a command is here at once. Each renderer is held to what its caller
relies on: its defaults are a pipe's page (`terminal=False`, `verbose=False`: what a test or a script calling
it gets), a terminal gets colours and a pipe none, `--verbose` lists what the default leaves out, and every
JSON document is indented by two spaces (docs/output-formats.md)."""

from __future__ import annotations

import json
import re

import pytest

from iolab.report import formats
from iolab.report.formats import FORMATS, VIEWS, renders
from tests.cli.test_format_matrix import FIO_JSON, JOB
from tests.in_process import iolab

COMMANDS = {
    "runs": ["show", "2"],
    "comparison": ["compare", "1", "2"],
    "history": ["history"],
    "doctor": ["doctor"],
    "export": ["export"],
    "run_list": ["ls"],
    "snapshot": ["probe", "{dir}"],
    "lint": ["lint", "{job}"],
    "host_diff": ["diff-env", "1", "2"],
}
ANSI = re.compile(r"\x1b\[[0-9;]*m")
HOSTILE = "<script>alert(1)</script> & [red]kept[/red]"  # a note a user wrote, as markup of two kinds


@pytest.fixture(scope="module")
def shown(tmp_path_factory) -> dict[str, object]:
    """View name -> the object its command handed the renderer (the command run in process, `--format json`)."""
    place = tmp_path_factory.mktemp("views")
    env = {"IOLAB_HOME": str(place / "home")}
    again = place / "again.json"
    again.write_text(FIO_JSON.read_text() + "\n")
    for path in (FIO_JSON, again):
        assert iolab("import", "--snapshot", str(path), env=env).returncode == 0
    # what a user typed, brackets and all: a target directory, a file name, a command a job runs
    (place / "d[red]1").mkdir()
    (place / "job.fio").write_text(f"{JOB}filename={place}/d[red]1/f[red]x\nexec_prerun=echo [bold]hi[/bold]\n")
    assert iolab("note", "2", HOSTILE, env=env).returncode == 0
    captured: dict[str, object] = {}
    chosen = formats.renderer

    def capturing(fmt, view):  # type: ignore[no-untyped-def]
        render = chosen(fmt, view)

        def keeping(obj, **kw):  # type: ignore[no-untyped-def]
            captured.setdefault(view.name, obj)
            return render(obj, **kw)

        return keeping

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(formats, "renderer", capturing)
        for argv in COMMANDS.values():
            words = [w.format(job=place / "job.fio", dir=place / "d[red]1") for w in argv]
            done = iolab(*words, "--format", "json", env=env, cwd=place)
            assert done.returncode == 0, (argv, done.stderr)
    return captured


def _pairs(skip: str = "") -> list[tuple[str, str]]:
    return [(view.name, fmt) for view in VIEWS for fmt in FORMATS if view.name in renders(fmt) and fmt != skip]


def test_every_view_is_captured_from_its_command(shown):
    assert set(shown) == {view.name for view in VIEWS} == set(COMMANDS)


@pytest.mark.parametrize(("view", "fmt"), _pairs(skip="html"), ids=lambda v: str(v))
def test_a_renderer_s_defaults_are_a_pipe_s_page(view, fmt, shown):
    """What a script or a test calling a renderer with the view alone gets is what `--format FMT | less` prints.
    (An HTML page reads neither argument: the same page wherever it goes, and a second one costs a second.)"""
    render = renders(fmt)[view]
    assert render(shown[view]) == render(shown[view], terminal=False, verbose=False)


@pytest.mark.parametrize("view", [name for name, fmt in _pairs() if fmt == "json"])
def test_every_json_document_is_indented_by_two_spaces(view, shown):
    text = renders("json")[view](shown[view])
    assert text == json.dumps(json.loads(text), indent=2) + "\n"


@pytest.mark.parametrize("view", ["runs", "comparison", "doctor", "run_list", "snapshot", "lint"])
def test_a_terminal_gets_colours_and_a_pipe_none(view, shown):
    render = renders("text")[view]
    piped, coloured = render(shown[view], terminal=False), render(shown[view], terminal=True)
    assert not ANSI.search(piped) and ANSI.search(coloured), view


def test_verbose_lists_every_finding_the_default_leaves_unlisted(shown):
    render = renders("text")["runs"]
    default, verbose = render(shown["runs"]), render(shown["runs"], verbose=True)
    (unlisted,) = re.findall(r"^not listed: \d+ info \(([A-Z0-9-, ]+)\)", default, re.MULTILINE)
    rules = unlisted.split(", ")
    assert rules and not any(re.search(rf"^INFO +{rule} ", default, re.MULTILINE) for rule in rules)
    assert all(re.search(rf"^INFO +{rule} ", verbose, re.MULTILINE) for rule in rules)
    assert "not listed" not in verbose and "Not evaluated (1):" in verbose


@pytest.mark.parametrize("view", ["runs", "comparison", "doctor", "run_list", "snapshot", "lint", "host_diff"])
def test_a_terminal_s_colours_are_iolab_s_own(view, shown, monkeypatch):
    """Rich's highlighter paints numbers, paths and quoted words of any line it is let at; iolab colours what it
    means to (a severity, a verdict, a status) and nothing else: the page is the same with it switched off."""
    from rich.highlighter import ReprHighlighter

    render = renders("text")[view]
    coloured = render(shown[view], terminal=True, verbose=True)
    monkeypatch.setattr(ReprHighlighter, "highlight", lambda self, text: None)
    assert render(shown[view], terminal=True, verbose=True) == coloured


def test_what_a_user_typed_shows_whole_in_the_text(shown):
    """Brackets in a path or a command are the user's text, never Rich markup taken out of it."""
    (target,) = shown["snapshot"].targets
    assert target.path.endswith("/d[red]1")
    assert f"target {target.path}: device " in renders("text")["snapshot"](shown["snapshot"])
    said = renders("text")["lint"](shown["lint"])
    assert "runs: [r] exec_prerun=echo [bold]hi[/bold] (iolab runs it only with --allow-commands)" in said


def test_a_note_with_markup_of_two_kinds_shows_as_text_on_every_page(shown):
    """HTML is escaped, Rich's brackets kept, Markdown's characters escaped: in the text, the HTML page (without
    its charts, which hold no note), the Markdown and `ls --json` the note reads as the user wrote it."""
    from iolab.report.html import render_html

    page, _ = render_html(shown["runs"].views, svg=False)
    assert (
        "<dd>&lt;script&gt;alert(1)&lt;/script&gt; &amp; [red]kept[/red]</dd>" in page and "<script>alert" not in page
    )
    assert f"  note: {HOSTILE}\n" in renders("text")["runs"](shown["runs"])
    assert f"- **note:** {HOSTILE}\n" in renders("markdown")["runs"](shown["runs"]).replace("\\", "")
    listed = json.loads(renders("json")["run_list"](shown["run_list"]))
    assert [run["notes"] for run in listed] == [[HOSTILE], []]  # `ls --json`: run 2, then run 1
