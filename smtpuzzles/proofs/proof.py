"""Clausal proofs of UNSAT answers, as the rest of the project takes them: the names the solver's
`certify`, the audit and the command line use, gathered from the modules of this package.

An UNSAT answer on a Boolean encoding is a claim about every assignment; this package turns it into
evidence an auditor can check without trusting a solver. `dimacs` writes the query as deterministic
DIMACS (query); `prove` refutes it with a proof-logging solver in a child process (prover, child)
and returns its DRUP proof; `check` verifies the proof with a checker that shares no code with the
solver (checking). `certify_query` makes the LRAT proof a run folder stores (certify): CaDiCaL
writes LRAT itself, a linear backward pass keeps what the refutation used (trim), and
smtpuzzles.trusted.lrat checks the result before it is returned; `ProofBudget` says what one proof
may take (budget); `compress` and `read_proof_file` are a proof as a folder stores it (stored).

Nothing here knows a puzzle or the ledger: callers pass a `Formula` and assumption `Term`s.
"""

from __future__ import annotations

from smtpuzzles.proofs.budget import BUDGET, MAX_PROOF_BYTES, ProofBudget
from smtpuzzles.proofs.certify import Certified, certify_query
from smtpuzzles.proofs.checking import check, check_lrat_text, read_proof
from smtpuzzles.proofs.child import CERTIFY_SOLVERS, DEFAULT_SOLVER, LRAT_SOLVER, PROOF_SOLVERS
from smtpuzzles.proofs.prover import BackgroundProof, Proof, prove
from smtpuzzles.proofs.query import claim_cases, dimacs, query_clauses
from smtpuzzles.proofs.stored import compress, read_proof_file
from smtpuzzles.proofs.trim import trim_lrat
from smtpuzzles.trusted.dimacs import (Dimacs, ProofError, ReferenceProofError, Satisfiable, clause_lines, dimacs_of,
                                       read_dimacs)

__all__ = [
    "BUDGET", "MAX_PROOF_BYTES", "ProofBudget", "Certified", "certify_query", "check", "check_lrat_text", "read_proof",
    "CERTIFY_SOLVERS", "DEFAULT_SOLVER", "LRAT_SOLVER", "PROOF_SOLVERS", "BackgroundProof", "Proof", "prove",
    "claim_cases", "dimacs", "query_clauses", "compress", "read_proof_file", "trim_lrat",
    "Dimacs", "ProofError", "ReferenceProofError", "Satisfiable", "clause_lines", "dimacs_of", "read_dimacs",
]
