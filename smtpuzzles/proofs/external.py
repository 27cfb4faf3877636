"""A second LRAT checker from outside this tool: cake_lpr, the formally verified checker the SAT
Competition uses, or any program called as `CHECKER FORMULA.cnf PROOF.lrat` that prints the line
`s VERIFIED UNSAT` and exits 0 when the proof refutes the formula. `audit --proof --checker PATH`
hands it every proof the audit checks or makes, beside smtpuzzles.trusted.lrat, so a claim can rest
on a checker this project did not write.

The program is run in a child process with a time bound, its output read no further than its
last 64 KiB (and the child stopped past 1 MiB of it), and anything but that line and exit status 0
is a rejection; running past the time bound is no verdict.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from smtpuzzles.children import die_with_parent, reap
from smtpuzzles.errors import InputError
from smtpuzzles.proofs.prover import BackgroundProof, scratch_folder
from smtpuzzles.trusted.dimacs import Dimacs

ACCEPTED = b"s VERIFIED UNSAT"
DEFAULT_NAME = "cake_lpr"  # looked up on PATH when no --checker is given
MAX_OUTPUT = 1 << 20
POLL = 0.1


@dataclass(frozen=True)
class ExternalChecker:
    path: str  # absolute
    counts = True  # its verdict is reported, beside smtpuzzles.trusted.lrat's

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    def check(self, query: Dimacs, lrat, timeout: float | None, **_) -> tuple[bool | None, str]:
        """The verdict on a query and its proof (see `check`); the keywords name the proof for sinks
        that keep it (smtpuzzles.proofs.exported), and mean nothing to a checker."""
        return check(self, query, lrat, timeout)


def find_checker(given: str | None, where: str = "--checker") -> ExternalChecker | None:
    """The checker `given` names (a path, or a program on PATH), None for "none"; with nothing given,
    cake_lpr when it is on PATH. A name that leads to no executable file is one InputError line."""
    if given is None:
        found = shutil.which(DEFAULT_NAME)
        return ExternalChecker(os.path.abspath(found)) if found else None
    if not isinstance(given, str) or not given or "\0" in given:
        raise InputError("takes the path of an LRAT checker such as cake_lpr, or 'none'", where)
    if given == "none":
        return None
    found = shutil.which(given) if os.sep not in given else (given if os.path.isfile(given) else None)
    if found is None or not os.path.isfile(found):
        raise InputError(f"no checker program at {given!r}", where)
    if not os.access(found, os.X_OK):
        raise InputError(f"{given!r} is not executable", where)
    return ExternalChecker(os.path.abspath(found))


def check_file(checker: ExternalChecker, cnf_path, lrat_path, timeout: float | None) -> tuple[bool | None, str]:
    """(accepted, one line): the checker run on two files. None when it ran past `timeout`."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        # A session of its own, so that the whole group is stopped: a wrapper script's own children too.
        child = subprocess.Popen([checker.path, str(cnf_path), str(lrat_path)], stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=err, preexec_fn=die_with_parent, start_new_session=True)
        owner = BackgroundProof.of_this_thread()
        if owner is not None:
            owner.watch(child)  # a Ctrl-C or a failed proof beside it stops this one too
        stopped = None  # why it was stopped before it exited, in words
        try:
            while child.poll() is None:
                if timeout is not None and time.monotonic() - started > timeout:
                    return None, f"{checker.name} ran past {timeout:g} s without a verdict"
                if os.fstat(out.fileno()).st_size + os.fstat(err.fileno()).st_size > MAX_OUTPUT:
                    stopped = f"printed more than {MAX_OUTPUT:,} bytes"
                    break
                try:
                    child.wait(POLL)  # back as soon as it exits: a small part's check takes milliseconds
                except subprocess.TimeoutExpired:
                    pass
        finally:
            _stop_group(child)
        seconds = time.monotonic() - started
        lines, errors = _last_lines(out), _last_lines(err)
    # The verdict is read from standard output, as check.sh reads it (`proofs`), with the exit status.
    if stopped is None and child.returncode == 0 and ACCEPTED in lines:
        return True, f"accepted by {checker.name} ({checker.path}), which printed '{ACCEPTED.decode()}' in {seconds:.1f} s"
    said = next((line for line in reversed(lines + errors) if line), b"nothing")
    text = said[:120].decode("ascii", "backslashreplace").encode("unicode_escape").decode("ascii")
    return False, f"{checker.name} did not accept it ({stopped or f'exit {child.returncode}'}; its last line: {text})"


def _stop_group(child) -> None:
    """The child and everything it started (its session's process group), killed and reaped."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    reap(child)


def _last_lines(handle) -> list[bytes]:
    """The lines of the last 64 KiB a child wrote to `handle`."""
    handle.seek(max(0, os.fstat(handle.fileno()).st_size - (64 << 10)))
    return [line.strip() for line in handle.read().splitlines()]


def check(checker: ExternalChecker, query: Dimacs, lrat, timeout: float | None) -> tuple[bool | None, str]:
    """The checker on a query and its LRAT proof (bytes, or an iterable of lines without their
    newlines, as a stored proof is streamed), written to temporary files."""
    with scratch_folder("smtpuzzles-checker-") as tmp:
        cnf, proof = tmp / "formula.cnf", tmp / "proof.lrat"
        cnf.write_bytes(query.data)
        with open(proof, "wb") as handle:
            write_proof(handle, lrat)
        return check_file(checker, cnf, proof, timeout)


def write_proof(handle, lrat) -> None:
    """A proof into an open binary file: bytes as they are, or a stored proof streamed a line at a
    time (its lines without their newlines), never held whole."""
    if isinstance(lrat, (bytes, bytearray)):
        handle.write(lrat)
        return
    for line in lrat:
        handle.write(line)
        handle.write(b"\n")


@dataclass
class Tally:
    """What the checker said of one claim's proof: the whole proof, or each part of a proof made in
    parts (keyed by its case, so a part made anew replaces the verdict on the one it replaces)."""

    checker: ExternalChecker
    timeout: float | None
    said: dict = field(default_factory=dict)  # case (None: the whole proof) -> (accepted, line)

    label: str = ""  # which proof of the claim, for a sink that keeps it
    what: str = ""  # what it refutes, in words

    seconds: float = 0.0  # the checker's time over every proof shown it
    taken: int = 0  # parts of a proof in stages a journal says it accepted (smtpuzzles.proofs.stages)

    def __call__(self, query: Dimacs, lrat: bytes, case: tuple[int, ...] | None) -> None:
        started = time.monotonic()
        self.said[case] = self.checker.check(query, lrat, self.timeout, label=self.label, what=self.what, case=case)
        self.seconds += time.monotonic() - started

    def verdict(self, cases: str = "") -> tuple[bool | None, str]:
        """(accepted, words for the report); `cases`, what the parts' cases are (a Split's words)."""
        if not self.said and not self.taken:
            return None, f"{self.checker.name} was shown no proof"
        rejected = [(case, line) for case, (ok, line) in self.said.items() if ok is False]
        undecided = [(case, line) for case, (ok, line) in self.said.items() if ok is None]
        if rejected or undecided:
            case, line = (rejected or undecided)[0]
            return (False if rejected else None), ("" if case is None else f"part {case_words(case)}: ") + line
        if None in self.said:
            return True, self.said[None][1]
        earlier = f" ({self.taken} of them by earlier audits, by the journal's word)" if self.taken else ""
        return True, (f"each of its {len(self.said) + self.taken} parts (the query with its case's literals as unit "
                      f"clauses) accepted by {self.checker.name} ({self.checker.path}){earlier}, in "
                      f"{self.seconds:.1f} s in all{' here' if self.taken else ''}; that the cases are "
                      f"{cases or 'a cover of the query'}, so the parts cover it, checked here")


def case_words(cube: tuple[int, ...]) -> str:
    """A part's case in a line: its literals, signed ("+12", "-3 +7"), the first 8 of a long cube."""
    shown = " ".join(f"{lit:+d}" for lit in cube[:8])
    return (shown + (f" and {len(cube) - 8} more" if len(cube) > 8 else "")) or "the whole query"


def tallies(checkers, timeout: float | None, label: str, what: str) -> tuple[list[Tally], object]:
    """A Tally for each checker, and one observer (for certify_query) that shows each of them a proof."""
    kept = [Tally(c, timeout, label=label, what=what) for c in checkers]
    return kept, (Observer(kept) if kept else None)


class Observer:
    """Shows a proof to every checker's Tally: called with (query, lrat, case), it returns each
    counting checker's (accepted, line) by its `identity`. For a proof in stages
    (smtpuzzles.proofs.stages), `names` are the identities a journal line records, and `take`
    counts a part the journal says they all accepted."""

    def __init__(self, kept: list[Tally]):
        self.kept = kept
        self.names = frozenset(identity(t.checker) for t in kept if t.checker.counts)

    def __call__(self, query: Dimacs, lrat: bytes, case: tuple[int, ...] | None) -> dict:
        for tally in self.kept:
            tally(query, lrat, case)
        return {identity(t.checker): t.said[case] for t in self.kept if t.checker.counts}

    def take(self, case: tuple[int, ...]) -> None:
        for tally in self.kept:
            tally.taken += 1


_IDENTITIES: dict[str, str] = {}


def identity(checker) -> str:
    """A checker's name and the sha-256 of its program, as a journal of checked parts records it
    (the same program at another path, on another machine, is the same checker)."""
    path = getattr(checker, "path", None)
    if path is None:
        return checker.name
    if path not in _IDENTITIES:
        try:
            with open(path, "rb") as handle:
                digest = hashlib.sha256(handle.read(256 << 20)).hexdigest()
        except OSError:
            digest = "unreadable"
        _IDENTITIES[path] = f"{checker.name} sha256:{digest[:16]}"
    return _IDENTITIES[path]
