"""Proofs in parts: a query Q refuted once per case, a cube c (Q & c, a part: c's literals as unit
clauses), the parts joined into one LRAT proof of Q that smtpuzzles.trusted.lrat checks against Q
alone, line by line as the parts are made, so none of the joining is trusted. The cases are the
literals of one of Q's clauses, or the leaves of a shared question's tree of cubes
(smtpuzzles.proofs.splits).

Each part's lemmas are weakened by -c: a lemma E that followed from Q & c becomes E | -c, which
follows from Q by the same hints (c is true once -c is assumed false), less the units of c and
any hint holding a literal of c (satisfied then; its only use was to make that literal true). A
lemma holding a literal of c becomes a tautology and is left out. The part's empty clause becomes
the clause -c, the part's other lemmas are deleted, and last the split's closing lemmas take those
clauses to the empty clause. On large boards a part is far easier than the whole (docs/benchmarks.md).

A `PartsStore` keeps each part made, so a proof of hours stopped part-way resumes; nothing found
there is trusted. A found part is joined as it is (checking it twice would double the check of a
long resume); when the joined proof is rejected inside a found part, the join starts again with
every found part checked on its own first, and one that fails is made anew. Nothing here runs a
solver: `make_part` (smtpuzzles.proofs.certify) does.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from smtpuzzles.errors import LedgerError
from smtpuzzles.folders.bounded import read_gz
from smtpuzzles.proofs.budget import PART_BUDGET
from smtpuzzles.proofs.splits import Split, by_clause
from smtpuzzles.trusted import lrat
from smtpuzzles.trusted.dimacs import Dimacs, ProofError, clause_lines
from smtpuzzles.trusted.lrat import LIMITS as LRAT_LIMITS, check_lrat


class _FoundPartRejected(ProofError):
    """The joined proof was rejected inside a part found in the store (not one made here)."""


class _OutOfTime(ProofError):
    """The time limit ran out inside a part: no verdict, never a reason to make the part again."""


def certify_in_parts(query: Dimacs, split: int | Split, timeout: float | None, say, started: float, budget, make_part,
                     keep: bool = True, store: "PartsStore | None" = None, observe=None, part_budget=PART_BUDGET):
    """(LRAT, verdict, parts, parts found in `store`) of Q refuted in parts along its clause number
    `split`, or by the cases of a `Split`. `make_part(part, seconds_left, budget)` proves one part
    (its LRAT, ids of Q then the cube's units); `observe(part, lrat, cube)`, when given, is shown
    each part's proof the joined one uses.
    Kept (`keep`), the joined text may be no larger than the budget's text (what the audit reads of
    a stored proof); not kept, the checker holds Q and one part's lemmas at a time. Each part, made
    or found, is bounded by `part_budget`, never stored alone."""
    join = _Join(query, split, timeout, say, started, budget, make_part, store, observe, part_budget)
    try:
        return join.checked(keep, verify_found=False)
    except _FoundPartRejected as exc:
        say(f"{exc.message}; each part kept in {store.folder} is now checked on its own first")
        return join.checked(keep, verify_found=True)


class _Join:
    """One query's parts, joined and checked; `checked` may run twice (see the module's doc)."""

    def __init__(self, query: Dimacs, split: int | Split, timeout, say, started, budget, make_part, store, observe,
                 part_budget):
        self.nvars, self.clauses = query.clause_list()
        self.split = split if isinstance(split, Split) else by_clause(self.clauses, split)
        self.cases = self.split.cases
        self.timeout, self.say, self.started, self.budget = timeout, say, started, budget
        self.make_part, self.store, self.observe, self.part_budget = make_part, store, observe, part_budget

    def left(self) -> float | None:
        return None if self.timeout is None else self.timeout - (time.perf_counter() - self.started)

    def checked(self, keep: bool, verify_found: bool):
        kept: list[bytes] = []
        made = {"bytes": 0, "keep": keep, "lines": 0}
        found: list[tuple[int, int, object]] = []  # (first line, last line, file) of each part taken from the store

        def lines():
            for text, kept_in in self.parts(verify_found, limits):
                first = made["lines"] + 1
                made["lines"] += text.count(b"\n")
                if kept_in is not None:
                    found.append((first, made["lines"], kept_in))
                made["bytes"] += len(text)
                if made["keep"] and made["bytes"] > self.budget.text_bytes:  # never storable now: hold no more of it
                    made["keep"] = False
                    kept.clear()
                if made["keep"]:
                    kept.append(text)
                yield from io.BytesIO(text)  # a line at a time: a part's list of lines was its size again

        left = self.left()
        deadline = None if left is None else time.monotonic() + max(0.0, left)
        limits = lrat.MADE_HERE if self.store is None else found_limits()
        verdict = check_lrat(self.nvars, self.clauses, lines(), deadline=deadline, limits=limits)
        if verdict.ok is None:
            raise ProofError(f"the proof in parts was not checked within {self.timeout:g} s", "proof")
        if verdict.ok is False and found:
            error = ProofError if verify_found else _FoundPartRejected
            raise error(_rejected_part(verdict.message, found), "proof")
        self.say(f"checked the {made['bytes'] / 1e6:.1f} MB proof of {len(self.cases)} parts")
        text = b"".join(kept) if made["keep"] else b""
        if text and verdict.ok:
            # Stored, it must pass the caps the audit reads a folder's proof under: checked again under them.
            stored = check_lrat(self.nvars, self.clauses, text, limits=lrat.LIMITS, deadline=deadline)
            if stored.ok is None:
                raise ProofError(f"the proof in parts was not checked within {self.timeout:g} s", "proof")
            if stored.over_limit:
                self.say(f"checked, too large to store ({stored.message})")
                text = b""
            else:
                verdict = stored
        return text, verdict, len(self.cases), len(found)

    def parts(self, verify_found: bool, limits):
        """The joined proof's text, a part at a time, the last line its end, each with the file in
        the store it was taken from (None: made here). With `verify_found`, a found part is first
        checked alone, under the `limits` the joined proof is checked under."""
        nvars, clauses, store, cases = self.nvars, self.clauses, self.store, self.cases
        m = len(clauses)
        body = clause_lines(clauses)  # once: each part is this and its unit
        units, next_id, size, found = [], m + 1, 0, 0
        for number, cube in enumerate(cases, 1):
            left = self.left()
            if left is not None and left <= 0:
                raise ProofError(f"no proof within {self.timeout:g} s ({number - 1} of {len(cases)} parts)", "proof")
            part = part_dimacs(nvars, m, body, cube)
            stored = store.read(cube, self.part_budget) if store is not None else None
            if stored is not None and verify_found:
                alone = check_part(nvars, clauses, cube, stored, limits, left)
                if not alone.ok:
                    self.say(f"part {number} kept in {store.path(cube)} fails on its own ({alone.message}): made anew")
                    stored = None
            kept_in = None
            try:
                if stored is None:
                    raise ProofError("no stored part", "proof")
                text, unit, next_id_after = _weakened(stored, clauses, cube, next_id, lemmas=self.part_budget.lemmas,
                                                      deadline=None if left is None else time.monotonic() + left)
                found += 1
                kept_in, proof = store.path(cube), stored
            except _OutOfTime:
                raise ProofError(f"no proof within {self.timeout:g} s ({number - 1} of {len(cases)} parts)",
                                 "proof") from None
            except (ProofError, ValueError, IndexError):  # none kept, or not a proof of this part: made here
                proof = self.make_part(part, left, self.part_budget)
                if store is not None and not store.write(cube, proof):
                    self.say(f"part {number} not kept in {store.folder}: {store.failure}")
                text, unit, next_id_after = _weakened(proof, clauses, cube, next_id)
            if self.observe is not None:
                self.observe(part, proof, cube)
            next_id = next_id_after
            units.append(unit)
            size += len(text)
            kept = f", {found} of them found in {store.folder}" if found else ""
            self.say(f"part {number}/{len(cases)} done, {size / 1e6:.0f} MB{kept}")
            yield text, kept_in
        yield self.split.closing(units, next_id)[0], None


def found_limits():
    """Made here, a part's proof is bounded by time alone; one read back from a store was not made
    here, so what checking it may cost is bounded by its size, as a proof read from a folder is."""
    return replace(lrat.MADE_HERE, visits_per_byte=lrat.LIMITS.visits_per_byte)


def part_dimacs(nvars: int, m: int, body: str, cube: tuple[int, ...]) -> Dimacs:
    """A part: the query's `m` clauses (`body`, their DIMACS lines, made once a query) and the cube's
    literals as unit clauses after them."""
    units = "".join(f"{lit} 0\n" for lit in cube)
    return Dimacs(f"p cnf {nvars} {m + len(cube)}\n{body}{units}", nvars, m + len(cube))


def check_part(nvars: int, clauses: list[list[int]], cube: tuple[int, ...], proof: bytes, limits,
               left: float | None):
    """smtpuzzles.trusted.lrat's verdict on one part's proof alone: the query's clauses, then the
    cube's units (ids m+1..), as the part's proof numbers them; `left`, seconds (None: no bound)."""
    deadline = None if left is None else time.monotonic() + max(0.0, left)
    return check_lrat(nvars, [*clauses, *([lit] for lit in cube)], proof, limits=limits, deadline=deadline)


def _rejected_part(message: str, found: list) -> str:
    """The line for a joined proof rejected with parts taken from a folder: the part the checker
    stopped in, when it is one of those (remove it, and it is made again)."""
    where = re.match(r"proof line (\d+)", message)
    line = int(where[1]) if where else 0
    culprit = next((path for first, last, path in found if first <= line <= last), None)
    if culprit is not None:
        return f"the proof joined from parts was rejected: {message}; that line is of the part kept in {culprit}, " \
               "not made here: remove it to make it anew"
    return f"the proof joined from parts was rejected: {message}; {len(found)} of its parts came from " \
           f"{found[0][2].parent}, not made here: remove them to make them anew"


# The parts written here are gzip at level 1: LRAT text packs about 3 to 6 times (the 15x15 record's
# 436 parts), so 64 times is far past any honest part and stops a crafted one early.
EXPANSION = 64


class PartsStore:
    """A folder that keeps the parts of proofs made in parts, one gzip file per part, named by the
    query's sha-256 and the part's cube, so that a proof stopped after hours resumes where it
    was. Nothing found there is trusted: a part read back is joined and checked like one made here,
    and one that is unreadable or proves nothing for its part is made again (and kept anew)."""

    def __init__(self, folder, query: Dimacs):
        self.folder = Path(folder)
        self.prefix = query.sha256[:20]
        self.failure = ""  # why the last part could not be kept

    def path(self, cube: tuple[int, ...]):
        if len(cube) == 1:  # a clause's literal: named as parts were before there were cubes
            return self.folder / f"{self.prefix}{cube[0]:+d}.lrat.gz"
        named = hashlib.sha256(" ".join(map(str, cube)).encode()).hexdigest()[:24]
        return self.folder / f"{self.prefix}~{named}.lrat.gz"

    def read(self, cube: tuple[int, ...], budget) -> bytes | None:
        """The part kept for `cube`: None when there is none, or it is no regular file (a FIFO would
        block, a link could lead anywhere), or not gzip, or past the budget's text once unpacked,
        or unpacked to more than EXPANSION times its size (read as a stream, a block at a time,
        and stopped there: a gzip bomb costs what an honest part of its size would)."""
        try:
            packed = os.lstat(self.path(cube)).st_size
            cap = min(budget.text_bytes, EXPANSION * packed + (1 << 20))
            return read_gz(self.folder, self.path(cube).name, cap, "a kept part")
        except (LedgerError, OSError):
            return None

    def write(self, cube: tuple[int, ...], proof: bytes) -> bool:
        """Keep a part: written whole to a new file of its own (never through a link someone left
        at a name), then renamed, so a part killed mid-write is never found. False, with the reason
        in `failure`, when it cannot be kept (the proof goes on: the folder only saves time)."""
        temporary = None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".part-", dir=self.folder)
            with os.fdopen(fd, "wb") as handle:
                handle.write(gzip.compress(proof, compresslevel=1, mtime=0))
            os.replace(temporary, self.path(cube))
            return True
        except OSError as exc:
            self.failure = exc.strerror or str(exc)
            if temporary is not None:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
            return False


def _weakened(proof: bytes, clauses: list[list[int]], cube: tuple[int, ...], next_id: int,
              lemmas: int | None = None, deadline: float | None = None) -> tuple[bytes, int, int]:
    """(text, the id of the clause -cube, the next free id): a part's trimmed LRAT proof of Q & cube
    (Q's clauses 1..m, the cube's units m+1.., lemmas after) as lemmas of Q, numbered from `next_id`.
    Read a line at a time and written into one buffer: its memory is the text and an id per lemma,
    and with `lemmas` (a part read back, not made here) no more than that many lemmas are taken. A
    line is measured before it is split into numbers (a line of short tokens costs about 50 times
    its size once split): past the checker's line cap, it is no part this tool could accept."""
    m, true = len(clauses), frozenset(cube)
    # satisfied once the cube is true
    holding = {i for i, c in enumerate(clauses, 1) if not true.isdisjoint(c)} | set(range(m + 1, m + len(cube) + 1))
    ids: dict[int, int] = {}
    out = bytearray()
    for number, line in enumerate(io.BytesIO(proof), 1):
        if number % 4096 == 0 and deadline is not None and time.monotonic() > deadline:
            raise _OutOfTime("the time limit ran out while a part was joined", "proof")
        if len(line) > LRAT_LIMITS.line_bytes:
            raise ProofError(f"line {number} of a part is longer than {LRAT_LIMITS.line_bytes:,} bytes", "proof")
        tokens = line.split()
        if len(tokens) < 3 or tokens[1] == b"d":
            continue
        ident, rest = int(tokens[0]), [int(x) for x in tokens[1:]]
        zero = rest.index(0)
        lits, hints = rest[:zero], rest[zero + 1:-1]
        if not true.isdisjoint(lits):
            holding.add(ident)
            continue
        hints = [h if h <= m else ids.get(h, -h) for h in hints if h not in holding]
        if any(h < 0 for h in hints):  # a lemma of the part not seen before it: never renumbered blindly
            raise ProofError(f"the proof of a part hints a lemma it has not derived yet "
                             f"({-min(hints)}, in lemma {ident})", "proof")
        if lemmas is not None and len(ids) >= lemmas:
            raise ProofError(f"a part of more than {lemmas:,} lemmas", "proof")
        weak = lits + [-lit for lit in cube if -lit not in lits]
        ids[ident] = next_id
        out += f"{next_id} {' '.join(map(str, weak))} 0 {' '.join(map(str, hints))} 0\n".encode()
        next_id += 1
        if not lits:
            unit = ids[ident]
            others = [i for i in ids.values() if i != unit]
            for start in range(0, len(others), 10_000):  # lines well under the checker's line cap
                out += f"{unit} d {' '.join(map(str, others[start:start + 10_000]))} 0\n".encode()
            return bytes(out), unit, next_id
    raise ProofError("the proof of a part derives no empty clause", "proof")
