"""The z3 engine: the base formula parsed from its SMT-LIB2 text into one incremental solver."""

from __future__ import annotations

from typing import Callable, Sequence

import z3

from smtpuzzles.engines import GUIDE_CONFLICTS, CheckResult, run_interruptibly
from smtpuzzles.formula import Formula, Term, smt2


class Z3Model:
    def __init__(self, model: z3.ModelRef, consts: dict):
        self._model = model
        self._consts = consts

    def __getitem__(self, name: str):
        value = self._model.eval(self._consts[name], model_completion=True)
        if z3.is_true(value):
            return True
        if z3.is_false(value):
            return False
        return value.as_long()


class Z3Engine:
    name = "z3"

    def __init__(self, formula: Formula, params: dict):
        self.version = z3.get_version_string()
        # Let Python see Ctrl-C (z3 would otherwise swallow it and answer `unknown`); the waiting
        # thread then interrupts the solver and the run ends `interrupted`, not `unknown`.
        try:
            z3.set_param("ctrl_c", False)
        except z3.Z3Exception:
            pass
        self.params = {"guide": True, **params}
        # Boolean and finite-domain problems go to z3's SAT core (the formula says when it suits);
        # unbounded arithmetic to the default solver.
        self.solver = z3.SolverFor(formula.z3_solver) if formula.z3_solver else z3.Solver()
        for key, value in self.params.items():
            if key != "guide":  # ours, not z3's
                self.solver.set(key, value)
        self.solver.from_string(formula.document())
        self._consts = {
            n: (z3.Bool(n) if sort == "Bool" else z3.Int(n)) for n, sort in formula.decls.items()
        }
        self._decls = None
        self._activations: dict[Term, z3.BoolRef] = {}
        self._guide: list = []

    def _expr(self, term: Term):
        kind = term[0]
        if kind == "lit":
            c = self._consts[term[1]]
            return c if term[2] else z3.Not(c)
        if kind == "and":
            return z3.And([self._expr(t) for t in term[1]]) if term[1] else z3.BoolVal(True)
        if kind == "or":
            return z3.Or([self._expr(t) for t in term[1]]) if term[1] else z3.BoolVal(False)
        if self._decls is None:
            self._decls = {n: c.decl() for n, c in self._consts.items()}
        return z3.parse_smt2_string(f"(assert {smt2(term)})", decls=self._decls)[0]

    def _activation(self, term: Term) -> z3.BoolRef:
        act = self._activations.get(term)
        if act is None:
            act = z3.Bool(f"_act{len(self._activations)}")
            self.solver.add(z3.Implies(act, self._expr(term)))
            self._activations[term] = act
        return act

    def check(self, assumptions: Sequence[Term], timeout: float | None) -> CheckResult:
        acts = [self._activation(t) for t in assumptions]
        # z3 keeps its own timer; the thread wrapper adds Ctrl-C (z3's interrupt is thread-safe).
        # At least 1 ms: z3 would read a limit rounded down to 0 as "no limit".
        self.solver.set("timeout", max(1, int(timeout * 1000)) if timeout is not None else 4294967295)
        guided = []

        def solve():
            if self._guide:
                self.solver.set("max_conflicts", GUIDE_CONFLICTS)
                answer = self.solver.check(*acts, *self._guide)
                self.solver.set("max_conflicts", 4294967295)
                if answer == z3.sat:
                    guided.append(True)
                    return answer
                if answer == z3.unknown and "conflicts" not in self.solver.reason_unknown():
                    return answer  # stopped by the time limit or Ctrl-C, not by the budget
            return self.solver.check(*acts)

        answer, why = run_interruptibly(solve, self.solver.interrupt, None)
        stats = self._stats()
        if guided:
            stats["guided"] = 1
        if why == "interrupted":
            return CheckResult("interrupted", stats=stats, reason="interrupted")
        if answer == z3.sat:
            return CheckResult("sat", model=Z3Model(self.solver.model(), self._consts), stats=stats)
        if answer == z3.unsat:
            core_set = {str(c) for c in self.solver.unsat_core()}
            core = [i for i, a in enumerate(acts) if str(a) in core_set]
            return CheckResult("unsat", core=core, stats=stats)
        # Only the waiting thread's KeyboardInterrupt (above) is a Ctrl-C: z3 never sees the
        # signal (ctrl_c is off). z3's default solver says "canceled" when its own timer fires, so
        # any reason here, "canceled" included, is the time limit or a give-up: unknown.
        reason = self.solver.reason_unknown() or "unknown"
        if "cancel" in reason:
            reason = "timeout"
        return CheckResult("unknown", stats=stats, reason=reason)

    def interrupt(self) -> None:
        """Stop the check under way from another thread (a cube another worker already settled)."""
        self.solver.interrupt()

    def hint(self, model) -> None:
        """z3 offers no cheap phase interface from Python; nothing to do."""

    def guide(self, guess: Callable[[], Sequence[Term]]) -> None:
        if self.params.get("guide"):
            self._guide = [self._expr(t) for t in guess()]

    def _stats(self) -> dict:
        out = {}
        stats = self.solver.statistics()
        for key in stats.keys():
            if key in ("conflicts", "decisions", "propagations", "sat conflicts", "sat decisions",
                       "sat propagations 2ary", "sat propagations nary", "max memory"):
                out[key] = stats.get_key_value(key)
        return out
