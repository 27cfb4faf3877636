"""A puzzle's answers held against its own brute force: the plug-in contract's `brute_force` hook.

`cross_check(puzzle, instance)` solves the instance in each of the puzzle's modes and compares every
answer with the list of all solutions that `brute_force(instance, limit)` returns: an optimum must be
the best value among them, a solution one of them, `unique` true exactly when there is one, a count
their number, and "infeasible" only when there is none. The brute force is a search written from the
rules, so an encoder that forbids a legal solution (or allows an illegal one) disagrees with it on
some small instance. The contract test runs this on every bundled example of every puzzle that has
the hook; a plug-in author calls it from their own tests on instances they generate.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from smtpuzzles import puzzles
from smtpuzzles.contract import Puzzle, adopt
from smtpuzzles.durations import counted
from smtpuzzles.objectives.base import distinct as distinct_by


@dataclass
class CrossCheck:
    """What was compared: `checked` False when the brute force gave up past its limit."""

    checked: bool
    solutions: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def distinct(puzzle: Puzzle, instance, solutions: list) -> list:
    """The solutions with repeats (by the puzzle's `same_solution`) left out."""
    return distinct_by(solutions, lambda a, b: puzzle.same_solution(instance, a, b))


def cross_check(puzzle: Puzzle | ModuleType | str, instance, *, limit: int = 200_000, time_limit: float = 60.0,
                workdir: Path | None = None) -> CrossCheck:
    """Solve `instance` in every mode of `puzzle` and compare each answer with its brute force."""
    from smtpuzzles import run as runner  # the solver's layer; the contract's module stays below it

    puzzle = puzzles.get(puzzle) if isinstance(puzzle, str) else adopt(puzzle)
    if puzzle.brute_force is None:
        return CrossCheck(False, problems=[f"{puzzle.NAME} has no brute_force hook"])
    found = puzzle.brute_force(instance, limit)
    if found is None:
        return CrossCheck(False)
    every = distinct(puzzle, instance, list(found))
    check = CrossCheck(True, len(every))
    for i, solution in enumerate(every):
        for problem in puzzle.referee(instance, solution):
            check.problems.append(f"brute-force solution {i + 1} breaks a rule: {problem}")
    with tempfile.TemporaryDirectory(prefix="smtpuzzles-crosscheck-", dir=workdir) as scratch:
        for mode in puzzle.MODES:
            outcome, _ = runner.solve(puzzle, instance, "", out_dir=Path(scratch) / mode, mode=mode,
                                      time_limit=time_limit)
            check.problems += [f"{mode}: {p}" for p in _disagreements(puzzle, instance, mode, outcome, every)]
    return check


def _disagreements(puzzle: Puzzle, instance, mode: str, outcome: Any, every: list) -> list[str]:
    if outcome.status in ("unknown", "interrupted"):
        return [f"the solve ended {outcome.status}, so nothing was compared"]
    if not every:
        return [] if outcome.status == "infeasible" else [f"answered {outcome.status}; brute force finds no solution"]
    if outcome.status == "infeasible":
        return [f"answered infeasible; brute force finds {counted(len(every), 'solution')}"]
    if not any(puzzle.same_solution(instance, outcome.solution, s) for s in every):
        return ["the answer is none of the brute force's solutions"]
    if mode == "optimise":
        best = max(puzzle.value(instance, s) for s in every)  # values order as their objective does
        got = puzzle.value(instance, outcome.solution)
        if outcome.status != "optimal" or got != best:
            return [f"answered {outcome.status} {puzzle.value_json(got)!r}; brute force's best is "
                    f"{puzzle.value_json(best)!r}"]
    if mode == "unique" and outcome.extra.get("unique") != (len(every) == 1):
        return [f"answered unique {outcome.extra.get('unique')!r}; brute force finds {counted(len(every), 'solution')}"]
    if mode == "count" and outcome.extra.get("count") != len(every):
        return [f"counted {outcome.extra.get('count')!r}; brute force finds {counted(len(every), 'solution')}"]
    return []
