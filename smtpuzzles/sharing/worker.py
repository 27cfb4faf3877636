"""What a worker process does with a cube: solve it within a conflict budget, and when the budget is
spent, split it by look-ahead into the cubes it returns to be queued.

Each worker keeps two solvers. One holds the base formula (loaded once) and every question's own
clauses (the fresh variables defining the claim's terms, renumbered so that questions never
collide); it only propagates, for the look-ahead, under the question's assumptions. The other is
made for the question being asked: the base, its clauses, and the claim's literals as unit
clauses; its cubes are solved there under the cube's literals, and what it learns on one cube
serves the next. Units, not assumptions (docs/sharing.md): the solver drops every clause they
satisfy, where assumptions leave them all to be visited on each propagation; on recorded 16x16
questions one solver took 2.5 times less CPU so, and a cube solved in a solver made afresh for it
learned too little to refute any.

The split (docs/sharing.md): by the clause of the base (over variables an encoder named) with fewest
literals left free under the cube, one child a case; else by one variable chosen by look-ahead, as
march and cube-and-conquer solvers choose it: for candidate variables (named, unassigned under the
cube), unit propagation of each phase; the variable whose two phases together assign most (the
product of the two counts) is split, a phase that fails propagation taken in as its negation.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from smtpuzzles.engines import sat_solver_class, solver_with_units

# Candidates scored by look-ahead at each split: more finds a better variable, each costs two
# propagations of the whole question.
CANDIDATES = 48
# The most cases a split by one clause makes (past it, a variable is split both ways).
MAX_CHAIN = 32
# Clauses of the base a split may go by: those over variables an encoder named, of 3 literals or
# more (the encoder's "one of these" groups: a cell's digit, a step's cell).
GROUP_MIN = 3
# Failed literals a split may take in before it gives up splitting the cube this time.
MAX_FAILED = 16


@dataclass(frozen=True)
class Base:
    """A base formula a worker loads once: its hash, and a call (picklable: it runs on the worker)
    returning (clauses, variable names by number)."""

    key: str
    load: Callable[[], tuple[Sequence[Sequence[int]], Sequence[str]]]


@dataclass(frozen=True)
class Question:
    """A question over a base: its key, the clauses it adds (over fresh variables past the base's),
    and its assumptions."""

    key: str
    clauses: tuple[tuple[int, ...], ...]
    assumptions: tuple[int, ...]


@dataclass
class _Loaded:
    solver: object  # the base and every question's clauses: look-ahead under assumptions
    clauses: Sequence[Sequence[int]]  # the base's, for each question's own solver
    variables: int  # the base's variables (numbered 1..variables)
    candidates: list[int]  # variables look-ahead may split: those an encoder named
    groups: list  # clauses a split may go by (GROUP_MIN)
    top: int  # the highest variable in use in the solver
    questions: dict = field(default_factory=dict)  # question key -> (its clauses, its assumptions), renumbered
    asking: tuple | None = None  # (question key, its solver: the base, its clauses, its claim as units)


_state: dict[str, _Loaded] = {}  # one base at a time: a worker serving many runs holds one formula
_lock = threading.Lock()
# Dropped before the interpreter tears its modules down: a solver freed after that prints
# "Exception ignored in __del__" from python-sat.
atexit.register(_state.clear)


def solve_cube(base: Base, question: Question, cube: tuple[int, ...], budget: int, levels: int,
               stopped: Callable[[], bool], solver_name: str = "glucose4", cap: float | None = None) -> dict:
    """One cube of `question` within `budget` conflicts: {"status": "sat" (with "model", the base's
    literals), "unsat", "open" (the budget spent: "children", each (cube, refuted by propagation),
    `levels` of look-ahead splits deep) or "stopped"}, with the conflicts, seconds and CPU seconds
    (this thread's: the machine's other load left out) it took. `cap`: CPU seconds after which the
    cube is interrupted and split as if its budget were spent (conflicts grow slower as a solver
    learns, so a budget alone lets some cubes run far past what was meant)."""
    with _lock:  # a worker's threads (Dask may run several) take turns on its solvers
        loaded = _loaded(base, solver_name)
        assumptions = _renumbered(loaded, question)
        started, cpu = time.perf_counter(), time.thread_time()
        solver = _asking(loaded, question.key, solver_name)
        before = _conflicts(solver)
        done = threading.Event()
        spent = _cpu_clock(cap)
        watcher = threading.Thread(target=_interrupt_when, args=(stopped, solver, done, spent), daemon=True)
        watcher.start()
        try:
            solver.conf_budget(budget)
            answer = solver.solve_limited(assumptions=list(cube), expect_interrupt=True)
        finally:
            done.set()
            watcher.join()
            _uninterrupted(solver)
        out = {"conflicts": _conflicts(solver) - before, "worker": os.getpid()}
        if answer is True:
            out.update(status="sat", model=solver.get_model()[:loaded.variables])
        elif answer is False:
            out.update(status="unsat")
        elif _asked(stopped):
            out.update(status="stopped")
        else:
            out.update(status="open", children=split(loaded.solver, loaded.candidates, list(assumptions), cube,
                                                     levels, loaded.groups))
        out.update(seconds=time.perf_counter() - started, cpu=time.thread_time() - cpu)
        return out


def split(solver, candidates: list[int], assumptions: list[int], cube: tuple[int, ...],
          levels: int, groups: Sequence[Sequence[int]] = ()) -> list[tuple[tuple[int, ...], bool]]:
    """The cube split by look-ahead: its children (cube, refuted by propagation). First by a clause
    of the formula (`groups`) with fewest literals left free under the cube, 2 to MAX_CHAIN, one
    child a literal (the literals before it false): the clause's cases, as even as the encoder's
    own groups are; the child with every literal false is refuted by propagation. Else by one
    variable both ways, `levels` deep. A failed literal is not split on (the tree stays shallow):
    its negation only joins the literals the look-ahead assumes under this cube."""
    if levels <= 0:
        return [(cube, False)]
    ok, assigned = solver.propagate(assumptions=assumptions + list(cube))
    if not ok:
        return [(cube, True)]
    free = _fewest_free(groups, set(assigned))
    if free is not None:
        last = cube + tuple(-x for x in free)
        children = [(cube + tuple(-x for x in free[:i]) + (x,), False) for i, x in enumerate(free)] + \
            [(last, not solver.propagate(assumptions=assumptions + list(last))[0])]
        return _widened(solver, candidates, assumptions, children, 2 ** levels, groups) if levels > 1 else children
    implied: list[int] = []
    for _ in range(MAX_FAILED + 1):
        assumed = assumptions + list(cube) + implied
        ok, assigned = solver.propagate(assumptions=assumed)
        if not ok:
            return [(cube, True)]
        var, failed = _look_ahead(solver, candidates, assumed, set(map(abs, assigned)))
        if var is None:  # nothing left to split: the cube is one assignment of the named variables
            return [(cube, False)]
        if failed is None:
            return [c for lit in (var, -var) for c in split(solver, candidates, assumptions, cube + (lit,), levels - 1)]
        implied.append(-failed)
    return [(cube, False)]


def _widened(solver, candidates, assumptions, children, want: int, groups) -> list:
    """`children` split again, first ones first, until there are `want` (a first split meant to give
    every worker a cube at once: a split by a clause makes one level, whatever the workers)."""
    queue, final = list(children), []
    while queue and len(queue) + len(final) < want:
        cube, refuted = queue.pop(0)
        below = [(cube, refuted)] if refuted else split(solver, candidates, assumptions, cube, 1, groups)
        (final if len(below) == 1 else queue).extend(below)
    return final + queue


def _fewest_free(groups: Sequence[Sequence[int]], true: set[int]) -> list[int] | None:
    """The free literals of the clause (not yet satisfied) with fewest left, 2 to MAX_CHAIN."""
    best: list[int] | None = None
    for clause in groups:
        free = []
        for x in clause:
            if x in true:
                break
            if -x not in true:
                free.append(x)
        else:
            if 2 <= len(free) <= MAX_CHAIN and (best is None or len(free) < len(best)):
                best = free
                if len(free) == 2:
                    break
    return best


def _look_ahead(solver, candidates: list[int], assumed: list[int], assigned: set[int]) -> tuple[int | None, int | None]:
    """(the variable to split, or None; a phase of it that fails propagation, or None)."""
    free = [v for v in candidates if v not in assigned]
    if not free:
        return None, None
    # An even spread over the free candidates, different at each node (the cube's length and the
    # number assigned shift it), so splits do not all look at the same few variables.
    step = max(1, len(free) // CANDIDATES)
    offset = (len(assumed) * 7919 + len(assigned)) % step
    best, best_score = None, -1
    for var in free[offset::step][:CANDIDATES]:
        counts = []
        for lit in (var, -var):
            ok, implied = solver.propagate(assumptions=assumed + [lit])
            if not ok:
                return var, lit
            counts.append(len(implied))
        score = counts[0] * counts[1] + counts[0] + counts[1]
        if score > best_score:
            best, best_score = var, score
    return best, None


def _loaded(base: Base, solver_name: str) -> _Loaded:
    Solver = sat_solver_class()

    loaded = _state.get(base.key)
    if loaded is None or getattr(loaded.solver, "_smtpuzzles_name", None) != solver_name:
        _state.clear()
        clauses, names = base.load()
        solver = Solver(name=solver_name, bootstrap_with=clauses)
        solver._smtpuzzles_name = solver_name
        named = [bool(n) and not n.startswith("_") for n in names]
        candidates = [v for v in range(1, len(names)) if named[v]]
        groups = [c for c in clauses if len(c) >= GROUP_MIN and all(named[abs(x)] for x in c)]
        loaded = _state[base.key] = _Loaded(solver, clauses, len(names) - 1, candidates, groups, len(names) - 1)
    return loaded


def _asking(loaded: _Loaded, key: str, solver_name: str):
    """The solver of question `key`: made the first time a cube of it is asked here (the one
    before it freed), with the base, the question's clauses and its assumptions as unit clauses."""
    if loaded.asking is not None and loaded.asking[0] == key:
        return loaded.asking[1]
    if loaded.asking is not None:
        loaded.asking[1].delete()
        loaded.asking = None
    clauses, assumptions = loaded.questions[key]
    solver = solver_with_units(solver_name, loaded.clauses, clauses, assumptions)
    loaded.asking = (key, solver)
    return solver


def _renumbered(loaded: _Loaded, question: Question) -> tuple[int, ...]:
    """The question's assumptions in this worker's solver, its clauses added the first time."""
    found = loaded.questions.get(question.key)
    if found is not None:
        return found[1]
    fresh: dict[int, int] = {}

    def mapped(lit: int) -> int:
        var = abs(lit)
        if var <= loaded.variables:
            return lit
        if var not in fresh:
            loaded.top += 1
            fresh[var] = loaded.top
        return fresh[var] if lit > 0 else -fresh[var]

    clauses = [[mapped(x) for x in clause] for clause in question.clauses]
    for clause in clauses:
        loaded.solver.add_clause(clause)
    assumptions = tuple(mapped(x) for x in question.assumptions)
    loaded.questions[question.key] = (clauses, assumptions)
    return assumptions


def _conflicts(solver) -> int:
    return int((solver.accum_stats() or {}).get("conflicts", 0))


def _cpu_clock(cap: float | None) -> Callable[[], bool] | None:
    """For the calling thread: a call saying whether it has spent `cap` CPU seconds from now."""
    if cap is None or not hasattr(time, "pthread_getcpuclockid"):
        return None
    clock = time.pthread_getcpuclockid(threading.get_ident())
    start = time.clock_gettime(clock)
    return lambda: time.clock_gettime(clock) - start > cap


def _interrupt_when(stopped: Callable[[], bool], solver, done: threading.Event,
                    spent: Callable[[], bool] | None = None) -> None:
    """Interrupt the solver once the coordinator says the question is settled (a SAT cube elsewhere,
    Ctrl-C, the time limit), or the cube has spent its CPU cap; a solver that cannot be interrupted
    stops at its budget instead."""
    while not done.wait(0.1):
        if _asked(stopped) or (spent is not None and spent()):
            try:
                solver.interrupt()
            except NotImplementedError:  # CaDiCaL: its budget ends the call
                pass
            return


def _asked(stopped: Callable[[], bool]) -> bool:
    try:
        return bool(stopped())
    except Exception:  # noqa: BLE001 - the coordinator's cluster going away: nobody left to say stop
        return False


def _uninterrupted(solver) -> None:
    try:
        solver.clear_interrupt()
    except NotImplementedError:
        pass


def forget() -> None:
    """Drop the solver (before the interpreter tears its modules down, which python-sat minds)."""
    _state.clear()
