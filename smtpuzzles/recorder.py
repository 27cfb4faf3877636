"""The trust path of a run: every check is a structured claim (see `objectives.claim_terms`) that
becomes a step of the ledger before the run acts on its answer, and a resumed run replays its
recorded steps after making sure each asked what the run asks now. Nothing here steers a search
(smtpuzzles.driver does): the recorder only records and verifies.
"""

from __future__ import annotations

from typing import Any, Callable

from smtpuzzles.canonical import canonical_json
from smtpuzzles.formula import smt2
from smtpuzzles.objectives import RefereeRejected, claim_terms, describe


class ResumeMismatch(RuntimeError):
    pass


class Recorder:
    """Claim -> step: solver answers decoded, refereed and valued before they are recorded; claims
    settled without the solver recorded with their query; recorded steps replayed and checked."""

    def __init__(self, objective, decode: Callable[[Any], dict], evaluate: Callable[[dict], Any],
                 referee: Callable[[dict], list[str]], record: Callable[[dict], dict],
                 replay: list[dict] | None = None, on_step: Callable[[dict], None] | None = None):
        self.objective = objective
        self.decode = decode
        self.evaluate = evaluate
        self.referee = referee
        self.record = record
        self.replay = [s for s in (replay or []) if s["result"] in ("sat", "unsat")]  # unknowns are asked again
        # ...but were checks all the same: told on in their place, so that every view of a resumed
        # run counts what `show` counts.
        self._untold = [s for s in (replay or []) if s["result"] not in ("sat", "unsat")]
        self.on_step = on_step or (lambda step: None)
        self.checks = 0  # solver answers recorded by this session
        self.refuted: dict[str, int] = {}  # each refuted claim (canonical JSON) -> its step
        self.last_model: tuple[dict, dict] | None = None  # the last replayed model and the claim it answered

    def words(self, claim: dict) -> str:
        return describe(claim, self.objective)

    def texts(self, claim: dict) -> list[str]:
        return [smt2(t) for t in claim_terms(self.objective, claim)]

    @property
    def upcoming(self) -> dict | None:
        """The next recorded step still to replay, if any."""
        return self.replay[0] if self.replay else None

    def replayed(self, claim: dict) -> dict | None:
        """The recorded step for this claim when resuming, after making sure it asked the same."""
        if not self.replay:
            return None
        step = self.replay.pop(0)
        if step["claim"] != claim or step["assumptions"] != self.texts(claim):
            raise ResumeMismatch(f"step {step['index']} asked {self.words(step['claim'])!r}, now {self.words(claim)!r}")
        self._told_replayed(step)
        return step

    def replayed_among(self, claims: list[dict], of: dict) -> tuple[int, dict]:
        """The next recorded step, which must ask one of `claims` (the parts of the claim `of`), and
        its number among them."""
        step = self.replay.pop(0)
        numbers = {canonical_json(c): i for i, c in enumerate(claims)}
        number = numbers.get(canonical_json(step["claim"]))
        if number is None or step["assumptions"] != self.texts(step["claim"]):
            raise ResumeMismatch(f"step {step['index']} asked {self.words(step['claim'])!r}, "
                                 f"not one of today's cubes for {self.words(of)!r}")
        self._told_replayed(step)
        return number, step

    def answered(self, claim: dict, answer: dict) -> tuple[dict, str, dict | None, Any]:
        """(step, result, solution, value) of one solver answer, recorded: a model is decoded (unless
        a worker did), refereed and valued first, so no step ever carries a solution that breaks the
        rules."""
        self.checks += 1
        step = {"claim": claim, "words": self.words(claim), "assumptions": self.texts(claim),
                "result": answer["status"], "by": "solver", "engine": answer["engine"],
                "seconds": round(answer["seconds"], 4), "stats": answer["stats"]}
        solution = value = None
        if answer["status"] == "sat":
            solution = answer.get("solution") or self.decode(answer["model"])
            problems = self.referee(solution)
            if problems:
                raise RefereeRejected("the solver's model breaks the rules: " + "; ".join(problems[:3]))
            value = self.evaluate(solution)
            step.update(solution=solution, value=value)
        elif answer["status"] == "unsat":
            if answer.get("core") is not None:
                step["core"] = answer["core"]
        elif answer.get("reason"):
            step["reason"] = answer["reason"]
        step = self.record(step)
        self._tell_untold()
        self._told(step)
        return step, answer["status"], solution, value

    def settled(self, claim: dict, by: str, **fields) -> dict:
        """A claim refuted without the solver (`by` cases, a bound, cubes, a tree of cubes: `fields`
        say which, and may carry the seconds and stats it took), still recorded with its query for
        the audit to check; replayed when resuming."""
        step = self.replayed(claim)
        if step is None:
            step = self.record({"claim": claim, "words": self.words(claim), "assumptions": self.texts(claim),
                                "result": "unsat", "by": by, "seconds": 0.0, "stats": {}, **fields})
            self._tell_untold()
            self._told(step)
        return step

    def refuting_step(self, claim: dict) -> int | None:
        """The step of this run that refuted `claim`, if one did."""
        return self.refuted.get(canonical_json(claim))

    def _tell_untold(self, before: int | None = None) -> None:
        """Tell on the recorded steps that are not replayed (unknown, interrupted) up to index
        `before`, or all of them."""
        while self._untold and (before is None or self._untold[0].get("index", -1) < before):
            self.on_step(self._untold.pop(0))

    def _told_replayed(self, step: dict) -> None:
        self._tell_untold(step.get("index"))
        if step["result"] == "sat" and isinstance(step.get("solution"), dict):
            self.last_model = (step["solution"], step["claim"])  # a resumed run is steered from it
        self._told(step)

    def _told(self, step: dict) -> None:
        """Every step recorded or replayed passes here: its refutation is remembered (a claim may be
        refuted by its cases), and it is told on."""
        if step["result"] == "unsat" and "index" in step:  # a ledger's steps carry their index
            self.refuted[canonical_json(step["claim"])] = step["index"]
        self.on_step(step)
