"""What a puzzle plug-in imports, in one place: the names docs/plugins.md says a puzzle needs.

    from smtpuzzles.plugin import CNF, Encoding, Formula, InputError, Option, Satisfy, lit

Each name lives in its own module (the objective kinds under `smtpuzzles.objectives`, the formula
words in `smtpuzzles.formula`, the hooks' types in `smtpuzzles.contract`, the drawing in
`smtpuzzles.drawing`); this module only gathers them, so a plug-in names one module and the core
may move a name without breaking it. `smtpuzzles.objective`, its older name, still imports.
"""

from smtpuzzles.advice import Advice
from smtpuzzles.contract import Example, InlineKey, Option, examples_in, whole
from smtpuzzles.drawing import INK, MONO, RULE, Cell, Drawing, number, ramp, text_width
from smtpuzzles.encoding import Encoding
from smtpuzzles.errors import InputError
from smtpuzzles.formula import CNF, FALSE, TRUE, Formula, SmtBuilder, all_of, any_of, lit
from smtpuzzles.objectives import claim_terms, describe, vector_text
from smtpuzzles.objectives.count import IntMax
from smtpuzzles.objectives.lex import LexMax
from smtpuzzles.objectives.satisfy import Satisfy
from smtpuzzles.symmetry import Lemma

Objective = LexMax | IntMax | Satisfy  # or any kind registered with smtpuzzles.objectives.register

__all__ = [
    # what `encode` returns and what it asks
    "Advice", "Encoding", "IntMax", "LexMax", "Objective", "Satisfy",
    # the formula
    "CNF", "FALSE", "Formula", "SmtBuilder", "TRUE", "all_of", "any_of", "lit",
    # the hooks' types and checks
    "Example", "InlineKey", "InputError", "Lemma", "Option", "examples_in", "whole",
    # the drawing
    "Cell", "Drawing", "INK", "MONO", "RULE", "number", "ramp", "text_width",
    # a claim's terms and words, for a plug-in's tests
    "claim_terms", "describe", "vector_text",
]
