"""What one proof may take: past a cap, certify stops with one line rather than being killed."""

from __future__ import annotations

from dataclasses import dataclass

from smtpuzzles.trusted.lrat import LIMITS as LRAT_LIMITS

# A stored proof is read no further than this, as text; a DRUP proof checked by smtpuzzles.proofs.drup
# costs about 6x that in memory, an LRAT one is checked as a stream.
MAX_PROOF_BYTES = 512 * 1024 * 1024
GiB, MiB = 1 << 30, 1 << 20


@dataclass(frozen=True)
class ProofBudget:
    """What making one proof may take, so that certify stops with one line rather than being killed.

    CaDiCaL's raw LRAT proof stays on disk (the temporary folder) and is read in blocks: its size
    costs disk, not memory. Memory holds the proof text kept (at most `text_bytes`, what the audit
    reads of a stored proof, so a larger one could never be audited), smtpuzzles.trusted.lrat's clauses
    (under its Limits), a block, and per lemma kept about 80 bytes of ids and offsets."""

    disk_bytes: int = 32 * GiB  # CaDiCaL's raw proof on disk: the solver is stopped past it
    line_bytes: int = 64 * MiB  # one line of the raw proof (a deletion line can list many ids)
    text_bytes: int = MAX_PROOF_BYTES  # proof text held whole: the LRAT kept, or a DRUP proof
    lemmas: int = LRAT_LIMITS.lemmas  # lemmas kept: no more than smtpuzzles.trusted.lrat checks


BUDGET = ProofBudget()


# One part of a proof made in parts (smtpuzzles.proofs.parts) is never stored alone: it is joined,
# checked as it is joined and kept gzip in a parts folder, so a stored proof's caps do not fit it
# (part 166 of the 16x16 record's reference formula: 1.19 GB of LRAT in 788,619 lemmas, CaDiCaL's
# raw proof 4.0 GB; 4.6 GB of memory at the peak, made, trimmed and weakened). A part costs about
# 4 bytes of memory a byte of long lemmas, and about 260 bytes a lemma of short ones (a crafted
# kept part), so these caps hold one part near 8 GB and the two proofs the audit makes side by
# side within this machine's 24 GB.
PART_BUDGET = ProofBudget(text_bytes=2 * GiB, lemmas=8_000_000)
