"""`smtpuzzles examples`: the bundled inputs and the model job file, written out of the package.

The files ship inside the package (smtpuzzles/examples/, package data), so an installed copy writes
the same ones a checkout does; tests/test_wheel.py runs them from a wheel.
"""

from __future__ import annotations

from pathlib import Path

from smtpuzzles.bundled import DEFAULT_OUT, JOB_FILE, bundled_files
from smtpuzzles.cli import build_parser
from smtpuzzles.jobfile import load_batch

from conftest import one_error_line

PACKAGED = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"


def test_examples_writes_every_bundled_file_and_a_job_file_whose_inputs_are_beside_it(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("examples")
    assert code == 0 and err == ""
    written = tmp_path / DEFAULT_OUT
    assert f"smtpuzzles batch {DEFAULT_OUT}/{JOB_FILE}" in out
    assert max(map(len, out.splitlines())) <= 80, out  # the one thing a new user reads first
    on_disk = {str(p.relative_to(PACKAGED)) for p in PACKAGED.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert {relative for relative, _ in bundled_files()} == on_disk
    assert {str(p.relative_to(written)) for p in written.rglob("*") if p.is_file()} == on_disk
    for relative in on_disk:
        assert (written / relative).read_bytes() == (PACKAGED / relative).read_bytes(), relative
    batch = load_batch(written / JOB_FILE)
    puzzles = [job.puzzle for job in batch.jobs]
    # every glob matched its files: one kingtour job, the nonary, tatamibari and rogue seed files
    assert puzzles.count("kingtour") == 1 and puzzles.count("nonary") == 10
    assert puzzles.count("tatamibari") == 5 and puzzles.count("rogue") == 11
    assert batch.out.resolve() == (tmp_path / "runs" / "examples").resolve()


def test_examples_again_is_harmless_but_an_edited_file_is_never_overwritten(cli, tmp_path):
    out = tmp_path / "mine"
    assert cli("examples", "--out", out)[0] == 0
    assert cli("examples", "--out", out)[0] == 0  # the same files: nothing to do
    edited = out / JOB_FILE
    edited.write_text(edited.read_text() + "\n# my change\n")
    removed = out / "rogue" / "08.txt"
    removed.unlink()
    code, _, err = cli("examples", "--out", out)
    assert code == 2 and "is there already and is not the bundled file" in one_error_line(err)
    assert edited.read_text().endswith("# my change\n") and not removed.exists()  # refused before writing anything


def test_examples_into_a_file_is_one_line(cli, tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    code, _, err = cli("examples", "--out", target)
    assert code == 2 and "names a file, not a folder" in one_error_line(err)


def test_no_help_text_sends_the_user_to_a_checkout_only_path():
    parser = build_parser()
    batch_help = parser.commands["batch"].format_help()
    assert "smtpuzzles examples" in " ".join(batch_help.split())
    for name, command in parser.commands.items():
        assert "scripts/" not in command.format_help(), name
