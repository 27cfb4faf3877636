"""Lexicographic maximum: a vector of small ints, position 0 most significant (a number read digit
by digit). Everything this kind means lives here: the objective a puzzle hands
over, the claims it asks, the search that raises one position at a time, the claim that closes a
finished run, and how far a run has come, read from its steps."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from smtpuzzles.durations import duration
from smtpuzzles.formula import Term, all_of, any_of

from .base import ClaimFails, Outcome, Recorded, RefereeRejected, stopped

KIND = "lex"
# The claims it asks, and their fields: "with `prefix` fixed, position `pos` can exceed `than`", and
# the closing one, "some vector beats `best`".
MODES = ("optimise",)  # the run modes this kind answers
PROVES_PREFIX = True  # a run proves leading positions one by one: the pictures show them bright
BEST_IS_VALUE = True  # the best so far is a value of the objective, written as the puzzle writes values
CLAIMS = {"exceed": {"prefix": list, "pos": int, "than": int}, "lex_greater": {"best": list}}
INTEGER_LISTS = ("prefix", "best")
RECENT_POSITIONS = 5  # closed positions the time per position is averaged over


@dataclass
class LexMax:
    """Maximise a vector of small ints lexicographically (position 0 most significant)."""

    length: int
    domain: Sequence[int]
    greater: Callable[[int, int], Term]  # position i holds a value > d
    equal: Callable[[int, int], Term]  # position i holds d
    # How many times each value occurs in every feasible vector (a Latin square read in any order
    # holds each digit N times): lets the search close a position whose value is the largest one left.
    multiplicity: dict[int, int] | None = None
    kind: str = KIND
    # How the puzzle writes a vector, for the words of each step (default: `vector_text`).
    show: Callable[[Sequence[int]], str] | None = None

    def prefix_terms(self, prefix: Sequence[int]) -> list[Term]:
        return [self.equal(i, d) for i, d in enumerate(prefix)]

    def lex_greater(self, best: Sequence[int]) -> Term:
        """The whole vector is lexicographically greater than `best`, as one formula."""
        options = []
        for i, d in enumerate(best):
            if d < max(self.domain):
                options.append(all_of(self.prefix_terms(best[:i]) + [self.greater(i, d)]))
        return any_of(options)


# ------------------------------------------------------------------------------------------ claims
def terms(objective: LexMax, claim: dict) -> list[Term]:
    if claim["op"] == "exceed":
        return objective.prefix_terms(claim["prefix"]) + [objective.greater(claim["pos"], claim["than"])]
    return [objective.lex_greater(claim["best"])]


def words(claim: dict, show: Callable) -> str:
    if claim["op"] == "exceed":
        prefix = show(claim["prefix"]) or "(empty)"
        return f"with prefix {prefix}, position {claim['pos'] + 1} can exceed {claim['than']}"
    return f"some solution beats {show(claim['best'])} lexicographically"


def meets(claim: dict, worth, solution: dict, same: Callable) -> bool:
    """Whether a model worth `worth` is an answer to the claim."""
    if claim["op"] == "exceed":
        k = claim["pos"]
        return isinstance(worth, list) and 0 <= k < len(worth) and list(worth[:k]) == claim["prefix"] \
            and worth[k] > claim["than"]
    return isinstance(worth, list) and list(worth) > claim["best"]


# ------------------------------------------------------------------------------------------ search
def search(steer, objective: LexMax, solution: dict, best: list[int], mode: str, limit, advice) -> Outcome:
    """Position by position, with the proved prefix fixed. A position already at the largest value
    with copies left needs no solver call (a `bound` step). Otherwise, by the advice's order
    (smtpuzzles.advice.ORDERS):

    - `descend` (the default): ask for the largest value left there, then the one below, down to
      the best value's: the first SAT answer is the position's maximum, and if none comes the best
      value is. Where SAT answers cost far more than UNSAT ones (scripts/bench_kingtour.py), this
      asks at most one SAT question per position;
    - `leap` (runs made while it was the default): ask for more than the best value first, and
      descend from the top only after that raised it;
    - `climb` (runs recorded before): ask for more than the best value until UNSAT, one SAT answer
      per step up.
    Each run records its order: a resume must ask the same questions in the same order. The closing
    claim is closed by its cases where the advice says so."""
    how = advice.order
    prefix: list[int] = []

    def ask(than: int) -> str:
        nonlocal best, solution
        claim = {"op": "exceed", "prefix": list(prefix), "pos": len(prefix), "than": than}
        result, found, value = steer.check(claim)
        if result == "sat":
            i = len(prefix)
            if not (value[:i] == best[:i] and value[i] > than):
                raise RefereeRejected(f"the model does not meet the claim at position {i + 1}")
            best, solution = value, found
            steer.on_solution(solution, best)
        return result

    def settle(value: int) -> None:
        """The position's value is proved: every later question assumes it."""
        steer.settled([objective.equal(len(prefix), value)])
        prefix.append(value)

    def ended(result: str) -> Outcome:
        return Outcome(result, best, solution, extra={"proved_digits": len(prefix)})

    while len(prefix) < objective.length:
        i = len(prefix)
        top = _largest_left(objective, prefix)
        if best[i] >= top:
            claim = {"op": "exceed", "prefix": list(prefix), "pos": i, "than": best[i]}
            steer.close_by_bound(claim, f"{best[i]} is the largest value with copies left after the prefix")
            settle(best[i])
            continue
        if how != "descend":
            result = ask(best[i])
            if stopped(result):
                return ended(result)
            if result == "unsat":
                settle(best[i])
                continue
            if how == "climb" or best[i] >= top:
                continue  # ask again above the new value (at the top: closed by the bound)
        than = top - 1
        while than >= best[i]:
            result = ask(than)  # "at least than + 1"; every value above it refuted already
            if stopped(result):
                return ended(result)
            if result == "sat":
                break
            than -= 1
        if best[i] < top:  # at the top the next round closes it by the bound, as a climb would
            settle(best[i])
    closing = {"op": "lex_greater", "best": list(best)}
    # "Greater than best" is "first greater at position i" for some i: each of those was refuted
    # as position i closed, so where the advice says so the closing claim needs no solver. A run
    # whose cases are not all recorded asks the solver.
    if not steer.close_by_cases(closing, cases(objective, best)):
        result, _, _ = steer.check(closing)
        if result == "sat":
            raise RefereeRejected("the closing certificate found a better vector after every position was closed")
        if stopped(result):
            return ended(result)
    return Outcome("optimal", best, solution, certificate={"claim": closing}, extra={"proved_digits": len(prefix)})


def cases(objective: LexMax, best: Sequence[int]) -> list[dict]:
    """The claims whose disjunction is "lex_greater best", in the order of LexMax.lex_greater's
    options: position i is the first to exceed best's, for each i where best's value is not the
    largest of the domain."""
    top = max(objective.domain)
    return [{"op": "exceed", "prefix": list(best[:i]), "pos": i, "than": d} for i, d in enumerate(best) if d < top]


def _largest_left(objective: LexMax, prefix: list[int]) -> int:
    if not objective.multiplicity:
        return max(objective.domain)
    used: dict[int, int] = {}
    for d in prefix:
        used[d] = used.get(d, 0) + 1
    left = [d for d in objective.domain if used.get(d, 0) < objective.multiplicity.get(d, 0)]
    return max(left) if left else max(objective.domain)


# ----------------------------------------------------------------------------------------- closing
def closing(run: Recorded) -> tuple[dict | None, str]:
    """An optimal vector must have had every better one refuted: "some vector beats it"."""
    if run.status != "optimal":
        raise ClaimFails(f"status {run.status} is not an outcome of a {KIND} run")
    better = [label for label, value in run.witnesses if value > list(run.best)]
    if better:
        raise ClaimFails(f"optimal claimed, yet {better[0]} holds a better solution")
    return {"op": "lex_greater", "best": list(run.best)}, f"optimal: nothing beats {run.short(run.shown(run.best), 24)}"


# ---------------------------------------------------------------------------------------- progress
def progress(out, steps: list[dict], bad: Callable[[dict, str], Exception]) -> None:
    """The vector's length, the best vector, the proved prefix, and the time per position."""
    per_position: dict[int, float] = {}
    refuted: set[tuple] = set()  # (prefix, position, than) of the UNSAT questions
    for s in steps:
        claim = s["claim"]
        if s["result"] == "sat":
            value = s.get("value")
            if not (isinstance(value, list) and value and all(isinstance(d, int) and not isinstance(d, bool)
                                                              for d in value)):
                raise bad(s, "a sat step's value is not a vector of integers")
            if out.length is None:
                out.length = len(value)
            elif len(value) != out.length:
                raise bad(s, f"a sat step's vector has {len(value)} positions, the first had {out.length}")
            if out.best is None or value > out.best:
                out.best, out.best_step = value, s["index"]
        if claim["op"] == "exceed":
            pos = claim["pos"]
            if out.length is None or not 0 <= pos < out.length:
                raise bad(s, f"the claim's position {pos} is outside the vector")
            per_position[pos] = per_position.get(pos, 0.0) + float(s.get("seconds", 0))
            # A question at a position stands on a proved prefix. An UNSAT answer closes its
            # position when it refutes more than the best value there; refutations from the top
            # down leave it open until a SAT answer lands just below one of them. One refuted cube
            # proves nothing.
            prefix = claim.get("prefix")
            if isinstance(prefix, list):
                out.proved = max(out.proved, len(prefix))
            if "cube" in claim or not isinstance(prefix, list):
                continue
            asked = (tuple(prefix), pos, claim.get("than"))
            if s["result"] == "unsat":
                refuted.add(asked)
                if out.best is not None and claim.get("than") == out.best[pos]:
                    out.proved = max(out.proved, pos + 1)
            elif s["result"] == "sat" and isinstance(asked[2], int) and (asked[0], pos, asked[2] + 1) in refuted \
                    and out.best is not None and out.best[pos] == asked[2] + 1:
                out.proved = max(out.proved, pos + 1)  # descending: everything above it was refuted
        elif claim["op"] == "lex_greater":
            if out.length is not None:
                out.proved = out.length  # the search asks it only once every position is closed
            if s["result"] == "unsat" and "cube" not in claim:
                out.closed = True
    if out.length is not None:
        _remaining(out, per_position)


def _remaining(out, per_position: dict[int, float]) -> None:
    out.current_seconds = per_position.get(out.proved, 0.0)
    closed = [per_position.get(p, 0.0) for p in range(max(0, out.proved - RECENT_POSITIONS), out.proved)]
    left = out.length - out.proved
    if closed:
        out.per_position = sum(closed) / len(closed)
        out.positions_averaged = len(closed)
    if out.closed:
        out.remaining, out.remaining_why = 0.0, "none: the closing check is refuted"
    elif left == 0:
        out.remaining_why = "every position is proved; the closing check is left"
    elif out.per_position == 0:
        out.remaining_why = "only positions closed by the bound so far, which cost nothing"
    elif out.per_position is not None:
        out.remaining = left * out.per_position
        out.remaining_why = f"{left} left x {duration(out.per_position)} (mean of last {len(closed)})"
    else:
        out.remaining_why = "no position closed yet"


def where(p, brief: bool = False) -> str | None:
    """Where the run is, in a short phrase (None before the first vector)."""
    if p.length is None:
        return None
    if brief:
        return (f"position {p.position} of {p.length}, {p.proved} proved" if p.position is not None
                else f"all {p.length} positions proved")
    if p.position is not None:
        return f"position {p.position} of {p.length} ({p.proved} proved, {duration(p.current_seconds)} on it)"
    return f"all {p.length} positions proved" + (", the closing check refuted" if p.closed
                                                 else "; the closing check is next")
