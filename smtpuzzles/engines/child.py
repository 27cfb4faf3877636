"""A fresh check in a child process, for python-sat solvers that cannot be stopped from Python
(Kissat: no interrupt, no conflict budget). The child is killed to stop it, so a time limit, an
interrupt and Ctrl-C hold on it as on the solvers the engine runs in its own process.

The parent writes the clauses to a file without a name as 32-bit ints, each clause ended by 0,
and hands it over as the child's standard input; the child solves, and writes `sat` and the model
(one line of ints) or `unsat` on its standard output. The parent reads nothing of it but that
answer. Started as `python -m smtpuzzles.engines.child SOLVER PARENT_PID`; it dies with its parent.
"""

from __future__ import annotations

import array
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
from typing import Sequence

from smtpuzzles.engines import CHILD_SOLVERS as OUTSIDE

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
                self._child = subprocess.Popen([sys.executable, "-m", "smtpuzzles.engines.child", self.solver,
                                                str(os.getpid())],
                                               stdin=clauses, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            try:
                said, _ = self._child.communicate()
            finally:
                if self._child.poll() is None:  # a Ctrl-C in the wait: never leave it running
                    self._child.kill()
                    self._child.wait()
        if self._child.returncode != 0:
            return None
        status, _, rest = said.partition(b"\n")
        if status == b"sat":
            self.model = [int(x) for x in rest.split()]
            return True
        return False if status == b"unsat" else None


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


def _die_with(parent: int) -> None:
    """Be killed when `parent` ends, however it ends (kill -9 included): an orphaned Kissat would
    go on for hours. Linux only (prctl); elsewhere the parent's kill on a stop is all there is."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before the line above took effect
        os._exit(3)


def main(argv: list[str]) -> int:
    solver, parent = argv
    _die_with(int(parent))
    if solver not in OUTSIDE:
        return 2
    from pysat.solvers import Solver

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
