"""What every objective kind shares: how a search ends, the errors it raises, and what the audit
hands a kind to work out the claim a finished run must have refuted."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

# Claim ops every kind has: {"op": "first"}, "there is a solution", asked before anything else.
FIRST = {"first": {}}


@dataclass
class Outcome:
    status: str  # optimal | solved | infeasible | unknown | interrupted
    value: Any = None
    solution: dict | None = None
    certificate: dict | None = None  # {"claim":..., "step": index}
    extra: dict = field(default_factory=dict)  # unique, count, ...
    # The encoding the run solved with (its lemma checked then), so that a certify in the same
    # process (`solve --certify`) need not build it and check it again; never written anywhere.
    encoding: Any = field(default=None, repr=False, compare=False)


class RefereeRejected(RuntimeError):
    """A model the solver returned broke the puzzle's rules: an encoding bug, never shown as an answer."""


class ClaimFails(Exception):
    """The run's claimed status cannot hold, whatever was refuted."""


def stopped(result: str) -> str | None:
    """The answer when a check ended the search without deciding it."""
    return result if result in ("unknown", "interrupted") else None


@dataclass
class Recorded:
    """What the audit has found true of a finished run, for its kind to derive the closing claim:
    never read as given from the folder, each field is checked by the audit first."""

    status: str
    mode: str
    extra: dict
    best: Any  # solution.json's refereed value (None when the run holds no solution)
    solution: dict | None  # solution.json
    witnesses: list[tuple[str, Any]]  # (where, refereed value) of every model the folder holds
    found: list[dict]  # every recorded model, in step order (all passed the referee)
    distinct: list[dict]  # those models with repeats left out
    shown: Callable[[Any], Any]  # a value as the run writes it
    short: Callable[..., str]  # any value cut to a few characters for a message


def distinct(solutions: list[dict], same: Callable[[dict, dict], bool]) -> list[dict]:
    """The solutions with repeats (by `same`) left out, in their order."""
    kept: list[dict] = []
    for solution in solutions:
        if not any(same(solution, other) for other in kept):
            kept.append(solution)
    return kept


def vector_text(vector: Sequence[int]) -> str:
    """A vector of small ints in few characters: digits run together, anything larger comma-separated."""
    if all(isinstance(d, int) and 0 <= d < 10 for d in vector):
        return "".join(map(str, vector))
    return ",".join(map(str, vector))
