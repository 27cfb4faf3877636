"""Soundness of the two proof checkers every checked claim rests on: smtpuzzles.trusted.lrat (linear LRAT)
and smtpuzzles.proofs.drup (backward DRUP).

Each bogus proof below is checked against a formula that is satisfiable, shown so by a model the
test names or finds by brute force: accepting the proof would be a false UNSAT. Where a bogus
proof is a bad first part followed by an honest rest, the rest is shown honest on its own (it is
accepted once the bad part's lemmas are given as formula clauses, and that formula is shown
unsatisfiable by brute force), so a checker that let the bad part through would accept a proof of
unsatisfiability for a satisfiable formula. Honest proofs, from glucose4 or written here with
hints found by a naive unit propagation of this file's own, must be accepted, so a checker that
rejects everything fails too. No expected verdict comes from the code under test.
"""

from __future__ import annotations

import io
import sys
import time
import types
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from smtpuzzles.proofs import proof
from smtpuzzles.proofs.drup import check_drup, to_lrat
from smtpuzzles.trusted import lrat as lrat_module
from smtpuzzles.trusted.lrat import Limits, check_lrat


# ------------------------------------------------------------------------------ the formulas' truth
def masks(clause) -> tuple[int, int]:
    """(positive, negative) variable bit masks of a clause; variable v is bit v - 1."""
    pos = neg = 0
    for lit in clause:
        if lit > 0:
            pos |= 1 << (lit - 1)
        else:
            neg |= 1 << (-lit - 1)
    return pos, neg


def models(nvars: int, clauses) -> list[int]:
    """Every model of the clauses, as bit masks (brute force)."""
    full = (1 << nvars) - 1
    alive = list(range(1 << nvars))
    for clause in clauses:
        pos, neg = masks(clause)
        alive = [m for m in alive if m & pos or ~m & full & neg]
    return alive


def as_model(nvars: int, bits: int) -> dict[int, bool]:
    return {v: bool(bits >> (v - 1) & 1) for v in range(1, nvars + 1)}


def true_in(model: dict[int, bool], clause) -> bool:
    return any(model[abs(lit)] == (lit > 0) for lit in clause)


def assert_model(model: dict[int, bool], clauses) -> None:
    for clause in clauses:
        assert true_in(model, clause), (model, clause)


def assert_unsat(nvars: int, clauses) -> None:
    assert models(nvars, clauses) == [], clauses


# ------------------------------------------------------------------- honest proofs, made by the test
def rup_hints(clauses: dict[int, list[int]], lemma) -> list[int] | None:
    """The ids that make `lemma` follow by unit propagation over `clauses` (id -> literals), in the
    order propagation uses them; [] for a tautology; None when it does not follow. Naive and
    slow, and sharing nothing with the checkers."""
    true = {-lit for lit in lemma}
    if any(-lit in true for lit in true):
        return []
    hints: list[int] = []
    changed = True
    while changed:
        changed = False
        for cid, clause in clauses.items():
            if any(lit in true for lit in clause):
                continue
            open_lits = {lit for lit in clause if -lit not in true}
            if not open_lits:
                return hints + [cid]
            if len(open_lits) == 1:
                true.add(open_lits.pop())
                hints.append(cid)
                changed = True
    return None


def solver_steps(clauses) -> list[tuple[bool, list[int]]] | None:
    """glucose4's DRUP proof of the clauses as steps, None when they are satisfiable."""
    if any(not c for c in clauses):
        return []
    with Solver(name="glucose4", bootstrap_with=clauses, with_proof=True) as engine:
        if engine.solve():
            return None
        lines = engine.get_proof() or []
    steps = []
    for line in lines:
        parts = line.split()
        deletion = parts[0] == "d"
        lits = [int(p) for p in parts[1 if deletion else 0:]]
        assert lits[-1] == 0
        steps.append((deletion, lits[:-1]))
    return steps


def lrat_lines(formula, lemmas, first_id: int | None = None) -> list[str]:
    """An LRAT refutation of `formula` (a list, or clauses by id) from the RUP `lemmas` (in order;
    an empty clause is added when they do not end in one), hints found by `rup_hints`, each clause
    deleted after its last use."""
    clauses = dict(formula) if isinstance(formula, dict) else {i + 1: list(c) for i, c in enumerate(formula)}
    ident = first_id or max(clauses, default=0) + 1
    made: list[tuple[int, list[int], list[int]]] = []
    for lits in [*lemmas, []]:
        hints = rup_hints(clauses, lits)
        assert hints is not None, f"not RUP: {lits}"
        made.append((ident, list(lits), hints))
        clauses[ident] = list(lits)
        ident += 1
        if not lits:
            break
    last_use: dict[int, int] = {}
    for place, (_, _, hints) in enumerate(made):
        for h in hints:
            last_use[h] = place
    out = []
    for place, (ident, lits, hints) in enumerate(made):
        out.append(" ".join(map(str, [ident, *lits, 0, *hints, 0])))
        gone = sorted(h for h, p in last_use.items() if p == place)
        if gone and place < len(made) - 1:
            out.append(" ".join(map(str, [ident, "d", *gone, 0])))
    return out


def honest_lrat(formula, first_id: int | None = None) -> list[str]:
    """An LRAT refutation of an unsatisfiable formula: glucose4's lemmas, hints found here."""
    steps = solver_steps(formula)
    assert steps is not None, "satisfiable"
    return lrat_lines(formula, [lits for deletion, lits in steps if not deletion], first_id)


def honest_drup(formula) -> list[str]:
    steps = solver_steps(formula)
    assert steps is not None, "satisfiable"
    return [("d " if d else "") + " ".join(map(str, [*lits, 0])) for d, lits in steps] + ["0"]


# ------------------------------------------------------------------------------ running the checkers
def dimacs(nvars: int, clauses) -> str:
    return f"p cnf {nvars} {len(clauses)}\n" + "".join(" ".join(map(str, [*c, 0])) + "\n" for c in clauses)


def lrat(nvars, formula, text, **kw):
    data = "\n".join(text).encode() + b"\n" if isinstance(text, list) else text.encode() if isinstance(text, str) else text
    return check_lrat(nvars, formula, data, **kw)


def drup(nvars, formula, text) -> tuple[bool, str]:
    data = ("\n".join(text) + "\n" if isinstance(text, list) else text).encode()
    return proof.check(dimacs(nvars, formula), data)


def drup_steps(text) -> list[tuple[bool, list[int]]]:
    steps = []
    for line in text:
        parts = line.split()
        if not parts or parts[0] == "c":
            continue
        deletion = parts[0] == "d"
        steps.append((deletion, [int(p) for p in parts[deletion:-1]]))
    return steps


def one_line(message: str) -> bool:
    return bool(message) and "\n" not in message and len(message) < 200


def lrat_rejects(nvars, formula, text, line: int | None, fragment: str, model=None):
    """The LRAT proof is rejected, by the line and for the reason given; the formula is satisfiable."""
    assert model is not None or models(nvars, formula), "the formula must be satisfiable"
    if model is not None:
        assert_model(model, formula)
    verdict = lrat(nvars, formula, text)
    assert verdict.ok is False and not verdict.over_limit, verdict
    if line is not None:
        assert verdict.message.startswith(f"proof line {line}:"), verdict.message
    assert fragment in verdict.message and one_line(verdict.message), verdict.message
    return verdict


def drup_rejects(nvars, formula, text, line: int | None, fragment: str = "does not follow by unit propagation", model=None):
    assert model is not None or models(nvars, formula), "the formula must be satisfiable"
    if model is not None:
        assert_model(model, formula)
    ok, message = drup(nvars, formula, text)
    assert ok is False, message
    if line is not None:
        assert message.startswith(f"proof line {line}:"), message
    assert fragment in message and one_line(message), message
    verdict = check_drup(nvars, formula, drup_steps(text))  # the same, without the text reader
    assert verdict.ok is False
    return message


# ------------------------------------------------------------------------ satisfiable formulas, named
# (nvars, clauses, a model). Clause ids in LRAT are 1, 2, ... in this order.
F_A = (2, [[1, 2], [1, -2], [-1, 2]], {1: True, 2: True})  # the model is the only one
F_B = (3, [[1], [-1, 2], [-2, 3]], {1: True, 2: True, 3: True})  # units all the way
F_C = (3, [[1, 2, 3], [-1, 2], [-2, 3], [-3, 1]], {1: True, 2: True, 3: True})  # a cycle: all equal
F_D = (3, [[-1, 2], [2, 3], [-3, -1], [1]], {1: True, 2: True, 3: False})
F_W = (5, [[1, 2, 3, 4, 5], [-1, 2], [-2, 3], [-3, 4], [-4, 5], [-5, 1]], {v: True for v in range(1, 6)})
F_S = (3, [[1, 2], [1, -2], [-2, -3], [3]], {1: True, 2: False, 3: True})
F_S2 = (3, [[1, 2], [1, -2], [1, -3], [3]], {1: True, 2: False, 3: True})
F_N = (4, [[-1, 2], [-2, 3], [-3, -1], [-4, 1]], {1: False, 2: False, 3: False, 4: False})
# Unsatisfiable: every clause over two variables.
FULL = (2, [[1, 2], [1, -2], [-1, 2], [-1, -2]])


def php(pigeons: int, holes: int) -> tuple[int, list[list[int]]]:
    var = lambda p, h: p * holes + h + 1  # noqa: E731
    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes) for p in range(pigeons) for q in range(p + 1, pigeons)]
    return pigeons * holes, clauses


def test_the_named_formulas_are_what_they_are():
    for nvars, clauses, model in (F_A, F_B, F_C, F_D, F_W, F_S, F_S2, F_N):
        assert_model(model, clauses)
    assert [as_model(2, m) for m in models(*F_A[:2])] == [F_A[2]]
    assert_unsat(*FULL)
    assert_unsat(*php(3, 2))
    assert models(*php(2, 2))


# ------------------------------------------------------------------------ bogus first parts, named
@dataclass(frozen=True)
class Bogus:
    """A bad first part of a proof: LRAT lemma lines (ids from the formula's size + 1), the line
    that must be rejected and why. The rest of the proof is an honest refutation of the formula
    with the bad part's lemmas added, so accepting the bad part means accepting a false UNSAT."""

    name: str
    formula: tuple
    lines: tuple[str, ...]
    line: int  # the line rejected, in the LRAT proof and in its DRUP form (lemmas alone)
    fragment: str

    @property
    def lemmas(self) -> list[list[int]]:
        out = []
        for text in self.lines:
            numbers = [int(x) for x in text.split()[1:]]
            out.append(numbers[:numbers.index(0)])
        return out


BOGUS = [
    # Unjustified lemmas of every shape.
    Bogus("empty clause at once, no hints", F_A, ("4 0 0",), 1, "the hints end without a conflict"),
    Bogus("empty clause, units without a conflict", F_B, ("4 0 1 2 3 0",), 1, "the hints end without a conflict"),
    Bogus("empty clause, a first hint not unit", F_A, ("4 0 1 2 3 0",), 1, "hint 1 is not unit (two open literals)"),
    Bogus("unit lemma", F_A, ("4 -1 0 3 0",), 1, "the hints end without a conflict"),
    Bogus("unit lemma, no hints", F_A, ("4 -2 0 0",), 1, "the hints end without a conflict"),
    Bogus("unit lemma, another", F_A, ("4 -2 0 2 0",), 1, "the hints end without a conflict"),
    Bogus("binary lemma", F_C, ("5 -1 -2 0 3 0",), 1, "the hints end without a conflict"),
    Bogus("binary lemma over a unit chain", F_B, ("4 -1 -3 0 2 0",), 1, "the hints end without a conflict"),
    Bogus("wide lemma", F_W, ("7 -1 -2 -3 -4 0 5 0",), 1, "the hints end without a conflict"),
    Bogus("wide lemma, every variable", F_W, ("7 -1 -2 -3 -4 -5 0 0",), 1, "the hints end without a conflict"),
    Bogus("wide lemma, every hint satisfied", F_W, ("7 -1 -2 -3 -4 -5 0 2 3 0",), 1, "hint 2 is already satisfied"),
    # Duplicate and complementary literals.
    Bogus("duplicate literals, no hints", F_A, ("4 -1 -1 0 0",), 1, "the hints end without a conflict"),
    Bogus("duplicate literals, three times", F_A, ("4 -1 -1 -1 0 3 0",), 1, "the hints end without a conflict"),
    Bogus("duplicate literals, wide", F_W, ("7 -1 -2 -1 -2 -3 0 4 0",), 1, "the hints end without a conflict"),
    Bogus("duplicate literals, two variables", F_A, ("4 -1 -2 -1 -2 0 0",), 1, "the hints end without a conflict"),
    Bogus("a tautology is no unit hint", F_A, ("4 1 -1 0 0", "5 -2 0 4 0"), 2, "hint 4 is not unit"),
    Bogus("a tautology is no unit hint, either sign", F_A, ("4 2 -2 0 0", "5 -1 0 4 0"), 2, "hint 4 is not unit"),
    Bogus("a tautology is satisfied as a hint", F_A, ("4 1 -1 0 0", "5 -1 0 4 0"), 2, "hint 4 is already satisfied"),
    Bogus("a wide tautology proves nothing after it", F_W, ("7 -1 2 1 0 0", "8 -1 0 7 0"), 2, "hint 7 is already satisfied"),
    # Hints.
    Bogus("a hint satisfied by the lemma's negation", F_A, ("4 -1 0 3 2 0",), 1, "hint 2 is already satisfied"),
    Bogus("a hint satisfied by a unit before it", F_D, ("5 -1 0 1 2 3 0",), 1, "hint 2 is already satisfied"),
    Bogus("a hint repeated (satisfied the second time)", F_A, ("4 -1 0 3 3 2 0",), 1, "hint 3 is already satisfied"),
    Bogus("a hint missing", F_D, ("5 -1 0 1 0",), 1, "the hints end without a conflict"),
    Bogus("a hint on the lemma itself", F_A, ("4 -1 0 4 0",), 1, "hint 4 is not a clause present here"),
    Bogus("a hint on a later lemma", F_A, ("4 -1 0 5 0", "5 -1 0 4 0"), 1, "hint 5 is not a clause present here"),
    Bogus("a hint on a clause never made", F_A, ("4 -1 0 3 99 0",), 1, "hint 99 is not a clause present here"),
    Bogus("a negative (RAT) hint", F_A, ("4 -1 0 -3 0",), 1, "(RAT hints are not accepted)"),
    Bogus("a negative hint after a good one", F_A, ("4 -1 0 3 -2 0",), 1, "(RAT hints are not accepted)"),
    Bogus("a hint with two open literals, last one", F_A, ("4 0 2 3 1 0",), 1, "hint 2 is not unit"),
    Bogus("a hint with two open literals, first one", F_A, ("4 0 3 1 2 0",), 1, "hint 3 is not unit"),
    Bogus("a hint with two open literals, after a unit", F_B, ("4 0 1 3 2 0",), 1, "hint 3 is not unit"),
    Bogus("hints that end without a conflict", F_B, ("4 -3 0 1 2 0",), 1, "the hints end without a conflict"),
    # Stale state between lemmas: each second line passes only if the first line's check left an
    # assignment behind.
    Bogus("stale: a unit propagated for the previous lemma", F_S, ("5 1 0 1 2 0", "6 -3 0 3 0"), 2,
          "the hints end without a conflict"),
    Bogus("stale: the previous lemma's negation", F_S2, ("5 1 0 1 2 0", "6 -3 0 3 0"), 2, "the hints end without a conflict"),
    Bogus("stale: the previous lemma's negation, then the empty clause", F_A, ("4 1 0 1 2 0", "5 0 4 0"), 2,
          "the hints end without a conflict"),
    Bogus("stale: a tautology's first literal", F_S2, ("5 1 -1 0 0", "6 -3 0 3 0"), 2, "the hints end without a conflict"),
    Bogus("stale: a unit from two lemmas back", F_S, ("5 1 0 1 2 0", "6 1 2 0 1 0", "7 -3 0 3 0"), 3,
          "the hints end without a conflict"),
    # A lemma whose only support is an unchecked one (DRUP: found through another lemma's check).
    Bogus("a lemma resting on a bad one", F_N, ("5 1 4 0 0", "6 1 0 5 4 0"), 1, "the hints end without a conflict"),
]


@pytest.mark.parametrize("case", BOGUS, ids=[c.name for c in BOGUS])
def test_the_rest_of_each_bogus_proof_is_honest(case):
    """What follows the bad part refutes the formula once the bad lemmas are given: so accepting
    the bad part would accept a false UNSAT."""
    nvars, clauses, model = case.formula
    assert_model(model, clauses)
    stronger = clauses + case.lemmas
    assert_unsat(nvars, stronger)
    assert lrat(nvars, stronger, honest_lrat(stronger)).ok is True
    assert drup(nvars, stronger, honest_drup(stronger))[0] is True
    assert not any(true_in(m, lemma) for m in [model] for lemma in case.lemmas[case.line - 1:case.line])


@pytest.mark.parametrize("case", BOGUS, ids=[c.name for c in BOGUS])
def test_a_bogus_lrat_proof_is_rejected_at_its_bad_line(case):
    nvars, clauses, model = case.formula
    stronger = clauses + case.lemmas
    text = list(case.lines) + honest_lrat(stronger, first_id=len(stronger) + 1)
    verdict = lrat_rejects(nvars, clauses, text, case.line, case.fragment, model)
    assert verdict.lemmas == case.line - 1  # the lemmas before the bad line were checked, no more


@pytest.mark.parametrize("case", BOGUS, ids=[c.name for c in BOGUS])
def test_a_bogus_drup_proof_is_rejected_at_its_bad_line(case):
    """The same lemmas without ids and hints: the backward check reaches the bad lemma (the rest is
    RUP given it) and rejects it by its line."""
    nvars, clauses, model = case.formula
    stronger = clauses + case.lemmas
    text = [" ".join(map(str, [*lits, 0])) for lits in case.lemmas] + honest_drup(stronger)
    drup_rejects(nvars, clauses, text, case.line, model=model)


# ----------------------------------------------------------------------- LRAT: ids, deletions, lines
@pytest.mark.parametrize("text,line,fragment", [
    # ids: a formula clause's, not increasing, reused, negative.
    ("3 1 0 1 2 0", 1, "id 3 is not above the previous id 3"),
    ("1 1 0 1 2 0", 1, "id 1 is not above the previous id 3"),
    ("0 1 0 1 2 0", 1, "id 0 is not above the previous id 3"),
    ("-4 1 0 1 2 0", 1, "id -4 is not above the previous id 3"),
    ("4 1 0 1 2 0\n4 2 0 1 3 0", 2, "id 4 is not above the previous id 4"),
    ("5 1 0 1 2 0\n4 2 0 1 3 0", 2, "id 4 is not above the previous id 5"),
    ("4 1 0 1 2 0\n3 d 2 0\n2 -1 0 1 3 0", 3, "id 2 is not above the previous id 4"),
    # Deletions of clauses that are not there, and of what is then used.
    ("3 d 9 0", 1, "deletes clause 9, which does not exist"),
    ("3 d 4 0\n4 1 0 1 2 0", 1, "deletes clause 4, which does not exist"),
    ("3 d 1 0\n3 d 1 0", 2, "deletes clause 1, which does not exist"),
    ("3 d 1 1 0", 1, "deletes clause 1, which does not exist"),
    ("3 d -1 0", 1, "deletes clause -1, which does not exist"),
    ("3 d 2 0\n4 1 0 1 2 0", 2, "hint 2 is not a clause present here"),
    ("4 1 0 1 2 0\n4 d 4 0\n5 2 0 4 3 0", 3, "hint 4 is not a clause present here"),
    ("4 1 0 1 2 0\n4 d 1 2 3 0\n5 2 0 4 3 0", 3, "hint 3 is not a clause present here"),
    # Lines that are not LRAT.
    ("3 d 1 2", 1, "a deletion must list ids ending with one 0"),
    ("3 d 1 0 2 0", 1, "a deletion must list ids ending with one 0"),
    ("3 d", 1, "a deletion must list ids ending with one 0"),
    ("3 d 1 x 0", 1, "not a line of integers"),
    ("4 1 0 1 2", 1, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4 1 0 1 2 0 0", 1, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4 0 1 0 0", 1, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4 1 0 0 1 2 0", 1, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4 0", 1, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4", 1, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4 1 0 1 2 0 5", 1, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4 1 0 1 2 0\n5 0 4 3 0 0", 2, "a lemma is 'ID LITERALS 0 HINTS 0'"),
    ("4 1 0 1 two 0", 1, "not a line of integers"),
    ("four 1 0 1 2 0", 1, "the line does not start with a clause id"),
    ("d 1 0", 1, "the line does not start with a clause id"),
    ("4\t1 0 1 2 0", 1, "the line does not start with a clause id"),
    # Literals outside the formula's variables (0 cannot be one: it ends the literals).
    ("4 3 0 0", 1, "a literal outside the formula's 2 variables"),
    ("4 -3 0 0", 1, "a literal outside the formula's 2 variables"),
    ("4 1 5 0 1 2 0", 1, "a literal outside the formula's 2 variables"),
    ("4 -5 0 0", 1, "a literal outside the formula's 2 variables"),
    ("4 99 0 0", 1, "a literal outside the formula's 2 variables"),
    ("4 1 0 1 2 0\n5 -2 3 0 0", 2, "a literal outside the formula's 2 variables"),
    # The empty clause before the lemmas it needs.
    ("4 0 5 3 0\n5 1 0 1 2 0", 1, "hint 5 is not a clause present here"),
    # Honest lemmas that stop short.
    ("4 1 0 1 2 0\n5 2 0 4 3 0", None, "the proof ends without deriving the empty clause (cut short?)"),
    ("", None, "the proof ends without deriving the empty clause (cut short?)"),
    ("c only a comment\n\n", None, "the proof ends without deriving the empty clause (cut short?)"),
])
def test_lrat_ids_deletions_and_lines(text, line, fragment):
    lrat_rejects(*F_A[:2], text + "\n", line, fragment, F_A[2])


@pytest.mark.parametrize("text,message", [
    ("4 -1 0 3 99 0", "proof line 1: hint 99 is not a clause present here"),
    ("4 -1 0 -3 0", "proof line 1: hint -3 is not a clause present here (RAT hints are not accepted)"),
    ("4 -1 0 3 2 0", "proof line 1: hint 2 is already satisfied, so it implies nothing"),
    ("4 0 1 0", "proof line 1: hint 1 is not unit (two open literals)"),
    ("4 -1 0 3 0", "proof line 1: the hints end without a conflict: the clause is not implied"),
    ("3 d 1 0 0", "proof line 1: a deletion must list ids ending with one 0"),
    ("3 d 0 0", "proof line 1: a deletion must list ids ending with one 0"),
    ("3 d 1 0\n4 1 0 1 0", "proof line 2: hint 1 is not a clause present here"),
    ("4 1 0 1 2 0", "the proof ends without deriving the empty clause (cut short?)"),
])
def test_each_rejection_says_exactly_why(text, message):
    verdict = lrat(*F_A[:2], text + "\n")
    assert verdict.ok is False and verdict.message == message


def test_deleting_or_reusing_ids_cannot_turn_a_lemma_into_another():
    """A deleted lemma's id is gone for good: no line can bring it back with other literals."""
    nvars, clauses, model = F_A
    lrat_rejects(nvars, clauses, "4 1 0 1 2 0\n4 d 4 0\n4 -1 0 0\n5 0 4 1 2 0\n", 3, "id 4 is not above the previous id 4")
    # A formula clause cannot be replaced by a lemma under its id either.
    lrat_rejects(nvars, clauses, "3 d 3 0\n3 -1 0 0\n4 0 3 1 2 0\n", 2, "id 3 is not above the previous id 3")


def test_a_satisfiable_formula_has_no_lrat_proof_from_any_mix_of_the_above():
    """Every hint list of up to three ids for the empty clause, and for the unit lemmas ±1, ±2
    followed by the empty clause: on F_A none is accepted."""
    nvars, clauses, _ = F_A
    ids = [1, 2, 3, 4, -1, 5]
    for k in range(4):
        for hints in product(ids[:4], repeat=k):
            assert lrat(nvars, clauses, " ".join(map(str, [4, 0, *hints, 0]))).ok is False
    for lit in (1, -1, 2, -2):
        for hints in product(ids, repeat=2):
            for final in product([1, 2, 3, 4], repeat=2):
                text = f"4 {lit} 0 {' '.join(map(str, hints))} 0\n5 0 {' '.join(map(str, final))} 0\n"
                verdict = lrat(nvars, clauses, text)
                assert verdict.ok is False, text
                if lit in (-1, -2):  # false in the only model: never checked as a lemma
                    assert verdict.lemmas == 0, text


# ------------------------------------------------------------------------------ DRUP-only classes
def test_drup_lemmas_that_are_not_rup_are_rejected():
    nvars, clauses, model = F_A
    drup_rejects(nvars, clauses, ["0"], 1, model=model)
    drup_rejects(nvars, clauses, ["-1 0", "0"], 1, model=model)
    drup_rejects(nvars, clauses, ["-2 0"], 1, model=model)  # its own conflict, and no empty clause line
    drup_rejects(nvars, clauses, ["1 0", "-2 0", "0"], 2, model=model)  # after an honest lemma
    drup_rejects(nvars, clauses, ["-1 -2 0", "1 0", "0"], 1, model=model)  # used only by the honest lemma after it
    drup_rejects(*F_C[:2], ["-1 -2 0", "-1 0", "0"], 1, model=F_C[2])
    # (Neither is the empty clause after it, which the backward check finds first.)
    drup_rejects(*F_W[:2], ["-1 -2 -3 -4 -5 0", "0"], 2, model=F_W[2])
    drup_rejects(*F_W[:2], ["-1 -2 -1 -3 -4 -5 -5 0", "0"], 2, model=F_W[2])
    # Any single lemma over two variables followed by the empty clause.
    for lemma in ([1], [2], [-1], [-2], [1, 2], [-1, -2], [1, -2], [-1, 2], [1, 1], [-2, -2], [1, -1], []):
        ok, message = drup(nvars, clauses, [" ".join(map(str, [*lemma, 0])), "0"])
        assert ok is False, (lemma, message)


def test_a_clause_deleted_and_then_needed_is_missed():
    """(1 ∨ ¬2) deleted, then the lemma 1 that needs it: the backward check finds it is not RUP
    there, and names its line (keeping the clause would only move the rejection to line 1)."""
    nvars, clauses, model = F_A
    text = ["-1 -2 0", "d 1 -2 0", "1 0", "0"]
    drup_rejects(nvars, clauses, text, 3, model=model)
    drup_rejects(nvars, clauses, ["-1 -2 0", "d -2 1 0", "1 0", "0"], 3, model=model)  # any order of literals
    drup_rejects(nvars, clauses, ["-1 -2 0", "d 1 -2 1 0", "1 0", "0"], 3, model=model)  # duplicates too
    drup_rejects(nvars, clauses, ["-1 -2 0", "1 0", "0"], 1, model=model)  # kept: line 1 is the bad one
    drup_rejects(nvars, clauses, ["-1 -2 0", "d 2 1 0", "1 0", "0"], 3, model=model)  # the first clause
    # A deleted lemma, then needed again: F_N's bad (1 ∨ 4) made, deleted, then used.
    drup_rejects(*F_N[:2], ["1 4 0", "d 1 4 0", "1 0", "0"], 3, model=F_N[2])
    # On an unsatisfiable formula too: the proof is wrong, whatever else follows.
    ok, message = drup(*FULL, ["d 1 -2 0", "1 0", "0"])
    assert ok is False and message.startswith("proof line 2:") and "does not follow" in message, message


def test_a_deletion_of_what_is_not_there_deletes_nothing_else():
    """Deleting a clause that is not present is ignored (drat-trim does the same): it must not
    delete another clause by mistake, nor make a lemma count as checked."""
    nvars, clauses, model = F_A
    drup_rejects(nvars, clauses, ["d 1 2 -2 0", "d -1 -2 0", "-1 -2 0", "1 0", "0"], 3, model=model)
    ok, _ = drup(*FULL, ["d -1 -2 0", "d 1 0", "1 0", "0"])  # the first deletion is real: (¬1 ∨ ¬2) gone
    assert ok is False


def test_drup_proofs_that_stop_before_the_empty_clause_are_rejected():
    nvars, clauses, model = F_A
    for text in ([], ["1 0"], ["1 0", "2 0"], ["1 2 0", "1 0", "d 1 0"], ["c only a comment"]):
        message = drup_rejects(nvars, clauses, text, None, "the proof ends without deriving the empty clause (cut short?)", model)
        assert message == "the proof ends without deriving the empty clause (cut short?)"
    verdict = check_drup(nvars, clauses, [(False, [1]), (False, [2])])
    assert verdict.ok is False and verdict.lemmas == 2 and verdict.checked == 0 and verdict.used == []


def test_a_conflict_that_comes_only_from_a_bad_lemma_is_rejected():
    """The top-level conflict rests on a lemma that is not RUP, directly, as a reason deep in the
    conflict, or only through the check of another lemma."""
    drup_rejects(*F_A[:2], ["-2 0"], 1, model=F_A[2])
    chain = (4, [[-1, 2], [-2, 3], [-3, 4], [-4, -1]])  # 1 -> 2 -> 3 -> 4 -> ¬1
    drup_rejects(*chain, ["1 0"], 1)
    drup_rejects(*chain, ["1 0", "2 0", "3 0", "0"], 1)
    drup_rejects(*F_N[:2], ["1 4 0", "1 0", "0"], 1, model=F_N[2])
    drup_rejects(*F_N[:2], ["1 4 0", "2 4 0", "1 0", "0"], 1, model=F_N[2])
    # The bad lemma is the reason of a reason: ¬2 from it, then 1 from (1 ∨ 2) ... conflict.
    formula = (3, [[1, 2], [-1, 3], [-1, -3]])  # model: 1 false, 2 true
    drup_rejects(*formula, ["-2 0", "0"], 1)
    drup_rejects(*formula, ["-2 0", "1 0", "0"], 1)


def test_a_bad_lemma_that_is_the_reason_of_its_own_literal_is_still_checked():
    """The bad lemma (1 ∨ 2) comes when 1 is already false, so it sets 2 itself, which the conflict
    then rests on. Before its check the lemma's assignment must be undone whichever of its literals
    it set: were 2 still true, the lemma would look true at the top level and pass unchecked."""
    formula = (3, [[-1], [-2, 3], [-2, -3]])  # models: 1 and 2 false
    for text in (["1 2 0", "0"], ["2 1 0", "0"], ["1 2 0"], ["1 1 2 0", "0"]):
        drup_rejects(*formula, text, 1)
    formula = (4, [[-1], [-4], [-2, 3], [-2, -3]])  # a long lemma, set by its last literal
    for text in (["1 4 2 0", "0"], ["4 1 2 0"]):
        drup_rejects(*formula, text, 1)
    # The same with the lemma deep in the proof: honest lemmas before it and after it.
    formula = (4, [[-1], [-2, 3, 4], [-2, -3, 4], [-2, 3, -4], [-2, -3, -4]])  # 1 and 2 false
    drup_rejects(*formula, ["-1 3 0", "1 2 0", "-2 4 0", "0"], 2)
    drup_rejects(*formula, ["-2 4 3 0", "1 2 0", "-2 4 0", "0"], 2)


def test_a_lemma_false_when_it_is_added_is_the_conflict_and_is_checked():
    """A lemma all of whose literals are already false ends the forward pass there (it is the
    conflict) and is checked, so it is rejected (it cannot be RUP: its negation is already the top
    level, which has no conflict) even though an honest refutation follows it."""
    nvars, clauses = 5, FULL[1] + [[-3], [-4], [-5]]
    assert_unsat(nvars, clauses)
    for bad in ("3 4 5 0", "5 3 4 4 0", "3 4 0", "3 0"):
        ok, message = drup(nvars, clauses, [bad, "1 0", "0"])
        assert ok is False and message == "proof line 1: the clause does not follow by unit propagation", (bad, message)
        assert drup(nvars, clauses, ["1 0", bad, "0"])[0] is True  # after the conflict: never read


def test_drup_literals_must_be_the_formulas():
    nvars, clauses, model = F_A
    for text, fragment in [(["3 0", "0"], "line 1: a variable outside the formula's 2"),
                           (["-3 0", "0"], "line 1: a variable outside the formula's 2"),
                           (["1 0", "1 -9 0", "0"], "line 2: a variable outside the formula's 2"),
                           (["1 0 2 0", "0"], "line 1: a clause must end with one 0"),
                           (["1 2", "0"], "line 1: a clause must end with one 0"),
                           (["1 x 0", "0"], "line 1: not a clause of integers")]:
        ok, message = drup(nvars, clauses, text)
        assert ok is False and fragment in message and one_line(message), (text, message)


def test_the_drup_verdict_counts_what_was_checked():
    """A proof of FULL: the lemma 1 (from 1∨2, 1∨¬2), then the empty clause (1 sets 2 by ¬1∨2,
    which ¬1∨¬2 contradicts). Both lemmas are used; all four formula clauses are the core."""
    nvars, clauses = FULL
    # 1 alone propagates to the conflict, so the empty clause line is never needed.
    verdict = check_drup(nvars, clauses, [(False, [1]), (False, [])], ["a", "b"])
    assert verdict.ok is True and verdict.lemmas == 2 and verdict.checked == 1
    assert verdict.used == [0] and verdict.core == [0, 1, 2, 3]
    assert verdict.message == "empty clause derived; 1 of 2 lemmas used, each checked"
    verdict = check_drup(nvars, clauses, [(False, [1])])
    assert verdict.ok is True and verdict.checked == 1 and verdict.used == [0] and verdict.core == [0, 1, 2, 3]
    # A lemma the refutation does not use, which is not RUP (3 is free): it is never checked.
    verdict = check_drup(3, clauses, [(False, [3]), (False, [1]), (False, [])])
    assert verdict.ok is True and verdict.lemmas == 3 and verdict.checked == 1 and verdict.used == [1]
    verdict = check_drup(nvars, clauses, [(False, [2, 2]), (False, [1]), (False, [])])
    assert verdict.ok is True and verdict.checked == 1 and verdict.used == [0]
    # Refuted by unit propagation alone: no lemma needed; the core is what the conflict rests on.
    verdict = check_drup(3, [[1, 2], [1], [-1, 3], [-3, -1]], [])
    assert verdict.ok is True and verdict.message == "the formula is refuted by unit propagation alone"
    assert verdict.core == [1, 2, 3] and verdict.checked == 0
    verdict = check_drup(2, [[1, 2], []], [(False, [1])])
    assert verdict.ok is True and verdict.core == [1] and verdict.lemmas == 1
    # The core is what the checks used: not the satisfiable part on 3 and 4 before FULL's clauses.
    junk = [[3, 4], [3, -4], [-3, 4]]
    verdict = check_drup(4, junk + clauses, [(False, [1]), (False, [])])
    assert verdict.ok is True and verdict.core == [3, 4, 5, 6]
    verdict = check_drup(4, junk + clauses, [(False, [-2]), (False, [])])
    assert verdict.ok is True and verdict.core == [3, 4, 5, 6] and verdict.used == [0]
    # A rejection names the step it rejects when no names are given, and counts what passed.
    verdict = check_drup(*F_A[:2], [(False, [-1]), (False, [])])
    assert verdict.ok is False and verdict.message == "proof step 1: the clause does not follow by unit propagation"
    assert (verdict.lemmas, verdict.checked, verdict.used) == (2, 0, [])
    verdict = check_drup(*F_N[:2], [(False, [1, 4]), (False, [1]), (False, [])])  # (1) passes, then (1 ∨ 4) fails
    assert verdict.ok is False and verdict.message == "proof step 1: the clause does not follow by unit propagation"
    assert (verdict.lemmas, verdict.checked, verdict.used) == (3, 1, [1])


# -------------------------------------------------------------------------------- honest proofs
def test_only_an_accepted_drup_proof_is_written_as_lrat():
    verdict = check_drup(*F_A[:2], [(False, [-1]), (False, [])])
    assert verdict.ok is False
    with pytest.raises(ValueError, match="^only an accepted proof can be written as LRAT$"):
        to_lrat(*F_A[:2], [(False, [-1]), (False, [])], verdict)


@pytest.mark.parametrize("nvars,formula,steps,written", [
    # FULL: 1 from (1∨2)(1∨¬2); 2 from 1 and (¬1∨2); the empty clause from 1, 2 and (¬1∨¬2).
    (2, FULL[1], [(False, [1]), (False, [])], b"5 1 0 1 2 0\n6 2 0 5 3 0\n7 0 5 6 4 0\n"),
    # Refuted by unit propagation alone: the empty clause from the units 1 and 2 and (¬1∨¬2).
    (2, [[-1, -2], [1], [2]], [], b"4 0 2 3 1 0\n"),
    # A clause the refutation does not use ((5∨6), id 1) is left out; ids stay the formula's.
    (6, [[5, 6], *FULL[1]], [(False, [1]), (True, [1, 2]), (False, [])], b"6 1 0 2 3 0\n7 2 0 6 4 0\n8 0 6 7 5 0\n"),
    # Lemmas that rest on earlier ones, and units written where a lemma leans on them.
    (4, [[1, 2, 3], [1, -2], [1, -3], [-1, 3, 4], [-1, 3, -4], [-1, -3, 4], [-1, -3, -4]],
     [(False, [1]), (False, [3]), (False, [])], b"8 1 0 2 3 1 0\n9 3 0 8 4 5 0\n10 4 0 9 8 6 0\n11 0 10 9 8 7 0\n"),
])
def test_the_lrat_written_from_a_drup_check_is_exactly_this(nvars, formula, steps, written):
    """The writer is not trusted (the LRAT checker checks what it writes), but what it writes for
    these small proofs is known line by line: each line read by hand, each accepted here."""
    verdict = check_drup(nvars, formula, steps)
    assert verdict.ok is True
    assert to_lrat(nvars, formula, steps, verdict) == written
    assert check_lrat(nvars, formula, written).ok is True


def test_honest_proofs_of_pigeonhole_3_2_are_accepted():
    nvars, clauses = php(3, 2)
    steps = solver_steps(clauses)
    text = honest_drup(clauses)
    ok, message = drup(nvars, clauses, text)
    assert ok is True, message
    verdict = check_drup(nvars, clauses, steps)
    assert verdict.ok is True
    assert check_lrat(nvars, clauses, to_lrat(nvars, clauses, steps, verdict)).ok is True
    written = honest_lrat(clauses)
    checked = lrat(nvars, clauses, written)
    assert checked.ok is True and checked.lemmas == sum(1 for line in written if " d " not in line)
    # A satisfiable neighbour (one pigeon fewer clauses: it may stay out) has no proof in them.
    lrat_rejects(nvars, clauses[1:], written, None, "")
    assert drup(nvars, clauses[1:], text)[0] is False


def test_honest_hand_written_lrat_is_accepted_in_every_form():
    """FULL refuted in LRAT with comments, blank lines, deletions and duplicate literals, as bytes,
    a bytearray, a list of lines or a generator."""
    nvars, clauses = FULL
    text = (b"c a comment\n\n5 1 1 0 1 2 0\n  5 d 1 2 0\nc another\n6 0 5 3 4 0\n"
            b"7 junk after the empty clause is never read\n")
    for data in (text, bytearray(text), text.splitlines(keepends=True), iter(text.splitlines())):
        verdict = check_lrat(nvars, clauses, data)
        assert verdict.ok is True and verdict.lemmas == 2 and not verdict.over_limit, verdict
        assert verdict.message == "empty clause derived; 2 lemmas checked, each by its hints"
        assert verdict.visits == 2 + 2 + 1 + 2 + 2  # literals of hints 1, 2 | 5, 3, 4
    # Lemmas over the formula's last variable, tautologies, a formula clause with duplicates.
    formula = [[1, 2, 2], [1, -2], [-1, 2, -1], [-1, -2]]
    proof_text = b"5 2 -2 0 0\n6 1 1 0 1 2 0\n7 2 0 6 3 0\n8 0 6 7 4 0\n"
    verdict = check_lrat(2, formula, proof_text)
    assert verdict.ok is True and verdict.lemmas == 4, verdict
    # Far-apart ids are allowed as long as they increase.
    assert check_lrat(nvars, clauses, b"100 1 0 1 2 0\n1000 d 1 0\n2000 0 100 3 4 0\n").ok is True


def test_honest_lrat_of_formulas_with_units_and_empty_clauses():
    assert check_lrat(1, [[1], [-1]], b"3 0 1 2 0\n").ok is True
    assert check_lrat(1, [[1], []], b"3 0 2 0\n").ok is True
    assert check_lrat(1, [[1], []], b"3 0 1 0\n").ok is False  # 1 alone is no conflict
    assert check_lrat(3, *F_B[1:2], b"4 0 1 2 3 0\n").ok is False
    assert check_lrat(3, [[1], [-1, 2], [-2, 3], [-3, -1]], b"5 0 1 2 3 4 0\n").ok is True


def test_honest_drup_proofs_in_the_forms_drat_trim_accepts():
    nvars, clauses = FULL
    for text in (["1 0", "0"], ["1 0"], ["1 1 0", "0"], ["1 0", "d 1 0", "0"], ["1 0", "0", "-1 0"],
                 ["c comment", "", "1 2 0", "d 1 2 0", "1 0", "0"], ["2 -2 0", "1 0", "0"],
                 ["-2 -1 2 0", "1 0", "0"]):
        ok, message = drup(nvars, clauses, text)
        assert ok is True, (text, message)
    # The unit 1 deleted while it is the reason of a top-level assignment: that deletion is ignored
    # (the lemma 3 needs 1), the next one is not (and is undone for the check of 1, which needs it).
    formula = [[1, 2], [1, -2], [-1, 3, 4], [-1, 3, -4], [-1, -3, 4], [-1, -3, -4]]
    assert_unsat(4, formula)
    ok, message = drup(4, formula, ["1 0", "d 1 0", "d 1 -2 0", "3 0", "0"])
    assert ok is True, message
    ok, message = drup(4, formula, ["1 0", "d 1 -2 0", "-1 0", "0"])
    assert ok is False and message.startswith("proof line 3:"), message
    # The first formula clause deleted after the lemma that needs it (restored for that lemma's
    # check); a reason deleted twice (both ignored).
    for text in (["1 0", "d 1 2 0", "3 0", "0"], ["1 0", "d 1 0", "d 1 0", "3 0", "0"],
                 ["1 0", "d 1 0", "d 2 1 0", "d 1 0", "3 0", "0"]):
        ok, message = drup(4, formula, text)
        assert ok is True, (text, message)


WIDE = 2048  # 2**20 = 512 x 2048


@pytest.fixture(scope="module")
def wide_proof() -> list[bytes]:
    """Lemma lines over a formula of one clause of 2,048 literals: each lemma is that clause with
    itself as the hint, so each looks at 2,048 literals, and lemma 512 brings the count to 2**20
    exactly. (Satisfiable, and no line is the empty clause: every check ends "cut short".)"""
    lits = " ".join(map(str, range(1, WIDE + 1)))
    return [f"{i} {lits} 0 1 0\n".encode() for i in range(2, 1100 + 2)]


def check_wide(lines, **kw):
    return check_lrat(WIDE, [list(range(1, WIDE + 1))], lines, **kw)


def test_the_caps_on_literals_visited_are_looked_at_every_2_20_visits(wide_proof):
    """Visits are counted per hint (the clause's width) and the caps looked at once more than 2**20
    have been counted since the last look: 2**20 exactly is no look; the first look is at lemma 513
    (1,050,624), the next once 2**20 more are counted (lemma 1026)."""
    first = 513 * WIDE
    verdict = check_wide(wide_proof[:512], limits=Limits(visits=(1 << 20) - 1))
    assert verdict.ok is False and not verdict.over_limit and verdict.visits == 1 << 20 and verdict.lemmas == 512
    assert verdict.message == "the proof ends without deriving the empty clause (cut short?)"
    verdict = check_wide(wide_proof, limits=Limits(visits=first))
    assert verdict.ok is False and verdict.over_limit and verdict.lemmas == 1025 and verdict.visits == 1026 * WIDE
    assert verdict.message == f"proof line 1026: checking the hints looks at more than {first:,} literals in all"
    verdict = check_wide(wide_proof[:513], limits=Limits(visits=first - 1))
    assert verdict.ok is False and verdict.over_limit and verdict.lemmas == 512 and verdict.visits == first


def test_the_cap_on_literals_visited_per_byte_of_proof(wide_proof):
    """Past `free_visits`, a proof may look at `visits_per_byte` literals per byte read so far (each
    line's bytes, its newline counted once: it was counted twice for lines that came with theirs):
    at the first look (lemma 513) exactly at that allowance passes, one visit past it is refused;
    the same lines given without their newlines are read as the same bytes."""
    first = 513 * WIDE
    read = sum(len(line) for line in wide_proof[:513])  # each line ends with its newline
    verdict = check_wide(wide_proof[:513], limits=Limits(free_visits=first - 3 * read, visits_per_byte=3))
    assert verdict.ok is False and not verdict.over_limit and verdict.lemmas == 513, verdict
    verdict = check_wide(wide_proof[:513], limits=Limits(free_visits=first - 3 * read - 1, visits_per_byte=3))
    assert verdict.ok is False and verdict.over_limit and verdict.lemmas == 512, verdict
    assert verdict.message == (f"proof line 513: checking the hints looks at {first:,} literals, more than 3 per byte of "
                               "proof: hints naming very wide clauses")
    bare = [line.rstrip(b"\n") for line in wide_proof[:513]]
    assert check_wide(bare, limits=Limits(free_visits=first - 3 * read, visits_per_byte=3)).over_limit is False
    assert check_wide(bare, limits=Limits(free_visits=first - 3 * read - 1, visits_per_byte=3)).over_limit is True
    assert check_wide(wide_proof[:513]).over_limit is False  # the defaults: 10 million free


def test_the_deadline_is_looked_at_with_the_caps(wide_proof):
    """513 lines, fewer than 1024: the deadline is looked at only when the caps are, at lemma 513."""
    verdict = check_wide(wide_proof[:513], deadline=time.monotonic() - 1)
    assert verdict.ok is None and verdict.lemmas == 512 and not verdict.over_limit and verdict.visits == 513 * WIDE
    assert verdict.message == "the proof check ran out of time after 512 lemmas"
    assert check_wide(wide_proof[:513], deadline=time.monotonic() + 60).ok is False


def test_the_deadline_is_looked_at_every_1024_lines():
    nvars, clauses = FULL
    for comments in (1021, 1022, 1023, 2046):
        text = b"c\n" * comments + b"5 1 0 1 2 0\n6 0 5 3 4 0\n"
        late = check_lrat(nvars, clauses, text, deadline=time.monotonic() - 1)
        # Lines 1024, 2048, ...: the first one reached stops the check.
        expect = None if comments + 2 >= 1024 else True
        assert late.ok is expect, (comments, late)
        assert check_lrat(nvars, clauses, text, deadline=time.monotonic() + 60).ok is True
    assert check_lrat(nvars, clauses, b"c\n" * 1023 + b"5 1 0 1 2 0\n", deadline=time.monotonic() - 1).ok is None


@pytest.mark.parametrize("limits,ok,fragment", [
    (Limits(lines=5), True, ""),
    (Limits(lines=4), False, "proof line 5: the proof has more than 4 lines"),
    (Limits(line_bytes=12), True, ""),
    (Limits(line_bytes=11), False, "proof line 2: longer than 11 bytes"),
    (Limits(lemmas=3), True, ""),
    (Limits(lemmas=2), False, "proof line 5: the proof has more than 2 lemmas"),
    (Limits(hints=6), True, ""),
    (Limits(hints=5), False, "proof line 5: the proof has more than 5 hints"),
    (Limits(literals=3), True, ""),
    (Limits(literals=2), False, "proof line 3: the proof's lemmas hold more than 2 literals"),
])
def test_each_cap_holds_at_its_edge(limits, ok, fragment):
    """The caps count lines (comments too), bytes of a line (its newline too), lemmas, hints and
    lemma literals; a proof at a cap is checked, one past it refused unjudged."""
    nvars, clauses = FULL
    text = b"c x\n5 1 0 1 2 0\n6 2 1 0 1 0\n7 d 6 0\n8 0 5 3 4 0\n"
    assert max(len(line) for line in text.splitlines(keepends=True)) == 12
    verdict = check_lrat(nvars, clauses, text, limits=limits)
    assert verdict.ok is ok and verdict.over_limit is (not ok), verdict
    if not ok:
        assert verdict.message == fragment


def test_a_rejection_is_judged_not_refused():
    verdict = lrat(*F_A[:2], "4 -1 0 0\n")
    assert verdict.ok is False and verdict.over_limit is False and verdict.lemmas == 0 and verdict.visits == 0
    verdict = lrat(*F_A[:2], "4 1 0 1 2 0\n5 -1 0 3 0\n")
    assert verdict.ok is False and verdict.lemmas == 1 and verdict.visits == 6


# ---------------------------------------------------------------------------- random, satisfiable
@st.composite
def unsatisfiable(draw):
    """(nvars, clauses): random clauses of two or three literals, then clauses each false in a
    model still left, until brute force finds none (with no unit clause, unit propagation alone
    seldom refutes them: the proofs need lemmas)."""
    nvars = draw(st.integers(3, 8))
    clauses = []
    for _ in range(draw(st.integers(0, 20))):
        width = draw(st.integers(2, 3))
        chosen = draw(st.lists(st.integers(1, nvars), min_size=width, max_size=width, unique=True))
        clauses.append([v if draw(st.booleans()) else -v for v in chosen])
    left = models(nvars, clauses)
    while left:
        model = as_model(nvars, left[draw(st.integers(0, len(left) - 1))])
        width = draw(st.integers(2, 3))
        chosen = draw(st.lists(st.integers(1, nvars), min_size=width, max_size=width, unique=True))
        clause = [-v if model[v] else v for v in chosen]
        clauses.append(clause)
        pos, neg = masks(clause)
        left = [m for m in left if m & pos or ~m & neg & ((1 << nvars) - 1)]
    return nvars, clauses


@st.composite
def satisfiable(draw):
    """(nvars, clauses, model, taken): random clauses, each made true in a model drawn first; or
    an unsatisfiable formula without the last clauses, `taken`, that took its last models (few
    models are left, and a proof that adds `taken` back needs lemmas after it)."""
    if draw(st.booleans()):
        nvars, clauses = draw(unsatisfiable())
        taken = []
        while not (left := models(nvars, clauses)):
            taken.insert(0, clauses.pop())
        return nvars, clauses, as_model(nvars, left[draw(st.integers(0, len(left) - 1))]), taken
    nvars = draw(st.integers(3, 8))
    model = {v: draw(st.booleans()) for v in range(1, nvars + 1)}
    clauses = []
    for _ in range(draw(st.integers(1, 12))):
        width = draw(st.integers(1, min(nvars, 4)))
        chosen = draw(st.lists(st.integers(1, nvars), min_size=width, max_size=width, unique=True))
        clause = [v if draw(st.booleans()) else -v for v in chosen]
        if not true_in(model, clause):
            k = draw(st.integers(0, width - 1))
            clause[k] = -clause[k]
        clauses.append(clause)
    return nvars, clauses, model, []


def random_lemma(data, nvars, model, store):
    """Literals of a lemma: random, false in the model (a lemma that would hurt), a copy of a clause
    (with a literal repeated now and then), a resolvent of two clauses, or a clause widened."""
    kind = data.draw(st.sampled_from(["random", "false", "copy", "resolvent", "wider"]))
    ids = sorted(store)
    if kind == "copy" and ids:
        lits = list(store[data.draw(st.sampled_from(ids))])
        return lits + data.draw(st.lists(st.sampled_from(lits), max_size=1)) if lits else lits
    if kind == "resolvent" and ids:
        first = store[data.draw(st.sampled_from(ids))]
        pairs = [(lit, cid) for lit in first for cid in ids if -lit in store[cid]]
        if pairs:
            lit, cid = data.draw(st.sampled_from(pairs))
            return list(dict.fromkeys([x for x in first if x != lit] + [x for x in store[cid] if x != -lit]))
    if kind == "wider" and ids:
        lits = list(store[data.draw(st.sampled_from(ids))])
        extra = data.draw(st.integers(1, nvars))
        return lits + [extra if data.draw(st.booleans()) else -extra]
    width = data.draw(st.integers(1, 4))
    variables = data.draw(st.lists(st.integers(1, nvars), min_size=width, max_size=width))
    if kind == "false":
        return [-v if model[v] else v for v in variables]
    return [v if data.draw(st.booleans()) else -v for v in variables]


def random_hints(data, store, lits, next_id, gone):
    """A hint list that mostly does what a checker must check (units, then a conflict), with now
    and then a wrong hint: satisfied, not unit, deleted, later, negative, repeated."""
    hints: list[int] = []
    true = {-lit for lit in lits}
    for _ in range(data.draw(st.integers(0, 6))):
        useful = [cid for cid, c in store.items() if not any(lit in true for lit in c)
                  and sum(-lit not in true for lit in set(c)) <= 1]
        pick = data.draw(st.sampled_from(["useful", "useful", "useful", "any", "gone", "later", "negative", "again"]))
        if pick == "useful" and useful:
            cid = data.draw(st.sampled_from(useful))
        elif pick == "any" and store:
            cid = data.draw(st.sampled_from(sorted(store)))
        elif pick == "gone" and gone:
            cid = data.draw(st.sampled_from(sorted(gone)))
        elif pick == "later":
            cid = next_id + data.draw(st.integers(0, 2))
        elif pick == "negative" and store:
            cid = -data.draw(st.sampled_from(sorted(store)))
        elif pick == "again" and hints:
            cid = data.draw(st.sampled_from(hints))
        else:
            continue
        hints.append(cid)
        clause = store.get(cid)
        if clause is None:
            continue
        open_lits = {lit for lit in clause if -lit not in true}
        if not open_lits:
            break
        if len(open_lits) == 1:
            true |= open_lits
    return hints


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_proofs_of_satisfiable_formulas_are_never_accepted(data):
    """Random lemmas (RUP ones with their hints, random ones with mostly plausible hints, copies,
    ones false in the model), random deletions; then, half the time, lemmas false in a model left
    until none is left and an honest refutation of the lot (so the bad lemmas sit deep inside a
    proof that is right everywhere else); then the empty clause. Neither checker accepts, and
    every lemma the LRAT checker passed before rejecting holds in every model."""
    nvars, clauses, model, taken = data.draw(satisfiable())
    assert_model(model, clauses)
    store = {i + 1: c for i, c in enumerate(clauses)}
    gone: set[int] = set()
    next_id = len(clauses) + 1
    lrat_text, drup_text, lemmas = [], [], []

    def add(lits, hints):
        nonlocal next_id
        lrat_text.append(" ".join(map(str, [next_id, *lits, 0, *hints, 0])))
        drup_text.append(" ".join(map(str, [*lits, 0])))
        lemmas.append(lits)
        store[next_id] = lits
        next_id += 1

    deep = data.draw(st.booleans())
    for _ in range(data.draw(st.integers(0, 6))):
        if data.draw(st.integers(0, 4)) == 0 and store:
            cid = data.draw(st.sampled_from(sorted(store)))
            lrat_text.append(f"{next_id - 1} d {cid} 0")
            drup_text.append("d " + " ".join(map(str, [*store.pop(cid), 0])))
            gone.add(cid)
            continue
        lits = random_lemma(data, nvars, model, store)
        hints = rup_hints(store, lits)
        if deep and hints is None:
            continue
        if hints is None or data.draw(st.integers(0, 3)) == 0:
            hints = random_hints(data, store, lits, next_id, gone)
        add(lits, hints)
    if deep:
        for lits in taken:
            add(lits, random_hints(data, store, lits, next_id, gone))
        while left := models(nvars, store.values()):
            bad = as_model(nvars, left[data.draw(st.integers(0, len(left) - 1))])
            for _ in range(8):  # preferably one that unit propagation alone does not refute
                width = data.draw(st.integers(1, 4))
                chosen = data.draw(st.lists(st.integers(1, nvars), min_size=width, max_size=width))
                lits = [-v if bad[v] else v for v in chosen]
                if rup_hints({**store, 0: lits}, []) is None:
                    break
            add(lits, random_hints(data, store, lits, next_id, gone))
        steps = solver_steps(list(store.values()))
        tail = lrat_lines(store, [lits for deletion, lits in steps if not deletion], next_id)
        lrat_text += tail
        drup_text += [" ".join(map(str, [*lits, 0])) for deletion, lits in steps if not deletion] + ["0"]
        lemmas += [[int(x) for x in line.split()[1:line.split().index("0", 1)]] for line in tail if " d " not in line]
    else:
        lrat_text.append(" ".join(map(str, [next_id, 0, *random_hints(data, store, [], next_id, gone), 0])))
        drup_text.append("0")
    verdict = lrat(nvars, clauses, lrat_text)
    assert verdict.ok is False, lrat_text
    everyone = [as_model(nvars, m) for m in models(nvars, clauses)]
    for lemma in lemmas[:verdict.lemmas]:
        assert all(true_in(m, lemma) for m in everyone), (lemma, lrat_text, verdict.message)
    ok, message = drup(nvars, clauses, drup_text)
    assert ok is False, (drup_text, message)


# -------------------------------------------------------------------------- random, unsatisfiable
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unsatisfiable(), st.data())
def test_honest_proofs_of_unsatisfiable_formulas_are_accepted(formula, data):
    """glucose4's DRUP proof passes the DRUP checker; the LRAT written from it (by to_lrat, and by
    this file's own hints) passes the LRAT checker; and so do proofs that start with random RUP
    lemmas and deletions before the solver's."""
    nvars, clauses = formula
    assert_unsat(nvars, clauses)
    text = honest_drup(clauses)
    ok, message = drup(nvars, clauses, text)
    assert ok is True, (text, message)
    steps = drup_steps(text)
    verdict = check_drup(nvars, clauses, steps)
    assert verdict.ok is True
    written = to_lrat(nvars, clauses, steps, verdict)
    assert check_lrat(nvars, clauses, written).ok is True, written
    assert lrat(nvars, clauses, honest_lrat(clauses)).ok is True
    # Random RUP lemmas and deletions first, then the solver's proof of what is left.
    store = {i + 1: c for i, c in enumerate(clauses)}
    lrat_text, drup_text = [], []
    next_id = len(clauses) + 1
    for _ in range(data.draw(st.integers(0, 6))):
        if data.draw(st.integers(0, 3)) == 0:
            cid = data.draw(st.sampled_from(sorted(store)))
            rest = {k: c for k, c in store.items() if k != cid}
            if not models(nvars, rest.values()):
                lrat_text.append(f"{next_id - 1} d {cid} 0")
                drup_text.append("d " + " ".join(map(str, [*store.pop(cid), 0])))
            continue
        lits = random_lemma(data, nvars, {v: True for v in range(1, nvars + 1)}, store)
        hints = rup_hints(store, lits)
        if hints is None or not lits:
            continue
        lrat_text.append(" ".join(map(str, [next_id, *lits, 0, *hints, 0])))
        drup_text.append(" ".join(map(str, [*lits, 0])))
        store[next_id] = lits
        next_id += 1
    lemmas = [lits for deletion, lits in solver_steps(list(store.values())) if not deletion]
    lrat_text += lrat_lines(store, lemmas, next_id)
    drup_text += [" ".join(map(str, [*lits, 0])) for lits in lemmas] + ["0"]
    verdict = lrat(nvars, clauses, lrat_text)
    assert verdict.ok is True, (lrat_text, verdict.message)
    ok, message = drup(nvars, clauses, drup_text)
    assert ok is True, (drup_text, message)


def test_io_of_lines_is_read_as_a_stream():
    """A file object works as the proof (lines read one at a time)."""
    nvars, clauses = FULL
    assert check_lrat(nvars, clauses, io.BytesIO(b"5 1 0 1 2 0\n6 0 5 3 4 0\n")).ok is True


# ------------------------------------------------------------------- held-out mutations of lrat.py
# Each mutation is a small unsound change to today's checker, applied to its source text and run
# as a fresh module (the installed one untouched). Each names the test below that must fail on it:
# that test, given the mutated checker, sees it accept a hand-made proof that the real one must
# reject: of a satisfiable formula (brute force: accepting it is a false UNSAT), or, for the
# mutations that cannot lead to a false UNSAT (ids, deletions, literal range: every clause the
# checker keeps is still implied by the formula), a proof of FULL that breaks one of lrat.py's own
# stricter rules. Checked by hand with the verified checker cake_lpr (2026-12-05): it rejects
# every proof below of a satisfiable formula, and the RAT hints and the deleted hint on FULL; it
# verifies FULL_PROOF, and accepts the reused or decreasing ids, the deletion of clause 9 and the
# tautology over variable 3 (it does not enforce those rules; lrat.py is stricter).
def mutant(module, old: str, new: str):
    """`module` with `old` replaced by `new` in its source, run as a fresh module. The mutation must
    apply exactly once, so an edit of the module cannot make it silently stop applying."""
    source = Path(module.__file__).read_text()
    assert source.count(old) == 1, f"mutation of {module.__name__} applies {source.count(old)} times: {old!r}"
    fresh = types.ModuleType(f"{module.__name__}_mutant")
    fresh.__file__ = module.__file__
    sys.modules[fresh.__name__] = fresh  # dataclasses look their module up while the class is made
    try:
        exec(compile(source.replace(old, new), module.__file__, "exec"), fresh.__dict__)  # noqa: S102
    finally:
        del sys.modules[fresh.__name__]
    return fresh


@dataclass(frozen=True)
class Mutation:
    name: str
    old: str
    new: str
    test: str  # the test that must fail on it


def assert_each_mutant_is_caught(module, mutation: Mutation, attribute: str, named_tests: dict) -> None:
    """The named test passes on the real code (it is also run on its own) and fails on the mutant
    because the mutant accepts what it must refuse (its failure message starts with 'accepted')."""
    test = named_tests[mutation.test]
    test()
    mutated = getattr(mutant(module, mutation.old, mutation.new), attribute)
    with pytest.raises(AssertionError, match="^accepted"):
        test(mutated)


def rejected(check, nvars: int, formula, text: str, satisfiable: bool = True) -> None:
    """`check` (check_lrat or a mutant of it) rejects the proof; the formula is satisfiable unless
    said otherwise (brute force), so a checker accepting the proof would say a false UNSAT."""
    assert bool(models(nvars, formula)) is satisfiable, formula
    verdict = check(nvars, formula, text.encode())
    assert verdict.ok is False, f"accepted: {text!r} ({verdict.message})"


FULL_PROOF = "5 1 0 1 2 0\n6 0 5 3 4 0\n"  # FULL refuted: 1 by (1 2)(1 -2), then (-1 2)(-1 -2) conflict


def test_lrat_a_repeated_literal_is_no_tautology(check=check_lrat):
    rejected(check, *F_A[:2], "4 -1 -1 0 0\n5 0 4 1 2 0\n")


def test_lrat_a_satisfied_hint_is_no_conflict(check=check_lrat):
    rejected(check, *F_A[:2], "4 -1 0 3 2 0\n5 0 4 1 2 0\n")


def test_lrat_a_unit_hint_is_no_conflict(check=check_lrat):
    rejected(check, *F_B[:2], "4 0 1 0\n")


def test_lrat_hints_that_end_without_a_conflict_prove_nothing(check=check_lrat):
    rejected(check, *F_A[:2], "4 0 0\n")


def test_lrat_a_unit_lemma_is_not_the_empty_clause(check=check_lrat):
    rejected(check, *F_A[:2], "4 1 0 1 2 0\n")  # an honest lemma, and no empty clause


def test_lrat_a_proof_that_stops_short_proves_nothing(check=check_lrat):
    rejected(check, *F_A[:2], "")
    rejected(check, *F_A[:2], "c nothing but a comment\n")


def test_lrat_a_lemmas_negation_is_gone_at_the_next_lemma(check=check_lrat):
    # Lemma 5 (1) assumes 1 false; were that left, (1 -3) and the unit 3 would be a conflict.
    rejected(check, *F_S2[:2], "5 1 0 1 2 0\n6 0 4 3 0\n")


def test_lrat_a_unit_propagated_for_a_lemma_is_gone_at_the_next(check=check_lrat):
    # Lemma 5 (1) propagates 2; were that left, (-2 -3) and the unit 3 would be a conflict.
    rejected(check, *F_S[:2], "5 1 0 1 2 0\n6 0 4 3 0\n")


def test_lrat_half_of_an_old_assignment_makes_no_tautology(check=check_lrat):
    # Were only val[1] reset after lemma 5, val[-1] would still say -1 is true: (-1) a tautology.
    rejected(check, *F_S2[:2], "5 1 0 1 2 0\n6 -1 0 0\n7 0 5 6 0\n")


def test_lrat_a_lemma_is_no_hint_for_itself(check=check_lrat):
    rejected(check, *F_A[:2], "4 -1 0 4 0\n5 0 4 1 2 0\n")


def test_lrat_a_clause_with_two_open_literals_is_no_unit(check=check_lrat):
    # (1 2) taken as the unit 2, then (-2 3) and (-2 -3) conflict; 1 true, 2 false is a model.
    rejected(check, 3, [[1, 2], [-2, 3], [-2, -3]], "4 0 1 2 3 0\n")


def test_lrat_a_unit_hint_makes_its_literal_true(check=check_lrat):
    rejected(check, *F_B[:2], "4 0 1 1 0\n")  # the unit (1) a second time is satisfied, no conflict


def test_lrat_a_lemma_is_assumed_false(check=check_lrat):
    # (-1) assumed true instead of false refutes itself through (1 2)(1 -2).
    rejected(check, *F_A[:2], "4 -1 0 1 2 0\n5 0 4 1 2 0\n")


def test_lrat_a_negative_hint_is_refused(check=check_lrat):
    rejected(check, *F_A[:2], "4 -1 0 -3 0\n5 0 4 1 2 0\n")
    rejected(check, *FULL, "5 1 0 -1 -2 0\n6 0 5 3 4 0\n", satisfiable=False)  # RAT, not RUP, hints


def test_lrat_a_negative_hint_is_refused_after_its_clause_is_read(check=check_lrat):
    """Clause 3 named first by a positive hint (so it is read), then by a negative one."""
    rejected(check, *FULL, "5 -1 2 0 3 0\n6 1 0 1 2 0\n7 0 6 -3 4 0\n", satisfiable=False)


def test_lrat_ids_strictly_increase(check=check_lrat):
    rejected(check, *FULL, "5 1 0 1 2 0\n5 1 0 1 2 0\n6 0 5 3 4 0\n", satisfiable=False)
    rejected(check, *FULL, "6 1 0 1 2 0\n5 0 6 3 4 0\n", satisfiable=False)


def test_lrat_a_deletion_names_a_clause_present(check=check_lrat):
    rejected(check, *FULL, "5 1 0 1 2 0\n5 d 9 0\n6 0 5 3 4 0\n", satisfiable=False)


def test_lrat_a_deleted_clause_is_no_hint(check=check_lrat):
    rejected(check, *FULL, "5 1 0 1 2 0\n5 d 3 0\n6 0 5 3 4 0\n", satisfiable=False)  # a formula clause, unread
    rejected(check, *FULL, "5 1 0 1 2 0\n5 d 5 0\n6 0 5 3 4 0\n", satisfiable=False)  # a lemma
    # A formula clause read (a hint) before it is deleted: never read from the formula again.
    rejected(check, *FULL, "5 -1 2 0 3 0\n5 d 3 0\n6 1 0 1 2 0\n7 0 6 3 4 0\n", satisfiable=False)


def test_lrat_a_literal_past_the_last_variable_is_refused(check=check_lrat):
    rejected(check, *FULL, "5 3 -3 0 0\n6 1 0 1 2 0\n7 0 6 3 4 0\n", satisfiable=False)


def test_lrat_the_honest_proof_of_full_is_accepted():
    assert check_lrat(*FULL, FULL_PROOF.encode()).ok is True


LRAT_MUTATIONS = [
    Mutation("a repeated literal taken for a tautology", "if val[lit] == 1:\n                    return",
             "if val[lit] != 0:\n                    return", "test_lrat_a_repeated_literal_is_no_tautology"),
    Mutation("the tautology test looks at the complement", "if val[lit] == 1:\n                    return",
             "if val[-lit] == 1:\n                    return", "test_lrat_a_repeated_literal_is_no_tautology"),
    Mutation("a satisfied hint taken as the conflict",
             'raise LratError(f"{where}: hint {hint} is already satisfied, so it implies nothing")', "return",
             "test_lrat_a_satisfied_hint_is_no_conflict"),
    Mutation("a satisfied literal read as false", "if state == 1:", "if state == 2:",
             "test_lrat_a_satisfied_hint_is_no_conflict"),
    Mutation("a unit hint taken as the conflict", "if not open_lit:\n                    return",
             "if not open_lit or len(clause) == 1:\n                    return",
             "test_lrat_a_unit_hint_is_no_conflict"),
    Mutation("hints that end without a conflict accepted",
             'raise LratError(f"{where}: the hints end without a conflict: the clause is not implied")', "return",
             "test_lrat_hints_that_end_without_a_conflict_prove_nothing"),
    Mutation("the empty clause accepted unchecked", "        self._check_lemma(lits, hints, where)\n",
             "        if lits:\n            self._check_lemma(lits, hints, where)\n",
             "test_lrat_hints_that_end_without_a_conflict_prove_nothing"),
    Mutation("a unit lemma taken for the empty clause", "if not lits:\n            return True",
             "if len(lits) <= 1:\n            return True", "test_lrat_a_unit_lemma_is_not_the_empty_clause"),
    Mutation("a proof that ends early accepted",
             'return LratVerdict(False, "the proof ends without deriving the empty clause (cut short?)"',
             'return LratVerdict(True, "the proof ends without deriving the empty clause (cut short?)"',
             "test_lrat_a_proof_that_stops_short_proves_nothing"),
    Mutation("no reset between lemmas (the finally's loop gone)",
             "for lit in assigned:\n                val[lit] = val[-lit] = 0", "pass",
             "test_lrat_a_lemmas_negation_is_gone_at_the_next_lemma"),
    Mutation("the lemma's negation not undone", "val[lit], val[-lit] = -1, 1\n                    assigned.append(lit)",
             "val[lit], val[-lit] = -1, 1", "test_lrat_a_lemmas_negation_is_gone_at_the_next_lemma"),
    Mutation("the first assignment not undone", "for lit in assigned:", "for lit in assigned[1:]:",
             "test_lrat_a_lemmas_negation_is_gone_at_the_next_lemma"),
    Mutation("propagated units not undone", "                assigned.append(-open_lit)\n", "",
             "test_lrat_a_unit_propagated_for_a_lemma_is_gone_at_the_next"),
    Mutation("half of each assignment undone", "val[lit] = val[-lit] = 0", "val[lit] = 0",
             "test_lrat_half_of_an_old_assignment_makes_no_tautology"),
    Mutation("a lemma kept before its check (its own hint)", "        self._check_lemma(lits, hints, where)\n",
             '        self.clauses[ident] = array("i", lits)\n        self._check_lemma(lits, hints, where)\n',
             "test_lrat_a_lemma_is_no_hint_for_itself"),
    Mutation("two open literals: the last one taken as the unit",
             "if open_lit:\n                            raise", "if False:\n                            raise",
             "test_lrat_a_clause_with_two_open_literals_is_no_unit"),
    Mutation("a unit hint's literal made false", "val[open_lit], val[-open_lit] = 1, -1",
             "val[open_lit], val[-open_lit] = -1, 1", "test_lrat_a_unit_hint_makes_its_literal_true"),
    Mutation("the lemma assumed true", "val[lit], val[-lit] = -1, 1", "val[lit], val[-lit] = 1, -1",
             "test_lrat_a_lemma_is_assumed_false"),
    Mutation("a RAT (negative) hint taken on trust",
             "                if clause is None:\n                    clause = self._read",
             "                if clause is None and hint < 0:\n                    return\n"
             "                if clause is None:\n                    clause = self._read",
             "test_lrat_a_negative_hint_is_refused"),
    Mutation("a negative hint read as its clause", "clause = clauses.get(hint)", "clause = clauses.get(abs(hint))",
             "test_lrat_a_negative_hint_is_refused_after_its_clause_is_read"),
    Mutation("a negative hint read from the formula", "clause = self._read(hint)", "clause = self._read(abs(hint))",
             "test_lrat_a_negative_hint_is_refused"),
    Mutation("a formula clause deleted unread stays to be read", "self.unread[gone] = 0  #", "pass  #",
             "test_lrat_a_deleted_clause_is_no_hint"),
    Mutation("a formula clause read again after its deletion", "            self.unread[ident] = 0\n", "",
             "test_lrat_a_deleted_clause_is_no_hint"),
    # These cannot make a false UNSAT (every kept clause stays implied), but break the format.
    Mutation("an id equal to the last accepted", "if ident <= self.last_id:", "if ident < self.last_id:",
             "test_lrat_ids_strictly_increase"),
    Mutation("ids not compared", "if ident <= self.last_id:", "if ident <= 0:", "test_lrat_ids_strictly_increase"),
    Mutation("a deletion of a missing clause ignored",
             'raise LratError(f"{where}: deletes clause {gone}, which does not exist")', "continue",
             "test_lrat_a_deletion_names_a_clause_present"),
    Mutation("a deletion that deletes nothing", "clause = self.clauses.pop(gone, None)",
             "clause = self.clauses.get(gone)", "test_lrat_a_deleted_clause_is_no_hint"),
    Mutation("the literal range one too wide", "0 < abs(lit) <= self.nvars", "0 < abs(lit) <= self.nvars + 1",
             "test_lrat_a_literal_past_the_last_variable_is_refused"),
]


@pytest.mark.parametrize("mutation", LRAT_MUTATIONS, ids=[m.name for m in LRAT_MUTATIONS])
def test_each_held_out_lrat_mutation_is_caught_by_its_named_test(mutation):
    assert_each_mutant_is_caught(lrat_module, mutation, "check_lrat", globals())
