"""The query a clausal proof refutes: a formula's base CNF and each assumption asserted, exactly as
the sat engine adds them, written as deterministic DIMACS. Nothing here knows a puzzle or the
ledger: callers pass a `Formula` and assumption `Term`s."""

from __future__ import annotations

from typing import Sequence

from smtpuzzles.formula import Formula, Term
from smtpuzzles.trusted.dimacs import Dimacs, ProofError, dimacs_of


def query_clauses(formula: Formula, assumptions: Sequence[Term]) -> tuple[int, list[list[int]]]:
    """(variable count, clauses) of "base and every assumption": each assumption becomes clauses
    the way the sat engine adds them (Tseitin in one direction, through `CNF.term_literal`), and its
    activation literal a unit clause. The formula's own CNF is left untouched."""
    if formula.cnf is None:
        raise ProofError("the formula has no clausal view (an arithmetic encoding)", "proof")
    base = formula.cnf
    view = base.numbering()
    extra: list[list[int]] = []
    cache: dict = {}
    try:
        units = [view.term_literal(t, extra, cache) for t in assumptions]
    except (KeyError, ValueError) as exc:
        raise ProofError(f"an assumption has no clausal form: {exc}", "proof") from None
    clauses = base.clauses + extra + [[u] for u in units]
    return len(view.names) - 1, clauses


def dimacs(formula: Formula, assumptions: Sequence[Term]) -> Dimacs:
    """The query as DIMACS CNF; the same formula and assumptions give the same bytes."""
    return dimacs_of(*query_clauses(formula, assumptions))


def claim_cases(query: Dimacs) -> int | None:
    """The number of the query's clause that lists its claim's cases: the query ends with the unit
    clause of the claim's literal u (as `query_clauses` writes it), and "u implies one of the cases"
    is the widest clause holding -u. None when the query does not end so. Only advice for a split:
    any clause of the query would be sound."""
    _, clauses = query.clause_list()
    if not clauses or len(clauses[-1]) != 1:
        return None
    u = clauses[-1][0]
    found = max(((len(c), i) for i, c in enumerate(clauses, 1) if -u in c), default=None)
    return found[1] if found and found[0] > 2 else None
