"""certify_query's CaDiCaL path: CaDiCaL 1.9.5 writes LRAT (through python-sat internals, isolated in
`child.cadical_lrat_solver`), `trim.trim_lrat` keeps what the refutation used, smtpuzzles.trusted.lrat checks it.

Every proof made here must pass smtpuzzles.trusted.lrat and dratify (an independent checker, reading the LRAT
as DRUP); the trim must keep every lemma a kept hint names (its proof checks exactly when CaDiCaL's
whole proof does, and holds nothing CaDiCaL's does not); a python-sat without the internals falls
back to the DRUP path with one line saying so. Expected answers come from brute force or the rules."""

from __future__ import annotations

import pytest

from brute_kingtour import best_overall
from conftest import SEED_CASES
from test_differential import tatamibari_solutions
from test_proof import INFEASIBLE_BOARD, UNIQUE_BOARD, _as_dimacs, _pigeonhole, one_line
from smtpuzzles.proofs import child, proof, prover, trim
from smtpuzzles.trusted.lrat import check_lrat
from smtpuzzles.objective import claim_terms
from smtpuzzles.puzzles import kingtour, nonary, tatamibari
from tests.second_opinion import dratify_check, lrat_as_drup

import dratify  # noqa: F401  (a test dependency: the independent checker; never skipped)


def lex_optimum() -> proof.Dimacs:
    best = best_overall(4, 2, 2)  # brute force
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    return proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "lex_greater", "best": best}))


def count_optimum() -> proof.Dimacs:
    case = next(c for c in SEED_CASES["nonary"] if c["answer"] < 9)
    enc = nonary.encode(nonary.from_doors(case["doors"]))
    return proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "at_least", "k": case["answer"] + 1}))


def uniqueness() -> proof.Dimacs:
    (rects,) = tatamibari_solutions(UNIQUE_BOARD)  # the rules' own enumeration: exactly one
    board = tatamibari.from_text("\n".join(UNIQUE_BOARD))
    regions = tatamibari.regions_from_rects(board.height, board.width, rects)
    enc = tatamibari.encode(board)
    return proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "block", "solutions": [{"regions": regions}]}))


def infeasibility() -> proof.Dimacs:
    assert tatamibari_solutions(INFEASIBLE_BOARD) == set()
    enc = tatamibari.encode(tatamibari.from_text("\n".join(INFEASIBLE_BOARD)))
    return proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "first"}))


def pigeonhole(n: int = 5) -> proof.Dimacs:
    var = lambda i, j: i * (n - 1) + j + 1  # noqa: E731
    clauses = [[var(i, j) for j in range(n - 1)] for i in range(n)]
    clauses += [[-var(a, j), -var(b, j)] for j in range(n - 1) for a in range(n) for b in range(a + 1, n)]
    return as_query(n * (n - 1), clauses)


def as_query(nvars: int, clauses: list[list[int]]) -> proof.Dimacs:
    return proof.Dimacs(_as_dimacs(nvars, clauses), nvars, len(clauses))


QUERIES = {"lex optimum": lex_optimum, "count optimum": count_optimum, "uniqueness": uniqueness,
           "infeasibility": infeasibility, "pigeonhole": pigeonhole}


@pytest.fixture(scope="module")
def made():
    """Each query, and CaDiCaL's whole LRAT proof of it (no trim)."""
    out = {}
    for name, build in QUERIES.items():
        query = build()
        out[name] = query, prover.refute(query, proof.LRAT_SOLVER, 60)[0]
    return out


def lemmas_of(lrat: bytes) -> list[frozenset[int]]:
    """The literal sets of a proof's lemmas (deletions left out)."""
    out = []
    for line in lrat.split(b"\n"):
        numbers = [int(x) for x in line.split() if x != b"d"]
        if numbers and b" d " not in line:
            out.append(frozenset(numbers[1:numbers.index(0, 1)]))
    return out


# -------------------------------------------------------------- the four kinds of claim, and php
@pytest.mark.parametrize("name", QUERIES)
def test_certify_makes_a_checked_lrat_proof_on_the_cadical_path(name):
    query = QUERIES[name]()
    lines = []
    certified = proof.certify_query(query, timeout=60, progress=lines.append)
    assert certified.solver == proof.LRAT_SOLVER == "cadical195-lrat"
    assert not any("lacks" in line for line in lines), lines
    verdict = check_lrat(*proof.read_dimacs(query.text), certified.lrat)
    assert verdict.ok and verdict.lemmas == certified.lemmas > 0, verdict
    ok, message, _ = proof.check_lrat_text(query, certified.lrat)
    assert ok and one_line(message)
    assert dratify_check(query, lrat_as_drup(certified.lrat))[0]
    assert b" d " not in certified.lrat  # the trim writes no deletions


# ------------------------------------------------------------------------------------- the trim
@pytest.mark.parametrize("name", QUERIES)
def test_the_trim_keeps_every_lemma_a_kept_hint_uses(made, name):
    """CaDiCaL's whole proof (numbered as the query, deletions dropped: the trim disabled) and its
    trim get the same verdict, and the trim holds only lemmas of the whole (as literal sets)."""
    query, raw = made[name]
    nvars, clauses = proof.read_dimacs(query.text)
    untrimmed = proof.trim_lrat(raw, len(clauses), trim=False)
    trimmed = proof.trim_lrat(raw, len(clauses))
    whole, kept = check_lrat(nvars, clauses, untrimmed), check_lrat(nvars, clauses, trimmed)
    assert whole.ok and kept.ok, (whole.message, kept.message)
    assert kept.lemmas <= whole.lemmas == len(lemmas_of(untrimmed))
    assert set(lemmas_of(trimmed)) <= set(lemmas_of(untrimmed)) <= set(lemmas_of(raw))
    if min(int(line.split()[0]) for line in raw.split(b"\n") if line and b" d " not in line) > len(clauses):
        assert check_lrat(nvars, clauses, raw).ok  # numbered as the query already: CaDiCaL's own text checks
    assert dratify_check(query, lrat_as_drup(trimmed))[0]


def test_the_queries_cover_both_numberings(made):
    """The renumbering the trim does when CaDiCaL derived clauses while reading the query (a lemma
    id at or below the query's clause count) is exercised here, and so is the verbatim case."""
    shifted = {name: min(int(line.split()[0]) for line in raw.split(b"\n") if line and b" d " not in line)
               <= query.clauses for name, (query, raw) in made.items()}
    assert any(shifted.values()) and not all(shifted.values()), shifted


def test_a_lemma_used_only_much_later_is_kept_and_unused_ones_are_dropped():
    """A hand-written proof of (a or b) (a or -b) (-a or c) (-a or -c): lemma 5 (a) is used only by
    the empty clause, after two lemmas the refutation does not use, and a deletion of one of them."""
    formula = [[1, 2], [1, -2], [-1, 3], [-1, -3]]
    raw = b"5 1 0 1 2 0\n6 3 0 5 3 0\n7 -3 0 5 4 0\n7 d 6 0\n8 0 5 3 4 0\n9 2 0 1 5 0\n"
    assert check_lrat(3, formula, raw).ok
    assert proof.trim_lrat(raw, 4) == b"5 1 0 1 2 0\n8 0 5 3 4 0\n"
    assert check_lrat(3, formula, proof.trim_lrat(raw, 4)).ok
    # The same proof as CaDiCaL writes it when it shortened a clause while reading the query: here
    # (1 2) shortened by the unit (-2) of a five-clause query, so the query's later clauses moved up one.
    formula = [[1, 2], [-2], [1, -3], [-1, 3], [-1, -3]]
    raw = b"3 1 0 2 1 0\n7 3 0 3 5 0\n8 0 3 5 6 0\n"  # CaDiCaL's ids: 4, 5, 6 are the query's 3, 4, 5
    trimmed = proof.trim_lrat(raw, 5)
    assert trimmed == b"6 1 0 2 1 0\n7 0 6 4 5 0\n", trimmed
    assert check_lrat(3, formula, trimmed).ok


@pytest.mark.parametrize("clauses", [
    [[1, 2], [-1], [-2]],  # units shorten earlier clauses while the query is read
    [[-1], [1, 2], [1, -2]],
    [[1, 1, 2], [1, -1], [-1, -2], [-1, 2], [1, -2], [1, 2]],  # a repeated literal, a tautology
    [[1, 2], [1, -2], [-1], [-1], [3], [1, 3, 3]],
    [[1], [-1]],
    [[1, 2], [], [-2]],  # an empty clause: CaDiCaL writes nothing, the refutation is one line
])
def test_odd_queries_get_checked_proofs(clauses):
    query = as_query(3, clauses)
    certified = proof.certify_query(query, timeout=60)
    assert certified.solver == proof.LRAT_SOLVER
    assert check_lrat(3, clauses, certified.lrat).ok
    assert dratify_check(query, lrat_as_drup(certified.lrat))[0]


# -------------------------------------------------------------------------- the memory budget
def test_the_trim_reads_a_file_by_blocks_as_it_reads_bytes(made, tmp_path, monkeypatch):
    """CaDiCaL's raw proof is trimmed from disk, never read whole: with blocks of a few bytes every
    line spans blocks, and the trim is the same as from bytes in one block."""
    for name in ("lex optimum", "count optimum"):  # one numbered as the query, one renumbered
        query, raw = made[name]
        path = tmp_path / f"{name}.lrat"
        path.write_bytes(raw)
        whole = proof.trim_lrat(raw, query.clauses)
        monkeypatch.setattr(trim, "RAW_BLOCK", 7)
        assert proof.trim_lrat(path, query.clauses) == whole
        assert proof.trim_lrat(path, query.clauses, trim=False) == proof.trim_lrat(raw, query.clauses, trim=False)
        monkeypatch.undo()


@pytest.mark.parametrize("cap, fragment", [
    ({"disk_bytes": 2_000}, "proof passed 2,000 bytes after"),  # CaDiCaL stopped while writing
    ({"text_bytes": 2_000}, "more than 2,000 bytes of LRAT text, more than the audit reads"),
    ({"lemmas": 3}, "rests on more than 3 lemmas, more than smtpuzzles.trusted.lrat checks"),
    ({"line_bytes": 40}, "a proof line longer than 40 bytes"),
])
def test_a_proof_past_its_budget_is_refused_in_one_line(cap, fragment, monkeypatch):
    """The caps of ProofBudget (gigabytes by default; a few bytes here) stop certify with one line
    instead of a process the kernel kills for its memory."""
    query = pigeonhole(6)
    monkeypatch.setattr(trim, "RAW_BLOCK", 16)  # a line is held whole only when it spans blocks
    with pytest.raises(proof.ProofError) as refused:
        proof.certify_query(query, timeout=60, budget=proof.ProofBudget(**cap))
    assert fragment in refused.value.message and one_line(refused.value.message), refused.value.message
    monkeypatch.undo()
    assert proof.certify_query(query, timeout=60).lemmas > 3  # within the default budget it is made


def test_a_proof_that_would_fill_the_temporary_folder_is_stopped(monkeypatch):
    """The raw proof stays in the temporary folder (a tmpfs is memory): it may take the room left
    there less a margin, and no more."""
    import shutil

    usage = shutil.disk_usage(".")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=prover.DISK_MARGIN + 2_000))
    with pytest.raises(proof.ProofError, match="proof passed 2,000 bytes after .* the room left in the temporary") as refused:
        proof.certify_query(pigeonhole(6), timeout=60)
    assert one_line(refused.value.message)


def test_the_drup_path_reads_no_proof_past_the_text_budget():
    with pytest.raises(proof.ProofError, match="proof passed 2,000 bytes after") as refused:
        proof.certify_query(pigeonhole(6), solver="glucose42", timeout=60, budget=proof.ProofBudget(text_bytes=2_000))
    assert one_line(refused.value.message)


# --------------------------------------------------------- a python-sat without what the path needs
def _raising(*args):
    raise TypeError("cadical195_tracepr() takes exactly 3 arguments (2 given)")


@pytest.mark.parametrize("remove", ["tracepr", "configure", "changed"])
def test_a_python_sat_without_the_internals_falls_back_with_one_line(monkeypatch, remove):
    import pysolvers
    from pysat.solvers import Cadical195

    if remove == "tracepr":
        monkeypatch.delattr(pysolvers, "cadical195_tracepr")
    elif remove == "configure":
        monkeypatch.delattr(Cadical195, "configure")
    else:
        monkeypatch.setattr(pysolvers, "cadical195_tracepr", _raising)
    with pytest.raises(proof.ProofError, match="python-sat lacks"):
        child.cadical_lrat_solver(None)
    query = lex_optimum()
    lines = []
    certified = proof.certify_query(query, timeout=60, progress=lines.append)
    said = [line for line in lines if "python-sat lacks" in line]
    assert len(said) == 1 and one_line(said[0]) and proof.DEFAULT_SOLVER in said[0], lines
    assert certified.solver.startswith(f"{proof.DEFAULT_SOLVER} (fallback: python-sat lacks"), certified.solver
    assert proof.check_lrat_text(query, certified.lrat)[0]


def test_the_old_path_is_still_chosen_by_name():
    query = infeasibility()
    certified = proof.certify_query(query, solver="glucose42", timeout=60)
    assert certified.solver == "glucose42" and proof.check_lrat_text(query, certified.lrat)[0]
    with pytest.raises(proof.ProofError, match="unknown proof solver"):
        proof.certify_query(query, solver="kissat")


# ---------------------------------------------------------------------- no proof: ProofError
def test_a_satisfiable_query_is_a_proof_error_that_says_satisfiable():
    nvars, clauses = proof.read_dimacs(pigeonhole().text)
    with pytest.raises(proof.ProofError, match="satisfiable"):
        proof.certify_query(as_query(nvars, clauses[1:]), timeout=60)  # one pigeon may stay out
    case = next(c for c in SEED_CASES["nonary"] if c["answer"] < 9)
    enc = nonary.encode(nonary.from_doors(case["doors"]))
    reachable = proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "at_least", "k": case["answer"]}))
    with pytest.raises(proof.ProofError, match="satisfiable"):
        proof.certify_query(reachable, timeout=60)


def test_a_proof_out_of_time_is_a_proof_error():
    big = proof.dimacs(*_pigeonhole(11))
    with pytest.raises(proof.ProofError, match="found no proof within"):
        proof.certify_query(big, timeout=0.5)
