"""Integer maximum: the most of something (players out, gold taken). The objective, its
claim "some solution reaches at least k", the climb (or descent from a ceiling) that ends at an
UNSAT bound, the claim that closes an optimal run, and how far a run has come."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from smtpuzzles.durations import duration
from smtpuzzles.formula import Term

from .base import ClaimFails, Outcome, Recorded, RefereeRejected, stopped

KIND = "max"
MODES = ("optimise",)
PROVES_PREFIX = False
BEST_IS_VALUE = True
CLAIMS = {"at_least": {"k": int}}
INTEGER_LISTS = ()


@dataclass
class IntMax:
    """Maximise an integer count: bounds asked as checks, closed by UNSAT at best + 1."""

    at_least: Callable[[int], Term]
    upper: int | None = None
    # Ask upper, upper - 1, ... before climbing: for a small known ceiling where low bounds are slow
    # to satisfy (skipped when the encoding's guess gave the first model). Either way the
    # certificate is the UNSAT step at best + 1.
    descend: bool = False
    kind: str = KIND


def terms(objective: IntMax, claim: dict) -> list[Term]:
    return [objective.at_least(claim["k"])]


def words(claim: dict, show: Callable) -> str:
    return f"some solution reaches at least {claim['k']}"


def meets(claim: dict, worth, solution: dict, same: Callable) -> bool:
    return isinstance(worth, int) and worth >= claim["k"]


def search(steer, objective: IntMax, solution: dict, best: int, mode: str, limit, advice) -> Outcome:
    """Climb: ask for at least best + 1 until UNSAT; that last UNSAT query is the certificate.
    With `descend`, first ask the ceiling and each bound below it down to best + 1, stopping at the
    first SAT answer: when the bound just above it was refuted, that step is the certificate;
    otherwise (SAT at the ceiling itself) the climb goes on from there. A first model that came from
    the encoding's guess is usually optimal already, so then the climb starts at once: every bound
    refuted above best + 1 would be a proof that the one at best + 1 makes redundant."""
    if objective.descend and objective.upper is not None and not steer.guided:
        refuted = None  # the lowest bound refuted so far
        for k in range(objective.upper, best, -1):
            result, found, value = steer.check({"op": "at_least", "k": k})
            if stopped(result):
                return Outcome(result, best, solution)
            if result == "unsat":
                refuted = k
                continue
            if refuted is not None and value >= refuted:
                raise RefereeRejected(f"the model is worth {value}, yet at least {refuted} was refuted")
            best, solution = _improved(steer, k, found, value)
            break
        if refuted == best + 1:
            return Outcome("optimal", best, solution, certificate={"claim": {"op": "at_least", "k": refuted}})
    while True:
        claim = {"op": "at_least", "k": best + 1}
        result, found, value = steer.check(claim)
        if stopped(result):
            return Outcome(result, best, solution)
        if result == "unsat":
            return Outcome("optimal", best, solution, certificate={"claim": claim})
        best, solution = _improved(steer, best + 1, found, value)


def _improved(steer, k: int, found: dict, value: int) -> tuple[int, dict]:
    """A SAT answer to "at least k": its refereed value must reach k; it becomes the best."""
    if value < k:
        raise RefereeRejected(f"the model is worth {value}, the check asked for at least {k}")
    steer.on_solution(found, value)
    return value, found


def closing(run: Recorded) -> tuple[dict | None, str]:
    """An optimal count must have had one more refuted: "some solution reaches best + 1"."""
    if run.status != "optimal":
        raise ClaimFails(f"status {run.status} is not an outcome of a {KIND} run")
    better = [label for label, value in run.witnesses if value > run.best]
    if better:
        raise ClaimFails(f"optimal claimed, yet {better[0]} holds a better solution")
    return {"op": "at_least", "k": run.best + 1}, f"optimal: {run.best} is the most, {run.best + 1} cannot be reached"


def progress(out, steps: list[dict], bad: Callable[[dict, str], Exception]) -> None:
    """The best count, the lowest bound refuted, and the bounds left between them."""
    refuted = []
    for s in steps:
        if s["result"] == "sat":
            value = s.get("value")
            if not isinstance(value, int) or isinstance(value, bool):
                raise bad(s, "a sat step's value is not an integer")
            if out.best is None or value > out.best:
                out.best, out.best_step = value, s["index"]
        if s["claim"]["op"] == "at_least" and s["result"] == "unsat" and "cube" not in s["claim"]:
            refuted.append(s["claim"]["k"])
    out.lower = out.best
    if refuted:
        out.upper = min(refuted) - 1
    if out.lower is not None and out.upper is not None:
        out.closed = out.upper <= out.lower
        left = max(out.upper - out.lower, 0)
        per_check = 60 / out.rate_recent if out.rate_recent else None
        if out.closed:
            out.remaining, out.remaining_why = 0.0, "none: the bound above the best is refuted"
        elif per_check is not None:
            out.remaining = left * per_check
            out.remaining_why = f"at most {left} bounds x {duration(per_check)} (recent mean)"


def where(p, brief: bool = False) -> str | None:
    if p.lower is None:
        return None
    top = "not yet bounded" if p.upper is None else str(max(p.upper, p.lower))
    return f"the optimum lies in {p.lower}..{top}" if top != str(p.lower) else f"the optimum is {p.lower}"
