"""Checked proofs: the DIMACS view of a query, proofs from a proof-logging solver, and this
project's DRUP checker against dratify (an independent checker) on proofs that must pass and
proofs that must fail. Expected answers come from brute force, the seeds or the rules, never from
the code under test."""

from __future__ import annotations

import gzip
import random
from itertools import product

import pytest

from brute_kingtour import best_overall
from conftest import SEED_CASES
from test_differential import tatamibari_solutions
from smtpuzzles.proofs import proof
from smtpuzzles.proofs.drup import check_drup
from smtpuzzles.formula import CNF, Formula, all_of, any_of, lit, neg
from smtpuzzles.objective import claim_terms
from smtpuzzles.puzzles import kingtour, nonary, tatamibari
from tests.second_opinion import dratify_check

import dratify  # noqa: F401  (a test dependency: the independent checker; never skipped)


def both_checkers(query, data: bytes) -> tuple[tuple[bool, str], tuple[bool, str]]:
    return proof.check(query, data), dratify_check(query, data)


def assert_verified(query) -> bytes:
    """A proof of `query` that both checkers accept; returns its text."""
    made = proof.prove(query, timeout=120)
    ours, theirs = both_checkers(query, made.text)
    assert ours[0], ours
    assert theirs[0], theirs
    return made.text


def one_line(message: str) -> bool:
    return bool(message) and "\n" not in message and "Traceback" not in message and len(message) < 200


# ------------------------------------------------------------------------------- queries that verify
@pytest.fixture(scope="module")
def kingtour4():
    """The 4x4 King's-tour closing query (beat the brute force's best), its proof, and a satisfiable
    query on the same formula (beat a smaller number)."""
    best = best_overall(4, 2, 2)
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    closing = proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "lex_greater", "best": best}))
    below = best[:-2] + sorted(best[-2:])  # a reading the optimum beats
    assert below < best
    satisfiable = proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "lex_greater", "best": below}))
    return closing, proof.prove(closing, timeout=120), satisfiable


def test_lexicographic_optimum_verifies(kingtour4):
    closing, made, _ = kingtour4
    ours, theirs = both_checkers(closing, made.text)
    assert ours[0] and theirs[0], (ours, theirs)
    assert one_line(ours[1])


def test_count_optimum_verifies():
    """Nonary seed maps: "at least answer + 1" is refuted with a checked proof; "at least answer"
    is satisfiable (so the query is not refuted by something unrelated to the claim)."""
    for case in SEED_CASES["nonary"][:4]:
        enc = nonary.encode(nonary.from_doors(case["doors"]))
        answer = case["answer"]
        if answer < 9:
            assert_verified(proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "at_least", "k": answer + 1})))
        reachable = proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "at_least", "k": answer}))
        with pytest.raises(proof.ProofError, match="satisfiable"):
            proof.prove(reachable, timeout=60)


UNIQUE_BOARD = ["|*-|", "**-*", "*+**", "**|*"]


def test_uniqueness_verifies():
    """A board the rules' own enumeration finds exactly one solution of: blocking that solution
    leaves nothing, with a checked proof."""
    solutions = tatamibari_solutions(UNIQUE_BOARD)
    assert len(solutions) == 1
    board = tatamibari.from_text("\n".join(UNIQUE_BOARD))
    regions = tatamibari.regions_from_rects(board.height, board.width, next(iter(solutions)))
    assert tatamibari.referee(board, {"regions": regions}) == []
    enc = tatamibari.encode(board)
    assert_verified(proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "block", "solutions": [{"regions": regions}]})))


INFEASIBLE_BOARD = ["+*-*", "+***", "++*+", "+-**"]  # needs lemmas, not unit propagation alone


def test_infeasibility_verifies():
    assert tatamibari_solutions(INFEASIBLE_BOARD) == set()
    enc = tatamibari.encode(tatamibari.from_text("\n".join(INFEASIBLE_BOARD)))
    assert_verified(proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "first"})))


# ------------------------------------------------------------------------------ proofs that must fail
def test_a_proof_cut_short_is_rejected(kingtour4):
    closing, made, _ = kingtour4
    lines = made.text.splitlines()
    # (Dropping only the final "0" is no cut: the units before it already propagate to a conflict,
    # and both checkers accept that, as drat-trim does.)
    for cut in (lines[: len(lines) // 2], lines[: len(lines) // 10], []):
        ok, message = proof.check(closing, b"\n".join(cut) + b"\n")
        assert not ok and "cut short" in message and one_line(message)
        assert not dratify_check(closing, b"\n".join(cut) + b"\n")[0]


def test_a_changed_clause_is_rejected(kingtour4):
    """Lemmas the refutation uses, each with one literal's sign flipped so that it no longer
    follows by unit propagation (dratify, which checks every step, says so): rejected with the
    line. A backward checker may still accept when the refutation can do without that lemma (a
    different conflict is reached first); then the changed line must not be among those it used."""
    closing, made, _ = kingtour4
    nvars, clauses = proof.read_dimacs(closing.text)
    steps, names = proof.read_proof(made.text, nvars)
    verdict = check_drup(nvars, clauses, steps, names)
    lines = made.text.decode().split("\n")
    rejected = 0
    for place in verdict.used[len(verdict.used) // 2:][:12]:
        number = int(names[place].split()[-1])
        parts = lines[number - 1].split()
        if len(parts) < 3:
            continue
        changed = lines[:]
        changed[number - 1] = " ".join([str(-int(parts[0]))] + parts[1:])
        data = "\n".join(changed).encode()
        if dratify_check(closing, data)[0]:
            continue  # the flipped clause still follows: not a wrong step
        ok, message = proof.check(closing, data)
        assert one_line(message)
        if ok:
            again = check_drup(nvars, clauses, *proof.read_proof(data, nvars))
            assert again.ok and place not in again.used
        else:
            assert message.startswith("proof line ") and "does not follow" in message, message
            rejected += 1
    assert rejected >= 4


def test_a_proof_of_another_formula_is_rejected(kingtour4):
    closing, made, satisfiable = kingtour4
    ok, message = proof.check(satisfiable, made.text)
    assert not ok and one_line(message)
    # Another puzzle's formula: its variables do not even fit.
    enc = tatamibari.encode(tatamibari.from_text("\n".join(UNIQUE_BOARD)))
    small = proof.dimacs(enc.formula, [])
    ok, message = proof.check(small, made.text)
    assert not ok and one_line(message) and "variable outside" in message


def test_unsat_claimed_for_a_satisfiable_formula_is_rejected(kingtour4):
    _, _, satisfiable = kingtour4
    with pytest.raises(proof.ProofError, match="satisfiable"):
        proof.prove(satisfiable, timeout=60)
    # A forged "proof": unit clauses for a variable both ways, then the empty clause.
    forged = b"1 0\n-1 0\n0\n"
    ok, message = proof.check(satisfiable, forged)
    assert not ok and message.startswith("proof line ") and "does not follow" in message, message
    assert not dratify_check(satisfiable, forged)[0]


@pytest.mark.parametrize("data,fragment", [
    (b"\x00\xff\xfe garbage \x80\n", "line 1: not a clause of integers"),
    (b"1 2 x 0\n", "line 1: not a clause of integers"),
    (b"1 2\n", "line 1: a clause must end with one 0"),
    (b"1 0 2 0\n", "line 1: a clause must end with one 0"),
    (b"d\n", "line 1: a clause must end with one 0"),
    (b"99999999 0\n", "line 1: a variable outside"),
    (gzip.compress(b"0\n", mtime=0), "still gzip-compressed"),
])
def test_garbage_is_rejected_in_one_line(kingtour4, data, fragment):
    closing = kingtour4[0]
    ok, message = proof.check(closing, data)
    assert not ok and fragment in message and one_line(message), message


def test_oversized_and_damaged_files_are_rejected(kingtour4, tmp_path):
    closing, made, _ = kingtour4
    ok, message = proof.check(closing, made.text, max_bytes=1000)
    assert not ok and "over the limit" in message and one_line(message)
    stored = tmp_path / "proof.drup.gz"
    stored.write_bytes(proof.compress(made))
    assert proof.read_proof_file(stored) == made.text
    assert proof.compress(made) == proof.compress(made.text)  # deterministic bytes
    with pytest.raises(proof.ProofError, match="larger than the limit"):
        proof.read_proof_file(stored, max_bytes=1000)
    stored.write_bytes(proof.compress(made)[:-40])
    with pytest.raises(proof.ProofError, match="damaged"):
        proof.read_proof_file(stored)
    with pytest.raises(proof.ProofError, match="missing"):
        proof.read_proof_file(tmp_path / "absent.gz")


def test_bad_dimacs_is_rejected_in_one_line():
    for text, fragment in [("", "header"), ("p cnf 2 1\n1 3 0\n", "outside"), ("p cnf 2 2\n1 0\n", "header says 2"),
                           ("p cnf 2 1\n1 2\n", "not ended"), ("p cnf 2 1\n1 y 0\n", "not an integer")]:
        ok, message = proof.check(text, b"0\n")
        assert not ok and fragment in message and one_line(message), (text, message)


def test_prove_times_out_and_refuses_unknown_solvers(kingtour4):
    closing = kingtour4[0]
    with pytest.raises(proof.ProofError, match="unknown proof solver"):
        proof.prove(closing, solver="kissat")
    big = proof.dimacs(*_pigeonhole(11))
    with pytest.raises(proof.ProofError, match="no proof within"):
        proof.prove(big, timeout=0.5)


def _pigeonhole(holes: int):
    """n+1 pigeons in n holes: unsatisfiable, and hard for resolution, so a solver takes long."""
    cnf = CNF()
    x = {(p, h): cnf.var(f"p{p}h{h}") for p in range(holes + 1) for h in range(holes)}
    for p in range(holes + 1):
        cnf.add([x[p, h] for h in range(holes)])
    for h in range(holes):
        for p, q in product(range(holes + 1), repeat=2):
            if p < q:
                cnf.add([-x[p, h], -x[q, h]])
    return Formula.from_cnf(cnf), []


# ------------------------------------------------------------------------- the DIMACS view of a query
def test_dimacs_is_deterministic_and_leaves_the_formula_alone(kingtour4):
    best = best_overall(4, 2, 2)
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    names, clauses = len(enc.formula.cnf.names), len(enc.formula.cnf.clauses)
    terms = claim_terms(enc.objective, {"op": "lex_greater", "best": best})
    first, second = proof.dimacs(enc.formula, terms), proof.dimacs(enc.formula, terms)
    assert first.text == second.text and first.sha256 == second.sha256 == kingtour4[0].sha256
    assert (len(enc.formula.cnf.names), len(enc.formula.cnf.clauses)) == (names, clauses)
    assert first.text.startswith(f"p cnf {first.variables} {first.clauses}\n")


def _tiny_case(seed: int):
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    cnf = CNF()
    xs = [cnf.var(f"x{i}") for i in range(1, n + 1)]
    for _ in range(rng.randint(1, 6)):
        cnf.add([rng.choice([v, -v]) for v in rng.sample(xs, rng.randint(1, 3))])
    if rng.random() < 0.5:
        cnf.at_most_one(rng.sample(xs, min(n, rng.randint(2, 4))))

    def term(depth):
        if depth == 0 or rng.random() < 0.4:
            return lit(f"x{rng.randint(1, n)}", rng.random() < 0.5)
        parts = [term(depth - 1) for _ in range(rng.randint(1, 3))]
        made = all_of(parts) if rng.random() < 0.5 else any_of(parts)
        return neg(made) if rng.random() < 0.3 else made

    return n, Formula.from_cnf(cnf), [term(3) for _ in range(rng.randint(0, 3))]


@pytest.mark.parametrize("seed", range(40))
def test_dimacs_and_smtlib_views_have_the_same_models(seed):
    """Models over the base variables: every assignment checked against the DIMACS query by
    pysat (unit assumptions), and against the SMT-LIB2 query by z3."""
    import z3
    from pysat.solvers import Solver

    n, formula, terms = _tiny_case(seed)
    query = proof.dimacs(formula, terms)
    _, clauses = proof.read_dimacs(query.text)
    smt = z3.Solver()
    smt.from_string(formula.query(terms))
    names = {f"x{i}": z3.Bool(f"x{i}") for i in range(1, n + 1)}
    with Solver(name="g4", bootstrap_with=clauses) as sat:
        for values in product([False, True], repeat=n):
            units = [formula.cnf.index[f"x{i}"] * (1 if v else -1) for i, v in enumerate(values, 1)]
            by_sat = sat.solve(assumptions=units)
            by_z3 = smt.check([names[f"x{i}"] if v else z3.Not(names[f"x{i}"]) for i, v in enumerate(values, 1)])
            assert by_sat == (by_z3 == z3.sat), (seed, values)


# ------------------------------------------------------------ this checker against dratify, at random
def _random_unsat(seed: int):
    rng = random.Random(seed)
    while True:
        n = rng.randint(12, 22)
        clauses = [[rng.choice([v, -v]) for v in rng.sample(range(1, n + 1), 3)] for _ in range(int(n * 5))]
        from pysat.solvers import Solver

        with Solver(name="g4", bootstrap_with=clauses) as s:
            if not s.solve():
                return n, clauses


def _as_dimacs(n, clauses) -> str:
    return f"p cnf {n} {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)


@pytest.mark.parametrize("seed", range(25))
def test_this_checker_agrees_with_dratify(seed):
    """Random unsatisfiable 3-SAT: both accept the solver's proof. Mutated proofs (a line dropped,
    a literal flipped, lines swapped): whatever dratify (which checks every step) accepts, this
    checker accepts; on a satisfiable formula (a clause the refutation needs removed) neither
    accepts anything."""
    from pysat.solvers import Solver

    rng = random.Random(1000 + seed)
    n, clauses = _random_unsat(seed)
    query = _as_dimacs(n, clauses)
    made = proof.prove(proof.Dimacs(query, n, len(clauses)), timeout=60)
    assert proof.check(query, made.text)[0] and dratify_check(query, made.text)[0]
    lines = made.text.decode().splitlines()
    # A satisfiable formula close to this one: drop clauses until a model appears.
    weaker = clauses[:]
    while True:
        weaker.pop(rng.randrange(len(weaker)))
        with Solver(name="g4", bootstrap_with=weaker) as s:
            if s.solve():
                break
    weak_query = _as_dimacs(n, weaker)
    for _ in range(12):
        changed = lines[:]
        kind = rng.randrange(3)
        i = rng.randrange(len(changed))
        if kind == 0:
            del changed[i]
        elif kind == 1 and len(changed[i].split()) > 1:
            parts = changed[i].split()
            k = 1 if parts[0] == "d" else 0
            if parts[k] != "0":
                parts[k] = str(-int(parts[k]))
            changed[i] = " ".join(parts)
        else:
            j = rng.randrange(len(changed))
            changed[i], changed[j] = changed[j], changed[i]
        data = ("\n".join(changed) + "\n").encode()
        ours, theirs = proof.check(query, data), dratify_check(query, data)
        assert one_line(ours[1])
        if theirs[0]:
            assert ours[0], (seed, ours)
        assert not proof.check(weak_query, data)[0]
    assert not proof.check(weak_query, made.text)[0]
    assert not dratify_check(weak_query, made.text)[0]
