"""A linear LRAT checker, in pure Python, sharing no code with any solver or proof writer.

An LRAT proof gives each lemma an id, its literals, and hints: the ids of earlier clauses that make
it follow by unit propagation, in the order propagation uses them. Checking a lemma is one pass over
its hints: assume every literal of the lemma false; each hint must then be unit (its one open
literal is set true) or falsified (the lemma holds). No search, no watches, nothing kept between
lemmas but the clauses themselves, which is what keeps this checker short enough to read whole.

Accepted lines: `ID LITERALS 0 HINTS 0` (a lemma; ids strictly increasing, above the formula's) and
`ID d IDS 0` (deletions). Negative hints (RAT) are refused: the proofs written here are RUP only.
The proof is accepted when a lemma with no literals, the empty clause, is checked.

A proof may come from a hostile folder, so it is read as a stream of lines, never held whole, and
every quantity that costs memory or time has a cap (`Limits`) and the check a deadline.
"""

from __future__ import annotations

import io
import time
from array import array
from dataclasses import dataclass
from typing import Iterable

MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """What one proof may cost. Each default sits about 30x above the largest published proof (the
    12x12 record: 64,188 lines, 64,187 lemmas, longest line 88 KB, 1.45 million lemma literals,
    6.5 million hints, 26.7 million literals looked at while checking them, 8 s), so an honest proof of a
    board the tool can solve fits and a crafted one stops early, with one line saying which cap."""

    line_bytes: int = 4 * MiB
    lines: int = 4_000_000  # comment, deletion and lemma lines alike
    lemmas: int = 2_000_000
    literals: int = 45_000_000  # literals of the lemmas kept (memory: 4 bytes each)
    hints: int = 200_000_000
    visits: int = 800_000_000  # literals looked at while checking hints: time, about 4 minutes
    # A hint is a few bytes naming a clause that may be thousands of literals wide, so a crafted
    # proof can cost far more than its size: the published proofs look at 0.4 to 0.6 literals per
    # byte of proof, and past the first `free_visits` a proof may look at `visits_per_byte`.
    visits_per_byte: int = 16
    free_visits: int = 10_000_000


LIMITS = Limits()
# A proof this package makes in parts and checks as it goes, never stored (`certify_query(keep=False)`):
# no folder wrote it, so only time bounds it; its memory is the query and one part's lemmas.
MADE_HERE = Limits(line_bytes=LIMITS.line_bytes, lines=1 << 62, lemmas=1 << 62, literals=1 << 62, hints=1 << 62,
                   visits=1 << 62, visits_per_byte=1 << 20)


@dataclass
class LratVerdict:
    ok: bool | None  # None: the check ran out of its time (no verdict on the proof)
    message: str
    lemmas: int = 0  # lemmas checked (the empty clause included)
    visits: int = 0  # literals looked at while checking hints
    over_limit: bool = False  # refused unread past a cap of `Limits`, not judged


class LratError(Exception):
    """A proof line that is malformed or fails its check (message names the line)."""


class LratLimitError(LratError):
    """The proof is larger than `Limits` allows: refused, not judged."""


class _OutOfTime(Exception):
    pass


def check_lrat(nvars: int, formula: list[list[int]], proof: bytes | Iterable[bytes],
               limits: Limits = LIMITS, deadline: float | None = None) -> LratVerdict:
    """Check an LRAT text proof (bytes, or an iterable of its lines) against a formula. Never
    raises for a bad proof. `deadline` is a time.monotonic() value: past it the verdict is None."""
    lines = io.BytesIO(proof) if isinstance(proof, (bytes, bytearray)) else proof
    checker = _Checker(nvars, formula, limits, deadline)
    try:
        return checker.run(lines)
    except LratError as exc:
        return LratVerdict(False, str(exc), checker.checked, checker.visits, isinstance(exc, LratLimitError))
    except _OutOfTime:
        return LratVerdict(None, f"the proof check ran out of time after {checker.checked:,} lemmas",
                           checker.checked, checker.visits)


def _tokens(line: bytes, where: str) -> list[int]:
    try:
        return [int(token) for token in line.split()]
    except ValueError:
        raise LratError(f"{where}: not a line of integers") from None


class _Checker:
    def __init__(self, nvars: int, formula, limits: Limits, deadline: float | None):
        # The formula's clauses are made as they are first named, by a hint or a deletion: a part of
        # a proof in stages names a few thousand of a million, and made all at once they cost
        # seconds a part. unread[i] is 1 while clause i of the formula is neither made nor deleted.
        self.formula = formula if isinstance(formula, list) else list(formula)
        self.unread = bytearray(b"\1") * (len(self.formula) + 1)
        self.unread[0] = 0
        self.clauses: dict[int, array] = {}
        self.last_id = len(self.formula)
        self.nvars = nvars
        # val[lit] is 1 when lit is assigned true, -1 false, 0 open; a negative index wraps to the top.
        self.val = [0] * (2 * nvars + 1)
        self.limits, self.deadline = limits, deadline
        self.checked = self.visits = self.hints = self.literals = self.bytes = 0
        self.next_clock = 1 << 20

    def run(self, lines: Iterable[bytes]) -> LratVerdict:
        limits = self.limits
        for number, line in enumerate(lines, 1):
            where = f"proof line {number}"
            if number > limits.lines:
                raise LratLimitError(f"{where}: the proof has more than {limits.lines:,} lines")
            if len(line) > limits.line_bytes:
                raise LratLimitError(f"{where}: longer than {limits.line_bytes:,} bytes")
            self.bytes += len(line) + (not line.endswith(b"\n"))  # a line's newline counted once, given or not
            if number % 1024 == 0 and self.deadline is not None and time.monotonic() > self.deadline:
                raise _OutOfTime
            line = line.strip()
            if not line or line.startswith(b"c"):
                continue
            head, _, rest = line.partition(b" ")
            try:
                ident = int(head)
            except ValueError:
                raise LratError(f"{where}: the line does not start with a clause id") from None
            if rest.startswith(b"d"):
                self._delete(_tokens(rest[1:], where), where)
                continue
            if self._lemma(ident, _tokens(rest, where), where):
                return LratVerdict(True, f"empty clause derived; {self.checked:,} lemmas checked, each by its hints",
                                   self.checked, self.visits)
        return LratVerdict(False, "the proof ends without deriving the empty clause (cut short?)",
                           self.checked, self.visits)

    def _delete(self, ids: list[int], where: str) -> None:
        if not ids or ids[-1] != 0 or 0 in ids[:-1]:
            raise LratError(f"{where}: a deletion must list ids ending with one 0")
        for gone in ids[:-1]:
            clause = self.clauses.pop(gone, None)
            if clause is None and 0 < gone < len(self.unread) and self.unread[gone]:
                self.unread[gone] = 0  # a formula clause deleted before any hint named it
                continue
            if clause is None:
                raise LratError(f"{where}: deletes clause {gone}, which does not exist")

    def _read(self, ident: int) -> array | None:
        """Clause `ident` of the formula, made the first time it is named (each literal once);
        None when it is no formula clause, or was made or deleted before."""
        if 0 < ident < len(self.unread) and self.unread[ident]:
            self.unread[ident] = 0
            clause = self.clauses[ident] = array("i", dict.fromkeys(self.formula[ident - 1]))
            return clause
        return None

    def _lemma(self, ident: int, numbers: list[int], where: str) -> bool:
        """Check one lemma and keep it; True when it is the empty clause."""
        if numbers.count(0) != 2 or numbers[-1] != 0:
            raise LratError(f"{where}: a lemma is 'ID LITERALS 0 HINTS 0'")
        split = numbers.index(0)
        lits, hints = numbers[:split], numbers[split + 1:-1]
        if ident <= self.last_id:
            raise LratError(f"{where}: id {ident} is not above the previous id {self.last_id}")
        if any(not 0 < abs(lit) <= self.nvars for lit in lits):
            raise LratError(f"{where}: a literal outside the formula's {self.nvars} variables")
        limits = self.limits
        self.hints += len(hints)
        self.literals += len(lits)
        if self.checked >= limits.lemmas:
            raise LratLimitError(f"{where}: the proof has more than {limits.lemmas:,} lemmas")
        if self.hints > limits.hints:
            raise LratLimitError(f"{where}: the proof has more than {limits.hints:,} hints")
        if self.literals > limits.literals:
            raise LratLimitError(f"{where}: the proof's lemmas hold more than {limits.literals:,} literals")
        self._check_lemma(lits, hints, where)
        self.checked += 1
        self.last_id = ident
        if not lits:
            return True
        self.clauses[ident] = array("i", dict.fromkeys(lits))
        return False

    def _clock(self, where: str) -> None:
        """Every 2**20 literals looked at: the caps on work and time (one line can cost seconds)."""
        self.next_clock = self.visits + (1 << 20)
        limits = self.limits
        if self.visits > limits.visits:
            raise LratLimitError(f"{where}: checking the hints looks at more than {limits.visits:,} literals in all")
        if self.visits > limits.free_visits + limits.visits_per_byte * self.bytes:
            raise LratLimitError(f"{where}: checking the hints looks at {self.visits:,} literals, more than "
                                 f"{limits.visits_per_byte} per byte of proof: hints naming very wide clauses")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _OutOfTime

    def _check_lemma(self, lits: list[int], hints: list[int], where: str) -> None:
        val, clauses = self.val, self.clauses
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
                    clause = self._read(hint)
                if clause is None:
                    raise LratError(f"{where}: hint {hint} is not a clause present here"
                                    + (" (RAT hints are not accepted)" if hint < 0 else ""))
                self.visits += len(clause)
                if self.visits > self.next_clock:
                    self._clock(where)
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
