"""A fifth objective kind, written as a plug-in author would: minimise an integer. It is this one
module; `smtpuzzles.objectives.register` makes the driver, the audit, the live view and the
run-folder reader know it (tests/test_objective_kinds.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from smtpuzzles.formula import Term
from smtpuzzles.objectives import ClaimFails, Outcome, Recorded, RefereeRejected, stopped

KIND = "min"
MODES = ("optimise",)
PROVES_PREFIX = False
BEST_IS_VALUE = True
CLAIMS = {"at_most": {"k": int}}
INTEGER_LISTS = ()


@dataclass
class IntMin:
    at_most: Callable[[int], Term]
    kind: str = KIND


def terms(objective: IntMin, claim: dict) -> list[Term]:
    return [objective.at_most(claim["k"])]


def words(claim: dict, show: Callable) -> str:
    return f"some solution needs at most {claim['k']}"


def meets(claim: dict, worth, solution: dict, same: Callable) -> bool:
    return isinstance(worth, int) and worth <= claim["k"]


def search(steer, objective: IntMin, solution: dict, best: int, mode: str, limit, advice) -> Outcome:
    """Ask for at most best - 1 until UNSAT: that step closes the run."""
    while True:
        claim = {"op": "at_most", "k": best - 1}
        result, found, value = steer.check(claim)
        if stopped(result):
            return Outcome(result, best, solution)
        if result == "unsat":
            return Outcome("optimal", best, solution, certificate={"claim": claim})
        if value > best - 1:
            raise RefereeRejected(f"the model needs {value}, the check asked for at most {best - 1}")
        best, solution = value, found
        steer.on_solution(solution, best)


def closing(run: Recorded) -> tuple[dict | None, str]:
    if run.status != "optimal":
        raise ClaimFails(f"status {run.status} is not an outcome of a {KIND} run")
    if any(value < run.best for _, value in run.witnesses):
        raise ClaimFails("optimal claimed, yet the folder holds a smaller solution")
    return {"op": "at_most", "k": run.best - 1}, f"optimal: {run.best} is the fewest"


def progress(out, steps: list[dict], bad: Callable[[dict, str], Exception]) -> None:
    for s in steps:
        if s["result"] == "sat":
            if out.best is None or s["value"] < out.best:
                out.best, out.best_step = s["value"], s["index"]
        if s["claim"]["op"] == "at_most" and s["result"] == "unsat":
            out.closed = True


def where(p, brief: bool = False) -> str | None:
    if p.best is None:
        return None
    return f"the fewest is {p.best}" if p.closed else f"{p.best} so far"
