"""Hostile review: run.json's reference_proof "symmetry" words.

The audit reads only their truthiness to pick F or F & C, and never compares them with the lemma it
checks (the encoder's lemma words are compared: auditor._check_lemma). So a folder may say anything
there and still audit clean; and `certify`, which accepts a stored record for F or F & C whatever its
words say, reports a proof stored for a folder that the audit then fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def audited(cli, run_dir: Path) -> tuple[int, dict]:
    code, out, err = cli("audit", run_dir, "--proof", "--json")
    assert "Traceback" not in err, err
    return code, json.loads(out)


def certified_4x4(cli) -> Path:
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--certify", code=0)
    return Path(result["run_dir"])


def edit_reference_record(run_dir: Path, change) -> None:
    run = json.loads((run_dir / "run.json").read_text())
    change(run["reference_proof"])
    (run_dir / "run.json").write_text(json.dumps(run))  # run.json is not hashed: a forger just edits it


@pytest.mark.parametrize("words", ["no symmetry breaking was used", "x", "the tour starts in one of 16 of the 16 cells"])
def test_lying_symmetry_words_do_not_audit_clean(cli, words):
    run_dir = certified_4x4(cli)
    edit_reference_record(run_dir, lambda record: record.update(symmetry=words))
    code, report = audited(cli, run_dir)
    assert report["verdict"] != "clean" and code != 0, \
        "the folder's reference_proof.symmetry words are not the lemma the audit checked, yet the audit is clean"


def test_certify_that_reports_success_leaves_a_folder_that_audits_clean(cli):
    run_dir = certified_4x4(cli)
    edit_reference_record(run_dir, lambda record: record.pop("symmetry"))
    code, out, err = cli("certify", run_dir)
    if code == 0:  # "stored a checked LRAT proof ... and on the reference formula"
        code, report = audited(cli, run_dir)
        assert report["verdict"] == "clean", [f["text"] for f in report["findings"] if f["ok"] is False]
