"""Proofs in stages (smtpuzzles.proofs.stages, `audit --proof --checked-parts FILE`): each part of a
proof in parts checked on its own and written to a journal, the parts' cover checked last, and a
part the journal lists taken at its word, so that a proof goes on from the journal alone. Tested
on a hand-made formula (three parts), through certify and the audit, with parts that fail, a
cover that leaves a case out, journals that are broken one way at a time, and two writers."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from conftest import kingtour_encoding_with, one_error_line
from smtpuzzles.errors import InputError
from smtpuzzles.proofs import certify, external, stages
from smtpuzzles.proofs import proof as proofs
from smtpuzzles.proofs.splits import Split
from smtpuzzles.trusted.dimacs import ProofError, Satisfiable


def dimacs(nvars: int, clauses) -> proofs.Dimacs:
    text = f"p cnf {nvars} {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return proofs.Dimacs(text, nvars, len(clauses))


# (a | b | c), each of a, b, c implies d, and d is false: refuted by the cases a, b and c.
SMALL = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-3, 4], [-4]])


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def never_made(*_):
    raise AssertionError("a part the journal lists was made again")


def test_each_part_is_checked_and_written_and_a_second_proof_takes_them(tmp_path, monkeypatch):
    path = tmp_path / "checked.jsonl"
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert made.lrat == b"" and made.taken == 0 and made.solver.endswith("in 3 parts checked one by one")
    written = lines(path)
    assert [w["case"] for w in written] == [[1], [2], [3]]
    assert {w["query"] for w in written} == {SMALL.sha256}
    assert all(w["checkers"] == ["smtpuzzles.trusted.lrat"] and w["lemmas"] >= 1 for w in written)
    monkeypatch.setattr(certify, "_proved_part", never_made)
    again = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert again.taken == 3 and again.lemmas == made.lemmas
    assert len(lines(path)) == 3  # nothing written twice


def test_a_journal_of_another_query_or_case_is_not_taken(tmp_path):
    path = tmp_path / "checked.jsonl"
    other = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-3, 4], [-4], [1, 2, 3, 4]])
    proofs.certify_query(other, split=1, journal=stages.Journal(path))
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert made.taken == 0 and len(lines(path)) == 6
    # A line for case 9 of this very query does not stand for case 3.
    path.write_text("".join(json.dumps({**w, "case": [9]}) + "\n" if w["case"] == [3] else json.dumps(w) + "\n"
                            for w in lines(path) if w["query"] == SMALL.sha256))
    again = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert again.taken == 2 and lines(path)[-1]["case"] == [3]


def test_a_part_checked_without_the_checkers_asked_now_is_made_again(tmp_path):
    path = tmp_path / "checked.jsonl"
    proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))  # smtpuzzles.trusted.lrat alone
    checker = external.ExternalChecker(str(stand_in(tmp_path, "accepts", "print('s VERIFIED UNSAT')")))
    kept, observe = external.tallies([checker], None, "proof", "the query")
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), observe=observe)
    assert made.taken == 0 and len(kept[0].said) == 3
    names = lines(path)[-1]["checkers"]
    assert names[0].startswith("accepts sha256:") and names[1] == "smtpuzzles.trusted.lrat"
    kept, observe = external.tallies([checker], None, "proof", "the query")
    again = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), observe=observe)
    assert again.taken == 3 and kept[0].verdict()[0] is True and "3 of them by earlier audits" in kept[0].verdict()[1]


def test_a_part_an_outside_checker_rejects_is_never_written(tmp_path):
    path = tmp_path / "checked.jsonl"
    checker = external.ExternalChecker(str(stand_in(tmp_path, "rejects", "print('s NOT VERIFIED'); sys.exit(1)")))
    kept, observe = external.tallies([checker], None, "proof", "the query")
    proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), observe=observe)
    assert not path.exists() and kept[0].verdict()[0] is False


def stand_in(tmp_path: Path, name: str, body: str) -> Path:
    import sys

    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(0o755)
    return path


def test_a_part_whose_proof_is_rejected_stops_the_proof_and_is_not_written(tmp_path, monkeypatch):
    path = tmp_path / "checked.jsonl"
    real = certify._proved_part

    def broken_second(part, left, budget):
        proof = real(part, left, budget)
        return proof.replace(b" 0 ", b" 0 1 ", 1) if part.text.endswith("\n2 0\n") else proof

    monkeypatch.setattr(certify, "_proved_part", broken_second)
    with pytest.raises(ProofError, match=r"the proof of part 2 \(\+2\) made here was rejected"):
        proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert [w["case"] for w in lines(path)] == [[1]]  # the first part stays: a resume goes on from it


def test_a_satisfiable_part_means_no_proof_and_no_line(tmp_path):
    path = tmp_path / "checked.jsonl"
    query = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-4]])  # c alone is a model
    with pytest.raises(Satisfiable):
        proofs.certify_query(query, split=1, journal=stages.Journal(path))
    assert [w["case"] for w in lines(path)] == [[1], [2]]


def test_cases_that_do_not_cover_the_query_are_no_proof(tmp_path):
    """Two of the three cases, closed as if they were all of clause 1: every part checks, the cover does not."""
    def closing(ids, next_id):
        return f"{next_id} 0 {' '.join(map(str, ids))} 1 0\n".encode(), next_id + 1

    left_out = Split([(1,), (2,)], closing, "two of the literals of clause 1")
    with pytest.raises(ProofError, match="the parts do not cover the query"):
        proofs.certify_query(SMALL, split=left_out, journal=stages.Journal(tmp_path / "checked.jsonl"))


def test_a_forged_journal_is_taken_at_its_word_and_the_audit_says_so(cli, monkeypatch, tmp_path):
    """The journal is the auditor's own record: what it lists is not checked again, so the report
    names it among what the claim rests on, with the count of parts taken from it."""
    kingtour_encoding_with(monkeypatch, proof_parts=True)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    journal = tmp_path / "checked.jsonl"
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--checked-parts", journal, "--checker", "none", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean"
    written = lines(journal)
    words = " ".join(f["text"] for f in report["findings"] if f["section"] == "proof")
    assert f"in {len(written)} parts checked one by one" in words and "earlier audits" not in words
    assert not any("journal" in r for r in report["rests_on"])
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--checked-parts", journal, "--checker", "none", "--json")
    report = json.loads(out)
    words = " ".join(f["text"] for f in report["findings"] if f["section"] == "proof")
    assert code == 0 and report["verdict"] == "clean"
    assert f"{len(written)} of them by earlier audits, taken from the --checked-parts journal at its word" in words
    assert f"the --checked-parts journal's word for {len(written)} parts of the proof" in report["rests_on"]
    assert len(lines(journal)) == len(written)


def test_checked_parts_without_proof_or_unreadable_is_one_line(cli, tmp_path):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    code, _, err = cli("audit", result["run_dir"], "--checked-parts", tmp_path / "j")
    assert code == 2 and one_error_line(err) == "smtpuzzles: error: --checked-parts: records the parts of proofs " \
                                                "--proof makes: add --proof"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n')
    code, _, err = cli("audit", result["run_dir"], "--proof", "--checked-parts", bad)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --checked-parts {bad} line 1: is not a checked " \
                                                "part (a JSON object with query, case, lemmas and checkers)"
    code, _, err = cli("audit", result["run_dir"], "--proof", "--checked-parts", tmp_path)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --checked-parts {tmp_path}: is not a regular file"


GOOD = {"query": "a" * 64, "case": [3], "lemmas": 5, "checkers": ["smtpuzzles.trusted.lrat"]}


@pytest.mark.parametrize("change, words", [
    ({"query": "A" * 64}, "its query is not a sha-256 in hex"),
    ({"query": "a" * 63}, "its query is not a sha-256 in hex"),
    ({"case": [0]}, "its case is not a list of nonzero literals"),
    ({"case": [True]}, "its case is not a list of nonzero literals"),
    ({"case": "3"}, "its case is not a list of nonzero literals"),
    ({"lemmas": 0}, "its lemmas is not a positive whole number"),
    ({"lemmas": 2.5}, "its lemmas is not a positive whole number"),
    ({"checkers": []}, "its checkers is not a list of names"),
    ({"checkers": [1]}, "its checkers is not a list of names"),
])
def test_a_journal_line_broken_one_way_is_named_by_its_line(tmp_path, change, words):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, **change}) + "\n")
    with pytest.raises(InputError) as raised:
        stages.Journal(path)
    assert raised.value.message == words and raised.value.where == f"--checked-parts {path} line 2"


def test_a_journal_cut_by_a_crash_loses_only_the_cut_line_and_goes_on(tmp_path):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "case": [4]})[:30])
    journal = stages.Journal(path)
    assert set(journal.entries) == {("a" * 64, (3,))}
    assert journal.add("a" * 64, (5,), 2, frozenset(["smtpuzzles.trusted.lrat"]), 1.0) == ""
    assert path.read_text().count("\n") == 3  # the cut line ended, the new one on a line of its own
    assert set(stages.Journal(path).entries) == {("a" * 64, (3,)), ("a" * 64, (5,))}


def test_a_complete_line_that_is_no_json_is_still_an_error(tmp_path):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD)[:-1] + ", 1}\n")
    with pytest.raises(InputError, match="is not a checked part"):
        stages.Journal(path)


def test_a_part_another_audit_checked_meanwhile_is_taken_not_made(tmp_path, monkeypatch):
    path = tmp_path / "j"
    mine = stages.Journal(path)  # opened before the other audit wrote anything
    proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    monkeypatch.setattr(certify, "_proved_part", never_made)
    assert proofs.certify_query(SMALL, split=1, journal=mine).taken == 3


def test_a_journal_past_its_size_cap_or_a_fifo_is_one_line_unread(tmp_path, monkeypatch):
    path = tmp_path / "j"
    path.write_text((json.dumps(GOOD) + "\n") * 20)
    monkeypatch.setattr(stages, "MAX_JOURNAL_BYTES", 1000)
    with pytest.raises(InputError, match="is larger than 1,000 bytes"):
        stages.Journal(path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is not a regular file"):  # never opened: it would block
        stages.Journal(fifo)


def test_two_writers_leave_whole_lines(tmp_path):
    """Two audits sharing one journal: each line is one append, so none is torn or mixed."""
    path = tmp_path / "j"
    first, second = stages.Journal(path), stages.Journal(path)

    def write(journal, sign):
        for i in range(1, 2001):
            assert journal.add("b" * 64, (sign * i,), 7, frozenset(["smtpuzzles.trusted.lrat"]), 0.5) == ""

    threads = [threading.Thread(target=write, args=(j, s)) for j, s in ((first, 1), (second, -1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(stages.Journal(path).entries) == 4000


def test_a_journal_that_cannot_be_written_is_said_and_the_proof_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "j"
    said = []

    def full(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(stages.os, "write", full)
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), progress=said.append)
    assert made.taken == 0 and made.solver.endswith("in 3 parts checked one by one")
    assert sum(s.endswith(f"not written to {path}: No space left on device") for s in said) == 3

def test_a_journal_line_past_its_cap_is_one_line_unparsed(tmp_path, monkeypatch):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "case": list(range(1, 400))}) + "\n")
    monkeypatch.setattr(stages, "MAX_LINE_BYTES", 1000)
    with pytest.raises(InputError) as raised:
        stages.Journal(path)
    assert raised.value.message == "is longer than 1,000 bytes" and raised.value.where.endswith(" line 2")
