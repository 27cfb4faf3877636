"""Certifying a query: the LRAT proof a run folder stores, made and checked before it is returned.
CaDiCaL writes LRAT itself in a child (smtpuzzles.proofs.prover), the trim keeps what the
refutation used (smtpuzzles.proofs.trim), and smtpuzzles.trusted.lrat checks the result; or a
query is refuted in parts joined into one proof (smtpuzzles.proofs.parts); or, where python-sat
cannot write LRAT, a DRUP proof is checked backwards and written as LRAT. Past a cap of a
`ProofBudget`, certify stops with one line."""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass

from smtpuzzles.proofs.budget import BUDGET, PART_BUDGET, ProofBudget
from smtpuzzles.proofs.checking import read_proof
from smtpuzzles.proofs.child import CERTIFY_SOLVERS, DEFAULT_SOLVER, LRAT_SOLVER, cadical_lrat_solver
from smtpuzzles.proofs.drup import check_drup, to_lrat
from smtpuzzles.proofs.parts import PartsStore, certify_in_parts
from smtpuzzles.proofs.prover import Proof, refute, run_prover, scratch_folder
from smtpuzzles.proofs.stages import Journal, certify_in_stages
from smtpuzzles.proofs.trim import trim_lrat
from smtpuzzles.trusted.dimacs import Dimacs, ProofError
from smtpuzzles.trusted.lrat import check_lrat


@dataclass(frozen=True)
class Certified:
    """A refutation made, checked, and written as LRAT, ready to store beside the run."""

    lrat: bytes  # empty for a proof checked as it was made and not kept (see certify_query)
    lemmas: int  # lemmas in the LRAT proof (units it materialises included)
    solver: str
    seconds: float  # proving, checking and writing, together
    found: int = 0  # parts taken from a parts folder (made by an earlier run, checked here as made)
    staged: object = None  # made in stages: smtpuzzles.proofs.stages.Staged (`lemmas` then counts both)

    @property
    def taken(self) -> int:
        """Parts of a proof in stages taken from its journal at its word (not checked here)."""
        return self.staged.taken if self.staged is not None else 0


def certify_query(query: Dimacs, solver: str = LRAT_SOLVER, timeout: float | None = None,
                  progress=None, budget: ProofBudget = BUDGET, split: int | None = None,
                  keep: bool = True, parts_dir=None, observe=None, part_budget: ProofBudget = PART_BUDGET,
                  journal: Journal | None = None) -> Certified:
    """Refute `query` and return the LRAT proof of it that smtpuzzles.trusted.lrat has checked; ProofError
    when there is no proof (a satisfiable query says "satisfiable"), the time runs out, or a check fails.

    `solver` LRAT_SOLVER (the default): CaDiCaL 1.9.5 writes LRAT, `trim_lrat` keeps what the
    refutation used. When python-sat cannot do that (see `cadical_lrat_solver`), one line says so and
    the DRUP path below runs instead, with the reason in the returned solver's name.
    A DRUP solver (PROOF_SOLVERS): its proof is checked backwards (smtpuzzles.proofs.drup), the lemmas used
    are written as LRAT, and that is checked; slower, by a Python checker's pace.
    Past a cap of `budget` (disk, memory, lemmas) there is no proof: a ProofError of one line; in
    parts, `budget` caps the joined proof and `part_budget` each part.

    `split`, the number of a clause of the query (1 for the first): on the LRAT path the query is
    refuted once per literal of that clause, with the literal as a unit, and the parts joined into
    one LRAT proof of the query itself (see `_certify_lrat_parts`). The joined proof is checked as
    it is made, and bounded by the parts' sizes, not by the stored proof's caps. It is kept while it
    stays within the caps the audit reads a stored proof under; past them (the 12x12 record's
    reference proof, 9 million lemmas) its `lrat` is empty: checked here, too large to store. With
    `keep` False (a proof the audit makes, checks and forgets) it is never kept. `parts_dir`, a
    folder: each part made is kept there too (see `PartsStore`), and a part found there is not made
    again, so a proof of hours stopped part-way resumes; what is found is checked like what is made.
    `observe(query, lrat, case)`, when given, is shown every proof checked here before it counts:
    the whole one (`case` None), or each part's, of the query and the unit `case` (see
    smtpuzzles.proofs.external, which hands them to a second checker).

    `journal`, with `split`: the proof is made in stages (smtpuzzles.proofs.stages), each part
    checked on its own and written to the journal, a part the journal lists taken at its word; the
    returned `lrat` is empty, as nothing is joined."""
    say = progress or (lambda words: None)
    started = time.perf_counter()
    if solver not in CERTIFY_SOLVERS:
        raise ProofError(f"unknown proof solver {solver!r} (one of {', '.join(CERTIFY_SOLVERS)})", "proof")
    name = solver
    if solver == LRAT_SOLVER:
        try:
            with tempfile.TemporaryFile() as probe:
                cadical_lrat_solver(probe).delete()
        except ProofError as exc:
            say(f"{exc.message}; proving with {DEFAULT_SOLVER} (DRUP, slower) instead")
            solver, name = DEFAULT_SOLVER, f"{DEFAULT_SOLVER} (fallback: {exc.message})"
    say(f"proving: {solver}, {query.variables:,} variables, {query.clauses:,} clauses")
    found = 0
    if solver == LRAT_SOLVER and split and journal is not None:
        staged = certify_in_stages(query, split, timeout, say, started, _proved_part, journal,
                                   None if parts_dir is None else PartsStore(parts_dir, query), observe, part_budget)
        return Certified(b"", staged.lemmas + staged.taken_lemmas, f"{name}, in {staged.parts} parts checked one by one",
                         time.perf_counter() - started, staged=staged)
    if solver == LRAT_SOLVER and split:
        lrat, checked, parts, found = certify_in_parts(
            query, split, timeout, say, started, budget, _proved_part, keep,
            None if parts_dir is None else PartsStore(parts_dir, query), observe, part_budget)
        name = f"{name}, in {parts} parts"
    elif solver == LRAT_SOLVER:
        lrat, checked = _certify_lrat(query, timeout, say, started, budget)
    else:
        lrat, checked = _certify_drup(query, solver, timeout, say, budget)
    if not checked.ok:  # a bug in the writer or the trim; never stored
        raise ProofError(f"the LRAT proof written here was rejected: {checked.message}", "proof")
    if observe is not None and not split:
        observe(query, lrat, None)
    return Certified(lrat, checked.lemmas, name, time.perf_counter() - started, found)


def _certify_lrat(query: Dimacs, timeout: float | None, say, started: float, budget: ProofBudget):
    # CaDiCaL's raw proof (gigabytes on large queries) stays on disk; only what is kept is read in.
    with scratch_folder("smtpuzzles-proof-") as tmp:
        raw, _ = run_prover(query, LRAT_SOLVER, timeout, tmp, budget.disk_bytes)
        say(f"trimming CaDiCaL's {raw.stat().st_size / 1e6:.1f} MB LRAT proof")  # to the lemmas the refutation used
        try:
            lrat = trim_lrat(raw, query.clauses, budget=budget)
        except ValueError:
            raise ProofError(f"{LRAT_SOLVER} wrote a proof that is not LRAT text", "proof") from None
    nvars, clauses = query.clause_list()
    say(f"checking the {len(lrat) / 1e6:.1f} MB LRAT proof")
    deadline = None if timeout is None else time.monotonic() + max(0.0, timeout - (time.perf_counter() - started))
    checked = check_lrat(nvars, clauses, lrat, deadline=deadline)
    if checked.ok is None:
        raise ProofError(f"{LRAT_SOLVER}'s proof was not checked within {timeout:g} s", "proof")
    return lrat, checked


def _proved_part(part: Dimacs, left: float | None, budget: ProofBudget) -> bytes:
    """A part's LRAT proof, made by CaDiCaL in a child and trimmed to what its empty clause rests on."""
    with scratch_folder("smtpuzzles-proof-") as tmp:
        raw, _ = run_prover(part, LRAT_SOLVER, left, tmp, budget.disk_bytes)
        try:
            return trim_lrat(raw, part.clauses, budget=budget)
        except ValueError:
            raise ProofError(f"{LRAT_SOLVER} wrote a proof that is not LRAT text", "proof") from None


def _certify_drup(query: Dimacs, solver: str, timeout: float | None, say, budget: ProofBudget):
    made = Proof(*refute(query, solver, timeout, budget.text_bytes))  # read whole: the text budget
    nvars, clauses = query.clause_list()
    steps, names = read_proof(made.text, nvars)
    say(f"checking the {len(made.text) / 1e6:.1f} MB DRUP proof backwards")
    verdict = check_drup(nvars, clauses, steps, names)
    if not verdict.ok:
        raise ProofError(f"{solver}'s proof was rejected: {verdict.message}", "proof")
    say(f"writing the {verdict.checked:,} lemmas it used as LRAT")
    lrat = to_lrat(nvars, clauses, steps, verdict)
    return lrat, check_lrat(nvars, clauses, lrat)  # the clauses parsed above: the checkers copy, never change them
