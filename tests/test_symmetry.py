"""Symmetry breaking as an audited lemma: the check accepts the board's real symmetries, refuses
anything else (a clue moved, an objective variable moved, a case left out, a tampered clause), and a
run under the breaking clause gives the brute-force optimum; the audit re-checks the lemma."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from brute_kingtour import best_with_clues, clue_text, sudokus
from smtpuzzles import run as runner
from smtpuzzles import symmetry
from smtpuzzles.puzzles import kingtour
from smtpuzzles.symmetry import Lemma


def board_with(size: int, box: str, clues: dict) -> kingtour.Board:
    return kingtour.parse(size, box, clue_text(size, clues))


def brute(board: kingtour.Board) -> str:
    return "".join(map(str, best_with_clues(board.size, board.box_rows, board.box_cols, board.clues)))


def lemma_of(board):
    enc = kingtour.encode(board, "onehot-sym")
    return enc, enc.lemma


@pytest.mark.parametrize("size,box,group,starts", [(4, "2x2", 8, 3), (6, "2x3", 4, 9), (6, "3x2", 4, 9)])
def test_the_square_s_symmetries_that_keep_the_boxes_pass_the_check(size, box, group, starts):
    # Counted by hand: a square's 8 symmetries all keep 2x2 boxes; of 2x3 boxes only the identity,
    # the two mirrors and the half turn; orbits of the first cell: 3 on 4x4, 9 on 6x6.
    enc, lemma = lemma_of(kingtour.parse(size, box, None))
    problems, text = symmetry.check(enc.formula, enc.objective, lemma)
    assert problems == []
    assert f"a group of {group})" in text
    assert len(lemma.breaking) == starts


def test_a_clue_on_the_diagonal_keeps_only_the_symmetries_that_fix_it():
    enc, lemma = lemma_of(board_with(4, "2x2", {(0, 0): 1}))
    # Fixing corner (0,0): the identity and the reflection in the main diagonal.
    assert lemma.summary.endswith("by 2 symmetries of the board")
    assert symmetry.check(enc.formula, enc.objective, lemma)[0] == []


def every_square_map(board) -> list[dict]:
    n = board.size - 1
    shapes = [lambda r, c: (r, n - c), lambda r, c: (n - r, c), lambda r, c: (n - r, n - c), lambda r, c: (c, r),
              lambda r, c: (n - c, n - r), lambda r, c: (c, n - r), lambda r, c: (n - c, r)]
    return [{(r, c): f(r, c) for r, c in board.cells} for f in shapes]


def test_a_symmetry_that_moves_a_clue_is_refused_by_the_check_the_run_and_the_audit(monkeypatch, tmp_path):
    board = board_with(4, "2x2", {(0, 1): 1})
    monkeypatch.setattr(kingtour.encodings, "board_symmetries", every_square_map)  # an encoder that forgets the clue
    enc = kingtour.encode(board, "onehot-sym")
    problems, _ = symmetry.check(enc.formula, enc.objective, enc.lemma)
    assert problems and "outside the base" in problems[0]
    with pytest.raises(RuntimeError, match="symmetry lemma fails"):
        runner.solve(kingtour, board, "", out_dir=tmp_path, encoding="onehot-sym")
    assert list(tmp_path.iterdir()) == []  # refused before a ledger was made

    # A run made by a tool that skipped the check: the audit finds the lemma false and fails.
    monkeypatch.setattr(runner, "require_lemma", lambda enc: None)
    outcome, ledger = runner.solve(kingtour, board, "", out_dir=tmp_path, encoding="onehot-sym")
    from smtpuzzles.auditing.auditor import audit

    report = audit(ledger.dir)
    assert report.exit_code == 1
    assert any(f.section == "symmetry" and f.ok is False and "not justified" in f.text for f in report.findings)


def tampered(enc, lemma, **change) -> list[str]:
    return symmetry.check(enc.formula, enc.objective, Lemma(**{**lemma.__dict__, **change}))[0]


def test_each_broken_part_of_a_lemma_is_named():
    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    one = dict(lemma.generators[0])
    assert "not a permutation" in tampered(enc, lemma, generators=({**one, "d0_0_1": "d0_0_1"},))[0]
    moves_digit = {**one, "s0_1": "s0_2", "s0_2": "s0_1"}
    assert "moves objective variable s0_1" in tampered(enc, lemma, generators=(moves_digit,))[0]
    aux = next(name for name in enc.formula.cnf.names if name.startswith("_"))
    assert "auxiliary" in tampered(enc, lemma, generators=({aux: "v0_0_0", "v0_0_0": aux},))[0]
    # Starting corner only: no symmetry of the square moves an edge cell to a corner.
    problems = tampered(enc, lemma, breaking=("v0_0_0",))
    assert problems and "breaking clause is not the formula's last clause" in problems[0]
    enc.formula.cnf.clauses[-1] = [enc.formula.cnf.index["v0_0_0"]]
    assert "no symmetry moves v0_0_1 into the breaking clause" in tampered(enc, lemma, breaking=("v0_0_0",))[0]
    assert "not a clause of the base" in tampered(enc, lemma, breaking=("v0_0_0",), covered=("v0_0_0", "v0_0_1"))[0]


def test_a_tampered_counter_block_or_a_stray_auxiliary_is_refused():
    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    cnf = enc.formula.cnf
    lits, start, end = next(b for b in cnf.amo_blocks if len(b[0]) > 2)
    cnf.clauses[start + 2] = cnf.clauses[start + 2][:1]  # one clause of a counter weakened
    assert "not a sequential counter" in symmetry.check(enc.formula, enc.objective, lemma)[0][0]

    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    cnf = enc.formula.cnf
    aux = cnf.clauses[cnf.amo_blocks[0][1]][1]
    cnf.clauses.insert(0, [aux])
    cnf.amo_blocks[:] = [(l, s + 1, e + 1) for l, s, e in cnf.amo_blocks]
    assert "auxiliary variable outside" in symmetry.check(enc.formula, enc.objective, lemma)[0][0]


def test_the_group_closure_is_bounded():
    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    cycle = [f"v0_{r}_{c}" for r in range(4) for c in range(4)]
    long_cycle = {a: b for a, b in zip(cycle, cycle[1:] + cycle[:1])}  # order 16
    other = {cycle[0]: cycle[1], cycle[1]: cycle[0]}  # with a transposition: all 16! permutations
    assert symmetry.closure([long_cycle, other]) is None
    assert len(symmetry.closure([long_cycle])) == 16


@pytest.mark.parametrize("seed", range(4))
def test_runs_under_the_breaking_clause_give_the_brute_force_optimum(tmp_path, seed):
    rng = random.Random(seed)
    pick = rng.randrange(288)  # 4x4 Sudokus with 2x2 boxes: 288
    grid = next(g for i, g in enumerate(sudokus(4, 2, 2)) if i == pick)
    cells = rng.sample([(r, c) for r in range(4) for c in range(4)], rng.choice([0, 1, 2]))
    board = board_with(4, "2x2", {x: grid[x[0]][x[1]] for x in cells})
    outcome, ledger = runner.solve(kingtour, board, "", out_dir=tmp_path, encoding="onehot-sym")
    assert outcome.status == "optimal"
    assert kingtour.value_text(outcome.value) == brute(board)


def test_the_audit_checks_the_lemma_and_the_run_records_it(cli):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2")
    run = json.loads((Path(result["run_dir"]) / "run.json").read_text())
    assert run["encoding"]["lemma"] == "the tour starts in one of 3 of the 16 cells, by 8 symmetries of the board"
    code, out, _ = cli("audit", result["run_dir"], "--json")
    report = json.loads(out)
    assert code == 0
    assert any(f["section"] == "symmetry" and f["ok"] for f in report["findings"])


def test_each_refusal_is_the_whole_sentence():
    """Whole messages, not fragments: what a user reads is what is checked."""
    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    assert tampered(enc, lemma, breaking=("v0_0_0", "nosuch")) == [
        "the breaking or covered clause names a variable the formula lacks"]
    assert tampered(enc, lemma, covered=("_s17",)) == ["the breaking or covered clause names a variable the formula lacks"]
    assert tampered(enc, lemma, breaking=("v0_0_0",)) == ["the breaking clause is not the formula's last clause"]
    one = dict(lemma.generators[0])
    assert tampered(enc, lemma, generators=({**one, "d0_0_1": "d0_0_1"},)) == [
        "generator 1: not a permutation (its image is not its domain)"]
    assert tampered(enc, lemma, generators=({"v0_0_0": "nosuch", "nosuch": "v0_0_0"},)) == [
        "generator 1: moves a variable the formula lacks or an auxiliary one"]
    assert symmetry.check(type(enc.formula)("QF_UF", ""), enc.objective, lemma) == (
        ["the formula has no clausal view to check a symmetry against"], "")
    enc.formula.cnf.clauses[-1] = [enc.formula.cnf.index["v0_0_0"]]
    assert tampered(enc, lemma, breaking=("v0_0_0",), covered=("v0_0_0", "v0_0_1")) == [
        "the covered clause is not a clause of the base"]


def test_a_swap_of_digits_without_their_visits_names_a_clause_it_breaks():
    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    swap = {f"d0_1_{k}": f"d1_0_{k}" for k in range(1, 5)}  # cells swapped in the Sudoku, not in the tour
    swap.update({v: k for k, v in swap.items()})
    [problem] = tampered(enc, lemma, generators=(swap,))
    assert problem.startswith("generator 1: maps base clause (") and problem.endswith(") outside the base")
    shown = problem.split("(", 1)[1].rsplit(")", 1)[0].split()
    assert any(lit.lstrip("-") in swap for lit in shown)  # a clause the swap moves, written literal by literal


def test_blocks_must_own_their_auxiliaries_and_stay_inside_the_base():
    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    cnf = enc.formula.cnf
    (lits, start, end), second = cnf.amo_blocks[0], cnf.amo_blocks[1]
    cnf.amo_blocks[1] = (lits, start, end)  # two blocks claiming the same counter
    assert symmetry.check(enc.formula, enc.objective, lemma)[0] == [
        "at-most-one block 1 is not a sequential counter with its own auxiliaries"]
    cnf.amo_blocks[1] = second
    cnf.amo_blocks.append((lits, len(cnf.clauses) - 1, len(cnf.clauses) + 3 * (len(lits) - 1) - 1))
    number = len(cnf.amo_blocks) - 1
    assert symmetry.check(enc.formula, enc.objective, lemma)[0] == [
        f"at-most-one block {number} is not a sequential counter with its own auxiliaries"]


def test_the_group_limit_is_64_permutations():
    names = [f"x{i}" for i in range(65)]
    for size, expected in ((64, 64), (65, None)):
        cycle = {a: b for a, b in zip(names[:size], names[1:size] + names[:1])}
        closure = symmetry.closure([cycle])
        assert (len(closure) if closure else None) == expected


def test_the_generating_set_is_the_fewest_maps_that_give_every_one():
    """A square's eight symmetries come from two (a quarter turn and a reflection), never from one
    (no symmetry of a square has order 8); R x C boxes keep four, a Klein group, also two; a single
    map is its own generator. Group sizes by hand, not by the code under test."""
    from smtpuzzles.symmetry import closure, generating_set

    for box, size in (("3x3", 8), ("2x3", 4)):
        maps = kingtour.encodings.board_symmetries(board_with(6 if box == "2x3" else 9, box, {}))
        assert len(maps) + 1 == size
        chosen = generating_set(maps)
        assert len(chosen) == 2 and all(m in maps for m in chosen)
        assert len(closure(chosen)) == size
    turn = {(0, 0): (0, 1), (0, 1): (1, 1), (1, 1): (1, 0), (1, 0): (0, 0)}
    assert generating_set([turn]) == [turn] and generating_set([]) == []


def test_the_clause_set_a_generator_is_checked_against_agrees_with_sets_of_literals():
    """The check keeps each clause as the sorted tuple of its literals (of their set, in a base
    where a literal repeats); a naive set of frozensets of literals must give the same verdict on
    random clause sets (repeated literals, empty clauses and all) and random literal permutations,
    half of them symmetries by construction."""
    rng = random.Random(47)
    for trial in range(300):
        variables = rng.randint(2, 7)
        offset = variables + 1
        clauses = [[rng.choice((1, -1)) * rng.randint(1, variables) for _ in range(rng.choice((0, 1, 2, 3, 3, 4)))]
                   for _ in range(rng.randint(1, 12))]
        perm = list(range(1, variables + 1))
        rng.shuffle(perm)
        flips = [rng.choice((1, -1)) if trial % 3 == 0 else 1 for _ in perm]
        image = {v: p * f for v, p, f in zip(range(1, variables + 1), perm, flips)}
        if trial % 2:  # close the set under the permutation: it is then a symmetry of it
            orbit = [list(c) for c in clauses]
            for _ in range(2 * variables):
                orbit = [[image[abs(x)] * (1 if x > 0 else -1) for x in c] for c in orbit]
                clauses += orbit
        naive = {frozenset(c) for c in clauses}
        expected = all(frozenset(image[abs(x)] * (1 if x > 0 else -1) for x in c) in naive for c in naive)
        table = list(range(offset)) + list(range(1 - offset, 0))  # a literal's image at its own (signed) index
        for v, w in image.items():
            table[v], table[-v] = w, -w
        plain = symmetry._PlainClauses(clauses)
        assert plain.mapped_into_itself(table.__getitem__) == expected, (clauses, image)
        assert len(plain.keys) == len(naive)


@pytest.mark.parametrize("literal", [1, -1])
def test_a_base_clause_over_a_variable_the_formula_does_not_name_is_refused(literal):
    """A generator's images are looked up by the literal itself (a negative one from the table's
    end), so a variable past the formula's names must be refused before, not read as another."""
    enc, lemma = lemma_of(kingtour.parse(4, "2x2", None))
    clauses = enc.formula.cnf.clauses
    clauses.insert(len(clauses) - 1, [literal * (len(enc.formula.cnf.names) + 2)])  # before the breaking clause
    assert symmetry.check(enc.formula, enc.objective, lemma)[0] == ["a base clause has a variable the formula does not name"]
