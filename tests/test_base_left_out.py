"""A published run folder may leave out its base formula (base.smt2.gz, 3 to 11 MB on a 16x16 King's
tour): the audit never reads its formula, it builds the formula from the recorded instance and
compares that formula's sha-256 with run.json's. Left out of a published run (steps.jsonl.gz), the
report says so in one line; a run.json hash the rebuilt formula does not have is a finding; a base
that is stored must still match; a plain (resumable) folder without it stays refused. And
scripts/publish_run.py, which makes such folders from a sealed run."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import fails_instead_of_hanging, one_error_line
from smtpuzzles.folders.locking import FolderLock

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("publish_run", ROOT / "scripts" / "publish_run.py")
publish_run = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(publish_run)

NOT_STORED = "base.smt2.gz is not stored in this published run"


def finished_run(cli) -> Path:
    return Path(cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)["run_dir"])


def published(cli, run_dir: Path, max_base: int = 0, cap: int = 50 * 10 ** 6) -> Path:
    """`run_dir` published into a results folder of its own (gzip standing in for zopfli)."""
    results = cli.tmp_path / "results"
    results.mkdir(exist_ok=True)
    try:
        return publish_run.publish(run_dir, results, gzip.compress, max_base, cap)
    finally:
        cli.capsys.readouterr()  # what it printed, not the next command's output


def text_of(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes())


def integrity(report: dict) -> list[tuple[bool, str]]:
    return [(f["ok"], f["text"]) for f in report["findings"] if f["section"] == "integrity"]


def test_a_published_run_without_its_base_audits_and_says_so_in_one_line(cli):
    run_dir = finished_run(cli)
    copy = published(cli, run_dir)
    assert sorted(p.name for p in copy.iterdir()) == ["input.txt", "run.json", "solution.json", "steps.jsonl.gz"]
    # What the audit is to compare: run.json's hash is the hash of the base file the run wrote.
    run = json.loads((copy / "run.json").read_text())
    assert run["base"]["sha256"] == hashlib.sha256(text_of(run_dir / "base.smt2.gz")).hexdigest()
    code, out, err = cli("audit", copy, "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "consistent", err
    lines = [(ok, text) for ok, text in integrity(report) if "base" in text]
    assert lines == [(True, f"{NOT_STORED}: the base formula was rebuilt from the recorded instance, its sha-256 "
                            "matching run.json's base.sha256")]
    code, out, err = cli("audit", copy)  # the terminal's report wraps the line: read as words
    assert code == 0 and f"✓ integrity {NOT_STORED}: the base formula was rebuilt" in " ".join(out.split()), out


def test_every_reader_of_a_published_run_works_without_its_base(cli):
    from smtpuzzles.web import _audited

    run_dir = finished_run(cli)
    copy = published(cli, run_dir)
    code, out, err = cli("audit", copy, "--proof", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean", err
    code, out, err = cli("audit", copy, "--resolve", "--solver", "z3", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean", err
    code, shown, err = cli("show", copy)
    assert code == 0, err
    _, shown_there, _ = cli("show", run_dir)
    assert shown.replace(str(copy), "RUN") == shown_there.replace(str(run_dir), "RUN")
    code, listed, err = cli("results", copy.parent, "--audit")
    assert code == 0 and "consistent" in listed, err
    code, _, err = cli("proofs", copy, "--out", cli.tmp_path / "proofs")
    assert code == 0, err
    assert any(p.name.endswith(".lrat") for p in (cli.tmp_path / "proofs").rglob("*")), err
    assert _audited(copy)[0] == "consistent"  # the web view's reader


def test_a_forged_base_hash_without_the_base_is_a_finding(cli):
    copy = published(cli, finished_run(cli))
    run = json.loads((copy / "run.json").read_text())
    run["base"]["sha256"] = hashlib.sha256(b"(assert false)\n").hexdigest()
    (copy / "run.json").write_text(json.dumps(run))
    code, out, err = cli("audit", copy, "--json")
    report = json.loads(out)
    assert code == 1 and report["verdict"] == "FAILED", err
    assert (False, f"{NOT_STORED}: the base formula was rebuilt from the recorded instance, its sha-256 differing "
                   "from run.json's base.sha256") in integrity(report)


def test_a_stored_base_must_still_match_its_hash(cli):
    from smtpuzzles.folders.durable import write_gz

    copy = published(cli, finished_run(cli), max_base=10 ** 9)
    assert (copy / "base.smt2.gz").is_file()  # under the threshold: kept
    code, out, err = cli("audit", copy, "--json")
    assert code == 0 and NOT_STORED not in out, err
    write_gz(copy / "base.smt2.gz", text_of(copy / "base.smt2.gz").decode() + "(assert false)\n")
    code, _, err = cli("audit", copy)
    assert code == 2 and "base formula does not match its recorded sha-256" in one_error_line(err)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_a_base_that_is_not_a_regular_file_is_one_line(cli, kind):
    run_dir = finished_run(cli)
    copy = published(cli, run_dir)
    base = copy / "base.smt2.gz"
    if kind == "symlink":  # to the very file the run wrote: still not the folder's own
        base.symlink_to(run_dir / "base.smt2.gz")
    elif kind == "fifo":
        os.mkfifo(base)
    else:
        base.mkdir()
    with fails_instead_of_hanging(20):
        code, _, err = cli("audit", copy)
    line = one_error_line(err)
    assert code == 2 and "base.smt2.gz" in line, line
    assert ("symbolic link" if kind == "symlink" else "not a regular file") in line


def test_a_plain_folder_without_its_base_is_still_refused(cli):
    run_dir = finished_run(cli)
    (run_dir / "base.smt2.gz").unlink()
    code, _, err = cli("audit", run_dir)
    assert code == 2 and "base formula is missing" in one_error_line(err)


def test_a_published_run_without_its_base_is_never_resumed(cli):
    """Resumed, the run would write steps beside a published ledger that is never written to: one
    line, exit 2, nothing changed (the run folder it was published from resumes as before)."""
    code, out, err = cli("solve", "kingtour", "--size", 9, "--box", "3x3", "--time-limit", "0.05", "--json",
                         "--out", cli.tmp_path / "runs")
    assert code == 3, err
    copy = published(cli, Path(json.loads(out)["run_dir"]))
    assert not (copy / "base.smt2.gz").exists()
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    code, _, err = cli("solve", "kingtour", "--resume", copy)
    assert code == 2 and "published compressed" in one_error_line(err)
    assert {p.name: p.read_bytes() for p in copy.iterdir() if p.name != ".lock"} == before


# ------------------------------------------------------------------------------ scripts/publish_run.py
def test_publishing_keeps_every_text_and_leaves_out_what_the_audit_rebuilds(cli):
    run_dir = finished_run(cli)
    assert cli("certify", run_dir)[0] == 0
    copy = published(cli, run_dir, max_base=10 ** 9)
    names = sorted(p.name for p in copy.iterdir())
    assert names == ["base.smt2.gz", "certificate.cnf.gz", "input.txt", "proof.lrat.gz", "reference.cnf.gz",
                     "reference.lrat.gz", "run.json", "solution.json", "steps.jsonl.gz"]
    assert text_of(copy / "steps.jsonl.gz") == (run_dir / "steps.jsonl").read_bytes()
    for name in ("base.smt2.gz", "certificate.cnf.gz", "proof.lrat.gz"):
        assert text_of(copy / name) == text_of(run_dir / name), name
    for name in ("run.json", "solution.json", "input.txt"):
        assert (copy / name).read_bytes() == (run_dir / name).read_bytes(), name
    code, out, err = cli("audit", copy, "--proof", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean", err


def refused(cli, run_dir: Path, code: int, words: str, **kwargs) -> None:
    with pytest.raises(publish_run.Refused) as caught:
        published(cli, run_dir, **kwargs)
    assert caught.value.code == code and words in str(caught.value), str(caught.value)
    results = cli.tmp_path / "results"
    assert [p.name for p in results.iterdir()] == []  # nothing left behind


def test_publishing_refuses_an_unsealed_a_locked_or_a_published_folder(cli):
    run_dir = finished_run(cli)
    (cli.tmp_path / "results").mkdir()
    with FolderLock(run_dir):
        refused(cli, run_dir, 2, "a writer holds the folder")
    running = cli.tmp_path / "running" / run_dir.name
    shutil.copytree(run_dir, running)
    run = json.loads((running / "run.json").read_text())
    (running / "run.json").write_text(json.dumps({**run, "status": "running"}))
    refused(cli, running, 2, "not sealed")
    refused(cli, run_dir, 1, "past its cap", cap=1000)
    published(cli, run_dir)
    with pytest.raises(publish_run.Refused, match="already published"):
        published(cli, run_dir)


def test_the_publish_script_end_to_end(cli, capsys):
    run_dir = finished_run(cli)
    results = cli.tmp_path / "results"
    results.mkdir()
    assert publish_run.main([str(run_dir), str(results), "--max-base", "0"]) == 0
    out = capsys.readouterr().out
    assert "left out" in out and f'folder = "{run_dir.name}"' in out and 'status = "optimal"' in out
    assert not (results / run_dir.name / "base.smt2.gz").exists()
    assert publish_run.main([str(run_dir), str(results)]) == 2
    assert "already published" in one_error_line(capsys.readouterr().err)
