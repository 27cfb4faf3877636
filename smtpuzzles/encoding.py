"""What a puzzle's `encode` returns: a base formula, an objective over it, and a model decoder, with
what the core checks before trusting it (a symmetry lemma) and the encoding's advice on how to
search (smtpuzzles.advice), which nothing rests on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from smtpuzzles.advice import Advice
from smtpuzzles.formula import Formula

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
    # A symmetry-breaking clause's justification (smtpuzzles.symmetry.Lemma): checked by machine in
    # the run and in every audit, or the encoding is not used.
    lemma: Any = None
    # How to search, as the encoding advises: guesses, a polish, cubes, closing by cases, proofs in
    # parts (smtpuzzles.advice). The default advises nothing special.
    advice: Advice = field(default_factory=Advice)
