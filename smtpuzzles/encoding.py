"""What a puzzle's `encode` returns: a base formula, an objective over it, and a model decoder, with
what may steer the solver (guesses) and what the core checks before trusting it (a symmetry lemma,
cube proposals)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from smtpuzzles.formula import Formula, Term

if TYPE_CHECKING:  # the kinds are named for the type only: this module stays beside the formula
    from smtpuzzles.objectives.count import IntMax
    from smtpuzzles.objectives.lex import LexMax
    from smtpuzzles.objectives.satisfy import Satisfy

    Objective = LexMax | IntMax | Satisfy  # or any kind registered with smtpuzzles.objectives.register


@dataclass
class Encoding:
    name: str
    version: int
    formula: Formula
    objective: "Objective"
    decode: Callable[[Any], dict]  # engine model -> solution (JSON)
    engines: tuple[str, ...] = ("z3",)  # engines this formula can run on (sat needs a CNF)
    notes: dict = field(default_factory=dict)
    # A cheap heuristic's answer as a partial assignment, which engines try first under each check's
    # assumptions. It only steers the search: a SAT answer is still the solver's model of the formula
    # and the claim (decoded and refereed as any other), and an UNSAT answer never rests on it.
    guess: Callable[[], list[Term]] | None = None
    # A slower search for a guess (seconds, not milliseconds), which the driver makes only when a
    # check is not settled within SECOND_GUESS_AFTER seconds (smtpuzzles.driver) and then tries in
    # place of `guess`. It is given the seconds the check has left (None: no limit), which it must
    # end within, and the check's claim; None from it means it found nothing better. It steers
    # like `guess`, no more. Asked once a run, or, with `second_guess_each_check`, once for each
    # check that stays undecided (a search for an answer to that check's claim).
    second_guess: Callable[[float | None, dict], list[Term] | None] | None = None
    second_guess_each_check: bool = False
    # A quick improvement on the solver's model (its solution and the claim it answered in, guide
    # terms out, None where it finds nothing better), which the driver hands the engine as its guess
    # for the next checks: the next SAT answer then comes by propagation where the improvement
    # already answers it. The claim says where the search stands (a lex claim's `pos`: the
    # positions up to it are settled). It steers like `guess`, no more.
    polish: Callable[[dict, dict], list[Term] | None] | None = None
    # Whether a lexicographic run closes by cases: "some vector beats the best" is refuted by the
    # run's refutations of "position i is the first to exceed it" (a step `by: cases`, checked by
    # the audit against the claim's formula) instead of being asked whole: the whole query repeats
    # what the run refuted already (a 196-position record's was undecided after 50 minutes; 9x9's
    # took 0.7 s of the run's 4.8).
    close_by_cases: bool = False
    # A symmetry-breaking clause's justification (smtpuzzles.symmetry.Lemma): checked by machine in
    # the run and in every audit, or the encoding is not used.
    lemma: Any = None
    # The puzzle's proposal for splitting a check (`solve --cubes DEPTH`): DEPTH -> cubes, each a
    # list of variable names. Only a proposal: smtpuzzles.cubes checks that they cover every case.
    cubes: Callable[[int], list[list[str]]] | None = None
    # Advice for `certify`: refute the closing claim one case of it at a time (the cases of its "or",
    # as the lexicographic claim's "position i is the first to beat the best"), the parts joined into
    # one LRAT proof that is checked whole. Faster where each case fixes much (docs/benchmarks.md).
    proof_parts: bool = False
