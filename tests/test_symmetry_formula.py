"""Symmetry breaking on a reference formula (smtpuzzles.symmetry.check_formula): the lemma a puzzle
proposes is checked on the DIMACS clauses alone. Tested three ways: the ladder the check
regenerates is exactly "at most one" (every assignment); on King's-tour boards the formula with the
breaking clause keeps the brute force's optimum; and proposals or formulas broken one way each are
refused with a line naming the fault."""

from __future__ import annotations

import itertools
import json

import pytest
from pysat.solvers import Solver

from smtpuzzles.puzzles import kingtour
from smtpuzzles.puzzles.rules import cnf
from smtpuzzles.puzzles.kingtour import symmetry as proposals
from smtpuzzles.puzzles.rules import kingtour as rules
from smtpuzzles.symmetry import check_formula, ladder, lemma_from_json
from test_rules_reference import just_below, kt_board, kt_brute_optimum


def satisfiable(clauses, assumptions=()) -> bool:
    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        return solver.solve(assumptions=list(assumptions))


@pytest.mark.parametrize("n", range(2, 8))
def test_ladder_allows_exactly_at_most_one_in_any_order(n):
    lits = list(range(1, n + 1))
    aux = list(range(n + 1, 2 * n))
    for order in (lits, lits[::-1], lits[1:] + lits[:1]):
        clauses = ladder(order, aux)
        for bits in itertools.product((False, True), repeat=n):
            assumptions = [x if b else -x for x, b in zip(lits, bits)]
            assert satisfiable(clauses, assumptions) == (sum(bits) <= 1), (order, bits)


def test_the_reference_writes_the_ladder_the_check_regenerates():
    ref = cnf.Reference()
    xs = [ref.var(f"x{i}") for i in range(9)]
    ref.at_most_one(xs)
    (lits, aux), = ref.ladders
    assert list(lits) == xs and sorted(map(sorted, ref.clauses)) == sorted(map(sorted, ladder(lits, aux)))


def lemma_of(board, claim):
    ref = rules.reference(board, claim)
    proposal = proposals.proposal(board, claim)
    return ref, proposal


def with_breaking(ref, lemma):
    return ref.clauses + [list(lemma.breaking)]


@pytest.mark.parametrize("box,clues", [("2x2", None), ("2x2", {(0, 0): 1, (3, 3): 1}),
                                       pytest.param("2x3", None, marks=pytest.mark.slow)])
def test_breaking_keeps_the_brute_force_optimum(box, clues):
    """The brute force's best number: "beat it" is refuted with the breaking clause, "beat the
    number just below it" is not (so the clause lost no optimum); the lemma holds on each."""
    n = int(box[0]) * int(box[2])
    board = kt_board(n, box, clues)
    grid = [[(clues or {}).get((r, c), 0) for c in range(n)] for r in range(n)]
    best = kt_brute_optimum(n, board.box_rows, board.box_cols, grid) if n == 4 else None
    if best is None:  # 6x6: the reference's own optimum without the clause
        from test_rules_reference import kt_optimum
        best = kt_optimum(board)
    for claim, holds in (({"op": "lex_greater", "best": best}, False),
                         ({"op": "lex_greater", "best": just_below(best, n)}, True), ({"op": "first"}, True)):
        ref, proposal = lemma_of(board, claim)
        lemma = lemma_from_json(proposal, ref.nvars)
        problems, words = check_formula(ref.nvars, ref.clauses, lemma)
        assert problems == [] and "breaking clause" in words
        assert len(lemma.breaking) < n * n
        assert satisfiable(with_breaking(ref, lemma)) == holds, claim


def test_a_clue_that_no_map_keeps_leaves_no_symmetry():
    board = kt_board(4, "2x2", {(0, 0): 1, (0, 1): 2, (1, 0): 3})
    assert proposals.proposal(board, {"op": "first"}) is None


@pytest.fixture(scope="module")
def board_claim():
    board = kt_board(4, "2x2")
    claim = {"op": "lex_greater", "best": [4, 4, 3] + [1] * 13}
    ref, proposal = lemma_of(board, claim)
    assert check_formula(ref.nvars, ref.clauses, lemma_from_json(proposal, ref.nvars))[0] == []
    return board, claim, ref, proposal


def refused(ref, proposal, clauses=None) -> str:
    lemma = lemma_from_json(proposal, ref.nvars)
    if isinstance(lemma, str):
        return lemma
    problems, words = check_formula(ref.nvars, ref.clauses if clauses is None else clauses, lemma)
    assert problems and words == ""
    return problems[0]


def test_a_generator_that_moves_a_steps_digit_is_refused(board_claim):
    _, _, ref, proposal = board_claim
    bad = json.loads(json.dumps(proposal))
    a, b = ref.names["step 0 reads 4"], ref.names["step 0 reads 3"]
    bad["generators"][0] += [[a, b], [b, a]]
    assert "outside the formula" in refused(ref, bad)


def test_a_breaking_clause_missing_an_orbit_is_refused(board_claim):
    _, _, ref, proposal = board_claim
    bad = dict(proposal, breaking=proposal["breaking"][1:])
    assert "into the breaking clause" in refused(ref, bad)


def test_a_generator_missing_from_the_proposal_strands_cells(board_claim):
    _, _, ref, proposal = board_claim
    assert "into the breaking clause" in refused(ref, dict(proposal, generators=proposal["generators"][:1]))


def test_a_formula_that_is_not_symmetric_is_refused(board_claim):
    """One king-move clause dropped: the formula is no longer mapped onto itself."""
    _, _, ref, proposal = board_claim
    first, last = ref.names["step 0 at r0 c0"], ref.names["step 1 at r0 c1"]
    dropped = next(i for i, c in enumerate(ref.clauses) if c[0] == -first and last in c)
    clauses = ref.clauses[:dropped] + ref.clauses[dropped + 1:]
    assert "outside the formula" in refused(ref, proposal, clauses)


def test_an_extra_clause_on_a_ladder_is_refused(board_claim):
    _, _, ref, proposal = board_claim
    lits, aux = proposal["blocks"][0]
    assert "ladders" in refused(ref, proposal, ref.clauses + [[-aux[0], lits[-1]]])


def test_a_block_that_is_not_the_formulas_is_refused(board_claim):
    _, _, ref, proposal = board_claim
    (lits, aux), *rest = proposal["blocks"]
    swapped = [[lits[1], lits[0]] + lits[2:], aux]
    assert "ladders" in refused(ref, dict(proposal, blocks=[swapped, *rest]))


def test_a_generator_that_moves_an_auxiliary_is_refused(board_claim):
    _, _, ref, proposal = board_claim
    (_, aux), *_ = proposal["blocks"]
    bad = dict(proposal, generators=[proposal["generators"][0] + [[aux[0], aux[1]], [aux[1], aux[0]]]])
    assert "auxiliary" in refused(ref, bad)


def test_a_covered_clause_that_is_not_the_formulas_is_refused(board_claim):
    _, _, ref, proposal = board_claim
    assert "covered clause" in refused(ref, dict(proposal, covered=proposal["covered"][:-1]))


def test_a_map_that_is_not_a_permutation_is_refused(board_claim):
    _, _, ref, proposal = board_claim
    a, b, c = (ref.names[f"step 0 at r0 c{i}"] for i in range(3))
    assert "not a permutation" in refused(ref, dict(proposal, generators=[[[a, b], [b, c]]]))


@pytest.mark.parametrize("bad", [
    None, [], {"summary": 3}, {"summary": "s", "breaking": []}, {"summary": "s", "breaking": [True], "covered": [1]},
    {"summary": "s", "breaking": [1], "covered": [1], "generators": [[[1, "2"]]]},
    {"summary": "s", "breaking": [1], "covered": [1], "generators": [[[1, 10 ** 9]]]},
    {"summary": "s", "breaking": [1], "covered": [1], "generators": [[[1, 2], [1, 3]]]},
    {"summary": "s", "breaking": [1], "covered": [1], "blocks": [[[1, 2], [3, 4]]]},
    {"summary": "s", "breaking": [1], "covered": [1], "blocks": [[[1, 2], [-3]]]},
    {"summary": "s", "breaking": [1], "covered": [1], "blocks": [[[1, 1, 2], [3, 4]]]},  # x twice: x is forced false
])
def test_a_malformed_proposal_is_one_line(bad):
    assert isinstance(lemma_from_json(bad, 100), str)


def test_two_blocks_sharing_an_auxiliary_are_refused(board_claim):
    _, _, ref, proposal = board_claim
    (lits, aux), (lits2, aux2), *rest = proposal["blocks"]
    assert "two blocks" in refused(ref, dict(proposal, blocks=[[lits, aux], [lits2, aux[:1] + aux2[1:]], *rest]))


def test_the_kingtour_hook_is_the_rules_proposal():
    board = kt_board(6, "2x3")
    claim = {"op": "first"}
    assert kingtour.reference_symmetry(board, claim) == proposals.proposal(board, claim)
