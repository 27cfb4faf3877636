"""Symmetry breaking on a reference formula (smtpuzzles.trusted.symmetry.check_formula): the lemma a puzzle
proposes is checked on the DIMACS clauses alone. Tested three ways: the ladder the check
regenerates is exactly "at most one" (every assignment); on King's-tour boards the formula with the
breaking clause keeps the brute force's optimum; and proposals or formulas broken one way each are
refused with a line naming the fault."""

from __future__ import annotations

from importlib import import_module
import itertools
import json

import pytest
from pysat.solvers import Solver

from smtpuzzles.puzzles import kingtour
from smtpuzzles.trusted import cnf
from smtpuzzles.puzzles.kingtour import symmetry as proposals
from smtpuzzles.trusted import symmetry as symmetry_module
from smtpuzzles.trusted.symmetry import FormulaLemma, check_formula, ladder, lemma_from_json
from test_checker_soundness import Mutation, assert_each_mutant_is_caught
from test_rules_reference import just_below, kt_board, kt_brute_optimum

rules = import_module("smtpuzzles.puzzles.kingtour.reference")  # not `from`: the package's `reference` is its hook


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
    proposal = proposals.proposal(rules, board, claim)
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
    assert proposals.proposal(rules, board, {"op": "first"}) is None


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
    assert kingtour.reference_symmetry(board, claim) == proposals.proposal(rules, board, claim)


# ---------------------------------------------------------------- held-out mutations of check_formula
# Small unsound changes to smtpuzzles.symmetry (check_formula and its ladder), each applied to the
# source and run as a fresh module (test_checker_soundness.mutant), each naming the test below that
# must fail on it. Each test is a hand-made formula F and lemma where F has a model and F & C none
# (glucose says so, not the check): a check that accepted the lemma would let a proof of F & C
# refute a satisfiable F. Ladders are written out by hand, not by `ladder`.
def loses_every_model(check, nvars: int, clauses, generators=(), blocks=(), breaking=(), covered=()) -> None:
    assert satisfiable(clauses) and not satisfiable(clauses + [list(breaking)]), clauses
    lemma = FormulaLemma(tuple(generators), tuple(blocks), tuple(breaking), tuple(covered), "a hand-made lemma")
    problems, words = check(nvars, clauses, lemma)
    assert problems, f"accepted: {words}"


def test_lemma_a_generator_must_map_each_clause_onto_a_clause(check=check_formula):
    # Swapping 1 and 2 maps (1) onto (2), which F lacks (F says -2).
    loses_every_model(check, 2, [[1], [-2]], [{1: 2, 2: 1}], breaking=[2], covered=[1])


def test_lemma_every_generator_is_checked(check=check_formula):
    # The first generator (3 4, variables in no clause) is a symmetry; the second is not.
    loses_every_model(check, 4, [[1], [-2]], [{3: 4, 4: 3}, {1: 2, 2: 1}], breaking=[2], covered=[1])


def test_lemma_a_generator_must_map_each_block_onto_a_block(check=check_formula):
    # At most one of 1 2 3 (aux 4 5), 2 true, (1 6): swapping 1 and 6 keeps the plain clauses but not
    # the block, and 1 (the breaking clause) cannot be true beside 2.
    ladder_123 = [[-1, 4], [-2, 5], [-2, -4], [-4, 5], [-3, -5]]
    loses_every_model(check, 6, ladder_123 + [[2], [1, 6]], [{1: 6, 6: 1}], [((1, 2, 3), (4, 5))],
                      breaking=[1], covered=[1, 6])


def test_lemma_clauses_on_auxiliaries_must_be_exactly_the_ladders(check=check_formula):
    # The ladder of 1 2 (aux 3) and one clause more, (-3), which rules out 1 alone: not "at most one".
    loses_every_model(check, 3, [[-1, 3], [-2, -3], [-3], [1, 2]], [{1: 2, 2: 1}], [((1, 2), (3,))],
                      breaking=[1], covered=[1, 2])


def test_lemma_a_ladder_missing_its_second_literals_clauses_is_no_block(check=check_formula):
    # Without (-2 -4) and (-4 5) the ladder of 1 2 3 only says "not 2 and 3": 1 and 3 swap is no symmetry.
    loses_every_model(check, 5, [[-1, 4], [-2, 5], [-3, -5], [1, 3], [2]], [{1: 3, 3: 1}], [((1, 2, 3), (4, 5))],
                      breaking=[3], covered=[1, 3])


def test_lemma_a_ladder_missing_its_chain_is_no_block(check=check_formula):
    # Without (-4 5) the ladder of 1 2 3 lets 1 and 3 both hold: 2 and 3 swap is no symmetry.
    loses_every_model(check, 5, [[-1, 4], [-2, 5], [-2, -4], [-3, -5], [1], [2, 3]], [{2: 3, 3: 2}],
                      [((1, 2, 3), (4, 5))], breaking=[2], covered=[2, 3])


def test_lemma_two_blocks_share_no_auxiliary(check=check_formula):
    # Ladders of 1 2 and of 3 4 over the one auxiliary 5 also forbid 1 with 4: no longer two blocks.
    loses_every_model(check, 5, [[-1, 5], [-2, -5], [-3, 5], [-4, -5], [1, 2], [4]], [{1: 2, 2: 1}],
                      [((1, 2), (5,)), ((3, 4), (5,))], breaking=[1], covered=[1, 2])


def test_lemma_every_covered_literal_is_moved_into_the_breaking_clause(check=check_formula):
    loses_every_model(check, 2, [[1, 2], [-2]], breaking=[2], covered=[1, 2])


def test_lemma_the_covered_clause_is_a_clause_of_the_formula(check=check_formula):
    # (1) is part of the clause (1 2), not a clause: not every model makes it true.
    loses_every_model(check, 2, [[1, 2], [-1]], breaking=[1], covered=[1])


SYMMETRY_MUTATIONS = [
    Mutation("clauses a generator touches skipped", "if not moved.isdisjoint(map(abs, clause)) and",
             "if moved.isdisjoint(map(abs, clause)) and", "test_lemma_a_generator_must_map_each_clause_onto_a_clause"),
    Mutation("only the first generator checked", "for number, g in enumerate(lemma.generators, 1):",
             "for number, g in enumerate(lemma.generators[:1], 1):", "test_lemma_every_generator_is_checked"),
    Mutation("a block compared with itself, not its image", "if frozenset(map(image, block)) not in blocks:",
             "if frozenset(map(abs, block)) not in blocks:", "test_lemma_a_generator_must_map_each_block_onto_a_block"),
    Mutation("extra clauses on auxiliaries tolerated", "if set(in_blocks) != set(wanted):",
             "if not set(wanted) <= set(in_blocks):", "test_lemma_clauses_on_auxiliaries_must_be_exactly_the_ladders"),
    Mutation("the ladders not regenerated (read from the formula)", "for clause in ladder(lits, aux):",
             "for clause in [c for c in clauses if any(abs(x) in aux for x in c)]:",
             "test_lemma_clauses_on_auxiliaries_must_be_exactly_the_ladders"),
    Mutation("ladder: no exclusion for the second literal", "        if i > 0:\n            clauses.append([-x, -aux",
             "        if i > 1:\n            clauses.append([-x, -aux",
             "test_lemma_a_ladder_missing_its_second_literals_clauses_is_no_block"),
    Mutation("ladder: the chain dropped", "clauses.append([-aux[i - 1], aux[i]])", "pass",
             "test_lemma_a_ladder_missing_its_chain_is_no_block"),
    Mutation("an auxiliary shared by two blocks", 'return [f"auxiliary variable {v} belongs to two blocks"], ""',
             "pass", "test_lemma_two_blocks_share_no_auxiliary"),
    Mutation("the covered clause's first literal not looked at", "for x in lemma.covered if not moved_in(x)]",
             "for x in lemma.covered[1:] if not moved_in(x)]",
             "test_lemma_every_covered_literal_is_moved_into_the_breaking_clause"),
    Mutation("a covered clause inside a clause of the formula accepted",
             "if tuple(sorted(set(lemma.covered))) not in plain:",
             "if not any(set(lemma.covered) <= set(c) for c in plain):",
             "test_lemma_the_covered_clause_is_a_clause_of_the_formula"),
]


@pytest.mark.parametrize("mutation", SYMMETRY_MUTATIONS, ids=[m.name for m in SYMMETRY_MUTATIONS])
def test_each_held_out_symmetry_mutation_is_caught_by_its_named_test(mutation):
    assert_each_mutant_is_caught(symmetry_module, mutation, "check_formula", globals())
