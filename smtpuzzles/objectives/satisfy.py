"""Satisfy: find a solution, and in mode `unique` or `count` block each one found until no other is
left. The objective, its claim "a solution other than these", the blocking loop, the
claim that closes a unique or counted run, and the solutions found so far."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from smtpuzzles.formula import Term

from .base import ClaimFails, Outcome, Recorded, stopped

KIND = "satisfy"
MODES = ("solve", "unique", "count")
PROVES_PREFIX = False
BEST_IS_VALUE = False  # the first solution's value: nothing climbs
CLAIMS = {"block": {"solutions": list}}
INTEGER_LISTS = ()
EXTRA = ("unique", "count", "count_complete")


@dataclass
class Satisfy:
    """Find a solution; optionally prove it unique or count solutions by blocking each one found."""

    block: Callable[[Any], Term]  # a term that excludes this solution (and its equals)
    kind: str = KIND


def terms(objective: Satisfy, claim: dict) -> list[Term]:
    return [objective.block(s) for s in claim["solutions"]]


def words(claim: dict, show: Callable) -> str:
    n = len(claim["solutions"])
    return f"there is a solution other than the {n} found" if n > 1 else "there is a solution other than the one found"


def meets(claim: dict, worth, solution: dict, same: Callable) -> bool:
    return all(isinstance(other, dict) and same(solution, other, "a block claim") is False
               for other in claim["solutions"])


def search(steer, objective: Satisfy, solution: dict, value, mode: str, limit: int | None, advice) -> Outcome:
    """Block each solution found until none is left, or the mode's question is answered (the advice
    has nothing for this kind)."""
    if mode == "solve":
        return Outcome("solved", value, solution)
    found = [solution]
    while True:
        if mode == "unique" and len(found) == 2:
            return Outcome("solved", value, solution, extra={"unique": False, "other": found[1]})
        if mode == "count" and limit is not None and len(found) >= limit:
            return Outcome("solved", value, solution, extra={"count": len(found), "count_complete": False})
        claim = {"op": "block", "solutions": list(found)}
        result, other, _ = steer.check(claim)
        if stopped(result):
            return Outcome(result, value, solution, extra={"count": len(found)})
        if result == "unsat":
            extra = {"unique": len(found) == 1} if mode == "unique" else {"count": len(found), "count_complete": True}
            return Outcome("solved", value, solution, certificate={"claim": claim}, extra=extra)
        found.append(other)


def unfinished(run: Recorded) -> None:
    """A count so far must be the number of different solutions recorded."""
    count = run.extra.get("count")
    if count is not None and count != len(run.distinct):
        raise ClaimFails(f"a count of {count} so far, but the recorded models differ")


def closing(run: Recorded) -> tuple[dict | None, str]:
    """Unique: no solution other than the one found; an exact count: none other than those found."""
    if run.status != "solved":
        raise ClaimFails(f"status {run.status} is not an outcome of a {KIND} run"
                         if run.status != "optimal" else f"optimal claimed for a run with nothing to optimise ({KIND})")
    extra, distinct = run.extra, run.distinct
    if run.mode == "unique" and extra.get("unique") is True:
        if len(distinct) != 1:
            raise ClaimFails(f"unique claimed, yet {len(distinct)} different solutions are recorded")
        return {"op": "block", "solutions": [run.solution]}, "unique: no solution other than the one found"
    if run.mode == "unique" and extra.get("unique") is False:
        if len(distinct) < 2:
            raise ClaimFails("not unique claimed without two different recorded solutions")
        return None, "not unique: two different solutions recorded"
    if run.mode == "count":
        count = extra.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count != len(distinct) or len(distinct) != len(run.found):
            raise ClaimFails(f"count {run.short(count)} claimed, but {len(distinct)} different solutions are recorded"
                             + (f" among {len(run.found)} models" if len(distinct) != len(run.found) else ""))
        if extra.get("count_complete") is True:
            return {"op": "block", "solutions": list(run.found)}, f"exactly {count} solutions"
        return None, f"at least {count} solutions (the count stopped at its limit)"
    if run.mode == "solve" and not set(EXTRA) & set(extra):
        return None, "solved: the recorded solution passes the referee"
    raise ClaimFails(f"status solved with {', '.join(sorted(extra)) or 'nothing'} recorded does not fit mode {run.mode}")


def progress(out, steps: list[dict], bad: Callable[[dict, str], Exception]) -> None:
    out.found = sum(1 for s in steps if s["result"] == "sat")
    out.best = next((s.get("value") for s in steps if s["result"] == "sat"), None)
    out.closed = any(s["claim"]["op"] == "block" and s["result"] == "unsat" for s in steps)


def where(p, brief: bool = False) -> str | None:
    if not p.found:
        return None
    return f"{p.found} solution{'s' if p.found > 1 else ''} found" + (", no more" if p.closed else "")
