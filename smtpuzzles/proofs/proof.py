"""Clausal proofs of UNSAT answers: the query as DIMACS, a proof-logging solver, a proof checker.

An UNSAT answer on a Boolean encoding is a claim about every assignment; this module turns it into
evidence an auditor can check without trusting a solver. `dimacs` writes the query (the base CNF
plus each assumption asserted, exactly as the sat engine adds them) as deterministic DIMACS;
`prove` refutes it with a proof-logging solver in a child process and returns its DRUP proof;
`check` verifies the proof with a checker that shares no code with the solver. `certify_query` makes
the LRAT proof a run folder stores: CaDiCaL writes LRAT itself, a linear backward pass keeps what the
refutation used, and smtpuzzles.trusted.lrat checks the result before it is returned. CaDiCaL's raw proof
(18.6 GB on the 12x12 reference formula) stays on disk and is read in blocks; `ProofBudget` says
what one proof may take, and past it certify stops with one line.

Nothing here knows a puzzle or the ledger: callers pass a `Formula` and assumption `Term`s.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from smtpuzzles.formula import Formula, Term
from smtpuzzles.trusted.dimacs import (  # noqa: F401 - this module's names for them, as callers use
    Dimacs, ProofError, ReferenceProofError, Satisfiable, clause_lines, dimacs_of, read_dimacs)
from smtpuzzles.children import die_with_parent
from smtpuzzles.trusted.lrat import LIMITS as LRAT_LIMITS


# A stored proof is read no further than this, as text; a DRUP proof checked by smtpuzzles.proofs.drup
# costs about 6x that in memory, an LRAT one is checked as a stream.
MAX_PROOF_BYTES = 512 * 1024 * 1024


def query_clauses(formula: Formula, assumptions: Sequence[Term]) -> tuple[int, list[list[int]]]:
    """(variable count, clauses) of "base and every assumption": each assumption becomes clauses
    the way the sat engine adds them (Tseitin in one direction, through `CNF.term_literal`), and its
    activation literal a unit clause. The formula's own CNF is left untouched."""
    if formula.cnf is None:
        raise ProofError("the formula has no clausal view (an arithmetic encoding)", "proof")
    base = formula.cnf
    view = base.numbering()
    extra: list[list[int]] = []
    cache: dict = {}
    try:
        units = [view.term_literal(t, extra, cache) for t in assumptions]
    except (KeyError, ValueError) as exc:
        raise ProofError(f"an assumption has no clausal form: {exc}", "proof") from None
    clauses = base.clauses + extra + [[u] for u in units]
    return len(view.names) - 1, clauses


def dimacs(formula: Formula, assumptions: Sequence[Term]) -> Dimacs:
    """The query as DIMACS CNF; the same formula and assumptions give the same bytes."""
    return dimacs_of(*query_clauses(formula, assumptions))


def claim_cases(query: Dimacs) -> int | None:
    """The number of the query's clause that lists its claim's cases: the query ends with the unit
    clause of the claim's literal u (as `query_clauses` writes it), and "u implies one of the cases"
    is the widest clause holding -u. None when the query does not end so. Only advice for a split:
    any clause of the query would be sound."""
    _, clauses = query.clause_list()
    if not clauses or len(clauses[-1]) != 1:
        return None
    u = clauses[-1][0]
    found = max(((len(c), i) for i, c in enumerate(clauses, 1) if -u in c), default=None)
    return found[1] if found and found[0] > 2 else None


# ---------------------------------------------------------------------------------------- proving
# Solvers of the installed python-sat that log proofs (Kissat cannot there; Minisat-based ones crash
# with with_proof): Glucose and Lingeling write DRUP text, CaDiCaL binary DRAT, which python-sat
# turns into text. Glucose 4.2 was the fastest on the 9x9 closing query (scripts/bench_proof.py).
PROOF_SOLVERS = ("glucose42", "glucose4", "glucose3", "lingeling", "cadical153", "cadical195", "cadical300")
DEFAULT_SOLVER = "glucose42"
# certify_query's own path: CaDiCaL 1.9.5 writing LRAT, so nothing is checked backwards in Python.
LRAT_CADICAL = "cadical195"  # python-sat's CaDiCaL 1.9.5 (3.0.0 was faster, but lrat.py rejected its proof of a 10x10 query)
LRAT_SOLVER = f"{LRAT_CADICAL}-lrat"
CERTIFY_SOLVERS = (LRAT_SOLVER, *PROOF_SOLVERS)
SAT, UNSAT = 10, 20  # the child's exit status, as SAT solvers report it


@dataclass(frozen=True)
class Proof:
    """A DRUP proof as text (one clause a line, `d` for deletions) and how it was made."""

    text: bytes
    solver: str
    seconds: float

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text).hexdigest()


def prove(query: Dimacs, solver: str = DEFAULT_SOLVER, timeout: float | None = None) -> Proof:
    """Refute the query with a proof-logging solver in a child process (killed on timeout or
    interrupt) and return its proof. A satisfiable query, a timeout or a crash raise ProofError."""
    if solver not in PROOF_SOLVERS:
        raise ProofError(f"unknown proof solver {solver!r} (one of {', '.join(PROOF_SOLVERS)})", "proof")
    return Proof(*_refute(query, solver, timeout))


def _refute(query: Dimacs, solver: str, timeout: float | None,
            max_bytes: int | None = None) -> tuple[bytes, str, float]:
    """(proof text, solver, wall seconds) from `python -m smtpuzzles.proofs.proof SOLVER` on the query; the
    text is read whole, so it is refused past `max_bytes` (MAX_PROOF_BYTES: what `check` reads)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="smtpuzzles-proof-") as tmp:
        path, seconds = _run_prover(query, solver, timeout, Path(tmp),
                                    MAX_PROOF_BYTES if max_bytes is None else max_bytes)
        return path.read_bytes(), solver, seconds


PROOF_FILE_POLL = 0.25  # seconds between looks at the size of the proof a child is writing


DISK_MARGIN = 1 << 30  # room a proof leaves free in the temporary folder (a tmpfs is memory)


def _run_prover(query: Dimacs, solver: str, timeout: float | None, folder, max_bytes: int):
    """(proof file in `folder`, wall seconds) of `python -m smtpuzzles.proofs.proof SOLVER` on the query.
    The child is killed on timeout, on interrupt, and when its proof file passes `max_bytes` or the
    room left in the folder less DISK_MARGIN (a proof that size could not be read or would fill the
    disk: one line says so instead)."""
    import shutil
    import subprocess
    import sys
    import time

    cnf_path, proof_path, err_path = folder / "query.cnf", folder / "proof.txt", folder / "stderr.txt"
    cnf_path.write_bytes(query.data)
    room = max(0, shutil.disk_usage(folder).free - DISK_MARGIN)
    cap = "certify's budget for it (proof.ProofBudget)" if max_bytes <= room else "the room left in the temporary folder"
    max_bytes = min(max_bytes, room)
    started = time.perf_counter()
    owner = BackgroundProof.of_this_thread()
    if owner is not None and owner.stopping:
        raise ProofError(f"{solver} was stopped: the proof beside it failed or was interrupted", "proof")
    with open(err_path, "wb") as err:  # a file, not a pipe: nobody reads while the child runs
        child = subprocess.Popen([sys.executable, "-m", "smtpuzzles.proofs.proof", solver, str(cnf_path), str(proof_path)],
                                 stdout=subprocess.DEVNULL, stderr=err, preexec_fn=die_with_parent)
        try:
            if owner is not None:
                owner.watch(child)
            stopped = _watch_prover(child, proof_path, timeout, max_bytes, started)
        finally:  # an interrupt, a time limit, a proof too large: never leave the solver running
            if child.poll() is None:
                child.kill()
                child.wait()
    seconds = time.perf_counter() - started
    if owner is not None and owner.stopping:
        raise ProofError(f"{solver} was stopped: the proof beside it failed or was interrupted", "proof")
    if stopped == "time":
        raise ProofError(f"{solver} found no proof within {timeout:g} s", "proof")
    if stopped == "size":
        raise ProofError(f"{solver}'s proof passed {max_bytes:,} bytes after {seconds:.0f} s, more than {cap}; "
                         "no proof made", "proof")
    if child.returncode == SAT:
        raise Satisfiable(f"{solver} finds the query satisfiable: there is no proof of unsatisfiability", "proof")
    if child.returncode != UNSAT:
        with open(err_path, "rb") as err:
            err.seek(max(0, err_path.stat().st_size - 4096))
            last = (err.read().decode(errors="replace").strip().splitlines() or ["no message"])[-1]
        raise ProofError(f"{solver} failed (exit {child.returncode}): {last}", "proof")
    return proof_path, seconds


class BackgroundProof:
    """Work that makes a proof (certify_query), run in a thread beside the caller's own proof, so
    that the two solver children run at once on two cores. `result` waits for it; `stop` (the
    caller's proof failed, or Ctrl-C) kills the child it waits on and refuses it any other."""
    # Its work should not touch the run folder: the caller stores what it hands back.

    _by_thread: dict[int, "BackgroundProof"] = {}

    def __init__(self, work):
        import threading

        self.stopping = False
        self._child = None
        self._lock = threading.Lock()
        self._box: dict = {}
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True)
        self._thread.start()

    @classmethod
    def of_this_thread(cls) -> "BackgroundProof | None":
        import threading

        return cls._by_thread.get(threading.get_ident())

    def _run(self, work) -> None:
        import threading

        me = threading.get_ident()
        BackgroundProof._by_thread[me] = self
        try:
            self._box["value"] = work()
        except BaseException as exc:  # handed to the caller's thread by `result`
            self._box["error"] = exc
        finally:
            BackgroundProof._by_thread.pop(me, None)

    def watch(self, child) -> None:
        with self._lock:
            self._child = child
            stopping = self.stopping
        if stopping:
            child.kill()

    def stop(self) -> None:
        """Kill the child and return at once: a trim or check under way in the thread (Python,
        seconds to minutes on a large proof) ends on its own, its result unused; the thread is a
        daemon, so it never holds up the process's exit."""
        with self._lock:
            self.stopping = True
            child = self._child
        if child is not None and child.poll() is None:
            child.kill()
        self._thread.join(0.5)

    def result(self):
        """The work's value, or its exception raised here; a Ctrl-C while waiting stops it."""
        try:
            while self._thread.is_alive():
                self._thread.join(0.1)
        except BaseException:
            self.stop()
            raise
        if "error" in self._box:
            raise self._box["error"]
        return self._box["value"]


def _watch_prover(child, proof_path, timeout: float | None, max_bytes: int, started: float) -> str | None:
    """Wait for the child: None when it exits, "time" or "size" when it must be stopped."""
    import subprocess
    import time

    while True:
        try:
            child.wait(timeout=PROOF_FILE_POLL)
            exited = True
        except subprocess.TimeoutExpired:
            exited = False
        if not exited and timeout is not None and time.perf_counter() - started > timeout:
            return "time"
        try:
            if proof_path.stat().st_size > max_bytes:  # written in full or not: past the budget
                return "size"
        except FileNotFoundError:  # not opened yet, or no proof at all (a satisfiable query)
            pass
        if exited:
            return None


def _prove_child(solver: str, cnf_path: str, proof_path: str) -> int:
    from pathlib import Path

    from pysat.solvers import Solver

    _, clauses = read_dimacs(Path(cnf_path).read_bytes(), cnf_path)
    if solver == LRAT_SOLVER:
        return _lrat_child(clauses, proof_path)
    with Solver(name=solver, bootstrap_with=clauses, with_proof=True) as engine:
        if engine.solve():
            return SAT
        lines = engine.get_proof() or []
    with open(proof_path, "w", encoding="ascii") as out:
        for line in lines:
            out.write(line)
            out.write("\n")
    return UNSAT


def _lrat_child(clauses: list[list[int]], proof_path: str) -> int:
    if [] in clauses:  # CaDiCaL writes nothing for an empty clause in its input: the refutation is one line
        with open(proof_path, "w", encoding="ascii") as out:
            out.write(f"{len(clauses) + 1} 0 {clauses.index([]) + 1} 0\n")
        return UNSAT
    engine = cadical_lrat_solver(open(proof_path, "w+b"))
    try:
        for clause in clauses:
            # CaDiCaL numbers the clauses it is given 1, 2, ...; a clause with a repeated literal
            # would cost a derived clause of its own. The checkers read a clause as a set too.
            engine.add_clause(list(dict.fromkeys(clause)))
        return SAT if engine.solve() else UNSAT
    finally:
        engine.delete()  # flushes and closes the proof file


# CaDiCaL's own configuration for unsatisfiable instances (`--unsat`: no stable phases, no local
# search), which every query certify refutes is meant to be, and no failed-literal probing, whose
# lemmas the LRAT proof must carry: making, trimming and checking the published records' proofs
# took about half the CPU with `probe` off (docs/benchmarks.md).
UNSAT_CONFIGURATION = {"stabilize": 0, "walk": 0, "probe": 0}


def cadical_lrat_solver(proof_file):
    """A python-sat CaDiCaL (LRAT_CADICAL) solver that writes its proof as LRAT text to `proof_file`
    (a file opened "w+b"; the solver closes it when deleted), configured for unsatisfiable instances.

    CaDiCaL fixes its proof format when a proof file is attached, from the options set then, and
    python-sat attaches its own (binary DRAT) in `new`, before `configure` can run. So the solver
    is made without one, `lrat`, `binary` and UNSAT_CONFIGURATION are set, and the file is attached
    with the call `new` makes, `pysolvers.<solver>_tracepr`. This is the project's one use of
    python-sat internals: whatever of them is missing or refuses is a ProofError that says so, and
    certify_query falls back to the DRUP path."""
    def lacks(what: str) -> ProofError:
        return ProofError(f"python-sat lacks {what}, which CaDiCaL's LRAT proofs need", "proof")

    tracepr, class_name = f"{LRAT_CADICAL}_tracepr", LRAT_CADICAL.capitalize()
    try:
        import pysolvers
        from pysat import solvers
    except ImportError as exc:
        raise lacks(f"a module ({exc})") from None
    solver_class = getattr(solvers, class_name, None)
    for owner, name in ((pysolvers, tracepr), (solver_class, "configure")):
        if not callable(getattr(owner, name, None)):
            raise lacks(f"{getattr(owner, '__name__', class_name)}.{name}")
    engine = solver_class()
    try:
        if not all(hasattr(engine, name) for name in ("cadical", "prfile", "prfp")):
            raise lacks(f"the {class_name} attributes cadical, prfile and prfp")
        engine.configure({"lrat": 1, "binary": 0, **UNSAT_CONFIGURATION})
        engine.prfp = getattr(pysolvers, tracepr)(engine.cadical, proof_file)
    except ProofError:
        engine.delete()
        raise
    except Exception as exc:  # noqa: BLE001 - a changed python-sat may fail in any way here
        engine.delete()
        raise lacks(f"a working pysolvers.{tracepr} ({type(exc).__name__}: {str(exc)[:40]})") from None
    engine.prfile = proof_file  # as for its own proof file: `delete` releases and closes it
    return engine


GiB, MiB = 1 << 30, 1 << 20
RAW_BLOCK = 8 * MiB  # how much of CaDiCaL's raw proof is read at a time


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
        import os

        self.data, self.fd = (source, None) if isinstance(source, (bytes, bytearray)) else (None, os.open(source, os.O_RDONLY))
        self.size = len(self.data) if self.fd is None else os.fstat(self.fd).st_size

    def read(self, offset: int, length: int) -> bytes:
        import os

        if self.fd is None:
            return bytes(self.data[offset:offset + length])
        return os.pread(self.fd, length, offset)  # a regular file: all of it, short only at its end

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            import os

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
    from array import array

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
    from array import array

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
    import bisect
    import io

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


# --------------------------------------------------------------------------------------- checking
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
    from smtpuzzles.proofs.drup import check_drup

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


# --------------------------------------------------------------------------------------- LRAT
@dataclass(frozen=True)
class Certified:
    """A refutation made, checked, and written as LRAT, ready to store beside the run."""

    lrat: bytes  # empty for a proof checked as it was made and not kept (see certify_query)
    lemmas: int  # lemmas in the LRAT proof (units it materialises included)
    solver: str
    seconds: float  # proving, checking and writing, together
    found: int = 0  # parts taken from a parts folder (made by an earlier run, checked here as made)


def certify_query(query: Dimacs, solver: str = LRAT_SOLVER, timeout: float | None = None,
                  progress=None, budget: ProofBudget = BUDGET, split: int | None = None,
                  keep: bool = True, parts_dir=None, observe=None) -> Certified:
    """Refute `query` and return the LRAT proof of it that smtpuzzles.trusted.lrat has checked; ProofError
    when there is no proof (a satisfiable query says "satisfiable"), the time runs out, or a check fails.

    `solver` LRAT_SOLVER (the default): CaDiCaL 1.9.5 writes LRAT, `trim_lrat` keeps what the
    refutation used. When python-sat cannot do that (see `cadical_lrat_solver`), one line says so and
    the DRUP path below runs instead, with the reason in the returned solver's name.
    A DRUP solver (PROOF_SOLVERS): its proof is checked backwards (smtpuzzles.proofs.drup), the lemmas used
    are written as LRAT, and that is checked; slower, by a Python checker's pace.
    Past a cap of `budget` (disk, memory, lemmas) there is no proof: a ProofError of one line.

    `split`, the number of a clause of the query (1 for the first): on the LRAT path the query is
    refuted once per literal of that clause, with the literal as a unit, and the parts joined into
    one LRAT proof of the query itself (see `_certify_lrat_parts`). The joined proof is checked as
    it is made, and bounded by the parts' sizes, not by the stored proof's caps. It is kept while it
    stays within the caps the audit reads a stored proof under; past them (the 12x12 record's
    reference proof, 9 million lemmas) its `lrat` is empty: checked here, too large to store. With
    `keep` False (a proof the audit makes, checks and forgets) it is never kept. `parts_dir`, a
    folder: each part made is kept there too (see `PartsStore`), and a part found there is not made
    again, so a proof of hours stopped part-way resumes; what is found is checked like what is made.
    `observe(query, lrat, case)`, when given, is shown every proof checked here before it counts:
    the whole one (`case` None), or each part's, of the query and the unit `case` (see
    smtpuzzles.proofs.external, which hands them to a second checker)."""
    import tempfile
    import time

    say = progress or (lambda words: None)
    started = time.perf_counter()
    if solver not in CERTIFY_SOLVERS:
        raise ProofError(f"unknown proof solver {solver!r} (one of {', '.join(CERTIFY_SOLVERS)})", "proof")
    name = solver
    if solver == LRAT_SOLVER:
        try:
            with tempfile.TemporaryFile() as probe:
                cadical_lrat_solver(probe).delete()
        except ProofError as exc:
            say(f"{exc.message}; proving with {DEFAULT_SOLVER} (DRUP, slower) instead")
            solver, name = DEFAULT_SOLVER, f"{DEFAULT_SOLVER} (fallback: {exc.message})"
    say(f"proving: {solver}, {query.variables:,} variables, {query.clauses:,} clauses")
    found = 0
    if solver == LRAT_SOLVER and split:
        from smtpuzzles.proofs.parts import PartsStore, certify_in_parts

        lrat, checked, parts, found = certify_in_parts(
            query, split, timeout, say, started, budget, _proved_part, keep,
            None if parts_dir is None else PartsStore(parts_dir, query), observe)
        name = f"{name}, in {parts} parts"
    elif solver == LRAT_SOLVER:
        lrat, checked = _certify_lrat(query, timeout, say, started, budget)
    else:
        lrat, checked = _certify_drup(query, solver, timeout, say, budget)
    if not checked.ok:  # a bug in the writer or the trim; never stored
        raise ProofError(f"the LRAT proof written here was rejected: {checked.message}", "proof")
    if observe is not None and not split:
        observe(query, lrat, None)
    return Certified(lrat, checked.lemmas, name, time.perf_counter() - started, found)


def _certify_lrat(query: Dimacs, timeout: float | None, say, started: float, budget: ProofBudget):
    import tempfile
    import time
    from pathlib import Path

    from smtpuzzles.trusted.lrat import check_lrat

    # CaDiCaL's raw proof (gigabytes on large queries) stays on disk; only what is kept is read in.
    with tempfile.TemporaryDirectory(prefix="smtpuzzles-proof-") as tmp:
        raw, _ = _run_prover(query, LRAT_SOLVER, timeout, Path(tmp), budget.disk_bytes)
        say(f"trimming CaDiCaL's {raw.stat().st_size / 1e6:.1f} MB LRAT proof")  # to the lemmas the refutation used
        try:
            lrat = trim_lrat(raw, query.clauses, budget=budget)
        except ValueError:
            raise ProofError(f"{LRAT_SOLVER} wrote a proof that is not LRAT text", "proof") from None
    nvars, clauses = query.clause_list()
    say(f"checking the {len(lrat) / 1e6:.1f} MB LRAT proof")
    deadline = None if timeout is None else time.monotonic() + max(0.0, timeout - (time.perf_counter() - started))
    checked = check_lrat(nvars, clauses, lrat, deadline=deadline)
    if checked.ok is None:
        raise ProofError(f"{LRAT_SOLVER}'s proof was not checked within {timeout:g} s", "proof")
    return lrat, checked


def _proved_part(part: Dimacs, left: float | None, budget: ProofBudget) -> bytes:
    """A part's LRAT proof, made by CaDiCaL in a child and trimmed to what its empty clause rests on."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="smtpuzzles-proof-") as tmp:
        raw, _ = _run_prover(part, LRAT_SOLVER, left, Path(tmp), budget.disk_bytes)
        try:
            return trim_lrat(raw, part.clauses, budget=budget)
        except ValueError:
            raise ProofError(f"{LRAT_SOLVER} wrote a proof that is not LRAT text", "proof") from None


def _certify_drup(query: Dimacs, solver: str, timeout: float | None, say, budget: ProofBudget):
    from smtpuzzles.proofs.drup import check_drup, to_lrat
    from smtpuzzles.trusted.lrat import check_lrat

    made = Proof(*_refute(query, solver, timeout, budget.text_bytes))  # read whole: the text budget
    nvars, clauses = query.clause_list()
    steps, names = read_proof(made.text, nvars)
    say(f"checking the {len(made.text) / 1e6:.1f} MB DRUP proof backwards")
    verdict = check_drup(nvars, clauses, steps, names)
    if not verdict.ok:
        raise ProofError(f"{solver}'s proof was rejected: {verdict.message}", "proof")
    say(f"writing the {verdict.checked:,} lemmas it used as LRAT")
    lrat = to_lrat(nvars, clauses, steps, verdict)
    return lrat, check_lrat(nvars, clauses, lrat)  # the clauses parsed above: the checkers copy, never change them


def check_lrat_text(query: Dimacs | str | bytes, lrat, deadline: float | None = None) -> tuple[bool | None, str, int]:
    """(ok, one line, lemmas checked) of an LRAT proof (bytes, or an iterable of its lines)
    against the query, by smtpuzzles.trusted.lrat; ok is None when `deadline` (time.monotonic()) passed
    first. A proof past a cap of smtpuzzles.trusted.lrat.Limits raises ProofError (refused, not judged);
    any other bad query or proof is (False, why, lemmas)."""
    from smtpuzzles.trusted.lrat import check_lrat

    text = query.text if isinstance(query, Dimacs) else query
    try:
        nvars, clauses = read_dimacs(text)
    except ProofError as exc:
        return False, str(exc), 0
    verdict = check_lrat(nvars, clauses, lrat, deadline=deadline)
    if verdict.over_limit:
        raise ProofError(verdict.message, "proof")
    return verdict.ok, verdict.message, verdict.lemmas


# ---------------------------------------------------------------------------------------- storing
def compress(proof: Proof | bytes) -> bytes:
    """The proof gzip-compressed, the same bytes for the same proof (no time stamp)."""
    import gzip

    data = proof.text if isinstance(proof, Proof) else proof
    return gzip.compress(data, compresslevel=6, mtime=0)


def read_proof_file(path, max_bytes: int = MAX_PROOF_BYTES) -> bytes:
    """A stored proof (gzip or plain), decompressed no further than `max_bytes`."""
    import gzip
    import zlib

    try:
        with open(path, "rb") as handle:
            magic = handle.read(2)
            handle.seek(0)
            reader = gzip.GzipFile(fileobj=handle) if magic == b"\x1f\x8b" else handle
            data = reader.read(max_bytes + 1)
    except FileNotFoundError:
        raise ProofError("proof file is missing", str(path)) from None
    except (OSError, EOFError, zlib.error) as exc:
        raise ProofError(f"proof file is damaged ({exc})", str(path)) from None
    if len(data) > max_bytes:
        raise ProofError(f"proof is larger than the limit of {max_bytes:,} bytes", str(path))
    return data


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 3 or args[0] not in CERTIFY_SOLVERS:
        print("usage: python -m smtpuzzles.proofs.proof SOLVER QUERY.cnf PROOF_OUT", file=sys.stderr)
        return 2
    try:
        return _prove_child(*args)
    except ProofError as exc:
        print(exc.message, file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
