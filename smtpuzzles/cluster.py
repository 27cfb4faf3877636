"""Where checks run apart from the run's own engine: connecting to a Dask cluster (for the batch
runner and the audit's re-solving), and the runners that solve a split check's cubes, one by one
here or side by side on Dask workers.

On Dask each worker process builds the encoding and an engine once per run and keeps it: the
clauses are loaded once and what the solver learns on one cube serves the next (the assumptions
are each cube's own). A SAT cube ends the check; the others are stopped through the engine's
thread-safe interrupt.

Dask is optional (`pip install 'smtpuzzles[dask]'`); without it, asking for a scheduler is bad
input, reported in one line before anything runs.
"""

from __future__ import annotations

import atexit
import threading
import time
import uuid
from typing import Iterator

from smtpuzzles.engines import ctrl_c_pressed
from smtpuzzles.errors import InputError
from smtpuzzles.objectives import claim_terms

NEEDS_DASK = "--scheduler needs Dask: pip install 'smtpuzzles[dask]'"


def require_dask() -> None:
    """Fail with one line, before anything runs, when Dask is not installed."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise InputError(NEEDS_DASK, "--scheduler") from None


def dask_client(address: str):
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError(NEEDS_DASK, "--scheduler") from None
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:  # ValueError: a malformed address
        raise InputError(f"cannot reach the Dask scheduler ({exc})", address) from None


# -------------------------------------------------------------------------------------- runners
class LocalCubes:
    """The cubes one after another on the run's own engine (incremental: one solver for all)."""

    uses_engine = True  # the recorder's engine, and so its guide

    def __init__(self, recorder):
        self.recorder = recorder

    def run(self, claims: list[dict], timeout: float | None) -> Iterator[tuple[int, dict]]:
        enc = self.recorder.encoding
        for i, claim in enumerate(claims):
            engine = self.recorder.engine
            started = time.perf_counter()
            answer = engine.check(claim_terms(enc.objective, claim), timeout)
            yield i, {"status": answer.status, "model": answer.model, "stats": answer.stats, "reason": answer.reason,
                      "seconds": time.perf_counter() - started, "engine": engine.name}


class DaskCubes:
    """The cubes side by side on a Dask cluster; each worker keeps one engine per run."""

    def __init__(self, client, job: dict):
        self.client = client
        self.job = job  # puzzle, instance (canonical), encoding, engine, params

    def run(self, claims: list[dict], timeout: float | None) -> Iterator[tuple[int, dict]]:
        from dask.distributed import Event, wait

        stop_name = f"smtpuzzles-stop-{uuid.uuid4().hex}"
        futures = {self.client.submit(solve_cube, self.job, claim, timeout, stop_name, pure=False): i
                   for i, claim in enumerate(claims)}
        seceded = _leave_worker_pool()
        try:
            pending = set(futures)
            while pending:
                # Waits in short slices, so the run's first Ctrl-C stops the split at once.
                if ctrl_c_pressed():
                    raise KeyboardInterrupt
                try:
                    done, pending = wait(pending, timeout=0.5, return_when="FIRST_COMPLETED")
                except TimeoutError:  # (distributed's, a subclass) nothing finished in this slice
                    continue
                for future in sorted(done, key=futures.get):
                    yield futures[future], future.result()
        finally:  # the consumer has what it needs (a SAT cube) or stopped: stop the rest
            if any(not f.done() for f in futures):
                Event(stop_name, client=self.client).set()
                self.client.cancel(list(futures))
            if seceded:
                from dask.distributed import rejoin

                rejoin()


def _leave_worker_pool() -> bool:
    """A batch job running on a Dask worker waits for its cubes on the same cluster: it gives its
    thread back meanwhile (`secede`), or jobs waiting on cubes could hold every thread."""
    try:
        from dask.distributed import get_worker, secede

        get_worker()
    except (ImportError, ValueError):
        return False
    secede()
    return True


# What a worker process keeps between cubes: the last run's encoding and engine (one at a time, so
# a worker serving many runs holds one formula).
_worker_state: dict = {}
_worker_lock = threading.Lock()
# Dropped before the interpreter tears its modules down: a solver freed after that prints
# "Exception ignored in __del__" from python-sat.
atexit.register(_worker_state.clear)


def solve_cube(job: dict, claim: dict, timeout: float | None, stop_name: str) -> dict:
    """A Dask task: one cube's check on this worker's engine for the run; the model decoded here so
    only a solution (JSON) travels back."""
    from smtpuzzles.engines import make_engine
    from smtpuzzles import puzzles
    from smtpuzzles.canonical import canonical_json

    key = canonical_json(job)
    with _worker_lock:  # a worker's threads take turns on its one engine
        if _worker_state.get("key") != key:
            module = puzzles.get(job["puzzle"])
            enc = module.encode(module.from_canonical(job["instance"]), job["encoding"])
            # A worker with another version of the encoder would answer about another formula.
            if enc.formula.sha256 != job["base_sha256"]:
                raise RuntimeError(f"this worker's {job['encoding']} encoding writes another base formula than the "
                                   "run's: install the same smtpuzzles on every worker")
            _worker_state.clear()
            _worker_state.update(key=key, enc=enc, engine=make_engine(job["engine"], enc.formula, job["params"]))
        enc, engine = _worker_state["enc"], _worker_state["engine"]
        done = threading.Event()
        stop = _stop_event(stop_name)
        watcher = threading.Thread(target=_stop_when_told, args=(stop, engine, done), daemon=True)
        watcher.start()
        started = time.perf_counter()
        try:
            answer = engine.check(claim_terms(enc.objective, claim), timeout)
        finally:
            done.set()
        stopped = _told(stop)
        status = "interrupted" if stopped and answer.status not in ("sat", "unsat") else answer.status
        return {"status": status, "solution": enc.decode(answer.model) if answer.status == "sat" else None,
                "stats": answer.stats, "reason": answer.reason, "seconds": time.perf_counter() - started,
                "engine": engine.name}


def job_base(job: dict):
    """The run's base formula for work sharing on Dask (smtpuzzles.sharing): each worker builds it
    from the job (puzzle, instance, encoding) rather than the clauses travelling from the run."""
    import functools

    from smtpuzzles.sharing.worker import Base

    return Base(job["base_sha256"], functools.partial(_job_clauses, job))


def _job_clauses(job: dict):
    from smtpuzzles import puzzles

    module = puzzles.get(job["puzzle"])
    enc = module.encode(module.from_canonical(job["instance"]), job["encoding"])
    if enc.formula.sha256 != job["base_sha256"]:
        raise RuntimeError(f"this worker's {job['encoding']} encoding writes another base formula than the "
                           "run's: install the same smtpuzzles on every worker")
    return enc.formula.cnf.clauses, enc.formula.cnf.names


def _stop_event(stop_name: str):
    """The check's stop signal, made in the task's own thread with the worker's client: a watcher
    thread cannot make one (distributed finds no client there), and would never see the stop."""
    try:
        from dask.distributed import Event, get_client

        return Event(stop_name, client=get_client())
    except Exception:  # noqa: BLE001 - no scheduler to ask: nobody can tell this task to stop
        return None


def _told(stop) -> bool:
    try:
        return stop is not None and stop.is_set()
    except Exception:  # noqa: BLE001 - the scheduler gone: nobody can tell this task to stop
        return False


def _stop_when_told(stop, engine, done: threading.Event) -> None:
    while not done.wait(0.5):
        if _told(stop):
            engine.interrupt()
            return
