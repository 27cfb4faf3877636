"""A proof checked against a query, both given as text: a DRUP proof by this project's backward
checker (smtpuzzles.proofs.drup), an LRAT proof by smtpuzzles.trusted.lrat. Neither shares code with
the solver that made the proof."""

from __future__ import annotations

from smtpuzzles.proofs.budget import MAX_PROOF_BYTES
from smtpuzzles.proofs.drup import check_drup
from smtpuzzles.proofs.prover import Proof
from smtpuzzles.trusted.dimacs import Dimacs, ProofError, read_dimacs
from smtpuzzles.trusted.lrat import check_lrat


def read_proof(data: bytes, nvars: int, where: str = "proof") -> tuple[list[tuple[bool, list[int]]], list[str]]:
    """The steps of a DRUP text proof and, for messages, each step's line; ProofError on anything
    that is not one."""
    if data[:2] == b"\x1f\x8b":
        raise ProofError("the proof is still gzip-compressed (use read_proof_file)", where)
    steps: list[tuple[bool, list[int]]] = []
    names: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        parts = raw.split()
        if not parts or parts[0] == b"c":
            continue
        deletion = parts[0] == b"d"
        if deletion:
            parts = parts[1:]
        try:
            lits = [int(p) for p in parts]
        except ValueError:
            raise ProofError(f"line {number}: not a clause of integers", where) from None
        if not lits or lits[-1] != 0 or 0 in lits[:-1]:
            raise ProofError(f"line {number}: a clause must end with one 0", where)
        lits.pop()
        if lits and (max(lits) > nvars or min(lits) < -nvars):
            raise ProofError(f"line {number}: a variable outside the formula's {nvars}", where)
        steps.append((deletion, lits))
        names.append(f"proof line {number}")
    return steps, names


def check(query: Dimacs | str | bytes, proof: Proof | bytes, max_bytes: int = MAX_PROOF_BYTES) -> tuple[bool, str]:
    """Check that `proof` refutes `query` with this project's DRUP checker (smtpuzzles.proofs.drup).
    Never raises for a bad query or proof: (False, one line saying what is wrong)."""
    data = proof.text if isinstance(proof, Proof) else proof
    if len(data) > max_bytes:
        return False, f"the proof has {len(data):,} bytes, over the limit of {max_bytes:,}"
    text = query.text if isinstance(query, Dimacs) else query
    try:
        nvars, clauses = read_dimacs(text)
        steps, names = read_proof(data, nvars)
    except ProofError as exc:
        return False, str(exc)
    verdict = check_drup(nvars, clauses, steps, names)
    return verdict.ok, verdict.message



def check_lrat_text(query: Dimacs | str | bytes, lrat, deadline: float | None = None) -> tuple[bool | None, str, int]:
    """(ok, one line, lemmas checked) of an LRAT proof (bytes, or an iterable of its lines)
    against the query, by smtpuzzles.trusted.lrat; ok is None when `deadline` (time.monotonic()) passed
    first. A proof past a cap of smtpuzzles.trusted.lrat.Limits raises ProofError (refused, not judged);
    any other bad query or proof is (False, why, lemmas)."""
    text = query.text if isinstance(query, Dimacs) else query
    try:
        nvars, clauses = read_dimacs(text)
    except ProofError as exc:
        return False, str(exc), 0
    verdict = check_lrat(nvars, clauses, lrat, deadline=deadline)
    if verdict.over_limit:
        raise ProofError(verdict.message, "proof")
    return verdict.ok, verdict.message, verdict.lemmas
