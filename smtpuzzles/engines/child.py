"""A fresh check in a child process, for python-sat solvers that cannot be stopped from Python
(Kissat: no interrupt, no conflict budget). The child is killed to stop it, so a time limit, an
interrupt and Ctrl-C hold on it as on the solvers the engine runs in its own process.

The parent writes the clauses to a file without a name as 32-bit ints, each clause ended by 0,
and hands it over as the child's standard input; the child solves, and writes `sat` and the model
(one line of ints) or `unsat` on its standard output. The parent reads nothing of it but that
answer. Started as `python -m smtpuzzles.engines.child PROTOCOL SOLVER`, isolated from the working
directory (children.python_child), and dies with its parent (children.die_with_parent).
"""

from __future__ import annotations

import array
import signal
import subprocess
import sys
import tempfile
import threading
from typing import Sequence

from smtpuzzles.children import die_with_parent, python_child
from smtpuzzles.engines import CHILD_SOLVERS as OUTSIDE

# What parent and child say to each other; a child of another version of this file refuses.
PROTOCOL = "clauses-on-stdin-1"

# Why Kissat: on a 16x16 record run's question "position 44 can exceed 12" Kissat 4.0.4 found an
# answer in 264 CPU s, where a fresh Glucose had left it open after 2,685 s and CaDiCaL 1.9.5 after
# 27.5 minutes (the encoding notes, "Solver").


class ChildSolve:
    """One fresh check in a child process: `run()` gives True, False or None (stopped or failed)
    and the model; `interrupt()`, from any thread, kills the child (or keeps it from starting)."""

    def __init__(self, solver: str, base: Sequence[Sequence[int]], added: Sequence[Sequence[int]],
                 units: Sequence[int]):
        if solver not in OUTSIDE:
            raise ValueError(f"{solver!r} does not run in a child process (one of {', '.join(OUTSIDE)})")
        self.solver, self.base, self.added, self.units = solver, base, added, units
        self._lock = threading.Lock()
        self._child: subprocess.Popen | None = None
        self._stopped = False
        self.model: list[int] | None = None
        self.failure: str | None = None  # why the child gave no answer, when it was not stopped

    def interrupt(self) -> None:
        with self._lock:
            self._stopped = True
            if self._child is not None and self._child.poll() is None:
                self._child.kill()

    def run(self) -> bool | None:
        # The clauses go to the child as its standard input, from a file that has no name (nothing
        # is left behind however either process ends).
        with tempfile.TemporaryFile(prefix="smtpuzzles-fresh-") as clauses:
            _write(clauses, self.base, self.added, self.units)
            clauses.flush()
            clauses.seek(0)
            with self._lock:
                if self._stopped:
                    return None
                self._child = subprocess.Popen(python_child("smtpuzzles.engines.child", PROTOCOL, self.solver),
                                               stdin=clauses, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                               preexec_fn=die_with_parent)
            try:
                said, _ = self._child.communicate()
            finally:
                if self._child.poll() is None:  # a Ctrl-C in the wait: never leave it running
                    self._child.kill()
                    self._child.wait()
        status, _, rest = said.partition(b"\n")
        if self._child.returncode != 0 or status not in (b"sat", b"unsat"):
            if not self._stopped:  # killed to stop it is no failure
                self.failure = f"its {self.solver} child ended with status {self._child.returncode}"
            return None
        if status == b"sat":
            self.model = [int(x) for x in rest.split()]
            return True
        return False


def _write(out, base, added, units) -> None:
    """Every clause, then each unit, as 32-bit ints, each clause ended by 0."""
    chunk = array.array("i")
    for clauses in (base, added, [[u] for u in units]):
        for clause in clauses:
            chunk.extend(clause)
            chunk.append(0)
            if len(chunk) >= 1 << 20:
                chunk.tofile(out)
                chunk = array.array("i")
    chunk.tofile(out)


def _read(source) -> list[list[int]]:
    flat = array.array("i")
    flat.frombytes(source.read())
    clauses, start = [], 0
    for i, x in enumerate(flat):
        if x == 0:
            clauses.append(flat[start:i].tolist())
            start = i + 1
    return clauses


def main(argv: list[str]) -> int:
    protocol, solver = argv
    if protocol != PROTOCOL or solver not in OUTSIDE:  # another version of this file, or a stray call
        return 2
    # Ctrl-C is the parent's to take: it kills this child when it stops the race. A SIGINT sent to
    # the whole group (kill -INT -PGID) had ended the child alone, with pysat's own handler, and the
    # race went on without it though the parent ignored SIGINT (started with `&`).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from smtpuzzles.engines import sat_solver_class

    Solver = sat_solver_class()  # puts in no SIGINT handler of pysat's
    with Solver(name=solver, bootstrap_with=_read(sys.stdin.buffer)) as sat:
        answer = sat.solve()
        out = sys.stdout.buffer
        if answer:
            out.write(b"sat\n" + " ".join(map(str, sat.get_model() or [])).encode() + b"\n")
        else:
            out.write(b"unsat\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
