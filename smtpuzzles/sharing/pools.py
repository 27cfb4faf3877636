"""Where the cubes run: local worker processes (concurrent.futures) or a Dask cluster, behind one
interface the coordinator (smtpuzzles.sharing.runner) uses:

    pool.workers                       how many cubes run at once
    pool.submit(question, serial, cube, budget, levels, cap) -> future
    pool.wait(futures, seconds) -> (done, pending)
    pool.stop(serial)                  the question numbered `serial` is settled: running cubes of it
                                       are interrupted, queued ones cancelled
    pool.close()

Local workers die with the parent (each watches it) and ignore Ctrl-C (the parent takes it and
stops them). Dask is optional (`pip install 'smtpuzzles[dask]'`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from concurrent import futures as cf

from smtpuzzles.children import tie_to_parent
from smtpuzzles.sharing import worker
from smtpuzzles.sharing.worker import Base, Question


class LocalPool:
    """`workers` processes of this machine, loading `base` once each."""

    def __init__(self, workers: int, base: Base, solver: str = "glucose4"):
        # fork (where there is one) hands the base to the workers without pickling its clauses
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        self.workers = workers
        self._stop = context.Value("q", 0, lock=False)  # the highest question serial settled
        self._executor = cf.ProcessPoolExecutor(workers, mp_context=context, initializer=_start_local,
                                                initargs=(base, self._stop, solver))

    def submit(self, question: Question, serial: int, cube: tuple[int, ...], budget: int, levels: int,
               cap: float | None = None):
        return self._executor.submit(_local_cube, question, serial, cube, budget, levels, cap)

    def wait(self, pending, seconds: float):
        return cf.wait(pending, timeout=seconds, return_when=cf.FIRST_COMPLETED)

    def stop(self, serial: int, pending=()) -> None:
        self._stop.value = max(self._stop.value, serial)
        for future in pending:
            future.cancel()

    def close(self) -> None:
        self._stop.value = sys.maxsize  # whatever still runs stops at once
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_local: dict = {}


def _start_local(base: Base, stop, solver: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent takes Ctrl-C and stops the cubes
    # Ended with the parent even inside a solver call that holds the interpreter (the kernel's
    # signal; a polling thread alone waits for the call to return), as the batch's workers are.
    tie_to_parent()
    _local.update(base=base, stop=stop, solver=solver)


def _local_cube(question: Question, serial: int, cube, budget: int, levels: int, cap: float | None) -> dict:
    stop = _local["stop"]
    return worker.solve_cube(_local["base"], question, cube, budget, levels, lambda: stop.value >= serial,
                             _local["solver"], cap)


class DaskPool:
    """The workers of a Dask cluster (a `distributed.Client`): the base is scattered to them once."""

    def __init__(self, client, base: Base, solver: str = "glucose4"):
        self.client = client
        self.workers = max(1, sum(client.nthreads().values()))
        self._base = client.scatter(base, broadcast=True, hash=False)
        self._solver = solver
        self._prefix = f"smtpuzzles-share-{os.getpid()}-{id(self):x}"

    def submit(self, question: Question, serial: int, cube: tuple[int, ...], budget: int, levels: int,
               cap: float | None = None):
        return self.client.submit(_dask_cube, self._base, question, cube, budget, levels,
                                  f"{self._prefix}-{serial}", self._solver, cap, pure=False)

    def wait(self, pending, seconds: float):
        from dask.distributed import wait

        try:
            return wait(pending, timeout=seconds, return_when="FIRST_COMPLETED")
        except TimeoutError:  # distributed's, a subclass: nothing finished in this slice
            return set(), set(pending)

    def stop(self, serial: int, pending=()) -> None:
        from dask.distributed import Event

        Event(f"{self._prefix}-{serial}", client=self.client).set()
        if pending:
            self.client.cancel(list(pending))

    def close(self) -> None:
        self.client.cancel([self._base])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _dask_cube(base: Base, question: Question, cube, budget: int, levels: int, stop_name: str, solver: str,
               cap: float | None) -> dict:
    from dask.distributed import Event, get_client

    # Made with the worker's client here, in the task's thread: the solver's watcher thread asks it.
    event = Event(stop_name, client=get_client())
    return worker.solve_cube(base, question, cube, budget, levels, event.is_set, solver, cap)
