"""Claims that rest on the rules: with the main encoder deliberately stricter than the rules (one
clause added: a digit forbidden at the first step, a door never passed, a cell kept out of a rectangle), a
solve makes a false claim, and its own checked proof audits clean. The reference encoding, written
from the rules alone, must catch it: `audit --proof` fails the run (exit 1), with one finding naming
the disagreement, for each kind of claim: a lexicographic optimum, a count optimum, uniqueness, an
exact count and infeasibility. Honest runs audit clean with both proofs, and the report names the
instance and what the claim rests on.
"""

from __future__ import annotations

import dataclasses
from importlib import import_module
import json
from pathlib import Path

import pytest

from smtpuzzles.formula import CNF, Formula
from smtpuzzles.puzzles import kingtour, nonary, tatamibari

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "smtpuzzles" / "examples"
STRICTER = ("the reference encoding, written from the rules alone, has a solution the claim rules out: "
            "the encoder's formula is stricter than the rules")


def stricter(module, monkeypatch, forbid):
    """Make `module.encode` add the unit clause "not NAME" for each name `forbid(instance)` gives."""
    real = module.encode

    def encode(instance, encoding=None):
        enc = real(instance, encoding) if encoding else real(instance)
        cnf = CNF()
        cnf.names, cnf.index = list(enc.formula.cnf.names), dict(enc.formula.cnf.index)
        cnf.clauses = [list(c) for c in enc.formula.cnf.clauses]
        cnf.amo_blocks = list(enc.formula.cnf.amo_blocks)
        for name in forbid(instance):
            cnf.add([-cnf.index[name]])
        return dataclasses.replace(enc, formula=dataclasses.replace(Formula.from_cnf(cnf), z3_solver=enc.formula.z3_solver),
                                   advice=enc.advice.replace(first_guess=None, second_guess=None))
    monkeypatch.setattr(module, "encode", encode)


def audited(cli, run_dir: Path) -> tuple[int, dict]:
    code, out, err = cli("audit", run_dir, "--proof", "--json")
    assert "Traceback" not in err, err
    return code, json.loads(out)


def failing(report: dict) -> list[tuple[str, str]]:
    return [(f["section"], f["text"]) for f in report["findings"] if f["ok"] is False]


def test_a_lex_optimum_below_the_true_one_fails_on_the_reference(cli, monkeypatch):
    honest = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--encoding", "onehot", code=0)
    stricter(kingtour, monkeypatch, lambda board: ["s0_4"])  # the first digit read may not be a 4
    false = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--encoding", "onehot", code=0)
    assert false["status"] == "optimal" and false["value"] < honest["value"] and false["value"][0] == "3"
    code, report = audited(cli, Path(false["run_dir"]))
    assert code == 1 and report["verdict"] == "FAILED"
    assert failing(report) == [("reference", STRICTER)]  # the encoder's own proof checks: only the rules catch it
    assert any(f["section"] == "proof" and f["ok"] is True for f in report["findings"])


def test_a_count_optimum_below_the_true_one_fails_on_the_reference(cli, monkeypatch, tmp_path):
    doors = tmp_path / "one-door.json"
    doors.write_text("[[9, 0, -1]]")  # five of the nine can leave by the one door 9
    stricter(nonary, monkeypatch, lambda game: ["used0"])
    false = cli.solve_json("nonary", doors, "--encoding", "chains", code=0)
    assert false["status"] == "optimal" and false["value"] == 0
    code, report = audited(cli, Path(false["run_dir"]))
    assert code == 1 and ("reference", STRICTER) in failing(report)


@pytest.fixture
def both_solutions(cli) -> list[list[list[int]]]:
    """03.txt has exactly two solutions (the seeds' count); both, from a count run."""
    assert json.loads((EXAMPLES / "tatamibari" / "expected.json").read_text())["03.txt"]["count"] == 2
    counted = cli.solve_json("tatamibari", EXAMPLES / "tatamibari" / "03.txt", "--count", code=0)
    assert counted["count"] == 2 and counted["count_complete"] is True
    run_dir = Path(counted["run_dir"])
    steps = [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]
    return [s["solution"]["regions"] for s in steps if s["result"] == "sat"]


def owner_name(board, regions, cell) -> str:
    """The encoder's variable "this cell lies in the rectangle of the clue its region holds"."""
    (clue,) = [(r, c) for r, c, _ in board.clues if regions[r][c] == regions[cell[0]][cell[1]]]
    return tatamibari.cell_name(cell, clue)


def owner_only_in(board, first, second) -> str:
    """A cell that the first solution gives to another clue than the second does, with its owner in the first."""
    owners = [{(r, c): owner_name(board, regions, (r, c)) for r in range(board.height) for c in range(board.width)}
              for regions in (first, second)]
    return min(name for cell, name in owners[0].items() if name != owners[1][cell])


@pytest.mark.parametrize("mode", [("--unique",), ("--count",)], ids=["unique", "exact count"])
def test_uniqueness_and_an_exact_count_that_miss_a_solution_fail_on_the_reference(cli, monkeypatch, both_solutions,
                                                                                mode):
    board = tatamibari.from_text((EXAMPLES / "tatamibari" / "03.txt").read_text())
    hidden = owner_only_in(board, *both_solutions)
    stricter(tatamibari, monkeypatch, lambda board: [hidden])
    false = cli.solve_json("tatamibari", EXAMPLES / "tatamibari" / "03.txt", *mode, code=0)
    assert false.get("unique", True) is True and false.get("count", 1) == 1
    code, report = audited(cli, Path(false["run_dir"]))
    assert code == 1 and failing(report) == [("reference", STRICTER)]


def test_infeasible_claimed_for_a_solvable_board_fails_on_the_reference(cli, monkeypatch):
    board = EXAMPLES / "tatamibari" / "01.txt"
    honest = cli.solve_json("tatamibari", board, code=0)
    regions = honest["solution"]["regions"]
    loaded = tatamibari.from_text(board.read_text())
    (only, *_) = sorted(owner_name(loaded, regions, (r, c)) for r in range(loaded.height) for c in range(loaded.width)
                        if loaded.rows[r][c] == ".")  # a clue's own cell is its rectangle's in every model
    stricter(tatamibari, monkeypatch, lambda b: [only])
    false = cli.solve_json("tatamibari", board, code=0)
    assert false["status"] == "infeasible"
    code, report = audited(cli, Path(false["run_dir"]))
    assert code == 1 and failing(report) == [("reference", STRICTER)]


def test_certify_refuses_to_store_a_false_claim_in_one_line(cli, monkeypatch):
    stricter(kingtour, monkeypatch, lambda board: ["s0_4"])
    false = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--encoding", "onehot", code=0)
    code, out, err = cli("certify", false["run_dir"])
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 1 and len(lines) == 1 and "stricter than the rules" in lines[0], err


@pytest.mark.parametrize("puzzle,args,description", [
    ("kingtour", ("--size", 4, "--box", "2x2"), "4x4, 2x2 boxes"),
    ("tatamibari", (EXAMPLES / "tatamibari" / "01.txt", "--unique"), None),
    ("nonary", (EXAMPLES / "nonary" / "01.json",), None),
])
def test_honest_runs_audit_clean_with_both_proofs_and_name_their_instance(cli, puzzle, args, description):
    result = cli.solve_json(puzzle, *args, "--certify", code=0)
    run_dir = Path(result["run_dir"])
    run = json.loads((run_dir / "run.json").read_text())
    assert {"proof", "reference_proof"} <= set(run) and (run_dir / "reference.lrat.gz").is_file()
    code, report = audited(cli, run_dir)
    assert code == 0 and report["verdict"] == "clean", failing(report)
    assert report["instance"]["puzzle"] == puzzle and report["instance"]["sha256"] == run["instance_sha256"]
    if description:
        assert report["instance"]["description"] == description
    assert any(r.startswith(f"the {puzzle} reference encoding") for r in report["rests_on"])
    assert any(f["section"] == "reference" and f["ok"] and f["text"].startswith("LRAT proof of the reference formula")
               for f in report["findings"])
    code, out, err = cli("audit", run_dir, "--proof")
    assert "instance: " + puzzle in out and "reference encoding, from the rules alone" in " ".join(out.split())


# ------------------------------------------------------------------ the reference's symmetry lemma
def test_a_certified_kingtour_reference_proof_uses_the_checked_symmetry_lemma(cli):
    result = cli.solve_json("kingtour", "--size", 6, "--box", "2x3", "--certify", code=0)
    run_dir = Path(result["run_dir"])
    record = json.loads((run_dir / "run.json").read_text())["reference_proof"]
    assert record["symmetry"] == "the tour starts in one of 9 of the 36 cells, by 4 symmetries of the board"
    assert record["clauses"] == len(kingtour_reference(run_dir).clauses) + 1  # F and the breaking clause
    code, report = audited(cli, run_dir)
    assert code == 0 and report["verdict"] == "clean", failing(report)
    assert report["rests_on"][-1].startswith("its symmetry lemma, checked here by smtpuzzles.symmetry (the tour starts "
                                             "in one of 9 of the 36 cells")


def kingtour_reference(run_dir: Path):
    rules = import_module("smtpuzzles.puzzles.kingtour.reference")  # not `from`: the package's `reference` is its hook

    run = json.loads((run_dir / "run.json").read_text())
    board = kingtour.from_canonical(run["instance"])
    return rules.reference(board, run["reference_proof"]["claim"])


def test_a_stored_symmetric_proof_fails_when_the_lemma_no_longer_holds(cli, monkeypatch):
    """The folder only says which of the two formulas its proof refutes; the audit derives both. A
    lemma that fails here (a proposal that lost a generator) leaves the stored proof unusable."""
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--certify", code=0)
    run_dir = Path(result["run_dir"])
    from smtpuzzles.puzzles.kingtour import symmetry as proposals

    real = proposals.proposal
    monkeypatch.setattr(proposals, "proposal",
                        lambda rules, board, claim: dict(real(rules, board, claim),
                                                         generators=real(rules, board, claim)["generators"][:1]))
    code, report = audited(cli, run_dir)
    assert code == 1 and report["verdict"] == "FAILED"
    (section, text), = failing(report)
    assert section == "reference" and "breaking clause" in text and "symmetry lemma fails: no symmetry moves" in text


def test_a_refused_proposal_leaves_the_reference_proof_of_the_formula_alone(cli, monkeypatch):
    from smtpuzzles.puzzles.kingtour import symmetry as proposals

    real = proposals.proposal
    monkeypatch.setattr(proposals, "proposal", lambda rules, board, claim: dict(real(rules, board, claim), breaking=[1]))
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--certify", code=0)
    run_dir = Path(result["run_dir"])
    record = json.loads((run_dir / "run.json").read_text())["reference_proof"]
    assert "symmetry" not in record and record["clauses"] == len(kingtour_reference(run_dir).clauses)
    code, report = audited(cli, run_dir)  # stored proof of F: checked against F, clean
    assert code == 0 and report["verdict"] == "clean", failing(report)
    monkeypatch.setattr(proposals, "proposal", real)
    code, report = audited(cli, run_dir)  # with a lemma that holds, the stored proof of F still counts
    assert code == 0 and report["verdict"] == "clean", failing(report)


def test_a_folder_claiming_a_symmetric_proof_of_the_plain_formula_fails(cli):
    """run.json says "symmetry" but the stored DIMACS is F alone: the audit checks against F & C,
    which it builds itself, so the stored DIMACS is not the formula it derives."""
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    code, out, err = cli("certify", run_dir)
    assert code == 0, err
    run = json.loads((run_dir / "run.json").read_text())
    run["reference_proof"].pop("symmetry")
    (run_dir / "run.json").write_text(json.dumps(run))
    code, report = audited(cli, run_dir)
    assert code == 1
    (section, text), = failing(report)
    assert section == "reference" and "not the formula the reference encoding builds" in text
