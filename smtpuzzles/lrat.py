"""A linear LRAT checker, in pure Python, sharing no code with any solver or proof writer.

An LRAT proof gives each lemma an id, its literals, and hints: the ids of earlier clauses that make
it follow by unit propagation, in the order propagation uses them. Checking a lemma is one pass over
its hints: assume every literal of the lemma false; each hint must then be unit (its one open
literal is set true) or falsified (the lemma holds). No search, no watches, nothing kept between
lemmas but the clauses themselves, which is what keeps this checker short enough to read whole.

Accepted lines: `ID LITERALS 0 HINTS 0` (a lemma; ids strictly increasing, above the formula's) and
`ID d IDS 0` (deletions). Negative hints (RAT) are refused: the proofs written here are RUP only.
The proof is accepted when a lemma with no literals, the empty clause, is checked.
"""

from __future__ import annotations

from dataclasses import dataclass

# One line of the proof, before it is split into numbers (a line is held as Python ints, about 20
# bytes each per digit group). The longest line of the published records' proofs is 101 KB.
MAX_LINE = 4 * 1024 * 1024


@dataclass
class LratVerdict:
    ok: bool
    message: str
    lemmas: int = 0  # lemmas checked (the empty clause included)


class LratError(Exception):
    """A proof line that is malformed or fails its check (message names the line)."""


def check_lrat(nvars: int, formula: list[list[int]], proof: bytes) -> LratVerdict:
    """Check an LRAT text proof against a formula. Never raises for a bad proof."""
    try:
        return _check(nvars, formula, proof)
    except LratError as exc:
        return LratVerdict(False, str(exc))


def _tokens(line: bytes, number: int) -> list[int]:
    try:
        return [int(token) for token in line.split()]
    except ValueError:
        raise LratError(f"proof line {number}: not a line of integers") from None


def _check(nvars: int, formula: list[list[int]], proof: bytes) -> LratVerdict:
    clauses: dict[int, tuple[int, ...]] = {i + 1: tuple(dict.fromkeys(c)) for i, c in enumerate(formula)}
    last_id = len(formula)
    # val[lit] is 1 when lit is assigned true, -1 false, 0 open; a negative index wraps to the top.
    val = [0] * (2 * nvars + 1)
    checked = 0
    for number, line in enumerate(proof.split(b"\n"), 1):
        if not line.strip() or line.lstrip().startswith(b"c"):
            continue
        where = f"proof line {number}"
        if len(line) > MAX_LINE:
            raise LratError(f"{where}: longer than {MAX_LINE:,} bytes")
        head, _, rest = line.strip().partition(b" ")
        try:
            ident = int(head)
        except ValueError:
            raise LratError(f"{where}: the line does not start with a clause id") from None
        if rest.startswith(b"d"):
            ids = _tokens(rest[1:], number)
            if not ids or ids[-1] != 0 or 0 in ids[:-1]:
                raise LratError(f"{where}: a deletion must list ids ending with one 0")
            for gone in ids[:-1]:
                if clauses.pop(gone, None) is None:
                    raise LratError(f"{where}: deletes clause {gone}, which does not exist")
            continue
        numbers = _tokens(rest, number)
        if numbers.count(0) != 2 or numbers[-1] != 0:
            raise LratError(f"{where}: a lemma is 'ID LITERALS 0 HINTS 0'")
        split = numbers.index(0)
        lits, hints = numbers[:split], numbers[split + 1:-1]
        if ident <= last_id:
            raise LratError(f"{where}: id {ident} is not above the previous id {last_id}")
        if any(not 0 < abs(lit) <= nvars for lit in lits):
            raise LratError(f"{where}: a literal outside the formula's {nvars} variables")
        _check_lemma(lits, hints, clauses, val, where)
        checked += 1
        last_id = ident
        if not lits:
            return LratVerdict(True, f"empty clause derived; {checked:,} lemmas checked, each by its hints", checked)
        clauses[ident] = tuple(dict.fromkeys(lits))
    return LratVerdict(False, "the proof ends without deriving the empty clause (cut short?)", checked)


def _check_lemma(lits: list[int], hints: list[int], clauses: dict, val: list[int], where: str) -> None:
    assigned: list[int] = []
    try:
        for lit in lits:
            if val[lit] == 1:
                return  # both a literal and its negation: a tautology holds without hints
            if val[lit] == 0:
                val[lit], val[-lit] = -1, 1
                assigned.append(lit)
        for hint in hints:
            clause = clauses.get(hint)
            if clause is None:
                raise LratError(f"{where}: hint {hint} is not a clause present here"
                                + (" (RAT hints are not accepted)" if hint < 0 else ""))
            open_lit = 0
            for lit in clause:
                state = val[lit]
                if state == 1:
                    raise LratError(f"{where}: hint {hint} is already satisfied, so it implies nothing")
                if state == 0:
                    if open_lit:
                        raise LratError(f"{where}: hint {hint} is not unit (two open literals)")
                    open_lit = lit
            if not open_lit:
                return  # falsified: the negation of the lemma is refuted
            val[open_lit], val[-open_lit] = 1, -1
            assigned.append(-open_lit)
        raise LratError(f"{where}: the hints end without a conflict: the clause is not implied")
    finally:
        for lit in assigned:
            val[lit] = val[-lit] = 0
