"""CaDiCaL's LRAT proof trimmed to what the refutation used: one backward pass over the raw proof,
which stays on disk and is read in blocks (18.6 GB on the 12x12 reference formula), keeps the lemmas
the empty clause rests on. Not trusted: smtpuzzles.trusted.lrat checks what is kept."""

from __future__ import annotations

import bisect
import io
import os
from array import array

from smtpuzzles.proofs.budget import BUDGET, MiB, ProofBudget
from smtpuzzles.proofs.child import LRAT_SOLVER
from smtpuzzles.trusted.dimacs import ProofError

RAW_BLOCK = 8 * MiB  # how much of CaDiCaL's raw proof is read at a time


def trim_lrat(raw, nclauses: int, trim: bool = True, budget: ProofBudget | None = None) -> bytes:
    """The lemmas of CaDiCaL's LRAT proof `raw` (a file's path, read by offset and never whole, or
    bytes) that the empty clause rests on, through hints (all lemmas up to it when not `trim`), in
    their order, without deletions. Not trusted (smtpuzzles.trusted.lrat checks the result). One backward
    pass in blocks marks the hints; the lemmas kept are then read again by offset. Past a cap of
    `budget` (BUDGET) it stops with a ProofError, one line.

    CaDiCaL hands out ids from one counter, to the query's clauses as it reads them and to each lemma
    it writes. So the query's clauses get 1..nclauses, as the checker numbers them, unless a lemma was
    derived while the query was still being read (a unit shortening a clause read before it); then
    everything is renumbered: a query clause's id is its CaDiCaL id less the lemma ids below it, and
    the lemmas kept follow the query's clauses."""
    budget = budget or BUDGET
    with _RawProof(raw) as proof:
        kept = _kept_lemmas(proof, trim, budget)
        early = _early_lemma_ids(proof, nclauses, budget)
        text = _kept_text(proof, kept, early, nclauses)
    if len(text) > budget.text_bytes:  # renumbering can lengthen ids a little
        raise ProofError(_over_text(budget), "proof")
    return text


def _over_text(budget: ProofBudget) -> str:
    return (f"the lemmas the refutation rests on are more than {budget.text_bytes:,} bytes of LRAT text, "
            "more than the audit reads of a stored proof")


class _RawProof:
    """CaDiCaL's raw proof read by offset: a file (os.pread, so nothing but what is asked is held)
    or bytes."""

    def __init__(self, source):
        self.data, self.fd = (source, None) if isinstance(source, (bytes, bytearray)) else (None, os.open(source, os.O_RDONLY))
        self.size = len(self.data) if self.fd is None else os.fstat(self.fd).st_size

    def read(self, offset: int, length: int) -> bytes:
        if self.fd is None:
            return bytes(self.data[offset:offset + length])
        return os.pread(self.fd, length, offset)  # a regular file: all of it, short only at its end

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)


def _lines_backward(proof: _RawProof, budget: ProofBudget):
    """(offset, line) of each line of the proof, the last first, read RAW_BLOCK at a time from its end."""
    end, tail = proof.size, b""  # tail: the start of a line that began in the block before
    while end > 0:
        start = max(0, end - RAW_BLOCK)
        chunk = proof.read(start, end - start) + tail
        lines = chunk.split(b"\n")
        tail = lines.pop(0) if start else b""
        if len(tail) > budget.line_bytes:
            raise ProofError(f"{LRAT_SOLVER} wrote a proof line longer than {budget.line_bytes:,} bytes", "proof")
        cursor = start + len(chunk)
        for line in reversed(lines):
            cursor -= len(line)
            yield cursor, line
            cursor -= 1  # its newline
        end = start


def _lines_forward(proof: _RawProof, budget: ProofBudget):
    """Each line of the proof, first to last, read RAW_BLOCK at a time."""
    start, head = 0, b""  # head: a line whose end is in the next block
    while start < proof.size:
        chunk = head + proof.read(start, RAW_BLOCK)
        start += RAW_BLOCK
        lines = chunk.split(b"\n")
        head = lines.pop() if start < proof.size else b""
        if len(head) > budget.line_bytes:
            raise ProofError(f"{LRAT_SOLVER} wrote a proof line longer than {budget.line_bytes:,} bytes", "proof")
        yield from lines


def _kept_lemmas(proof: _RawProof, trim: bool, budget: ProofBudget) -> tuple:
    """(offsets, lengths, ids) of the lines of the lemmas kept, the last first: from the last empty
    clause back, each lemma whose id a kept lemma's hints name (every lemma when not `trim`)."""
    offsets, lengths, ids = array("q"), array("q"), array("q")
    needed: set[bytes] = set()  # ids, as text, named by the hints of the lemmas kept: at most those and the query
    text = 0
    for offset, line in _lines_backward(proof, budget):
        head, _, rest = line.partition(b" ")
        if not rest or rest.startswith(b"d"):
            continue  # a deletion (`ID d IDS 0`) or no line
        if not ids and not rest.startswith(b"0 ") or ids and trim and head not in needed:
            continue  # after the empty clause, or not used by what is kept
        numbers = rest.split()
        needed.update(numbers[numbers.index(b"0") + 1:-1])
        ids.append(int(head))
        offsets.append(offset)
        lengths.append(len(line))
        text += len(line) + 1
        if len(ids) > budget.lemmas:
            raise ProofError(f"the refutation rests on more than {budget.lemmas:,} lemmas, more than "
                             "smtpuzzles.trusted.lrat checks", "proof")
        if text > budget.text_bytes:
            raise ProofError(_over_text(budget), "proof")
    return offsets, lengths, ids


def _early_lemma_ids(proof: _RawProof, nclauses: int, budget: ProofBudget):
    """The ids of the lemmas CaDiCaL derived while it was still reading the query (below the last
    query clause's id), ascending: its first lines, read until a lemma comes after every query clause."""
    early = array("q")
    for line in _lines_forward(proof, budget):
        head, _, rest = line.partition(b" ")
        if not rest or rest.startswith(b"d"):
            continue
        ident = int(head)
        if ident - 1 - len(early) >= nclauses:  # the ids below it hold every query clause
            break
        early.append(ident)
    return early


def _kept_text(proof: _RawProof, kept: tuple, early, nclauses: int) -> bytes:
    """The kept lemmas' lines, first to last: as CaDiCaL wrote them when the query is numbered as the
    checker numbers it (no `early` lemma ids), renumbered after the query's clauses otherwise."""
    offsets, lengths, ids = (column[::-1] for column in kept)
    out = io.BytesIO()
    if not early:
        for offset, length in zip(offsets, lengths):
            out.write(proof.read(offset, length))
            out.write(b"\n")
        return out.getvalue()

    def renumbered(hint: int) -> int:
        kept_at = bisect.bisect_left(ids, hint)
        if kept_at < len(ids) and ids[kept_at] == hint:
            return nclauses + 1 + kept_at
        return hint - bisect.bisect_left(early, hint)  # a query clause

    for ident, (offset, length) in enumerate(zip(offsets, lengths), nclauses + 1):
        numbers = [int(x) for x in proof.read(offset, length).split()]
        split = numbers.index(0, 1)
        hints = [renumbered(h) for h in numbers[split + 1:-1]]
        out.write(" ".join(map(str, [ident, *numbers[1:split + 1], *hints, 0])).encode("ascii") + b"\n")
    return out.getvalue()
