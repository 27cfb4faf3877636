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

import io
import json
import os
import socket
import stat
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from smtpuzzles.canonical import is_sha256_hex
from smtpuzzles.errors import InputError
from smtpuzzles.shown import escaped
from smtpuzzles.proofs.external import case_words
from smtpuzzles.proofs.parts import check_part, found_limits, part_dimacs
from smtpuzzles.proofs.splits import Split, by_clause
from smtpuzzles.trusted import lrat
from smtpuzzles.trusted.dimacs import Dimacs, ProofError, clause_lines
from smtpuzzles.trusted.lrat import check_lrat

TRUSTED = "smtpuzzles.trusted.lrat"
MAX_JOURNAL_BYTES = 64 << 20  # about 200,000 parts
MAX_LINE_BYTES = 1 << 20  # a case of a deep tree of cubes holds a few hundred literals
MAX_LEMMAS = 1 << 40  # a part's lemmas, as a line says: far past any part's budget, and a short number


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
        self.takers: dict[tuple[str, tuple[int, ...]], list[tuple[str, float]]] = {}  # (by, when), in order
        self.offset = self.lines = 0  # what was read: bytes, up to the last whole line, and lines
        self.me = f"{HOST} {os.getpid()}"  # this audit, in the lines that say it takes a part
        self.unwritten = 0  # checked parts whose line could not be written
        self.refresh()
        # A journal no line can be written to would lose hours of checked parts: said now (and
        # nothing made yet: the audit may still refuse it, inside the folder it audits).
        try:
            if self.offset or os.path.lexists(self.path):
                os.close(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW))
            elif not os.path.isdir(self.path.parent or ".") or not os.access(self.path.parent or ".", os.W_OK):
                raise OSError(f"no folder {self.path.parent} to write it in")
        except OSError as exc:
            raise InputError(f"cannot be written: {exc.strerror or exc}",
                             f"{self.where} {escaped(str(self.path))}") from None

    def within(self, folder) -> bool:
        """Whether the journal lies in `folder` (a run folder, whose files are trusted with nothing)."""
        try:
            return Path(folder).resolve() in self.path.resolve().parents
        except (OSError, RuntimeError):
            return False

    def refresh(self) -> None:
        """Take the whole lines written since the last read (by this audit or another)."""
        where = f"{self.where} {escaped(str(self.path))}"
        try:
            mode = os.lstat(self.path).st_mode
            if stat.S_ISLNK(mode):  # written never through a link (O_NOFOLLOW), so read never through one
                raise InputError("is a symbolic link: name the file itself", where)
            if not stat.S_ISREG(mode):  # a FIFO would block the read
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
        for line in io.BytesIO(whole):  # a line at a time: 64 MiB of short lines split at once took 1.5 GB
            self.lines += 1
            line = line[:-1]
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
        if isinstance(entry, dict) and ("taking" in entry or "released" in entry):
            self._taking(entry, where)
            return
        try:
            query, case, lemmas, checkers = entry["query"], entry["case"], entry["lemmas"], entry["checkers"]
        except (KeyError, TypeError):
            raise InputError("is not a checked part (a JSON object with query, case, lemmas and checkers)",
                             where) from None
        if not is_sha256_hex(query):
            raise InputError("its query is not a sha-256 in hex", where)
        if not _literals(case):
            raise InputError("its case is not a list of nonzero literals", where)
        if type(lemmas) is not int or not 0 < lemmas <= MAX_LEMMAS:
            raise InputError(f"its lemmas is not a whole number from 1 to {MAX_LEMMAS:,}", where)
        if not (isinstance(checkers, list) and checkers and all(isinstance(c, str) for c in checkers)):
            raise InputError("its checkers is not a list of names", where)
        self.entries[(query, tuple(case))] = Entry(lemmas, frozenset(checkers))

    def _taking(self, entry: dict, where: str) -> None:
        """A line that says an audit took a part (it is making it), or gave it back unmade (stopped):
        only ever a reason to wait, or to wait no more."""
        if "released" in entry:
            query, case, by = entry.get("released"), entry.get("case"), entry.get("by")
            if not (is_sha256_hex(query) and _literals(case) and isinstance(by, str)):
                raise InputError("is not a part given back (a JSON object with released, case and by)", where)
            takers = self.takers.get((query, tuple(case)), [])
            takers[:] = [(who, at) for who, at in takers if who != by]
            return
        query, case, by, at = entry.get("taking"), entry.get("case"), entry.get("by"), entry.get("at")
        try:
            when = datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
        except (TypeError, ValueError):
            when = None
        if not (is_sha256_hex(query) and _literals(case) and isinstance(by, str) and 0 < len(by) <= 300 and when is not None):
            raise InputError("is not a part taken (a JSON object with taking, case, by and at)", where)
        self.takers.setdefault((query, tuple(case)), []).append((by, when))

    def checked(self, query: str, case: tuple[int, ...], checkers: frozenset[str]) -> Entry | None:
        """The entry for a part checked by every one of `checkers`, None when there is none."""
        entry = self.entries.get((query, case))
        return entry if entry is not None and checkers <= entry.checkers else None

    def add(self, query: str, case: tuple[int, ...], lemmas: int, checkers: frozenset[str], seconds: float) -> str:
        """Write one part's line (one append of the whole line); '' when written, else why not."""
        why = self._append({"query": query, "case": list(case), "lemmas": lemmas, "checkers": sorted(checkers),
                            "seconds": round(seconds, 1), "at": _now()})
        if not why:
            self.entries[(query, case)] = Entry(lemmas, frozenset(checkers))
        return why

    def mine(self, query: str, case: tuple[int, ...]) -> bool:
        """Whether this audit makes the part: True when no other live audit took it first (this one
        then writes that it takes it, and looks again: of two that wrote at once, the first line
        wins). A journal that cannot be written shares nothing: the part is made here."""
        first = self._first_taker(query, case)
        if first is None:
            if self._append({"taking": query, "case": list(case), "by": self.me, "at": _now()}):
                return True
            self.refresh()
            first = self._first_taker(query, case)
        return first in (None, self.me)

    def release(self, query: str, cases) -> None:
        """Give back parts this audit took and did not finish (it was stopped): written at once, so
        that audits sharing the journal need not wait for them to grow stale."""
        for case in cases:
            self._append({"released": query, "case": list(case), "by": self.me, "at": _now()})

    def _first_taker(self, query: str, case: tuple[int, ...]) -> str | None:
        """The first audit, in the journal's order, that took the part and may still be making it."""
        return next((by for by, at in self.takers.get((query, case), ()) if _alive(by, at)), None)

    def _append(self, record: dict) -> str:
        line = json.dumps(record, separators=(",", ":")) + "\n"
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
        return ""


def _literals(value) -> bool:
    return isinstance(value, list) and all(type(x) is int and x != 0 for x in value)


def _this_machine() -> str:
    """This machine, as the lines that take a part name it: its name and the boot's id (machines
    made from one image share a name; a process id means something only within one boot)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as handle:
            boot = handle.read(64).decode("ascii", "replace").strip()[:8]
    except OSError:
        boot = "?"
    return f"{socket.gethostname()}:{boot}"


HOST = _this_machine()
# A part another machine (or an earlier boot) took this long ago is taken to be given up: a stopped
# audit gives its parts back at once, so this is for one that was killed, or lost with its machine;
# at worst a part is made twice. The longest part of the 16x16 record took about 6 minutes.
STALE = 3600.0


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _alive(by: str, at: float) -> bool:
    """Whether the audit `by` ("MACHINE PID") may still be making a part it took at `at` (epoch
    seconds): a process of this machine and boot that is still running (this one too); another
    machine's within STALE of taking it."""
    host, _, pid = by.rpartition(" ")
    if host != HOST:
        return time.time() - at < STALE
    try:
        os.kill(int(pid), 0)
    except (ValueError, OverflowError, ProcessLookupError):
        return False
    except PermissionError:  # another user's: running
        return True
    return True


@dataclass(frozen=True)
class Staged:
    lemmas: int  # over every part checked here
    taken_lemmas: int  # over the parts taken from the journal, by its count
    parts: int
    taken: int  # parts taken from the journal, not checked here
    unwritten: int = 0  # parts checked here whose line could not be written to the journal


WAIT = 0.5  # seconds between looks at the journal while the last parts are made by other audits (a read of what is new)


def certify_in_stages(query: Dimacs, split: int | Split, timeout: float | None, say, started: float, make_part,
                      journal: Journal, store=None, observe=None, part_budget=None) -> Staged:
    """Q refuted in parts, each checked on its own, the journal written as they are; ProofError
    when a part has no proof, is rejected, or the time runs out. `make_part(part, seconds_left,
    budget)` proves a part; `store`, a PartsStore, a part kept there is checked, not made again;
    `observe(part, lrat, case)` shows it to the outside checkers and returns {name: (accepted,
    line)} of theirs.

    Audits sharing the journal share the parts: before making a part an audit writes that it is
    taking it, and a part another live audit took first is left to it and looked for again once
    the others are done (a part whose taker is gone is made here)."""
    return _Stages(query, split, timeout, say, started, make_part, journal, store, observe, part_budget).run()


class _Stages:
    def __init__(self, query, split, timeout, say, started, make_part, journal, store, observe, part_budget):
        self.query, self.timeout, self.say, self.started = query, timeout, say, started
        self.make_part, self.journal, self.store, self.observe = make_part, journal, store, observe
        self.part_budget = part_budget
        self.nvars, self.clauses = query.clause_list()
        self.split = split if isinstance(split, Split) else by_clause(self.clauses, split)
        self.names = frozenset([TRUSTED, *getattr(observe, "names", ())])
        self.body = None  # the query's clauses as DIMACS lines, made for the first part made here
        self.lemmas = self.taken_lemmas = self.taken = self.done = 0
        self.making: tuple[int, ...] | None = None  # the part this audit took and is making

    def left(self) -> float | None:
        return None if self.timeout is None else self.timeout - (time.perf_counter() - self.started)

    def run(self) -> Staged:
        cases = self.split.cases
        try:
            waiting = [(number, cube) for number, cube in enumerate(cases, 1) if not self._settle(number, cube)]
            while waiting:  # parts other audits took first: theirs, unless their taker is gone
                self._out_of_time()
                time.sleep(WAIT)
                waiting = [(number, cube) for number, cube in waiting if not self._settle(number, cube)]
        except BaseException:  # stopped (Ctrl-C, a time limit, a part with no proof): the part under way given back
            if self.making is not None:
                self.journal.release(self.query.sha256, [self.making])
            raise
        self._cover()
        return Staged(self.lemmas, self.taken_lemmas, len(cases), self.taken, self.journal.unwritten)

    def _out_of_time(self) -> None:
        if (left := self.left()) is not None and left <= 0:
            raise ProofError(f"no proof within {self.timeout:g} s ({self.done} of {len(self.split.cases)} parts)",
                             "proof")

    def _settle(self, number: int, cube: tuple[int, ...]) -> bool:
        """The part counted: taken from the journal, or made and checked here; False when another
        live audit is making it."""
        self._out_of_time()
        self.journal.refresh()  # another audit sharing the journal may have checked this part meanwhile
        entry = self.journal.checked(self.query.sha256, cube, self.names)
        if entry is None and not self.journal.mine(self.query.sha256, cube):
            return False
        if entry is not None:
            self.taken_lemmas, self.taken = self.taken_lemmas + entry.lemmas, self.taken + 1
            if self.observe is not None:
                self.observe.take(cube)
        else:
            self.making = cube
            self.lemmas += self._checked_part(number, cube)
            self.making = None
        self.done += 1
        self.say(f"part {number}/{len(self.split.cases)} checked on its own" +
                 (f", {self.taken} of them taken from {self.journal.path}" if self.taken else ""))
        return True

    def _checked_part(self, number: int, cube: tuple[int, ...]) -> int:
        """A part made (or found in the store), checked on its own, shown to the outside checkers and,
        when all of them accept it, written to the journal: its lemmas."""
        part_started = time.perf_counter()
        nvars, clauses, store = self.nvars, self.clauses, self.store
        if self.body is None:
            self.body = clause_lines(clauses)
        part = part_dimacs(nvars, len(clauses), self.body, cube)
        proof = store.read(cube, self.part_budget) if store is not None else None
        verdict = None
        if proof is not None:  # not made here: checked under a found proof's caps
            verdict = check_part(nvars, clauses, cube, proof, found_limits(), self.left())
            if verdict.ok is None:  # out of time, no verdict: never a reason to make it again
                self._out_of_time()
            if verdict.ok is False:
                self.say(f"part {number} kept in {store.path(cube)} fails on its own ({verdict.message}): made anew")
                proof = None
        if proof is None:
            proof = self.make_part(part, self.left(), self.part_budget)
            if store is not None and not store.write(cube, proof):
                self.say(f"part {number} not kept in {store.folder}: {store.failure}")
            verdict = check_part(nvars, clauses, cube, proof, lrat.MADE_HERE, self.left())
        if verdict.ok is None:
            self._out_of_time()
            raise ProofError(f"part {number} was not checked in the time left", "proof")
        if not verdict.ok:
            raise ProofError(f"the proof of part {number} ({case_words(cube)}) made here was rejected: "
                             f"{verdict.message}", "proof")
        said = self.observe(part, proof, cube) if self.observe is not None else {}
        if all(ok for ok, _ in said.values()):
            why = self.journal.add(self.query.sha256, cube, verdict.lemmas, self.names,
                                   time.perf_counter() - part_started)
            if why:
                self.journal.unwritten += 1
                self.say(f"part {number} not written to {self.journal.path}: {why}")
        return verdict.lemmas

    def _cover(self) -> None:
        """The split's closing lemmas take the clauses -c of every case c to the empty clause."""
        cases, m = self.split.cases, len(self.clauses)
        closing, _ = self.split.closing(list(range(m + 1, m + len(cases) + 1)), m + len(cases) + 1)
        cover = check_lrat(self.nvars, [*self.clauses, *([-lit for lit in cube] for cube in cases)], closing)
        if not cover.ok:
            raise ProofError(f"the parts do not cover the query: {cover.message}", "proof")

