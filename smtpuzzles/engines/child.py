"""A fresh check in a child process, killed to stop it: Kissat can be neither interrupted nor
budgeted from Python, and Glucose looks at its interrupt flag only between restarts, which on a
long check came 0.8 s to 92 s apart (an 18x18 record run's Ctrl-C waited 92 s). So a time limit,
an interrupt and Ctrl-C end a fresh check at once, whatever solver answers it.

The parent writes, as 32-bit ints, the count of phase literals, those literals, then every clause
ended by 0, to a file without a name, and hands it over as the child's standard input; the child
solves, and writes `sat` and the model (one line of ints) or `unsat`, then the solver's statistics
(one line of JSON, `{}` where the solver keeps none), on its standard output. The parent reads
nothing of it but that answer. Started as this module with PROTOCOL and SOLVER, isolated from the
working directory (children.python_child); it dies with its parent and leaves SIGINT to it
(`_child_start`).
"""

from __future__ import annotations

import array
import gc
import json
import signal
import subprocess
import sys
import tempfile
from typing import Iterator, Sequence

from smtpuzzles.children import Stoppable, die_with_parent, python_child, reap
from smtpuzzles.engines import CHILD_SOLVERS, SAT_SOLVERS

SOLVERS = SAT_SOLVERS + CHILD_SOLVERS

# What parent and child say to each other; a child of another version of this file refuses.
PROTOCOL = "phases-clauses-on-stdin-2"

# Why Kissat: on a 16x16 record run's question "position 44 can exceed 12" Kissat 4.0.4 found an
# answer in 264 CPU s, where a fresh Glucose had left it open after 2,685 s and CaDiCaL 1.9.5 after
# 27.5 minutes (the encoding notes, "Solver").


class ChildSolve:
    """One fresh check in a child process: `run()` gives True, False or None (stopped or failed)
    and the model; `interrupt()`, from any thread, kills the child (or keeps it from starting)."""

    def __init__(self, solver: str, base: Sequence[Sequence[int]], added: Sequence[Sequence[int]],
                 units: Sequence[int], phases: Sequence[int] = ()):
        if solver not in SOLVERS:
            raise ValueError(f"{solver!r} does not run in a child process (one of {', '.join(SOLVERS)})")
        self.solver, self.base, self.added, self.units = solver, base, added, units
        self.phases = phases if solver in SAT_SOLVERS else ()  # Kissat in python-sat takes none
        self._stops = Stoppable()
        self.model: list[int] | None = None
        self.stats: dict[str, int] = {}  # the solver's own counts (conflicts, ...), where it keeps them
        self.failure: str | None = None  # why the child gave no answer, when it was not stopped

    def interrupt(self) -> None:
        self._stops.stop()

    def run(self) -> bool | None:
        # The clauses go to the child as its standard input, from a file that has no name (nothing
        # is left behind however either process ends).
        with tempfile.TemporaryFile(prefix="smtpuzzles-fresh-") as clauses:
            _write(clauses, self.phases, self.base, self.added, self.units)
            clauses.flush()
            clauses.seek(0)
            if self._stops.stopped:
                return None
            started = subprocess.Popen(python_child("smtpuzzles.engines.child", PROTOCOL, self.solver),
                                       stdin=clauses, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                       preexec_fn=_child_start)
            try:
                self._stops.adopt(started)  # an interrupt that came meanwhile has it killed here
                said, _ = started.communicate()
            finally:
                if started.poll() is None:  # a Ctrl-C in the wait: never leave it running
                    started.kill()
                    reap(started)
        status, model, counts = (said.split(b"\n") + [b"", b""])[:3]
        code = started.returncode
        if code != 0 or status not in (b"sat", b"unsat"):
            # Killed to stop it, or by a SIGINT or SIGTERM sent to the whole group (the run's
            # stop, which its parent takes too): no failure, nothing to ask again.
            if not self._stops.stopped and code not in (-signal.SIGINT, -signal.SIGTERM):
                self.failure = f"its {self.solver} child ended with status {code}"
            return None
        self.stats = _counts(counts)
        if status == b"sat":
            self.model = [int(x) for x in model.split()]
            return True
        return False


def _child_start() -> None:
    """In the child, between fork and exec: it dies with its parent, and a Ctrl-C sent to the group
    is left to the parent from the start (an ignored signal stays ignored through exec, where main's
    own SIG_IGN came only once the interpreter was up)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def _counts(line: bytes) -> dict[str, int]:
    """The statistics line: names and whole numbers only (anything else is left out)."""
    try:
        said = json.loads(line or b"{}")
    except (ValueError, RecursionError):
        return {}
    if not isinstance(said, dict):
        return {}
    return {k: v for k, v in said.items() if isinstance(v, int) and not isinstance(v, bool)}


def _write(out, phases, base, added, units) -> None:
    """The phases' count and literals, then every clause and each unit, as 32-bit ints, each clause
    ended by 0."""
    chunk = array.array("i", [len(phases)])
    chunk.extend(phases)
    for clauses in (base, added, [[u] for u in units]):
        for clause in clauses:
            chunk.extend(clause)
            chunk.append(0)
            if len(chunk) >= 1 << 20:
                chunk.tofile(out)
                chunk = array.array("i")
    chunk.tofile(out)


def _read(source) -> tuple[list[int], Iterator[list[int]]]:
    """The phases and the clauses, the clauses made a chunk of ints at a time as the solver takes
    them: held all at once as lists, the child's peak on 16x16 was 485 MB, so 246 MB."""
    flat = array.array("i")
    flat.frombytes(source.read())
    return flat[1:1 + flat[0]].tolist(), _clauses(flat, 1 + flat[0])


def _clauses(flat: array.array, start: int, chunk: int = 1 << 20) -> Iterator[list[int]]:
    left: list[int] = []  # a clause cut by the chunk's end
    for at in range(start, len(flat), chunk):
        ints = left + flat[at:at + chunk].tolist()
        begin, end_of = 0, ints.index  # list.index finds each clause's 0 at C speed
        try:
            while True:
                end = end_of(0, begin)
                yield ints[begin:end]
                begin = end + 1
        except ValueError:  # no 0 left in this chunk
            left = ints[begin:]


def main(argv: list[str]) -> int:
    protocol, solver = argv
    if protocol != PROTOCOL or solver not in SOLVERS:  # another version of this file, or a stray call
        return 2
    # Ctrl-C is the parent's to take: it kills this child when it stops the race. A SIGINT sent to
    # the whole group (kill -INT -PGID) had ended the child alone, with pysat's own handler, and the
    # race went on without it though the parent ignored SIGINT (started with `&`). Ignored from the
    # fork on (_child_start); again here for a child started some other way.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from smtpuzzles.engines import sat_solver_class

    Solver = sat_solver_class()  # puts in no SIGINT handler of pysat's
    gc.disable()  # a list a clause and no cycles: collecting as they were made doubled the read
    phases, clauses = _read(sys.stdin.buffer)
    with Solver(name=solver, bootstrap_with=clauses) as sat:
        if phases:
            sat.set_phases(phases)
        answer = sat.solve()
        out = sys.stdout.buffer
        if answer:
            out.write(b"sat\n" + " ".join(map(str, sat.get_model() or [])).encode() + b"\n")
        else:
            out.write(b"unsat\n\n")
        try:
            counts = sat.accum_stats() or {}
        except NotImplementedError:  # Kissat keeps none python-sat can read
            counts = {}
        out.write(json.dumps(counts).encode() + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
