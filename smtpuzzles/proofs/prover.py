"""Proving in a child process: a proof-logging solver (smtpuzzles.proofs.child) refutes a query in
a process of its own, watched from here, killed on a timeout, an interrupt, or a proof past its cap
or the disk's room; `BackgroundProof` runs such work in a thread beside the caller's own proof, so
that two solver children run at once on two cores."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from smtpuzzles import stops
from smtpuzzles.children import Stoppable, die_with_parent, python_child, reap
from smtpuzzles.proofs.budget import MAX_PROOF_BYTES
from smtpuzzles.proofs.child import DEFAULT_SOLVER, PROOF_SOLVERS, SAT, UNSAT
from smtpuzzles.trusted.dimacs import Dimacs, ProofError, Satisfiable


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
    return Proof(*refute(query, solver, timeout))


def refute(query: Dimacs, solver: str, timeout: float | None,
            max_bytes: int | None = None) -> tuple[bytes, str, float]:
    """(proof text, solver, wall seconds) from `python -m smtpuzzles.proofs.child SOLVER` on the query; the
    text is read whole, so it is refused past `max_bytes` (MAX_PROOF_BYTES: what `check` reads)."""
    with scratch_folder("smtpuzzles-proof-") as tmp:
        path, seconds = run_prover(query, solver, timeout, tmp,
                                    MAX_PROOF_BYTES if max_bytes is None else max_bytes)
        return path.read_bytes(), solver, seconds


@contextlib.contextmanager
def scratch_folder(prefix: str):
    """A temporary folder for a proof's files (a raw proof can be gigabytes). Made in a
    BackgroundProof's thread, it is also removed by `stop`: a Ctrl-C or SIGTERM ends the process
    without waiting for that thread, which may be minutes into a trim of what the folder holds."""
    owner = BackgroundProof.of_this_thread()
    if owner is not None and owner.stopping:
        raise ProofError("the proof was stopped: the proof beside it failed or was interrupted", "proof")
    tmp = tempfile.mkdtemp(prefix=prefix)
    if owner is not None:
        owner.keep_clean(tmp)
    try:
        yield Path(tmp)
    finally:
        with stops.held():  # a SIGTERM taken as a Ctrl-C here would leave the folder half removed
            shutil.rmtree(tmp, ignore_errors=True)
            if owner is not None:
                owner.keep_clean(tmp, done=True)


PROOF_FILE_POLL = 0.25  # seconds between looks at the size of the proof a child is writing


DISK_MARGIN = 1 << 30  # room a proof leaves free in the temporary folder (a tmpfs is memory)


def run_prover(query: Dimacs, solver: str, timeout: float | None, folder, max_bytes: int):
    """(proof file in `folder`, wall seconds) of `python -m smtpuzzles.proofs.child SOLVER` on the query.
    The child is killed on timeout, on interrupt, and when its proof file passes `max_bytes` or the
    room left in the folder less DISK_MARGIN (a proof that size could not be read or would fill the
    disk: one line says so instead)."""
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
        child = subprocess.Popen(python_child("smtpuzzles.proofs.child", solver, str(cnf_path), str(proof_path)),
                                 stdout=subprocess.DEVNULL, stderr=err, preexec_fn=die_with_parent)
        try:
            if owner is not None:
                owner.watch(child)
            stopped = _watch_prover(child, proof_path, timeout, max_bytes, started)
        finally:  # an interrupt, a time limit, a proof too large: never leave the solver running
            if child.poll() is None:
                child.kill()
                reap(child)
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
        self._stops = Stoppable()  # its solver child
        self._folders: set[str] = set()  # its scratch folders, removed by `stop`
        self._lock = threading.Lock()  # of the folders
        self._box: dict = {}
        self._thread = threading.Thread(target=self._run, args=(work,), daemon=True)
        self._thread.start()

    @classmethod
    def of_this_thread(cls) -> "BackgroundProof | None":
        return cls._by_thread.get(threading.get_ident())

    def _run(self, work) -> None:
        me = threading.get_ident()
        BackgroundProof._by_thread[me] = self
        try:
            self._box["value"] = work()
        except BaseException as exc:  # handed to the caller's thread by `result`
            self._box["error"] = exc
        finally:
            BackgroundProof._by_thread.pop(me, None)

    @property
    def stopping(self) -> bool:
        return self._stops.stopped

    def watch(self, child) -> None:
        self._stops.adopt(child)

    def keep_clean(self, folder: str, done: bool = False) -> None:
        with self._lock:
            (self._folders.discard if done else self._folders.add)(folder)
        # Read after the folder is listed, as `stop` lists the folders after it is stopped: one or
        # the other removes a folder kept as the stop comes, whichever order they run in.
        if self._stops.stopped and not done:
            shutil.rmtree(folder, ignore_errors=True)

    def stop(self) -> None:
        """Kill the child, remove the thread's scratch folders and return at once: a trim or check
        under way in the thread (Python, seconds to minutes on a large proof) ends on its own, its
        result unused; the thread is a daemon, so it never holds up the process's exit."""
        self._stops.stop()
        with self._lock:
            folders = list(self._folders)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
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
