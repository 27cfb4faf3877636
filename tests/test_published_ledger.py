"""A finished run's ledger published gzip-compressed (steps.jsonl.gz, the same lines): read by the one
reader of run folders like the plain one and under the same caps, refused beside a plain one, and
never written to; such a published run may leave out its certificate, which is the base formula
plus the closing step's assertions."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import one_error_line
from smtpuzzles.errors import LedgerError
from smtpuzzles.folders import runfolder


def finished_run(cli) -> Path:
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    return Path(result["run_dir"])


def publish(run_dir: Path) -> bytes:
    """steps.jsonl -> steps.jsonl.gz, as scripts/compact_results.py does; the text."""
    text = (run_dir / "steps.jsonl").read_bytes()
    (run_dir / "steps.jsonl.gz").write_bytes(gzip.compress(text))
    (run_dir / "steps.jsonl").unlink()
    return text


def test_a_compressed_ledger_audits_shows_and_lists_as_the_plain_one(cli):
    run_dir = finished_run(cli)
    code, plain_audit, err = cli("audit", run_dir, "--json")
    assert code == 0, err
    _, plain_show, _ = cli("show", run_dir)
    publish(run_dir)
    code, packed_audit, err = cli("audit", run_dir, "--json")
    assert code == 0, err
    assert json.loads(packed_audit)["verdict"] == json.loads(plain_audit)["verdict"] == "consistent"
    code, packed_show, _ = cli("show", run_dir)
    assert code == 0 and packed_show == plain_show
    code, listed, err = cli("results", run_dir.parent, "--audit")
    assert code == 0 and "consistent" in listed, err


def test_a_ledger_in_both_forms_is_refused_in_one_line(cli):
    run_dir = finished_run(cli)
    (run_dir / "steps.jsonl.gz").write_bytes(gzip.compress((run_dir / "steps.jsonl").read_bytes()))
    for command in (("audit", run_dir), ("show", run_dir)):
        code, _, err = cli(*command)
        assert code == 2 and "holds both steps.jsonl and steps.jsonl.gz" in one_error_line(err), command


def test_an_edited_or_cut_compressed_ledger_is_named_in_one_line(cli):
    run_dir = finished_run(cli)
    text = publish(run_dir)
    lines = text.splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"unsat"', b'"sat"') if b'"unsat"' in lines[1] else lines[1].replace(b'"sat"', b'"unsat"')
    (run_dir / "steps.jsonl.gz").write_bytes(gzip.compress(b"".join(lines)))
    code, _, err = cli("audit", run_dir)
    line = one_error_line(err)
    assert code == 2 and "steps.jsonl.gz" in line and "line 2" in line, line
    (run_dir / "steps.jsonl.gz").write_bytes(gzip.compress(text)[:-12])  # the gzip stream cut off
    code, _, err = cli("audit", run_dir)
    line = one_error_line(err)
    assert code == 2 and "steps.jsonl.gz" in line and "cut off" in line, line
    (run_dir / "steps.jsonl.gz").write_bytes(gzip.compress(text[:-1]))  # the last newline gone: a torn line
    code, _, err = cli("audit", run_dir)
    assert code == 2 and "seals" in one_error_line(err)
    # the same lines in two gzip members (as `cat a.gz b.gz` makes): gunzip reads them, the reader
    # reads one member and says so, rather than audit half a ledger
    whole = text.splitlines(keepends=True)
    half = len(whole) // 2
    (run_dir / "steps.jsonl.gz").write_bytes(gzip.compress(b"".join(whole[:half])) + gzip.compress(b"".join(whole[half:])))
    code, _, err = cli("audit", run_dir)
    line = one_error_line(err)
    assert code == 2 and "steps.jsonl.gz" in line and "a second gzip member" in line, line
    (run_dir / "steps.jsonl.gz").write_bytes(gzip.compress(text) + b"appended")
    code, _, err = cli("audit", run_dir)
    line = one_error_line(err)
    assert code == 2 and "steps.jsonl.gz" in line and "data after its gzip stream" in line, line


def test_a_compressed_ledger_that_expands_past_the_cap_is_refused(cli, monkeypatch):
    """A few KB of gzip can expand to gigabytes: the text is read as a stream and refused at the
    steps file's cap, as a plain file of that size is."""
    run_dir = finished_run(cli)
    publish(run_dir)
    run = json.loads((run_dir / "run.json").read_text())
    monkeypatch.setattr(runfolder, "MAX_STEPS_FILE", 2000)
    with pytest.raises(LedgerError, match="expands past 2,000 bytes"):
        runfolder.read_steps(run_dir, run["instance_sha256"])
    monkeypatch.undo()
    bomb = gzip.compress(b" " * (80 * 2 ** 20))  # one line of 80 MiB, 80 KB compressed
    assert len(bomb) < 200_000
    (run_dir / "steps.jsonl.gz").write_bytes(bomb)
    code, _, err = cli("audit", run_dir)
    assert code == 2 and "has a line longer than 16,777,216 bytes" in one_error_line(err)


def test_a_run_with_a_compressed_ledger_is_never_resumed(cli, monkeypatch):
    """Only finished runs are published compressed; even one marked unfinished is not resumed (its
    ledger would be written beside the compressed one), in one line, and nothing is changed; it is
    refused before today's encoding is built (on 16x16, seconds spent for nothing)."""
    from smtpuzzles import run as run_module
    code, out, err = cli("solve", "kingtour", "--size", 9, "--box", "3x3", "--time-limit", "0.05", "--json",
                         "--out", cli.tmp_path / "runs")
    assert code == 3, err
    run_dir = Path(json.loads(out)["run_dir"])
    publish(run_dir)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}

    def not_built(*args):
        raise AssertionError("today's encoding was built for a run that cannot be resumed")
    monkeypatch.setattr(run_module, "todays_encoding", not_built)
    code, _, err = cli("solve", "kingtour", "--resume", run_dir)
    assert code == 2 and "published compressed" in one_error_line(err)
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before


def test_a_published_run_may_leave_out_its_certificate_which_is_the_base_plus_the_claim(cli):
    """The certificate is rebuilt here from the folder's own files, without the project's code: the
    base formula's text, the closing step's assertions, check-sat. Left out of a published run, the
    audit still finds the claim consistent, saying so; in a plain (running or resumable) folder its
    absence stays a failed claim; and run.json must still name the hash of that query."""
    run_dir = finished_run(cli)
    run = json.loads((run_dir / "run.json").read_text())
    closing = json.loads((run_dir / "steps.jsonl").read_text().splitlines()[run["certificate"]["step"]])
    rebuilt = gzip.decompress((run_dir / "base.smt2.gz").read_bytes()).decode() + \
        "".join(f"(assert {a})\n" for a in closing["assumptions"]) + "(check-sat)\n(exit)\n"
    assert gzip.decompress((run_dir / "certificate.smt2.gz").read_bytes()).decode() == rebuilt
    (run_dir / "certificate.smt2.gz").unlink()
    code, out, _ = cli("audit", run_dir, "--json")
    assert code == 1 and "certificate.smt2.gz) is missing" in out  # plain ledger: a failed claim
    publish(run_dir)
    code, out, err = cli("audit", run_dir, "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "consistent", err
    assert "left out of this published run" in out and "the certificate's hash" in json.dumps(report["evidence"])
    run["certificate"]["sha256"] = "0" * 64
    (run_dir / "run.json").write_text(json.dumps(run))
    code, out, _ = cli("audit", run_dir, "--json")
    assert code == 1 and "names another claim, step or query" in out
