"""The Python API: the README's "Using from Python" examples run as written, each printed line as
its comment says; and `solve` / `audit` refuse bad input, keep run folders, and draw themselves."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

import smtpuzzles
from smtpuzzles.bundled import write_examples

ROOT = Path(__file__).resolve().parents[1]


def readme_python() -> list[str]:
    block = (ROOT / "README.md").read_text(encoding="utf-8").split("## Using from Python", 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in block.splitlines() if line.startswith("    ")]


def test_the_readme_python_examples_print_what_their_comments_say(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_examples(tmp_path / "smtpuzzles-examples")  # as the README's `smtpuzzles examples` does
    lines = readme_python()
    expected = [line.split("  # ", 1)[1] for line in lines if line.startswith("print(")]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec("\n".join(lines), {})
    assert printed.getvalue().splitlines() == expected
    (kept,) = (tmp_path / "runs").iterdir()  # result.save("runs")
    assert json.loads((kept / "run.json").read_text())["status"] == "optimal" and (kept / "reference.lrat.gz").is_file()


def test_a_result_keeps_its_folder_until_saved_and_audits_from_the_copy(tmp_path):
    result = smtpuzzles.solve("kingtour", {"size": 4, "box": "2x2"})
    temporary = result.run_dir
    assert temporary.is_dir() and result.status == "optimal" and len(result.value) == 16
    assert any(e.startswith("recorded UNSAT step") for e in result.evidence)
    saved = result.save(tmp_path / "kept")
    assert saved == result.run_dir and saved.parent == tmp_path / "kept" and not (saved / ".lock").exists()
    report = smtpuzzles.audit(saved)
    assert report.verdict == "consistent" and report.exit_code == 0 and report.instance["description"] == "4x4, 2x2 boxes"
    assert smtpuzzles.audit(saved, proof=True).verdict == "clean"  # proofs made here, the reference one too
    assert smtpuzzles.audit(saved, proof=True, jobs=1, keep_parts=tmp_path / "parts").verdict == "clean"
    assert (tmp_path / "parts").is_dir()  # made; parts are kept only for proofs made in parts (14x14 on)


def test_an_out_folder_holds_the_run(tmp_path):
    result = smtpuzzles.solve("nonary", doors=[[9, 0, -1]], out=tmp_path / "mine")
    assert result.run_dir.parent == tmp_path / "mine" and (result.status, result.value) == ("optimal", 5)


def test_sources_clue_text_and_files_give_the_same_board(tmp_path):
    clues = "6 . . . . .\n" + ". . . . . .\n" * 5
    (tmp_path / "clues.txt").write_text(clues)
    by_text = smtpuzzles.solve("kingtour", {"size": 6, "box": "2x3", "clues": clues})
    by_file = smtpuzzles.solve("kingtour", size=6, box="2x3", clues=str(tmp_path / "clues.txt"))
    assert by_text.value == by_file.value and by_text.solution["grid"][0][0] == 6
    grid = (ROOT / "smtpuzzles" / "examples" / "tatamibari" / "01.txt")
    assert smtpuzzles.solve("tatamibari", grid.read_text()).value == smtpuzzles.solve("tatamibari", grid).value


@pytest.mark.parametrize("call,message", [
    (lambda: smtpuzzles.solve("kingtour", {"size": 4}, colour=3), "kingtour takes no option 'colour'"),
    (lambda: smtpuzzles.solve("tatamibari", "+.\n..\n", unique=True, count=3), "ask for unique or count, not both"),
    (lambda: smtpuzzles.solve("rogue", "@$", unique=True), "rogue has no unique mode"),
    (lambda: smtpuzzles.solve("kingtour", {"size": "9"}), "size must be an integer"),
    (lambda: smtpuzzles.solve("nonary", 12), "source must be a path, text, a URL or a dict"),
    (lambda: smtpuzzles.solve("nonary", "https://example.org/map"), "nonary reads a file or text, not a URL"),
    (lambda: smtpuzzles.solve("chess", "x"), "chess"),
    (lambda: smtpuzzles.audit("/nonexistent/run"), "not a run folder"),
    (lambda: smtpuzzles.audit("/nonexistent/run", jobs=0), "audit(jobs=...): 0 is below the smallest allowed, 1"),
    (lambda: smtpuzzles.audit("/nonexistent/run", keep_parts="parts"), "keeps the parts of proofs audit(proof=...) makes"),
    (lambda: smtpuzzles.audit("/nonexistent/run", proof=True, keep_parts=""), "audit(keep_parts=...): names no folder"),
])
def test_bad_input_raises_one_input_error_naming_the_problem(call, message):
    with pytest.raises(smtpuzzles.InputError) as caught:
        call()
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_results_draw_themselves_in_rich_and_in_a_notebook():
    from rich.console import Console

    result = smtpuzzles.solve("kingtour", {"size": 4, "box": "2x2"})
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(result)
    shown = console.export_text()
    assert shown.startswith("kingtour optimal") and result.value in shown.replace(" ", "") and "King's tour" in shown
    assert max(len(line) for line in shown.splitlines()) <= 80
    svg = result._repr_svg_()  # the puzzle's drawing (tests/test_svg.py); no HTML, which a notebook would prefer
    assert svg.startswith("<svg") and "optimal" in svg and "<script" not in svg and result._repr_html_() is None
    report = smtpuzzles.audit(result.run_dir)
    console.print(report)
    assert "audit consistent" in console.export_text() and "<pre" in report._repr_html_()


def test_a_path_that_is_not_there_is_the_command_lines_one_line_not_puzzle_text(tmp_path, cli):
    """A one-word source with a folder or a file suffix names a file: missing, it is "no such file",
    as `smtpuzzles solve` says it (it was read as a map and failed on its '/')."""
    from smtpuzzles.errors import InputError

    missing = "no/such/file.txt"
    with pytest.raises(InputError) as caught:
        smtpuzzles.solve("rogue", missing)
    code, _, err = cli("solve", "rogue", missing)
    assert code == 2 and err.strip() == f"smtpuzzles: error: {caught.value}"
    assert str(caught.value) == "no/such/file.txt: no such file"
    # The same for a puzzle option that takes a file (kingtour's clues, --clues FILE).
    with pytest.raises(InputError, match="^no/such/clues.txt: no such file$"):
        smtpuzzles.solve("kingtour", {"size": 4, "box": "2x2", "clues": "no/such/clues.txt"})
    code, _, err = cli("solve", "kingtour", "--size", 4, "--box", "2x2", "--clues", "no/such/clues.txt")
    assert code == 2 and err.strip() == "smtpuzzles: error: no/such/clues.txt: no such file"


def test_a_count_says_whether_it_is_complete_as_json_does(cli):
    """examples/tatamibari/03.txt has two solutions (expected.json): a count up to 1 stops at its
    limit, a count of all is complete."""
    source = ROOT / "smtpuzzles" / "examples" / "tatamibari" / "03.txt"
    assert json.loads((source.parent / "expected.json").read_text())["03.txt"]["count"] == 2
    for limit, count, complete in ((1, 1, False), (True, 2, True)):
        result = smtpuzzles.solve("tatamibari", source, count=limit)
        assert (result.count, result.count_complete) == (count, complete)
        printed = cli.solve_json("tatamibari", source, "--count", *([] if limit is True else [limit]), code=0)
        assert (printed["count"], printed["count_complete"]) == (count, complete)
