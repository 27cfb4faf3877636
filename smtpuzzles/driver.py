"""Every solver check of a run goes through one `Recorder`; `run_objective` asks the first one and
hands the rest to the objective kind's search (smtpuzzles.objectives).

The driver names no objective kind and no puzzle: a solution reaches it already decoded, refereed
and valued by callables it is handed.
Every check is described by a structured claim (see `objective.claim_terms`), recorded before the
driver acts on its answer, and replayed from the ledger when a run is resumed.
"""

from __future__ import annotations

import time

from typing import Any, Callable

from smtpuzzles.cubes import with_cube, without_cube
from smtpuzzles.formula import smt2
from smtpuzzles.canonical import canonical_json
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import Outcome, RefereeRejected, claim_terms, describe, kind_of, stopped


# Seconds a check runs under the encoding's first guess before the driver asks for its second
# (Encoding.second_guess), for encodings that have one: long enough for most checks to be settled
# without it (the refutations a second guess was made for took a few seconds), short against a
# search that may take twenty.
SECOND_GUESS_AFTER = 5.0


class ResumeMismatch(RuntimeError):
    pass


class Recorder:
    """Runs checks on the engine (or replays recorded ones) and hands each to the ledger."""

    def __init__(self, encoding: Encoding, engine_factory: Callable[[], Any], evaluate: Callable[[dict], Any],
                 referee: Callable[[dict], list[str]], record: Callable[[dict], dict],
                 replay: list[dict] | None = None, time_limit: float | None = None,
                 on_step: Callable[[dict], None] | None = None, on_solution: Callable[[dict, Any], None] | None = None,
                 cubes: list[list[str]] | None = None, cube_runner=None, split_after: float = 5.0,
                 deadline: float | None = None):
        self.encoding = encoding
        self._engine_factory = engine_factory
        self._engine = None
        self.evaluate = evaluate
        self.referee = referee
        self.record = record
        self.replay = [s for s in (replay or []) if s["result"] in ("sat", "unsat")]
        self.time_limit = time_limit
        # The session's budget (--budget) as a time.monotonic() instant: each check gets at most
        # what is left of it, and none is asked once it is spent (the run ends `unknown`).
        self.deadline = deadline
        self.on_step = on_step or (lambda step: None)
        self.on_solution = on_solution or (lambda solution, value: None)
        self.checks = 0
        self.guided = False  # whether the last check was answered under the encoding's guess
        self.second_guessed = False  # whether the encoding's second guess has been asked for
        self._replayed_answer: tuple[dict, dict] | None = None  # the last recorded model and its claim
        self._steered: set[str] = set()  # the variables the engine's guide sets true
        # Every check split into these cubes (lists of variable names), run by `cube_runner`
        # (smtpuzzles.cubes: one by one on this engine, or on Dask workers).
        self.cubes = cubes
        self.cube_runner = cube_runner
        self.split_after = split_after  # seconds the whole check may take before it is split (0: at once)
        self.refuted: dict[str, int] = {}  # each refuted claim (canonical JSON) -> its step

    @property
    def engine(self):
        if self._engine is None:  # built lazily: a fully replayed run never loads a solver
            self._engine = self._engine_factory()
            # A resumed run goes on from its best model, polished, rather than from the first guess:
            # on a long run the first guess is far behind the proved prefix.
            better = self._polished(*self._replayed_answer) if self._replayed_answer is not None else None
            if better is not None:
                self._steer(lambda: better)
            elif self.encoding.guess is not None:
                self._steer(self.encoding.guess)
        return self._engine

    def _guided(self) -> bool:
        """Whether the engine takes guides (not under --no-guide)."""
        return getattr(self._engine, "params", {}).get("guide", True)

    def _steer(self, guess: Callable[[], list]) -> None:
        """Guide the engine by `guess`, and remember the variables it sets true: a split check asks
        first the cubes the guide lies in, where its answer comes by propagation (on 16x16 the
        guide's cube came after one no solver settled in two hours)."""
        if not self._guided():
            self._engine.guide(guess)  # an engine told not to be guided ignores it: not made here
            return
        terms = list(guess())
        self._steered = {t[1] for t in terms if len(t) == 3 and t[0] == "lit" and t[2] is True}
        self._engine.guide(lambda: terms)

    def _polished(self, solution: dict, claim: dict):
        """The encoding's polish of a model, or None (no polish, or an engine told not to be
        guided: it would ignore the result, and a polish may take seconds on a large board)."""
        if self.encoding.polish is None or not self._guided():
            return None
        return self.encoding.polish(solution, claim)

    def words(self, claim: dict) -> str:
        return describe(claim, self.encoding.objective)

    def check(self, claim: dict) -> tuple[str, dict | None, Any]:
        """(result, solution, value) for the check that tests `claim`."""
        texts = self._texts(claim)
        if not (self.cubes and self._cube_next(claim)):
            step = self._replayed(claim, texts)
            if step is not None:
                self.guided = bool(step.get("stats", {}).get("guided"))  # decisions replay as they were made
                return step["result"], step.get("solution"), step.get("value")
            limit = self.limit()
            if limit is not None and limit <= 0:
                return "unknown", None, None  # the budget is spent: nothing more is asked
            # Split runs try the whole check first, briefly: most checks are settled at once, and
            # cubes pay off only on the hard ones.
            split = self.cubes and (limit is None or limit > self.split_after)
            if split:
                limit = self.split_after
            terms = claim_terms(self.encoding.objective, claim)
            started = time.perf_counter()
            answer = None
            if self._second_guess_pending() and (limit is None or limit > SECOND_GUESS_AFTER):
                answer = self.engine.check(terms, SECOND_GUESS_AFTER)
                if answer.status == "unknown":
                    left = None if limit is None else limit - SECOND_GUESS_AFTER
                    searched = self._guess_again(claim, texts, answer, time.perf_counter() - started, left)
                    # the search counts against the check's limit; a check left no time still asks
                    # the solver, briefly, so that its answer is recorded as unknown
                    limit = None if left is None else max(left - searched, 0.001)
                    started, answer = time.perf_counter(), None
            if answer is None and limit != 0:
                answer = self.engine.check(terms, limit)
            if answer is not None:
                self.guided = bool(answer.stats.get("guided"))
                undecided = split and answer.status == "unknown"
                _, result, solution, value = self._answered(claim, texts, {
                    "status": answer.status, "model": answer.model, "core": answer.core, "stats": answer.stats,
                    "reason": f"undecided after {self.split_after:g} s: split into cubes" if undecided else answer.reason,
                    "seconds": time.perf_counter() - started, "engine": self.engine.name})
                if not undecided:
                    return result, solution, value
        return self._check_cubes(claim, texts)

    def limit(self) -> float | None:
        """Seconds the next check may take: the time limit per check, cut to what is left of the
        budget (None: no limit)."""
        if self.deadline is None:
            return self.time_limit
        left = self.deadline - time.monotonic()
        return left if self.time_limit is None else min(left, self.time_limit)

    def _second_guess_pending(self) -> bool:
        # An engine told not to be guided (--no-guide) would ignore the guess: no brief try then.
        return self.encoding.second_guess is not None and \
            (self.encoding.second_guess_each_check or not self.second_guessed) and \
            self.engine.params.get("guide", True)

    def _guess_again(self, claim: dict, texts: list[str], answer, seconds: float, left: float | None) -> float:
        """The check was undecided after SECOND_GUESS_AFTER s under the first guess: let the
        encoding's slower search propose a second guess within the check's time left, steer by it
        from now on (once a run, unless the encoding searches for each check), and record the brief
        try as the step it was, its reason saying how long the search took. Returns the search's
        seconds."""
        self.second_guessed = True
        started = time.perf_counter()
        second = self.encoding.second_guess(left, claim)
        searched = time.perf_counter() - started
        if second:
            self.engine.guide(lambda: second)
        outcome = "a second guess" if second else "nothing"
        self._answered(claim, texts, {
            "status": "unknown", "model": None, "core": None, "stats": answer.stats,
            "reason": f"undecided after {SECOND_GUESS_AFTER:g} s under the first guess: "
                      f"searching for a second found {outcome} in {searched:.1f} s",
            "seconds": seconds, "engine": self.engine.name})
        return searched

    def _cube_next(self, claim: dict) -> bool:
        """Whether the next recorded step is one of this claim's cubes (resuming a split check)."""
        return bool(self.replay) and "cube" in self.replay[0]["claim"] and without_cube(self.replay[0]["claim"]) == claim

    def _texts(self, claim: dict) -> list[str]:
        return [smt2(t) for t in claim_terms(self.encoding.objective, claim)]

    def _answered(self, claim: dict, texts: list[str], answer: dict) -> tuple[dict, str, dict | None, Any]:
        """Record one solver answer as a step: a model is decoded (unless a worker did), refereed and
        valued first, so no step ever carries a solution that breaks the rules."""
        self.checks += 1
        step = {"claim": claim, "words": self.words(claim), "assumptions": texts, "result": answer["status"],
                "by": "solver", "engine": answer["engine"], "seconds": round(answer["seconds"], 4),
                "stats": answer["stats"]}
        solution = value = None
        if answer["status"] == "sat":
            solution = answer.get("solution") or self.encoding.decode(answer["model"])
            problems = self.referee(solution)
            if problems:
                raise RefereeRejected("the solver's model breaks the rules: " + "; ".join(problems[:3]))
            value = self.evaluate(solution)
            step.update(solution=solution, value=value)
            if answer.get("model") is not None:  # this engine's own answer, not a cluster worker's
                self.engine.hint(answer["model"])
                better = self._polished(solution, claim)
                if better is not None:
                    self._steer(lambda: better)
        elif answer["status"] == "unsat":
            if answer.get("core") is not None:
                step["core"] = answer["core"]
        elif answer.get("reason"):
            step["reason"] = answer["reason"]
        step = self.record(step)
        self._told(step)
        return step, answer["status"], solution, value

    def _check_cubes(self, claim: dict, texts: list[str]) -> tuple[str, dict | None, Any]:
        """The claim split into the run's cubes, each its own step; UNSAT when every cube is, then a
        step `by: cubes` lists them. Cubes refuted before a resume are not asked again."""
        refuted: dict[int, int] = {}  # cube number -> its UNSAT step
        cube_claims = [with_cube(claim, cube) for cube in self.cubes]
        keys = {canonical_json(c): i for i, c in enumerate(cube_claims)}
        while self._cube_next(claim):
            step = self.replay.pop(0)
            number = keys.get(canonical_json(step["claim"]))
            if number is None or step["assumptions"] != self._texts(step["claim"]):
                raise ResumeMismatch(f"step {step['index']} asked {self.words(step['claim'])!r}, "
                                     f"not one of today's cubes for {self.words(claim)!r}")
            self._note_replayed(step)
            if step["result"] == "sat":
                return "sat", step.get("solution"), step.get("value")
            refuted[number] = step["index"]
        listed = [refuted[i] for i in sorted(refuted)]
        if len(refuted) == len(cube_claims):
            if self.replay:  # the split was finished: its closing step comes next, and no other
                step = self.replay[0]
                if not (step["claim"] == claim and step.get("by") == "cubes" and sorted(step["cubes"]) == sorted(listed)):
                    raise ResumeMismatch(f"step {step['index']} is not the step closing the split of {self.words(claim)!r}")
                self._replayed(claim, texts)
                return "unsat", None, None
        elif self.replay:
            step = self.replay[0]
            raise ResumeMismatch(f"step {step['index']} follows a split of {self.words(claim)!r} left unfinished")
        else:
            pending = [i for i in range(len(cube_claims)) if i not in refuted]
            if getattr(self.cube_runner, "uses_engine", False):
                self.engine  # built (and guided) now, before a resumed split orders its cubes by the guide
            pending.sort(key=lambda i: not set(self.cubes[i]) <= self._steered)  # the guide's cubes first
            answers = self.cube_runner.run([cube_claims[i] for i in pending], self.limit())
            try:
                for position, answer in answers:
                    number = pending[position]
                    step, result, solution, value = self._answered(cube_claims[number], self._texts(cube_claims[number]),
                                                                   answer)
                    if result == "unsat":
                        refuted[number] = step["index"]
                    else:
                        return result, solution, value  # sat ends the check; unknown stops it
            finally:
                answers.close()  # stops the cubes still running
        step = self.record({"claim": claim, "words": self.words(claim), "assumptions": texts, "result": "unsat",
                            "by": "cubes", "cubes": [refuted[i] for i in range(len(cube_claims))], "seconds": 0.0,
                            "stats": {}})
        self._told(step)
        return "unsat", None, None

    def _replayed(self, claim: dict, texts: list[str]) -> dict | None:
        """The recorded step for this check when resuming, after making sure it asked the same."""
        if not self.replay:
            return None
        step = self.replay.pop(0)
        if step["claim"] != claim or step["assumptions"] != texts:
            raise ResumeMismatch(f"step {step['index']} asked {self.words(step['claim'])!r}, now {self.words(claim)!r}")
        self._note_replayed(step)
        return step

    def _note_replayed(self, step: dict) -> None:
        """A replayed step told on; its model, if any, is the one a resumed run is steered from."""
        if step["result"] == "sat" and isinstance(step.get("solution"), dict):
            self._replayed_answer = (step["solution"], step["claim"])
        self._told(step)

    def _told(self, step: dict) -> None:
        """Every step recorded or replayed passes here: the refuted claims are remembered, for a
        claim refuted case by case (`note_cases`)."""
        if step["result"] == "unsat" and "index" in step:  # a ledger's steps carry their index
            self.refuted[canonical_json(step["claim"])] = step["index"]
        self.on_step(step)

    def note_cases(self, claim: dict, cases: list[dict]) -> bool:
        """Whether `claim` is refuted by its `cases` (claims whose disjunction it is, as the objective
        kind says), each refuted already by a step of this run; if so a step `by: cases` lists
        them, with the claim's own query, and no solver is asked. The audit checks the cases
        against the claim's formula."""
        keys = [canonical_json(case) for case in cases]
        if not all(key in self.refuted for key in keys):
            return False
        texts = self._texts(claim)
        if self._replayed(claim, texts) is not None:
            return True
        step = self.record({"claim": claim, "words": self.words(claim), "assumptions": texts, "result": "unsat",
                            "by": "cases", "cases": [self.refuted[key] for key in keys], "seconds": 0.0, "stats": {}})
        self._told(step)
        return True

    def note_bound(self, claim: dict, reason: str) -> None:
        """A check settled without the solver (a digit already the largest left); still recorded,
        with its query, so `audit --resolve all` can have z3 and cvc5 confirm it."""
        texts = [smt2(t) for t in claim_terms(self.encoding.objective, claim)]
        if self._replayed(claim, texts) is not None:
            return
        step = self.record({"claim": claim, "words": self.words(claim), "assumptions": texts, "result": "unsat",
                            "by": "bound", "reason": reason, "seconds": 0.0, "stats": {}})
        self._told(step)


def run_objective(rec: Recorder, mode: str = "optimise", limit: int | None = None, search: str = "descend") -> Outcome:
    """The first check, then the objective kind's own search (smtpuzzles.objectives)."""
    objective = rec.encoding.objective
    result, solution, value = rec.check({"op": "first"})
    if stopped(result):
        return Outcome(result)
    if result == "unsat":
        return Outcome("infeasible", certificate={"claim": {"op": "first"}})
    rec.on_solution(solution, value)
    return kind_of(objective).search(rec, objective, solution, value, mode, limit, search)
