"""How an encoding advises its runs be searched: the heuristics that find answers sooner and close
runs in fewer solver calls, each one named method, switched on by the encoding that hands over what
it needs (a guess, a polish, cubes, ...). The default `Advice` switches none on: every check is then
asked whole, unguided.

No answer rests on advice. A guess or a polish only steers the solver, whose models are decoded and
refereed as any other; cubes are checked to cover every case before a check is split; a claim
closed by its cases, or proved in parts, is checked by the audit against the claim's own formula.
"""

from __future__ import annotations

import inspect
from typing import Callable, TypeVar

from smtpuzzles.formula import Term

# How a lexicographic position is raised, recorded by every run (run.json's "search"): a resume asks
# the same questions in the same order. `descend` asks the largest value left first, `leap` more
# than the best first, `climb` (runs recorded before there was a choice) one value up at a time.
ORDERS = ("descend", "leap", "climb")
DEFAULT_ORDER = "descend"

Parts = TypeVar("Parts")


class Advice:
    """The encoding's advice to the driver (smtpuzzles.driver.Steering), one named method a
    heuristic. Each is switched on by its keyword: a callable for those that compute, True for
    those that only say yes. Switched off, each method answers "nothing"."""

    HEURISTICS = ("first_guess", "second_guess", "polish", "cubes", "close_by_cases", "proof_parts")

    def __init__(self, *, first_guess: Callable[[], list[Term]] | None = None,
                 second_guess: Callable[[float | None, dict], list[Term] | None] | None = None,
                 polish: Callable[[dict, dict], list[Term] | None] | None = None,
                 cubes: Callable[[int], list[list[str]]] | None = None, close_by_cases: bool = False,
                 proof_parts: bool = False, second_guess_each_check: bool = False, order: str = DEFAULT_ORDER):
        if order not in ORDERS:
            raise ValueError(f"unknown order {order!r} ({', '.join(ORDERS)})")
        self.switches = {"first_guess": first_guess, "second_guess": second_guess, "polish": polish,
                         "cubes": cubes, "close_by_cases": close_by_cases, "proof_parts": proof_parts}
        # A polish written as polish(solution, claim, seconds) is told the time the run has left
        # for it; one written before there was a limit keeps its own (both are the contract).
        self._polish_is_timed = polish is not None and _takes_keyword(polish, "seconds")
        # The second guess is asked once a run, or, with this, once for each check that stays
        # undecided (a search for an answer to that check's claim).
        self.second_guess_each_check = second_guess_each_check
        self.order = order

    def on(self, heuristic: str) -> bool:
        """Whether the encoding switched this heuristic on."""
        return bool(self.switches[heuristic])

    def replace(self, **changes) -> Advice:
        """The same advice with some switches (or the order) changed."""
        return Advice(**{**self.switches, "second_guess_each_check": self.second_guess_each_check,
                         "order": self.order, **changes})

    def __repr__(self) -> str:
        on = [name for name in self.HEURISTICS if self.on(name)]
        return f"Advice({', '.join(on) or 'nothing special'}, order={self.order})"

    # ------------------------------------------------------------------------------ the heuristics
    def first_guess(self) -> list[Term] | None:
        """A cheap heuristic's answer as a partial assignment, which engines try first under each
        check's assumptions (None: switched off)."""
        guess = self.switches["first_guess"]
        return None if guess is None else guess()

    def second_guess(self, seconds: float | None, claim: dict) -> list[Term] | None:
        """A slower search for a guess (seconds, not milliseconds), made only when a check stays
        undecided briefly, within the `seconds` the check has left (None: no limit), for the check's
        claim; None: it found nothing (or is switched off)."""
        search = self.switches["second_guess"]
        return None if search is None else search(seconds, claim)

    def polish(self, solution: dict, claim: dict, seconds: float | None = None) -> list[Term] | None:
        """A quick improvement on the solver's model (its solution and the claim it answered, which
        says where the search stands), tried first by the next checks, within `seconds` where the
        polish takes them (None: no limit but its own); None: nothing better."""
        polish = self.switches["polish"]
        if polish is None:
            return None
        return polish(solution, claim, seconds=seconds) if self._polish_is_timed else polish(solution, claim)

    def cubes(self, depth: int) -> list[list[str]] | None:
        """The encoding's proposal for splitting a check (`solve --cubes DEPTH`): cubes, each a list
        of variable names, that smtpuzzles.cubes checks cover every case; None: it cannot split."""
        propose = self.switches["cubes"]
        return None if propose is None else propose(depth)

    def close_by_cases(self, cases: list[dict], refuting_step: Callable[[dict], int | None]) -> list[int] | None:
        """The steps refuting each of a claim's cases (claims whose disjunction it is), when the
        encoding closes a claim by its cases and every case was refuted already; None: the claim is
        asked whole. Asked whole, it repeats what the run refuted (a 196-position record's closing
        query was undecided after 50 minutes; 9x9's took 0.7 s of the run's 4.8)."""
        if not self.on("close_by_cases"):
            return None
        steps = [refuting_step(case) for case in cases]
        return None if None in steps else steps

    def proof_parts(self, cases: Callable[[], Parts]) -> Parts | None:
        """The closing claim's query split by `cases` for a proof made one case at a time (`certify`,
        `audit --proof`; the parts are joined into one LRAT proof checked whole), where the encoding
        advises it; None: proved whole. Faster where each case fixes much (docs/benchmarks.md)."""
        return cases() if self.on("proof_parts") else None


def _takes_keyword(function: Callable, name: str) -> bool:
    """Whether `function` can be called with the keyword `name` (and two positional arguments)."""
    try:
        inspect.signature(function).bind(None, None, **{name: None})
    except TypeError:
        return False
    except ValueError:  # no signature to read (a builtin): call it as the contract's older form
        return False
    return True
