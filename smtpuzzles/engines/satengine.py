"""The SAT engine: the same formula's clausal view in a python-sat solver, under assumptions."""

from __future__ import annotations

from typing import Callable, Sequence

import pysat

from smtpuzzles.engines import GUIDE_CONFLICTS, CheckResult, run_interruptibly, sat_solver_class
from smtpuzzles.formula import Formula, Term

Solver = sat_solver_class()


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

    def check(self, assumptions: Sequence[Term], timeout: float | None) -> CheckResult:
        new_clauses: list[list[int]] = []
        lits = [self.cnf.term_literal(t, new_clauses, self._cache) for t in assumptions]
        for clause in new_clauses:
            self.solver.add_clause(clause)
        guided = []

        def solve():
            if self._guide:
                self.solver.conf_budget(GUIDE_CONFLICTS)
                answer = self.solver.solve_limited(assumptions=lits + self._guide, expect_interrupt=True)
                self.solver.conf_budget(-1)
                if answer is True:
                    guided.append(True)
                    return True
            # An interrupt during the guided attempt stays raised, so this call returns at once.
            return self.solver.solve_limited(assumptions=lits, expect_interrupt=True)

        answer, why = run_interruptibly(solve, self.solver.interrupt, timeout)
        self.solver.clear_interrupt()
        stats = self._stats()
        if guided:
            stats["guided"] = 1
        if why == "interrupted":
            return CheckResult("interrupted", stats=stats, reason="interrupted")
        if answer is True:
            model = self.solver.get_model()
            return CheckResult("sat", model=SatModel({l for l in model if l > 0}, self.cnf.index, model), stats=stats)
        if answer is False:
            core_lits = set(self.solver.get_core() or [])
            return CheckResult("unsat", core=[i for i, l in enumerate(lits) if l in core_lits], stats=stats)
        return CheckResult("unknown", stats=stats, reason=why or "unknown")

    def interrupt(self) -> None:
        """Stop the check under way from another thread (a cube another worker already settled)."""
        self.solver.interrupt()

    def hint(self, model) -> None:
        # Phase hints towards the current best: the solver first tries the values of the last model.
        if self.params.get("phases") and isinstance(model, SatModel):
            n = len(self.cnf.names)
            literals = model.literals if model.literals is not None and len(model.literals) >= n - 1 else \
                [v if v in model._true else -v for v in range(1, n)]
            self.solver.set_phases(literals[:n - 1])

    def guide(self, guess: Callable[[], Sequence[Term]]) -> None:
        if self.params.get("guide"):
            new_clauses: list[list[int]] = []
            self._guide = [self.cnf.term_literal(t, new_clauses, self._cache) for t in guess()]
            for clause in new_clauses:
                self.solver.add_clause(clause)

    def _stats(self) -> dict:
        now = dict(self.solver.accum_stats() or {})
        delta = {k: now[k] - self._stats_before.get(k, 0) for k in now}
        self._stats_before = now
        return delta
