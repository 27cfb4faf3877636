"""How a run's checks are asked: `Steering` asks each on the engine as the encoding's advice says
(smtpuzzles.advice: guesses, a polish, cubes, closing by cases) and hands every answer to the
`Recorder` (smtpuzzles.recorder), which records it, or replays it on a resume; `run_objective` asks
the first check and hands the rest to the objective kind's search (smtpuzzles.objectives).

The driver names no objective kind and no puzzle: a solution reaches it already decoded, refereed
and valued by callables it is handed. Each heuristic is one named method below, which does nothing
unless the encoding's advice switches it on.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from smtpuzzles.cubes import with_cube, without_cube
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import Outcome, RefereeRejected, claim_terms, kind_of, stopped
from smtpuzzles.recorder import Recorder, ResumeMismatch

# Seconds a check runs under the encoding's first guess before the driver asks for its second
# (Advice.second_guess), for encodings that have one: long enough for most checks to be settled
# without it (the refutations a second guess was made for took a few seconds), short against a
# search that may take twenty.
SECOND_GUESS_AFTER = 5.0

__all__ = ["Outcome", "Recorder", "RefereeRejected", "ResumeMismatch", "SECOND_GUESS_AFTER", "Steering", "run_objective"]


class Steering:
    """Asks each check of a run on the engine (or has it replayed), steered by the encoding's advice."""

    def __init__(self, encoding: Encoding, engine_factory: Callable[[], Any], evaluate: Callable[[dict], Any],
                 referee: Callable[[dict], list[str]], record: Callable[[dict], dict],
                 replay: list[dict] | None = None, time_limit: float | None = None,
                 on_step: Callable[[dict], None] | None = None, on_solution: Callable[[dict, Any], None] | None = None,
                 cubes: list[list[str]] | None = None, cube_runner=None, split_after: float = 5.0,
                 deadline: float | None = None):
        self.encoding = encoding
        self.advice = encoding.advice
        self.recorder = Recorder(encoding.objective, encoding.decode, evaluate, referee, record, replay, on_step)
        self._engine_factory = engine_factory
        self._engine = None
        self.time_limit = time_limit
        # The session's budget (--budget) as a time.monotonic() instant: each check gets at most
        # what is left of it, and none is asked once it is spent (the run ends `unknown`).
        self.deadline = deadline
        self.on_solution = on_solution or (lambda solution, value: None)
        self.guided = False  # whether the last check was answered under the encoding's guess
        self.second_guessed = False  # whether the encoding's second guess has been asked for
        self._steered: set[str] = set()  # the variables the engine's guide sets true
        # Every check split into these cubes (lists of variable names), run by `cube_runner`
        # (smtpuzzles.cluster: one by one on this engine, or on Dask workers).
        self.cubes = cubes
        self.cube_runner = cube_runner
        self.split_after = split_after  # seconds the whole check may take before it is split (0: at once)
        # Or every such check shared out by look-ahead (smtpuzzles.sharing.runner.Sharing): cubes
        # chosen for the check, split again while open, one step `by: tree` when all are refuted.
        self.sharing = None
        self._settled: list = []  # terms every later check assumes (see `settled`)

    @property
    def engine(self):
        if self._engine is None:  # built lazily: a fully replayed run never loads a solver
            self._engine = self._engine_factory()
            # A resumed run goes on from its best model, polished, rather than from the first guess:
            # on a long run the first guess is far behind the proved prefix.
            if self._settled and hasattr(self._engine, "settle"):
                self._engine.settle(self._settled)
            replayed = self.recorder.last_model
            if not (replayed is not None and self.polish(*replayed)):
                self.first_guess()
        return self._engine

    def close_engine(self) -> None:
        """Free the engine's solver now (an engine without `close` is left to the collector)."""
        engine, self._engine = self._engine, None
        close = getattr(engine, "close", None)
        if close is not None:
            close()

    def check(self, claim: dict) -> tuple[str, dict | None, Any]:
        """(result, solution, value) for the check that tests `claim`: replayed where the run
        recorded it, else asked whole, and split into cubes where the run splits and the whole check
        stays undecided briefly."""
        if self.cubes and self._split_recorded(claim):
            return self.split(claim)
        step = self.recorder.replayed(claim)
        if step is not None:
            self.guided = bool(step.get("stats", {}).get("guided"))  # decisions replay as they were made
            return step["result"], step.get("solution"), step.get("value")
        limit = self.limit()
        if limit is not None and limit <= 0:
            return "unknown", None, None  # the budget is spent: nothing more is asked
        # Split runs try the whole check first, briefly: most checks are settled at once, and
        # cubes pay off only on the hard ones.
        splits = (bool(self.cubes) or self.sharing is not None) and (limit is None or limit > self.split_after)
        answered = self._ask_whole(claim, self.split_after if splits else limit, splits)
        if answered is not None:
            return answered
        return self.shared(claim) if self.sharing is not None else self.split(claim)

    def limit(self) -> float | None:
        """Seconds the next check may take: the time limit per check, cut to what is left of the
        budget (None: no limit)."""
        if self.deadline is None:
            return self.time_limit
        left = self.deadline - time.monotonic()
        return left if self.time_limit is None else min(left, self.time_limit)

    def _ask_whole(self, claim: dict, limit: float | None, splits: bool):
        """The whole check asked within `limit`, after a second guess where one is due; None when it
        stays undecided in a run that then splits it (or was left no time before its split)."""
        terms = claim_terms(self.encoding.objective, claim)
        started, answer = time.perf_counter(), None
        if self._second_guess_due(limit):
            answer = self.engine.check(terms, SECOND_GUESS_AFTER)
            if answer.status == "unknown":
                limit = self.second_guess(claim, answer, time.perf_counter() - started, limit)
                started, answer = time.perf_counter(), None
        if answer is None and limit != 0:
            answer = self.engine.check(terms, limit)
        if answer is None:
            return None
        self.guided = bool(answer.stats.get("guided"))
        undecided = splits and answer.status == "unknown"
        _, result, solution, value = self._recorded(claim, {
            "status": answer.status, "model": answer.model, "core": answer.core, "stats": answer.stats,
            "reason": f"undecided after {self.split_after:g} s: split into cubes" if undecided else answer.reason,
            "seconds": time.perf_counter() - started, "engine": self.engine.name})
        return None if undecided else (result, solution, value)

    def _recorded(self, claim: dict, answer: dict) -> tuple[dict, str, dict | None, Any]:
        """A solver answer recorded; a model of this engine's own (not a cluster worker's) is then
        hinted to it, and polished."""
        step, result, solution, value = self.recorder.answered(claim, answer)
        if result == "sat" and answer.get("model") is not None:
            self.engine.hint(answer["model"])
            self.polish(solution, claim)
        return step, result, solution, value

    # ---------------------------------------------------------------- the heuristics, each switched by the advice
    def first_guess(self) -> None:
        """Guide the engine by the encoding's first guess, where it has one."""
        if self.advice.on("first_guess"):
            self._steer(self.advice.first_guess)

    def polish(self, solution: dict, claim: dict) -> bool:
        """Guide the engine by the encoding's polish of a model, where it finds something better.
        Not for an engine told not to be guided: it would ignore the result, and a polish may take
        seconds on a large board."""
        if not (self.advice.on("polish") and self._guided()):
            return False
        seconds = self.limit()  # a polish takes no longer than a check may (16x16: 10 s otherwise)
        if seconds is not None and seconds <= 0:
            return False
        better = self.advice.polish(solution, claim, seconds)
        if better is not None:
            self._steer(lambda: better)
        return better is not None

    def _second_guess_due(self, limit: float | None) -> bool:
        # An engine told not to be guided (--no-guide) would ignore the guess: no brief try then.
        return self.advice.on("second_guess") and (self.advice.second_guess_each_check or not self.second_guessed) \
            and self.engine.params.get("guide", True) and (limit is None or limit > SECOND_GUESS_AFTER)

    def second_guess(self, claim: dict, answer, seconds: float, limit: float | None) -> float | None:
        """The check was undecided after SECOND_GUESS_AFTER s under the first guess: let the
        encoding's slower search propose a second guess within the check's time left, steer by it
        from now on (once a run, unless the advice searches for each check), and record the brief try
        as the step it was, its reason saying how long the search took. Returns the check's limit
        left: the search counts against it, and a check left no time still asks the solver, briefly,
        so that its answer is recorded as unknown."""
        self.second_guessed = True
        left = None if limit is None else limit - SECOND_GUESS_AFTER
        started = time.perf_counter()
        second = self.advice.second_guess(left, claim)
        searched = time.perf_counter() - started
        if second:
            self.engine.guide(lambda: second)
        outcome = "a second guess" if second else "nothing"
        self.recorder.answered(claim, {
            "status": "unknown", "model": None, "core": None, "stats": answer.stats,
            "reason": f"undecided after {SECOND_GUESS_AFTER:g} s under the first guess: "
                      f"searching for a second found {outcome} in {searched:.1f} s",
            "seconds": seconds, "engine": self.engine.name})
        return None if left is None else max(left - searched, 0.001)

    def split(self, claim: dict) -> tuple[str, dict | None, Any]:
        """The claim split into the run's cubes, each its own step; UNSAT when every cube is, then a
        step `by: cubes` lists them. Cubes refuted before a resume are not asked again."""
        cube_claims = [with_cube(claim, cube) for cube in self.cubes]
        refuted: dict[int, int] = {}  # cube number -> its UNSAT step
        while self._split_recorded(claim):
            number, step = self.recorder.replayed_among(cube_claims, claim)
            if step["result"] == "sat":
                return "sat", step.get("solution"), step.get("value")
            refuted[number] = step["index"]
        upcoming = self.recorder.upcoming
        if len(refuted) == len(cube_claims):
            if upcoming is not None and not (upcoming["claim"] == claim and upcoming.get("by") == "cubes"
                                             and sorted(upcoming["cubes"]) == sorted(refuted.values())):
                raise ResumeMismatch(f"step {upcoming['index']} is not the step closing the split of "
                                     f"{self.recorder.words(claim)!r}")
        elif upcoming is not None:
            raise ResumeMismatch(f"step {upcoming['index']} follows a split of {self.recorder.words(claim)!r} "
                                 "left unfinished")
        else:
            answered = self._ask_cubes(cube_claims, refuted)
            if answered is not None:
                return answered
        self.recorder.settled(claim, "cubes", cubes=[refuted[i] for i in range(len(cube_claims))])
        return "unsat", None, None

    def _ask_cubes(self, cube_claims: list[dict], refuted: dict[int, int]):
        """The cubes not refuted yet, asked by the cube runner, those the guide lies in first (their
        answer comes by propagation: on 16x16 the guide's cube came after one no solver settled in
        two hours); None when all are refuted, else the first answer that is not."""
        pending = [i for i in range(len(cube_claims)) if i not in refuted]
        if getattr(self.cube_runner, "uses_engine", False):
            self.engine  # built (and guided) now, before a resumed split orders its cubes by the guide
        pending.sort(key=lambda i: not set(self.cubes[i]) <= self._steered)
        answers = self.cube_runner.run([cube_claims[i] for i in pending], self.limit())
        try:
            for position, answer in answers:
                number = pending[position]
                step, result, solution, value = self._recorded(cube_claims[number], answer)
                if result != "unsat":
                    return result, solution, value  # sat ends the check; unknown stops it
                refuted[number] = step["index"]
        finally:
            answers.close()  # stops the cubes still running
        return None

    def shared(self, claim: dict) -> tuple[str, dict | None, Any]:
        """The check shared out by look-ahead (smtpuzzles.sharing): a SAT cube's model is recorded as
        the check's answer; when every cube is refuted, one step `by: tree` carries the tree of
        refuted cubes (checked by the audit: smtpuzzles.sharing.tree.summary_problem); a check the
        time limit or Ctrl-C stopped is recorded as such."""
        from smtpuzzles.engines.satengine import SatModel

        formula = self.encoding.formula
        started = time.perf_counter()
        _, answer = self.sharing.ask(formula, claim_terms(self.encoding.objective, claim), self.limit())
        balance = answer.balance()
        stats = {"cube_runs": len(answer.runs), "conflicts": sum(r["conflicts"] for r in answer.runs),
                 "workers": len(balance["busy"]), "even": balance["even"]}
        seconds = round(time.perf_counter() - started, 4)
        if answer.status == "unsat":
            stats["cubes"] = len(answer.leaves)
            self.recorder.settled(claim, "tree", tree=answer.summary(claim, formula.sha256, formula.cnf.names),
                                  seconds=seconds, stats=stats)
            return "unsat", None, None
        model = None
        if answer.status == "sat":
            model = SatModel({x for x in answer.model if x > 0}, formula.cnf.index, answer.model)
        _, result, solution, value = self._recorded(claim, {
            "status": answer.status, "model": model, "core": None, "stats": stats, "reason": answer.reason,
            "seconds": seconds, "engine": "sat"})
        return result, solution, value

    def settled(self, terms: list) -> None:
        """The objective's search says `terms` hold in every check it asks from now on (a proved
        prefix): an engine that can hold them for good (`settle`) is told, now or once it is built.
        Nothing recorded changes: each step still records its whole claim, and the audit re-solves
        it from the base formula alone."""
        self._settled += terms
        if self._engine is not None and hasattr(self._engine, "settle"):
            self._engine.settle(terms)

    def close_by_cases(self, claim: dict, cases: list[dict]) -> bool:
        """Whether `claim` is refuted by its `cases` (claims whose disjunction it is, as the objective
        kind says), where the advice closes claims so and each case is refuted already by a step of
        this run; if so a step `by: cases` lists them, with the claim's own query, and no solver is
        asked. The audit checks the cases against the claim's formula."""
        steps = self.advice.close_by_cases(cases, self.recorder.refuting_step)
        if steps is None:
            return False
        self.recorder.settled(claim, "cases", cases=steps)
        return True

    def close_by_bound(self, claim: dict, reason: str) -> None:
        """A check settled without the solver (a digit already the largest left); still recorded,
        with its query, so `audit --resolve all` can have z3 and cvc5 confirm it."""
        self.recorder.settled(claim, "bound", reason=reason)

    # ------------------------------------------------------------------------------------- guiding
    def _guided(self) -> bool:
        """Whether the engine takes guides (not under --no-guide)."""
        return getattr(self._engine, "params", {}).get("guide", True)

    def _steer(self, guess: Callable[[], list]) -> None:
        """Guide the engine by `guess`, and remember the variables it sets true: a split check asks
        first the cubes the guide lies in."""
        if not self._guided():
            self._engine.guide(guess)  # an engine told not to be guided ignores it: not made here
            return
        terms = list(guess())
        self._steered = {t[1] for t in terms if len(t) == 3 and t[0] == "lit" and t[2] is True}
        self._engine.guide(lambda: terms)

    def _split_recorded(self, claim: dict) -> bool:
        """Whether the next recorded step is one of this claim's cubes (resuming a split check)."""
        upcoming = self.recorder.upcoming
        return upcoming is not None and "cube" in upcoming["claim"] and without_cube(upcoming["claim"]) == claim


def run_objective(steer: Steering, mode: str = "optimise", limit: int | None = None) -> Outcome:
    """The first check, then the objective kind's own search (smtpuzzles.objectives), as the
    encoding's advice says."""
    objective = steer.encoding.objective
    result, solution, value = steer.check({"op": "first"})
    if stopped(result):
        return Outcome(result)
    if result == "unsat":
        return Outcome("infeasible", certificate={"claim": {"op": "first"}})
    steer.on_solution(solution, value)
    return kind_of(objective).search(steer, objective, solution, value, mode, limit, steer.advice)
