"""Objective strategies over an engine. Every solver check goes through one `Recorder`.

The driver knows objectives (lexicographic maximum, integer maximum, satisfy/unique/count), never a
puzzle: a solution reaches it already decoded, refereed and valued by callables it is handed.
Every check is described by a structured claim (see `objective.claim_terms`), recorded before the
driver acts on its answer, and replayed from the ledger when a run is resumed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from smtpuzzles.cubes import with_cube, without_cube
from smtpuzzles.formula import smt2
from smtpuzzles.ledger import canonical_json
from smtpuzzles.objective import Encoding, IntMax, LexMax, Satisfy, claim_terms, describe


# Seconds a check runs under the encoding's first guess before the driver asks for its second
# (Encoding.second_guess), for encodings that have one: long enough for most checks to be settled
# without it (the refutations a second guess was made for took a few seconds), short against a
# search that may take twenty.
SECOND_GUESS_AFTER = 5.0


class RefereeRejected(RuntimeError):
    """A model the solver returned broke the puzzle's rules: an encoding bug, never shown as an answer."""


class ResumeMismatch(RuntimeError):
    pass


@dataclass
class Outcome:
    status: str  # optimal | solved | infeasible | unknown | interrupted
    value: Any = None
    solution: dict | None = None
    certificate: dict | None = None  # {"claim":..., "step": index}
    extra: dict = field(default_factory=dict)  # unique, count, ...


class Recorder:
    """Runs checks on the engine (or replays recorded ones) and hands each to the ledger."""

    def __init__(self, encoding: Encoding, engine_factory: Callable[[], Any], evaluate: Callable[[dict], Any],
                 referee: Callable[[dict], list[str]], record: Callable[[dict], dict],
                 replay: list[dict] | None = None, time_limit: float | None = None,
                 on_step: Callable[[dict], None] | None = None, on_solution: Callable[[dict, Any], None] | None = None,
                 cubes: list[list[str]] | None = None, cube_runner=None, split_after: float = 5.0):
        self.encoding = encoding
        self._engine_factory = engine_factory
        self._engine = None
        self.evaluate = evaluate
        self.referee = referee
        self.record = record
        self.replay = [s for s in (replay or []) if s["result"] in ("sat", "unsat")]
        self.time_limit = time_limit
        self.on_step = on_step or (lambda step: None)
        self.on_solution = on_solution or (lambda solution, value: None)
        self.checks = 0
        self.guided = False  # whether the last check was answered under the encoding's guess
        self.second_guessed = False  # whether the encoding's second guess has been asked for
        # Every check split into these cubes (lists of variable names), run by `cube_runner`
        # (smtpuzzles.cubes: one by one on this engine, or on Dask workers).
        self.cubes = cubes
        self.cube_runner = cube_runner
        self.split_after = split_after  # seconds the whole check may take before it is split (0: at once)

    @property
    def engine(self):
        if self._engine is None:  # built lazily: a fully replayed run never loads a solver
            self._engine = self._engine_factory()
            if self.encoding.guess is not None:
                self._engine.guide(self.encoding.guess)
        return self._engine

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
            # Split runs try the whole check first, briefly: most checks are settled at once, and
            # cubes pay off only on the hard ones.
            limit = self.time_limit
            split = self.cubes and (limit is None or limit > self.split_after)
            if split:
                limit = self.split_after
            terms = claim_terms(self.encoding.objective, claim)
            started = time.perf_counter()
            answer = None
            if not split and self._second_guess_pending() and (limit is None or limit > SECOND_GUESS_AFTER):
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

    def _second_guess_pending(self) -> bool:
        # An engine told not to be guided (--no-guide) would ignore the guess: no brief try then.
        return self.encoding.second_guess is not None and not self.second_guessed and \
            self.engine.params.get("guide", True)

    def _guess_again(self, claim: dict, texts: list[str], answer, seconds: float, left: float | None) -> float:
        """The check was undecided after SECOND_GUESS_AFTER s under the first guess: let the
        encoding's slower search propose a second guess within the check's time left, steer by it
        from now on (once a run: the search is not repeated), and record the brief try as the step
        it was, its reason saying how long the search took. Returns the search's seconds."""
        self.second_guessed = True
        started = time.perf_counter()
        second = self.encoding.second_guess(left)
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
            if answer.get("model") is not None:
                self.engine.hint(answer["model"])
        elif answer["status"] == "unsat":
            if answer.get("core") is not None:
                step["core"] = answer["core"]
        elif answer.get("reason"):
            step["reason"] = answer["reason"]
        step = self.record(step)
        self.on_step(step)
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
            self.on_step(step)
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
            answers = self.cube_runner.run([cube_claims[i] for i in pending], self.time_limit)
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
        self.on_step(step)
        return "unsat", None, None

    def _replayed(self, claim: dict, texts: list[str]) -> dict | None:
        """The recorded step for this check when resuming, after making sure it asked the same."""
        if not self.replay:
            return None
        step = self.replay.pop(0)
        if step["claim"] != claim or step["assumptions"] != texts:
            raise ResumeMismatch(f"step {step['index']} asked {self.words(step['claim'])!r}, now {self.words(claim)!r}")
        self.on_step(step)
        return step

    def note_bound(self, claim: dict, reason: str) -> None:
        """A check settled without the solver (a digit already the largest left); still recorded,
        with its query, so `audit --resolve all` can have z3 and cvc5 confirm it."""
        texts = [smt2(t) for t in claim_terms(self.encoding.objective, claim)]
        if self._replayed(claim, texts) is not None:
            return
        step = self.record({"claim": claim, "words": self.words(claim), "assumptions": texts, "result": "unsat",
                            "by": "bound", "reason": reason, "seconds": 0.0, "stats": {}})
        self.on_step(step)


def _stopped(result: str) -> str | None:
    return result if result in ("unknown", "interrupted") else None


def run_objective(rec: Recorder, mode: str = "optimise", limit: int | None = None, search: str = "descend") -> Outcome:
    objective = rec.encoding.objective
    result, solution, value = rec.check({"op": "first"})
    if _stopped(result):
        return Outcome(result)
    if result == "unsat":
        return Outcome("infeasible", certificate={"claim": {"op": "first"}})
    rec.on_solution(solution, value)
    if isinstance(objective, LexMax):
        return _lex(rec, objective, solution, value, search)
    if isinstance(objective, IntMax):
        return _int_max(rec, objective, solution, value)
    return _satisfy(rec, objective, solution, value, mode, limit)


def _lex(rec: Recorder, objective: LexMax, solution: dict, best: list[int], search: str) -> Outcome:
    """Position by position, with the proved prefix fixed. A position already at the largest value
    with copies left needs no solver call (a `bound` step). Otherwise, by `search`:

    - `descend` (the default): ask for the largest value left there, then the one below, down to
      the best value's: the first SAT answer is the position's maximum, and if none comes the best
      value is. Where SAT answers cost far more than UNSAT ones (measured in scripts/bench_kingtour.py:
      0.2 s against 0.01 s on its 9x9 board), this asks at most one SAT question per position;
    - `leap` (runs made while it was the default): ask for more than the best value first, and
      descend from the top only after that raised it;
    - `climb` (runs recorded before): ask for more than the best value until UNSAT, one SAT answer
      per step up.
    Each run records its search: a resume must ask the same questions in the same order."""
    prefix: list[int] = []

    def ask(than: int) -> str:
        nonlocal best, solution
        claim = {"op": "exceed", "prefix": list(prefix), "pos": len(prefix), "than": than}
        result, found, value = rec.check(claim)
        if result == "sat":
            i = len(prefix)
            if not (value[:i] == best[:i] and value[i] > than):
                raise RefereeRejected(f"the model does not meet the claim at position {i + 1}")
            best, solution = value, found
            rec.on_solution(solution, best)
        return result

    while len(prefix) < objective.length:
        i = len(prefix)
        top = _largest_left(objective, prefix)
        if best[i] >= top:
            claim = {"op": "exceed", "prefix": list(prefix), "pos": i, "than": best[i]}
            rec.note_bound(claim, f"{best[i]} is the largest value with copies left after the prefix")
            prefix.append(best[i])
            continue
        if search != "descend":
            result = ask(best[i])
            if _stopped(result):
                return Outcome(result, best, solution, extra={"proved_digits": len(prefix)})
            if result == "unsat":
                prefix.append(best[i])
                continue
            if search == "climb" or best[i] >= top:
                continue  # ask again above the new value (at the top: closed by the bound)
        than = top - 1
        while than >= best[i]:
            result = ask(than)  # "at least than + 1"; every value above it refuted already
            if _stopped(result):
                return Outcome(result, best, solution, extra={"proved_digits": len(prefix)})
            if result == "sat":
                break
            than -= 1
        if best[i] < top:  # at the top the next round closes it by the bound, as a climb would
            prefix.append(best[i])
    closing = {"op": "lex_greater", "best": list(best)}
    result, _, _ = rec.check(closing)
    if result == "sat":
        raise RefereeRejected("the closing certificate found a better vector after every position was closed")
    if _stopped(result):
        return Outcome(result, best, solution, extra={"proved_digits": len(prefix)})
    return Outcome("optimal", best, solution, certificate={"claim": closing}, extra={"proved_digits": len(prefix)})


def _largest_left(objective: LexMax, prefix: list[int]) -> int:
    if not objective.multiplicity:
        return max(objective.domain)
    used: dict[int, int] = {}
    for d in prefix:
        used[d] = used.get(d, 0) + 1
    left = [d for d in objective.domain if used.get(d, 0) < objective.multiplicity.get(d, 0)]
    return max(left) if left else max(objective.domain)


def _int_max(rec: Recorder, objective: IntMax, solution: dict, best: int) -> Outcome:
    """Climb: ask for at least best + 1 until UNSAT; that last UNSAT query is the certificate.
    With `descend`, first ask the ceiling and each bound below it down to best + 1, stopping at the
    first SAT answer: when the bound just above it was refuted, that step is the certificate;
    otherwise (SAT at the ceiling itself) the climb goes on from there. A first model that came from
    the encoding's guess is usually optimal already, so then the climb starts at once: every bound
    refuted above best + 1 would be a proof that the one at best + 1 makes redundant."""
    if objective.descend and objective.upper is not None and not rec.guided:
        refuted = None  # the lowest bound refuted so far
        for k in range(objective.upper, best, -1):
            result, found, value = rec.check({"op": "at_least", "k": k})
            if _stopped(result):
                return Outcome(result, best, solution)
            if result == "unsat":
                refuted = k
                continue
            if refuted is not None and value >= refuted:
                raise RefereeRejected(f"the model is worth {value}, yet at least {refuted} was refuted")
            best, solution = _improved(rec, k, found, value)
            break
        if refuted == best + 1:
            return Outcome("optimal", best, solution, certificate={"claim": {"op": "at_least", "k": refuted}})
    while True:
        claim = {"op": "at_least", "k": best + 1}
        result, found, value = rec.check(claim)
        if _stopped(result):
            return Outcome(result, best, solution)
        if result == "unsat":
            return Outcome("optimal", best, solution, certificate={"claim": claim})
        best, solution = _improved(rec, best + 1, found, value)


def _improved(rec: Recorder, k: int, found: dict, value: int) -> tuple[int, dict]:
    """A SAT answer to "at least k": its refereed value must reach k; it becomes the best."""
    if value < k:
        raise RefereeRejected(f"the model is worth {value}, the check asked for at least {k}")
    rec.on_solution(found, value)
    return value, found


def _satisfy(rec: Recorder, objective: Satisfy, solution: dict, value, mode: str, limit: int | None) -> Outcome:
    if mode == "solve":
        return Outcome("solved", value, solution)
    found = [solution]
    while True:
        if mode == "unique" and len(found) == 2:
            return Outcome("solved", value, solution, extra={"unique": False, "other": found[1]})
        if mode == "count" and limit is not None and len(found) >= limit:
            return Outcome("solved", value, solution, extra={"count": len(found), "count_complete": False})
        claim = {"op": "block", "solutions": list(found)}
        result, other, _ = rec.check(claim)
        if _stopped(result):
            return Outcome(result, value, solution, extra={"count": len(found)})
        if result == "unsat":
            extra = {"unique": len(found) == 1} if mode == "unique" else {"count": len(found), "count_complete": True}
            return Outcome("solved", value, solution, certificate={"claim": claim}, extra=extra)
        found.append(other)
