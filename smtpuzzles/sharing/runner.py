"""The coordinator: one question shared out as cubes, split again where a cube stays open.

The question starts as one cube (no literal). A worker runs each cube within a conflict budget; a
cube still open when its budget is spent comes back split by look-ahead (smtpuzzles.sharing.worker)
and its children are queued. The first SAT cube answers the question with its model and the others
are stopped; when every cube is refuted, the tree of refuted cubes is the proof's summary
(smtpuzzles.sharing.tree). Ctrl-C (the run's first, see smtpuzzles.engines) and the time limit stop
the question within a fraction of a second: the coordinator waits in short slices and interrupts
the workers' solvers (a solver that cannot be interrupted stops at its budget).

The budget adapts unless one is given: each cube should take about `cube_seconds` on a worker, at
the conflicts per second the question's cubes have run at so far.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from smtpuzzles import activity
from smtpuzzles.canonical import canonical_json
from smtpuzzles.durations import duration
from smtpuzzles.engines import ctrl_c_pressed
from smtpuzzles.sharing.tree import summary_of
from smtpuzzles.sharing.worker import Base, Question

CUBE_SECONDS = 4.0  # CPU seconds one cube should take on a worker before it is split again
CAP = 3  # an adapted budget's cube is interrupted and split after CAP x cube_seconds of CPU
FIRST_BUDGET = 2000  # the first cube's conflicts, before there is a rate to go by
MIN_BUDGET, MAX_BUDGET = 200, 5_000_000
WAIT_SLICE = 0.1  # seconds between looks at Ctrl-C and the clock

_serials = itertools.count(1)


def question_of(cnf, terms: Sequence) -> Question:
    """The question a check asks (`cnf`: the base formula's clausal view; `terms`: the claim's
    assumptions, smtpuzzles.objectives.claim_terms), its clauses made as the sat engine makes them."""
    view = cnf.numbering()  # fresh variables numbered past the base's, in a copy
    clauses: list[list[int]] = []
    assumptions = [view.term_literal(t, clauses, {}) for t in terms]
    text = canonical_json([clauses, assumptions])
    return Question(hashlib.sha256(text.encode()).hexdigest(), tuple(map(tuple, clauses)), tuple(assumptions))


@dataclass
class Shared:
    """A question's answer: "sat" (with `model`, the base's literals), "unsat" (with the tree of its
    refuted cubes), "unknown" (the time limit) or "interrupted"; and every cube run, for reports."""

    status: str
    model: list[int] | None = None
    reason: str = ""
    splits: dict = field(default_factory=dict)  # inner node (path) -> the variable it splits
    leaves: dict = field(default_factory=dict)  # refuted cube (path) -> (result code, conflicts)
    runs: list[dict] = field(default_factory=list)  # each cube run: cube, status, conflicts, seconds, worker
    seconds: float = 0.0

    def summary(self, claim: dict, base_sha256: str, names: list[str]) -> dict:
        """The tree of refuted cubes as one JSON-able record (an UNSAT answer's only)."""
        assert self.status == "unsat"
        return summary_of(claim, base_sha256, self.splits, self.leaves, names)

    def balance(self) -> dict:
        """CPU seconds each worker spent on cubes, and the least over the most (1.0: even)."""
        busy: dict = {}
        for run in self.runs:
            busy[run["worker"]] = busy.get(run["worker"], 0.0) + run["cpu"]
        most = max(busy.values(), default=0.0)
        return {"busy": sorted(busy.values(), reverse=True),
                "even": round(min(busy.values()) / most, 3) if most else 1.0}


def share(pool, question: Question, *, budget: int | None = None, first_budget: int | None = None,
          cube_seconds: float = CUBE_SECONDS, time_limit: float | None = None,
          on_run: Callable[[dict], None] | None = None) -> Shared:
    """`question` answered by the cubes `pool` runs (smtpuzzles.sharing.pools): each cube within
    `budget` conflicts (None: adapted to `cube_seconds`), the whole question first within
    `first_budget` (None: `budget`, or FIRST_BUDGET), `time_limit` seconds in all; `on_run` is told
    of each cube run as it ends."""
    serial = next(_serials)
    started = time.monotonic()
    deadline = None if time_limit is None else started + time_limit
    shared = Shared("unknown")
    stack: list[tuple[int, ...]] = [()]
    budgets = {(): first_budget or budget or FIRST_BUDGET}
    origin: dict = {}  # a queued cube -> the run that split it off (for the reports' schedule)
    running: dict = {}  # future -> its cube
    first_levels = max(1, math.ceil(math.log2(pool.workers)) + 1)  # enough cubes for every worker at once
    cap = None if budget else CAP * cube_seconds  # an adapted budget's cubes are also held to CPU time
    caps: dict = {}  # a cube asked again unsplit (nothing left to split it by): its larger cap

    def ended(status: str, reason: str = "") -> Shared:
        pool.stop(serial, list(running))
        shared.status, shared.reason, shared.seconds = status, reason, time.monotonic() - started
        return shared

    told = functools.partial(_cube_counts, shared, running, stack, pool.workers, started)
    try:
        activity.report(told)
        while stack or running:
            if ctrl_c_pressed():
                return ended("interrupted", "interrupted")
            if deadline is not None and time.monotonic() >= deadline:
                return ended("unknown", "timeout")
            while stack and len(running) <= pool.workers:  # one queued beyond the busy: no worker waits
                cube = stack.pop()
                levels = first_levels if not cube else 1
                running[pool.submit(question, serial, cube, budgets[cube], levels, caps.get(cube, cap))] = cube
            left = WAIT_SLICE if deadline is None else max(0.0, min(WAIT_SLICE, deadline - time.monotonic()))
            done, _ = pool.wait(list(running), left)
            for future in done:
                cube = running.pop(future)
                if future.cancelled():
                    continue
                out = future.result()
                run = {"cube": cube, "status": out["status"], "conflicts": out["conflicts"], "seconds": out["seconds"],
                       "cpu": out["cpu"], "worker": out["worker"], "after": origin.get(cube)}
                shared.runs.append(run)
                if on_run is not None:
                    on_run(run)
                if out["status"] == "sat":
                    shared.model = out["model"]
                    return ended("sat")
                if out["status"] == "unsat":
                    shared.leaves[cube] = ("u", out["conflicts"])
                elif out["status"] == "open":
                    next_budget = budget or _adapted(shared.runs, cube_seconds)
                    queued = _grow(shared, stack, budgets, cube, out["children"], next_budget)
                    if queued == [cube] and cap is not None:
                        caps[cube] = 2 * caps.get(cube, cap)
                    for child in queued:
                        origin[child] = len(shared.runs) - 1
                else:  # stopped by someone else: the question cannot be settled here
                    return ended("interrupted", "a worker was stopped")
    except BaseException:
        pool.stop(serial, list(running))
        raise
    finally:  # the views' count ends with the question, however it ends
        activity.ended(told)
    return ended("unsat")


def _grow(shared: Shared, stack: list, budgets: dict, cube: tuple[int, ...], children, budget: int) -> list:
    """An open cube's children entered in the tree: refuted ones as leaves, the rest queued (and
    returned)."""
    if len(children) == 1 and tuple(children[0][0]) == cube and not children[0][1]:
        budgets[cube] *= 2  # nothing left to split it by: the same cube again, with a larger budget
        stack.append(cube)
        return [cube]
    queued = []
    for child, refuted in children:
        child = tuple(child)
        for depth in range(len(cube), len(child)):
            shared.splits[child[:depth]] = abs(child[depth])
        if refuted:
            shared.leaves[child] = ("p", 0)
        else:
            budgets[child] = budget
            stack.append(child)
            queued.append(child)
    return queued


def _cube_counts(shared: Shared, running: dict, stack: list, workers: int, started: float) -> dict:
    """A shared question's cubes as they stand when asked, for the live views (smtpuzzles.activity:
    a view's thread asks while the coordinator adds to them; each count is read whole). Cubes
    given out beyond one a worker wait in the pool's queue, and are counted as queued."""
    runs = list(shared.runs)
    refuted = sum(r["status"] == "unsat" for r in runs)
    split = sum(r["status"] == "open" for r in runs)
    busy = min(len(running), workers)
    queued = len(stack) + len(running) - busy
    seconds = time.monotonic() - started
    return {"cubes": {"run": len(runs), "refuted": refuted, "split": split, "running": busy, "queued": queued},
            "seconds": round(seconds, 1),
            "words": f"cubes ({duration(seconds)}): {len(runs):,} run ({refuted:,} refuted, {split:,} split), "
                     f"{busy} running, {queued:,} queued"}


def _adapted(runs: list[dict], cube_seconds: float) -> int:
    conflicts = sum(r["conflicts"] for r in runs)
    seconds = sum(r["cpu"] for r in runs)  # CPU: a loaded machine's waits would shrink the budget
    rate = conflicts / seconds if seconds > 0 else FIRST_BUDGET / cube_seconds
    return int(min(MAX_BUDGET, max(MIN_BUDGET, rate * cube_seconds)))


class Sharing:
    """How a run shares its hard checks out: `make_pool(base)` makes the pool once, on the first
    check shared (smtpuzzles.sharing.pools: `local` and `on_dask` below), for the run's base formula;
    each check gets the run's limit as its time limit."""

    def __init__(self, make_pool: Callable, budget: int | None = None, cube_seconds: float = CUBE_SECONDS):
        self.make_pool = make_pool
        self.budget = budget
        self.cube_seconds = cube_seconds
        self.pool = None

    @classmethod
    def local(cls, workers: int, solver: str = "glucose4", **settings) -> Sharing:
        from smtpuzzles.sharing.pools import LocalPool

        return cls(lambda base: LocalPool(workers, base, solver), **settings)

    @classmethod
    def on_dask(cls, client, base, solver: str = "glucose4", **settings) -> Sharing:
        """On a Dask cluster, whose workers load `base` themselves (smtpuzzles.cluster.job_base)."""
        from smtpuzzles.sharing.pools import DaskPool

        return cls(lambda _: DaskPool(client, base, solver), **settings)

    def ask(self, formula, terms: Sequence, time_limit: float | None) -> tuple[Question, Shared]:
        if self.pool is None:
            cnf = formula.cnf
            self.pool = self.make_pool(Base(formula.sha256, lambda: (cnf.clauses, cnf.names)))
        question = question_of(formula.cnf, terms)
        return question, share(self.pool, question, budget=self.budget, cube_seconds=self.cube_seconds,
                               time_limit=time_limit)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None
