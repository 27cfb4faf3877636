"""Proofs in stages: a query Q refuted in parts (smtpuzzles.proofs.parts' cases), each part's
proof checked on its own, the parts' cover checked last, and what was checked written down a
line a part in a journal (`--checked-parts FILE`), so that a proof of many hours goes on after
the machine that held its parts is gone: the journal is a few hundred bytes a part, where the
parts themselves are gigabytes.

A part is the query with its case's literals as unit clauses. Its proof is checked here by
smtpuzzles.trusted.lrat and shown to every outside checker (cake_lpr); only a part all of them
accept is written to the journal. Last, the closing lemmas of the split take the clauses -c of
every case c to the empty clause, checked by smtpuzzles.trusted.lrat against Q and those
clauses: Q & c refuted for every case c, and the cases cover Q, so Q is refuted. Nothing is
joined or kept whole.

The journal is the auditor's own record and is taken at its word: a part it lists for this very
query (its sha-256), case and set of checkers is not made again. That is what lets a proof go on
across machines, and why the report says how many parts it took from the journal: a claim that
rests on them rests on the journal's word that they were checked. A line is written whole, in one
append, so two audits may share a journal; each reads what the other wrote before each part, and
takes the parts the other has finished. A line cut short (a crash mid-write) is read as no line,
and the next line is written on a line of its own after it.
"""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from smtpuzzles.errors import InputError
from smtpuzzles.shown import escaped
from smtpuzzles.proofs.external import case_words
from smtpuzzles.proofs.splits import Split, by_clause
from smtpuzzles.trusted import lrat
from smtpuzzles.trusted.dimacs import Dimacs, ProofError, clause_lines
from smtpuzzles.trusted.lrat import check_lrat

TRUSTED = "smtpuzzles.trusted.lrat"
MAX_JOURNAL_BYTES = 64 << 20  # about 200,000 parts
MAX_LINE_BYTES = 1 << 20  # a case of a deep tree of cubes holds a few hundred literals


@dataclass(frozen=True)
class Entry:
    """One part the journal says was checked."""

    lemmas: int
    checkers: frozenset[str]


class Journal:
    """The file of checked parts, read (bounded) when opened and again, for the lines other audits
    added, before each part (`refresh`); appended to a line a part."""

    def __init__(self, path, where: str = "--checked-parts"):
        self.path, self.where = Path(path), where
        self.entries: dict[tuple[str, tuple[int, ...]], Entry] = {}
        self.offset = self.lines = 0  # what was read: bytes, up to the last whole line, and lines
        self.refresh()

    def refresh(self) -> None:
        """Take the whole lines written since the last read (by this audit or another)."""
        where = f"{self.where} {escaped(str(self.path))}"
        try:
            if not stat.S_ISREG(os.stat(self.path).st_mode):  # a FIFO would block the read
                raise InputError("is not a regular file", where)
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                text = handle.read(MAX_JOURNAL_BYTES + 1 - self.offset)
        except FileNotFoundError:
            return  # a new journal: made with its first line
        except OSError as exc:
            raise InputError(f"cannot be read: {exc.strerror or exc}", where) from None
        if self.offset + len(text) > MAX_JOURNAL_BYTES:
            raise InputError(f"is larger than {MAX_JOURNAL_BYTES:,} bytes", where)
        whole = text[:text.rfind(b"\n") + 1]  # a last line without its newline is still being written, or cut
        self.offset += len(whole)
        for line in whole.split(b"\n")[:-1]:
            self.lines += 1
            if line.strip():
                self._take(line, f"{where} line {self.lines}")

    def _take(self, line: bytes, where: str) -> None:
        if len(line) > MAX_LINE_BYTES:
            raise InputError(f"is longer than {MAX_LINE_BYTES:,} bytes", where)
        if not line.rstrip().endswith(b"}"):
            return  # a line cut short by a crash mid-write, ended by the next line's newline: no line
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            entry = None
        try:
            query, case, lemmas, checkers = entry["query"], entry["case"], entry["lemmas"], entry["checkers"]
        except (KeyError, TypeError):
            raise InputError("is not a checked part (a JSON object with query, case, lemmas and checkers)",
                             where) from None
        if not (isinstance(query, str) and len(query) == 64 and all(c in "0123456789abcdef" for c in query)):
            raise InputError("its query is not a sha-256 in hex", where)
        if not (isinstance(case, list) and all(type(x) is int and x != 0 for x in case)):
            raise InputError("its case is not a list of nonzero literals", where)
        if type(lemmas) is not int or lemmas < 1:
            raise InputError("its lemmas is not a positive whole number", where)
        if not (isinstance(checkers, list) and checkers and all(isinstance(c, str) for c in checkers)):
            raise InputError("its checkers is not a list of names", where)
        self.entries[(query, tuple(case))] = Entry(lemmas, frozenset(checkers))

    def checked(self, query: str, case: tuple[int, ...], checkers: frozenset[str]) -> Entry | None:
        """The entry for a part checked by every one of `checkers`, None when there is none."""
        entry = self.entries.get((query, case))
        return entry if entry is not None and checkers <= entry.checkers else None

    def add(self, query: str, case: tuple[int, ...], lemmas: int, checkers: frozenset[str], seconds: float) -> str:
        """Write one part's line (one append of the whole line); '' when written, else why not."""
        at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        line = json.dumps({"query": query, "case": list(case), "lemmas": lemmas, "checkers": sorted(checkers),
                           "seconds": round(seconds, 1), "at": at}, separators=(",", ":")) + "\n"
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":  # after a line cut short: a line of its own
                    line = "\n" + line
                os.write(fd, line.encode())
            finally:
                os.close(fd)
        except OSError as exc:
            return exc.strerror or str(exc)
        self.entries[(query, case)] = Entry(lemmas, frozenset(checkers))
        return ""


@dataclass(frozen=True)
class Staged:
    lemmas: int  # over every part, those taken from the journal by its count
    parts: int
    taken: int  # parts taken from the journal, not checked here


def certify_in_stages(query: Dimacs, split: int | Split, timeout: float | None, say, started: float, make_part,
                      journal: Journal, store=None, observe=None, part_budget=None) -> Staged:
    """Q refuted in parts, each checked on its own, the journal written as they are; ProofError
    when a part has no proof, is rejected, or the time runs out. `make_part(part, seconds_left,
    budget)` proves a part; `store`, a PartsStore, a part kept there is checked, not made again;
    `observe(part, lrat, case)` shows it to the outside checkers and returns {name: (accepted,
    line)} of theirs."""
    nvars, clauses = query.clause_list()
    split = split if isinstance(split, Split) else by_clause(clauses, split)
    cases, m = split.cases, len(clauses)
    names = frozenset([TRUSTED, *getattr(observe, "names", ())])
    body = None
    lemmas = taken = 0

    def left() -> float | None:
        return None if timeout is None else timeout - (time.perf_counter() - started)

    for number, cube in enumerate(cases, 1):
        if (remaining := left()) is not None and remaining <= 0:
            raise ProofError(f"no proof within {timeout:g} s ({number - 1} of {len(cases)} parts)", "proof")
        journal.refresh()  # another audit sharing the journal may have checked this part meanwhile
        entry = journal.checked(query.sha256, cube, names)
        if entry is not None:
            lemmas, taken = lemmas + entry.lemmas, taken + 1
            if observe is not None:
                observe.take(cube)
            continue
        part_started = time.perf_counter()
        if body is None:
            body = clause_lines(clauses)
        units = "".join(f"{lit} 0\n" for lit in cube)
        part = Dimacs(f"p cnf {nvars} {m + len(cube)}\n{body}{units}", nvars, m + len(cube))
        proof = store.read(cube, part_budget) if store is not None else None
        found = proof is not None
        limits = replace(lrat.MADE_HERE, visits_per_byte=lrat.LIMITS.visits_per_byte) if found else lrat.MADE_HERE
        formula = [*clauses, *([lit] for lit in cube)]
        verdict = None
        if found:
            verdict = _check_part(nvars, formula, proof, limits, left())
            if not verdict.ok:
                say(f"part {number} kept in {store.path(cube)} fails on its own ({verdict.message}): made anew")
                found = False
        if not found:
            proof = make_part(part, left(), part_budget)
            if store is not None and not store.write(cube, proof):
                say(f"part {number} not kept in {store.folder}: {store.failure}")
            verdict = _check_part(nvars, formula, proof, lrat.MADE_HERE, left())
        if verdict.ok is None:
            raise ProofError(f"no proof within {timeout:g} s ({number - 1} of {len(cases)} parts)", "proof")
        if not verdict.ok:
            raise ProofError(f"the proof of part {number} ({case_words(cube)}) made here was rejected: "
                             f"{verdict.message}", "proof")
        said = observe(part, proof, cube) if observe is not None else {}
        if all(ok for ok, _ in said.values()):
            why = journal.add(query.sha256, cube, verdict.lemmas, names, time.perf_counter() - part_started)
            if why:
                say(f"part {number} not written to {journal.path}: {why}")
        lemmas += verdict.lemmas
        say(f"part {number}/{len(cases)} checked on its own" + (f", {taken} of them taken from {journal.path}"
                                                                 if taken else ""))
    closing, _ = split.closing(list(range(m + 1, m + len(cases) + 1)), m + len(cases) + 1)
    cover = check_lrat(nvars, [*clauses, *([-lit for lit in cube] for cube in cases)], closing)
    if not cover.ok:
        raise ProofError(f"the parts do not cover the query: {cover.message}", "proof")
    return Staged(lemmas, len(cases), taken)


def _check_part(nvars: int, formula: list[list[int]], proof: bytes, limits, left: float | None):
    deadline = None if left is None else time.monotonic() + max(0.0, left)
    return check_lrat(nvars, formula, proof, deadline=deadline, limits=limits)

