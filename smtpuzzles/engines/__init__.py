"""Engines: one persistent solver over a base formula, checked again and again under assumptions.

Every engine answers `check(assumptions, timeout)` with a `CheckResult`; the driver never sees which
solver sits underneath, and the ledger records the same thing for all of them.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from smtpuzzles.errors import InputError

if TYPE_CHECKING:  # annotations only: the command line reads ENGINES without loading the formulas
    from smtpuzzles.formula import Formula, Term


class Model(Protocol):
    def __getitem__(self, name: str) -> Any: ...


@dataclass
class CheckResult:
    status: str  # "sat" | "unsat" | "unknown" | "interrupted"
    model: Model | None = None
    core: list[int] | None = None  # indices into the assumptions of an UNSAT check
    stats: dict = field(default_factory=dict)
    reason: str = ""


class Engine(Protocol):
    name: str
    version: str
    params: dict

    def check(self, assumptions: Sequence[Term], timeout: float | None) -> CheckResult: ...

    def hint(self, model: Model) -> None: ...

    def guide(self, guess: Callable[[], Sequence[Term]]) -> None: ...


# Conflicts a guided attempt may spend before the engine drops the guess and solves the check as
# asked: a guess that fits the claim is settled by propagation, one that does not fails at once.
GUIDE_CONFLICTS = 1000


# Set by the first Ctrl-C of a run; see `ctrl_c_between_steps`.
_ctrl_c = threading.Event()
# True in a batch's pool worker, which ignores Ctrl-C only while it waits for a job. An ignored
# SIGINT found anywhere else is the user's choice (a job started in the background: `cmd &` in a
# script, a service manager) and a run keeps it, as Python itself does.
_ignored_only_between_jobs = False


def ignore_ctrl_c_between_jobs() -> None:
    """For a pool worker: Ctrl-C is ignored while idle, and each job's run takes it over."""
    global _ignored_only_between_jobs
    _ignored_only_between_jobs = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def ctrl_c_between_steps():
    """Hold the first Ctrl-C until the solver call it should stop.

    A KeyboardInterrupt raised at an arbitrary line of the main thread can land inside a solver
    binding's constructor (z3's ParamsRef, say) and leave a half-made object whose destructor prints
    a traceback. While this is active the first Ctrl-C only sets a flag: the running solver call is
    stopped by `run_interruptibly`, and the next one ends at once as interrupted. A second Ctrl-C
    raises as usual, so a user can always get out. Outside the main thread it does nothing, and a
    Ctrl-C the user's shell set to be ignored stays ignored.

    SIGTERM, what `kill`, a batch scheduler's time limit or a service manager sends, is taken as a
    Ctrl-C too, ignored or not by the shell: the run is sealed `interrupted` with its best kept,
    where the default would end the process with the ledger still saying `running`.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    user_ignores = signal.getsignal(signal.SIGINT) is signal.SIG_IGN and not _ignored_only_between_jobs
    taken = [signal.SIGTERM] if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL else []
    if not user_ignores:
        taken.append(signal.SIGINT)

    def on_stop(signum, frame):
        if _ctrl_c.is_set():
            raise KeyboardInterrupt
        _ctrl_c.set()

    if _held.is_set():  # pressed while the run was being set up: it stops at its first check
        _ctrl_c.set()
    else:
        _ctrl_c.clear()
    previous = {number: signal.signal(number, on_stop) for number in taken}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _ctrl_c.clear()


def sat_solver_class():
    """python-sat's `Solver`, told that no call is made in the main thread.

    Called from the main thread, python-sat puts in a SIGINT handler of its own that jumps out of
    the C++ solver, whatever Python's handler was: a Ctrl-C that the user's shell had set to be
    ignored (`cmd &`) ended the run with exit 130, and a few in a row crashed the process (the jump
    taken in another thread, or out of a solver left half-changed). Without it, SIGINT reaches
    Python's own handler: ignored, or taken as a Ctrl-C when the call returns. Every solver call
    here is short (a conflict budget), run in a thread that `run_interruptibly` stops, or made in a
    child process its parent kills."""
    from pysat import _utils
    from pysat.solvers import Solver

    _utils.MainThread.check = staticmethod(_never)
    if not getattr(Solver.delete, "_ctrl_c_held", False):
        Solver.delete = _held_while_freeing(Solver.delete)
    return Solver


def solver_with_units(name: str, base: Sequence[Sequence[int]], added: Sequence[Sequence[int]],
                      units: Sequence[int]):
    """A python-sat solver of kind `name` holding the clauses of `base` and `added`, and each literal
    of `units` as a unit clause. A claim asked so lets the solver drop every clause it satisfies,
    where as assumptions they all stay to be visited on each propagation (satengine.FRESH_AFTER:
    hours against seconds on a 16x16 question)."""
    solver = sat_solver_class()(name=name, bootstrap_with=base)
    for clause in added:
        solver.add_clause(clause)
    for lit in units:
        solver.add_clause([lit])
    return solver


def _never() -> bool:
    return False


def _held_while_freeing(delete):
    """python-sat's `delete`, with a Ctrl-C held until it returns. Raised between the C call that
    frees the solver and python-sat forgetting its pointer, a Ctrl-C left the pointer behind, and
    the solver was freed again later (a burst of Ctrl-Cs: SIGSEGV after the run's last line). A
    Ctrl-C held here is handled as it would have been, once the solver is freed."""
    def held(self):
        # Only a Python handler can raise here (ignored, default or a C one: nothing to hold);
        # only the main thread may swap it.
        if threading.current_thread() is not threading.main_thread() or not callable(signal.getsignal(signal.SIGINT)):
            return delete(self)
        pressed = []
        previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(frame))
        try:
            return delete(self)
        finally:
            signal.signal(signal.SIGINT, previous)
            if pressed:
                previous(signal.SIGINT, pressed[0])

    held._ctrl_c_held = True
    return held


@contextmanager
def ctrl_c_held():
    """From the making of a run's folder to its seal: a Ctrl-C is never raised in the middle of
    writing it. One that comes before the run's steps (`ctrl_c_between_steps`, taken inside this)
    is kept, and stops the run at its first check; one that comes once the run is stopped is let
    pass while it is sealed and closed. A burst of Ctrl-Cs (a key held down repeats every 30 ms)
    had raised one inside the seal, or before the run began, and left the folder saying
    `running`. Outside the main thread, or with Ctrl-C ignored by the user, it does nothing."""
    _held.clear()
    # (A handler not set from Python reads as None and could not be put back: left alone too.)
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) in (
            signal.SIG_IGN, None):
        yield
        return
    previous = signal.signal(signal.SIGINT, _hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_held = threading.Event()  # a Ctrl-C came while `ctrl_c_held` was on


def _hold(signum, frame) -> None:
    _held.set()


def ctrl_c_pressed() -> bool:
    """Whether the run's first Ctrl-C is waiting to stop it (for waits that are not solver calls)."""
    return _ctrl_c.is_set()


def press_ctrl_c() -> None:
    """Stop the run under way as its first Ctrl-C would (from another thread: `batch --stop`)."""
    _ctrl_c.set()


def _stopped(thread: threading.Thread, returned: threading.Event, stop: Callable[[], None]) -> None:
    """Stop the solver call under way and wait until it has `returned`: `stop` sent again until the
    call has seen it, and never left early. A later Ctrl-C (a key held down) that ended this wait
    left the call running while the run went on to free its solver, which crashed the process
    (SIGSEGV, or a corrupted heap). The wait is on an event of our own, not Thread.join: a join
    interrupted by a Ctrl-C marks the thread as ended while it runs on (CPython 3.11). A thread a
    Ctrl-C kept from starting at all is waited for a second."""
    unstarted = 0
    while not returned.is_set() and unstarted < 10:
        try:
            stop()
            returned.wait(0.1)
            unstarted = 0 if thread.is_alive() else unstarted + 1
        except KeyboardInterrupt:
            continue


def run_interruptibly(work: Callable[[], Any], stop: Callable[[], None], timeout: float | None):
    """Run a native solver call in a thread so that Ctrl-C and time limits can stop it.

    Returns (value, why) where why is "", "timeout" or "interrupted". Native solvers do not look at
    Python's signal flag; the main thread waits here and calls `stop` on their behalf.
    """
    if _ctrl_c.is_set():
        return None, "interrupted"
    box: dict = {}
    returned = threading.Event()

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed back to the caller's thread
            box["error"] = exc
        finally:
            returned.set()

    thread = threading.Thread(target=target, daemon=True)
    timer = None
    try:
        thread.start()
        if timeout is not None:
            def on_timeout() -> None:
                box.setdefault("why", "timeout")
                stop()
            timer = threading.Timer(timeout, on_timeout)
            timer.daemon = True
            timer.start()
        while not returned.wait(0.05):
            if _ctrl_c.is_set():
                raise KeyboardInterrupt
            if "why" in box:
                stop()  # again: a solver call that began after the first (a guided try, then the
                # check itself) may have cleared it; a SIGTERM took 80 s to stop a 16x16 run
    except KeyboardInterrupt:
        box["why"] = "interrupted"
    finally:
        _stopped(thread, returned, stop)  # here too when a Ctrl-C lands anywhere above
        if timer is not None:
            timer.cancel()
    if "error" in box:
        raise box["error"]
    why = box.get("why", "")
    return box.get("value"), why


# Every engine parameter a run may carry, with its type and the values it may take. Parameters reach
# a solver only through this table: a run folder is data written by anyone, and a solver option such
# as z3's `smtlib2_log` writes files, so nothing outside the table is ever passed on.
ENGINES = ("z3", "sat")
# python-sat back ends that support what the sat engine uses: assumptions, conflict budgets, phases
# and interrupts (CaDiCaL and Kissat cannot be interrupted from Python, so time limits would not hold).
SAT_SOLVERS = ("glucose4", "glucose42", "glucose3", "minisat22", "maplesat", "maplecm", "maplechrono")
# Back ends a long check may go on in, fresh, in a child process that is killed to stop it
# (smtpuzzles.engines.child): Kissat can be neither interrupted nor budgeted from Python.
CHILD_SOLVERS = ("kissat404",)
PARAMS: dict[str, dict[str, tuple[type, object]]] = {
    "z3": {"guide": (bool, None), "random_seed": (int, (0, 2**32 - 1))},
    "sat": {"fresh": (bool, None), "guide": (bool, None), "phases": (bool, None), "solver": (str, SAT_SOLVERS),
            # the solver a long check goes on in, fresh (satengine.FRESH_AFTER); those that cannot be
            # stopped from Python run in a child process (smtpuzzles.engines.child)
            "fresh_solver": (str, SAT_SOLVERS + CHILD_SOLVERS)},
}


def check_params(engine: str, params, where: str = "params") -> dict:
    """`params` checked against the engine's table: known names, right types, allowed values."""
    if engine not in PARAMS:
        raise InputError(f"unknown engine {engine!r} (one of {', '.join(ENGINES)})", where)
    if not isinstance(params, dict):
        raise InputError(f"engine parameters must be a table, not {type(params).__name__}", where)
    known = PARAMS[engine]
    for key, value in params.items():
        if key not in known:
            raise InputError(f"unknown {engine} engine parameter {key!r} (known: {', '.join(sorted(known))})", where)
        kind, allowed = known[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise InputError(f"engine parameter {key} must be {kind.__name__}, not {value!r}"[:200], where)
        if isinstance(allowed, tuple) and kind is int and not allowed[0] <= value <= allowed[1]:
            raise InputError(f"engine parameter {key} must be in {allowed[0]}..{allowed[1]}, not {value}", where)
        if isinstance(allowed, tuple) and kind is str and value not in allowed:
            raise InputError(f"engine parameter {key} must be one of {', '.join(allowed)}, not {value!r}"[:200], where)
    return dict(params)


def with_fresh_solver(engine: str | None, params: dict | None, fresh_solver: str | None) -> dict | None:
    """A run's engine parameters with `--fresh-solver` changing the solver its long checks go on
    in (how a check is asked, not what is claimed), its value checked and named as the flag;
    `engine` None for a new run whose engine is chosen later (make_engine then checks the rest)."""
    if fresh_solver is None:
        return params
    if engine not in (None, "sat"):
        raise InputError(f"it is for runs on the sat engine; this one runs on {engine}", "--fresh-solver")
    return {**(params or {}), **check_params("sat", {"fresh_solver": fresh_solver}, "--fresh-solver")}


def make_engine(name: str, formula: Formula, params: dict | None = None) -> Engine:
    params = check_params(name, dict(params or {}))
    if name == "z3":
        from smtpuzzles.engines.z3engine import Z3Engine

        return Z3Engine(formula, params)
    if name == "sat":
        from smtpuzzles.engines.satengine import SatEngine

        return SatEngine(formula, params)
    raise ValueError(f"unknown engine {name!r} (z3 or sat)")
