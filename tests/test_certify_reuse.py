"""`solve --certify` (and `api.solve(certify=True)`) certifies with the encoding the solve just built,
instead of building it again (on 16x16, 7 s and 0.6 GB); an encoding that is not the recorded one
is never used: certify builds today's, and the proof it stores is of the recorded query."""

from __future__ import annotations

import dataclasses
import json

import pytest

from brute_kingtour import best_overall
from smtpuzzles import api
from smtpuzzles import run as runner
from smtpuzzles.auditing import readback
from smtpuzzles.puzzles import kingtour


def test_solve_with_certify_builds_the_encoding_once(tmp_path, monkeypatch):
    built = []
    real = readback.todays_encoding
    monkeypatch.setattr(runner, "todays_encoding", lambda *a: built.append(a) or real(*a))
    result = api.solve("kingtour", {"size": 4, "box": "2x2"}, out=tmp_path, certify=True)
    assert result.status == "optimal"
    assert [int(d) for d in result.value] == list(best_overall(4, 2, 2))  # brute force
    assert built == []  # the solve's own encoding served
    assert api.audit(result.run_dir, proof=True).verdict == "clean"


def test_an_encoding_of_another_instance_is_not_used(tmp_path, monkeypatch):
    result = api.solve("kingtour", {"size": 4, "box": "2x2"}, out=tmp_path)
    other = kingtour.encode(kingtour.parse(4, "2x2", "1...\n....\n....\n...."), "onehot-sym")
    built = []
    real = readback.todays_encoding
    monkeypatch.setattr(runner, "todays_encoding", lambda *a: built.append(a) or real(*a))
    run = runner.certify(result.run_dir, encoding=other)
    assert len(built) == 1  # today's encoding of the recorded instance, built here
    assert run["proof"]["lemmas"] > 0
    assert api.audit(result.run_dir, proof=True).verdict == "clean"  # the audit builds the query itself


@pytest.mark.parametrize("field, value", [("version", 999), ("name", "onehot")])
def test_an_encoding_that_differs_from_the_record_is_refused(tmp_path, field, value):
    result = api.solve("kingtour", {"size": 4, "box": "2x2"}, out=tmp_path)
    run = json.loads((result.run_dir / "run.json").read_text())
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), run["encoding"]["name"])
    assert readback.writes_recorded(enc, run)
    assert not readback.writes_recorded(dataclasses.replace(enc, **{field: value}), run)


def test_a_search_leaves_the_formulas_numbering_alone(tmp_path):
    # The engine's assumptions allocate fresh variables; in the shared formula they would renumber
    # every later query (the audit saw certificate.cnf differ from the query it builds).
    instance = kingtour.parse(4, "2x2", None)
    fresh = kingtour.encode(instance, "onehot-sym").formula.cnf
    outcome, _ = runner.solve(kingtour, instance, "", out_dir=tmp_path, mode="optimise")
    used = outcome.encoding.formula.cnf
    assert outcome.status == "optimal"
    assert used.names == fresh.names and used.clauses == fresh.clauses
