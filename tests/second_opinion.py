"""dratify's second opinion on the proofs this package checks (tests only: the package's own checkers
are smtpuzzles.proofs.drup and smtpuzzles.trusted.lrat). dratify is independent pure Python and checks forward."""

from __future__ import annotations

from smtpuzzles.proofs.proof import Dimacs, Proof, ProofError


def dratify_check(query: Dimacs | str | bytes, proof: Proof | bytes) -> tuple[bool, str]:
    """A second opinion from dratify (independent, pure Python, forward checking; slower). RAT
    steps are refused as here: the solvers used write DRUP, and this keeps the two checkers' rules
    the same."""
    try:
        import dratify
    except ImportError:
        raise ProofError("dratify is not installed (pip install dratify)", "proof") from None
    data = proof.text if isinstance(proof, Proof) else proof
    text = query.text if isinstance(query, Dimacs) else query
    try:
        result = dratify.check_proof(dratify.parse_dimacs(text if isinstance(text, str) else text.decode()),
                                     data.decode("ascii"), check_rat=False, engine="python")
    except (ValueError, UnicodeDecodeError) as exc:
        return False, f"dratify: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    return bool(result.ok), f"dratify: {result.reason}"


def lrat_as_drup(lrat: bytes) -> bytes:
    """The same proof without ids and hints (deletions dropped), for a DRUP checker's second
    opinion (dratify): every LRAT lemma is RUP, so the DRUP text must check too."""
    out = []
    for line in lrat.split(b"\n"):
        parts = line.split()
        if len(parts) < 2 or parts[1] == b"d":
            continue
        lits = parts[1:parts.index(b"0", 1)] if b"0" in parts[1:] else parts[1:]
        out.append(b" ".join(lits + [b"0"]))
    return b"\n".join(out) + b"\n"
