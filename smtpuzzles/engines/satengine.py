"""The SAT engine: the same formula's clausal view in a python-sat solver, under assumptions."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Callable, Sequence

import pysat

from smtpuzzles.engines import (CHILD_SOLVERS, GUIDE_CONFLICTS, CheckResult, run_interruptibly, sat_solver_class,
                                solver_with_units)
from smtpuzzles import activity
from smtpuzzles.durations import duration
from smtpuzzles.formula import Formula, Term

if TYPE_CHECKING:  # imported when a race needs it: its subprocess machinery costs every run a few ms
    from smtpuzzles.engines import child

Solver = sat_solver_class()

# Seconds a check runs on the engine's own solver, under assumptions, before it
# goes on in a fresh solver that holds the claim's literals as unit clauses. Units let the solver
# drop every clause they satisfy before it searches; assumptions leave them all in, to be visited
# on every propagation. On 16x16 the question "position 166 can exceed 5" stayed open about three
# hours on the run's Glucose (24 conflicts a second); given to a fresh Glucose as units it was
# refuted in 36 CPU seconds (117,353 conflicts), and a fresh one under assumptions slowed as the
# run's did (86,208 conflicts in 667 s). Checks shorter than this are untouched.
FRESH_AFTER = 20.0


class SatModel:
    def __init__(self, true_vars: set[int], index: dict[str, int], literals: list[int] | None = None):
        self._true = true_vars
        self._index = index
        self.literals = literals  # the solver's model as it came, every variable signed, in order

    def __getitem__(self, name: str) -> bool:
        return self._index[name] in self._true


class SatEngine:
    name = "sat"

    def __init__(self, formula: Formula, params: dict):
        if formula.cnf is None:
            raise ValueError("this encoding is arithmetic; the sat engine needs a Boolean one (use --engine z3)")
        self.params = {"solver": "glucose4", "phases": True, "guide": True, **params}
        self.version = f"python-sat {pysat.__version__} / {self.params['solver']}"
        self.solver = Solver(name=self.params["solver"], bootstrap_with=formula.cnf.clauses)
        self.cnf = formula.cnf.numbering()  # the assumptions' fresh variables are this engine's own
        self._cache: dict = {}
        self._stats_before = {}
        self._guide: list[int] = []
        self._base = formula.cnf.clauses  # for a fresh solver (see FRESH_AFTER); not copied
        self._added: list[list[int]] = []  # every clause added to the solver since
        self._phases: list[int] = []
        self._running = self.solver  # the solver the check under way runs on, for `interrupt`
        self._guard = threading.Lock()  # `interrupt` never reaches a solver being freed
        self._stopped = False
        self._idle = threading.Event()  # set while no solver call of a check runs
        self._idle.set()
        self.fresh_after = FRESH_AFTER if self.params.get("fresh", True) else None
        self._settled: set[int] = set()  # literals every later check assumes, held as unit clauses

    def check(self, assumptions: Sequence[Term], timeout: float | None) -> CheckResult:
        new_clauses: list[list[int]] = []
        lits = [self.cnf.term_literal(t, new_clauses, self._cache) for t in assumptions]
        self._add(new_clauses)
        guided, fresh = [], {}
        self._stopped, self._running = False, self.solver
        # A check that does not assume all that was settled is not this solver's to answer (its
        # units would decide it): a fresh solver without them answers it.
        outside = not self._settled <= set(lits)

        def solve():
            try:
                return ask()
            finally:
                self._idle.set()

        def ask():
            if outside:
                return self._solve_fresh(lits, fresh)
            if self._guide:
                self.solver.conf_budget(GUIDE_CONFLICTS)
                answer = self.solver.solve_limited(assumptions=lits + self._guide, expect_interrupt=True)
                self.solver.conf_budget(-1)
                if answer is True:
                    guided.append(True)
                    return True
            # An interrupt during the guided attempt stays raised, so this call returns at once.
            if self.fresh_after is None or (timeout is not None and timeout <= self.fresh_after):
                return self.solver.solve_limited(assumptions=lits, expect_interrupt=True)
            switch = threading.Timer(self.fresh_after, self.solver.interrupt)
            switch.daemon = True
            switch.start()
            try:
                answer = self.solver.solve_limited(assumptions=lits, expect_interrupt=True)
            finally:
                switch.cancel()
            if answer is not None or self._stopped:
                return answer
            return self._solve_fresh(lits, fresh)

        self._idle.clear()  # here, not in the thread: `close` must see the call before it starts
        answer, why = run_interruptibly(solve, self.interrupt, timeout)
        self._idle.set()  # (a thread a Ctrl-C kept from starting never set it)
        self.solver.clear_interrupt()
        stats = self._stats()
        if guided:
            stats["guided"] = 1
        if fresh:
            stats.update(fresh=1, **{k: stats.get(k, 0) + v for k, v in fresh["stats"].items()})
        if why == "interrupted":
            return CheckResult("interrupted", stats=stats, reason="interrupted")
        if answer is True:
            model = fresh["model"] if fresh else self.solver.get_model()
            return CheckResult("sat", model=SatModel({l for l in model if l > 0}, self.cnf.index, model), stats=stats)
        if answer is False:
            if fresh:  # units, not assumptions: no core to give
                return CheckResult("unsat", stats=stats)
            # The settled literals are units, which no core names: they are counted in, so that the
            # base with the core's assumptions is still unsatisfiable.
            core_lits = set(self.solver.get_core() or []) | self._settled
            return CheckResult("unsat", core=[i for i, l in enumerate(lits) if l in core_lits], stats=stats)
        return CheckResult("unknown", stats=stats, reason=why or "unknown")

    def _solve_fresh(self, lits: list[int], fresh: dict):
        """`_fresh_check`, told to the live views while it runs (smtpuzzles.activity): a check gone
        fresh is one that can stay open for hours, and its step comes only at its end."""
        started = time.monotonic()
        told = activity.report(lambda: self._fresh_facts(time.monotonic() - started))
        try:
            return self._fresh_check(lits, fresh)
        finally:
            activity.ended(told)

    def _fresh_facts(self, seconds: float) -> dict:
        """The fresh check under way, for the live views: its solvers (the race's other one named
        as failed once its child has) and how long it has run."""
        own, other = self.params["solver"], self.params.get("fresh_solver", self.params["solver"])
        if other not in CHILD_SOLVERS:  # no race: the run's kind of solver alone
            names, solvers = [other], other
        elif isinstance(self._running, _Race) and self._running.outside.failure is not None:
            names, solvers = [own, other], f"{own} ({other} failed)"
        else:
            names, solvers = [own, other], f"{own} and {other} racing"
        return {"fresh": {"solvers": names, "seconds": round(seconds, 1)},
                "words": f"fresh solver ({duration(seconds)}): {solvers}, the claim as units"}

    def _fresh_check(self, lits: list[int], fresh: dict):
        """The check on a fresh solver of the same kind: the base formula, every clause added since,
        and `lits` as unit clauses (see FRESH_AFTER); its model and statistics into `fresh`. It
        runs in a child process (`_solve_own`), so that stopping it is a kill, not a wait.

        With `fresh_solver` one of CHILD_SOLVERS (Kissat), two race: the run's own solver fresh
        and that one, each in a child process, on two cores; the first answer is taken and the
        other stopped. Neither is best everywhere: Kissat answered in 264 s a question Glucose had
        left open for 45 minutes, and Glucose is 1.1 to 5 times faster on others."""
        from smtpuzzles.engines import child

        self.solver.clear_interrupt()
        name = self.params.get("fresh_solver", self.params["solver"])
        if name not in CHILD_SOLVERS:
            return self._solve_own(name, lits, fresh)
        race = _Race(child.ChildSolve(name, self._base, self._added, lits))
        with self._guard:
            self._running = race
        said: dict = {}
        here_done = threading.Event()

        def ask_outside():
            try:
                said["answer"] = race.outside.run()
            except Exception as exc:  # no room for its clauses, say: the race goes on with one solver
                said["answer"], race.outside.failure = None, f"{type(exc).__name__}: {exc}"
            if said["answer"] is not None:
                # the solver here may clear an interrupt that lands as its call begins: again until it ends
                while not here_done.is_set():
                    race.stop_here()
                    here_done.wait(0.5)

        beside = threading.Thread(target=ask_outside, name="fresh-outside", daemon=True)
        beside.start()
        answer = None
        try:
            answer = self._solve_own(self.params["solver"], lits, fresh, race) if not self._stopped else None
        finally:
            here_done.set()
            if self._stopped or answer is not None:
                race.outside.interrupt()
            beside.join()
            with self._guard:
                self._running = self.solver
        if answer is None and said.get("answer") is not None:
            fresh["model"], fresh["stats"] = race.outside.model, {"outside": 1}
            return said["answer"]
        if race.outside.failure is not None:  # recorded in the step's statistics
            fresh.setdefault("stats", {})["outside_failed"] = 1
        return answer

    def _solve_own(self, name: str, lits: list[int], fresh: dict, race: "_Race | None" = None):
        """`_solve_fresh` on solver `name` in a child process, stopped through `race` when given;
        where the child failed (no room for its clauses, no process to be had, a crash: the same
        clauses then crash this process too), in this process instead (`_solve_fresh_here`)."""
        from smtpuzzles.engines import child

        solving = child.ChildSolve(name, self._base, self._added, lits, self._phases)
        try:
            if not self._register(solving, race) or self._stopped:  # stopped before it could start
                return None
            try:
                answer = solving.run()
            except Exception as exc:  # noqa: BLE001 - asked in this process below
                answer, solving.failure = None, f"{type(exc).__name__}: {exc}"
        finally:
            self._register(None, race)
        if answer is not None:
            fresh["model"], fresh["stats"] = solving.model, dict(solving.stats)
            return answer
        if solving.failure is None or self._stopped:  # stopped: no answer, but the step says it went fresh
            fresh.setdefault("stats", {})
            return None
        answer = self._solve_fresh_here(name, lits, fresh, race)
        fresh.setdefault("stats", {})["child_failed"] = 1  # asked here instead: the step says so
        return answer

    def _register(self, solver, race: "_Race | None") -> bool:
        """`solver` as the one an interrupt stops (None: the run's own again); False when the race
        was stopped before it could start."""
        if race is not None:
            return race.set_here(solver)
        with self._guard:
            self._running = self.solver if solver is None else solver
        return True

    def _solve_fresh_here(self, name: str, lits: list[int], fresh: dict, race: "_Race | None" = None):
        """`_solve_fresh` in this process, on solver `name`; stopped through `race` when given (an
        interrupt is seen between the solver's restarts: seconds to minutes on a long check)."""
        solver = solver_with_units(name, self._base, self._added, lits)
        try:
            if self._phases:
                solver.set_phases(self._phases)
            if not self._register(solver, race):
                return None
            if self._stopped:  # stopped while it was being built
                return None
            answer = solver.solve_limited(expect_interrupt=True)
            fresh["model"] = solver.get_model() if answer else None
            fresh["stats"] = dict(solver.accum_stats() or {})
            return answer
        finally:
            self._register(None, race)
            solver.delete()

    def settle(self, terms: Sequence[Term]) -> None:
        """`terms` hold in every check asked from now on (a lexicographic run's proved prefix): the
        solver holds them as unit clauses, and drops the clauses they satisfy, instead of taking
        them as assumptions on every propagation of every later check (see FRESH_AFTER)."""
        new_clauses: list[list[int]] = []
        lits = [self.cnf.term_literal(t, new_clauses, self._cache) for t in terms]
        self._add(new_clauses)
        for lit in lits:
            if lit not in self._settled:
                self.solver.add_clause([lit])
                self._settled.add(lit)

    def close(self) -> None:
        """Free the solver, once no call of a check runs on it (freed under a running call, it
        crashed the process)."""
        if self.solver is None:
            return
        for _ in range(300):
            if self._idle.wait(0.1):
                break
            self.interrupt()
        else:  # still in a call after 30 s: left to the process's end, never freed under the call
            return
        with self._guard:
            solver, self.solver = self.solver, None
            self._running = None
        solver.delete()

    def _add(self, clauses: list[list[int]]) -> None:
        for clause in clauses:
            self.solver.add_clause(clause)
        self._added += clauses

    def interrupt(self) -> None:
        """Stop the check under way from another thread (a cube another worker already settled,
        Ctrl-C, the time limit)."""
        self._stopped = True
        with self._guard:
            if self._running is not None:
                self._running.interrupt()

    def hint(self, model) -> None:
        # Phase hints towards the current best: the solver first tries the values of the last model.
        if self.params.get("phases") and isinstance(model, SatModel):
            n = len(self.cnf.names)
            literals = model.literals if model.literals is not None and len(model.literals) >= n - 1 else \
                [v if v in model._true else -v for v in range(1, n)]
            self._phases = literals[:n - 1]
            self.solver.set_phases(self._phases)

    def guide(self, guess: Callable[[], Sequence[Term]]) -> None:
        if self.params.get("guide"):
            new_clauses: list[list[int]] = []
            self._guide = [self.cnf.term_literal(t, new_clauses, self._cache) for t in guess()]
            self._add(new_clauses)

    def _stats(self) -> dict:
        now = dict(self.solver.accum_stats() or {})
        delta = {k: now[k] - self._stats_before.get(k, 0) for k in now}
        self._stats_before = now
        return delta


class _Race:
    """The two solvers of a fresh check that races (`SatEngine._solve_fresh`): `interrupt` stops
    both, `stop_here` the one in this process, never once it is freed."""

    def __init__(self, outside: "child.ChildSolve"):
        self.outside = outside
        self._here = None
        self._here_stopped = False
        self._lock = threading.Lock()

    def set_here(self, solver) -> bool:
        """The solver here (None: freed now); False if it was stopped before it could start."""
        with self._lock:
            self._here = solver
            return not self._here_stopped

    def stop_here(self) -> None:
        with self._lock:
            self._here_stopped = True
            if self._here is not None:
                self._here.interrupt()

    def interrupt(self) -> None:
        self.stop_here()
        self.outside.interrupt()
