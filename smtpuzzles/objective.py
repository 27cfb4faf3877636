"""What a puzzle imports to say what it asks: its `Encoding`, the `Advice` it may give on how to
search, and the objective kinds (`LexMax`, `IntMax`, `Satisfy`). Each kind's meaning (its claims,
search, closing claim and progress) lives in its own module under `smtpuzzles.objectives`; this
module only gathers the names a puzzle uses.
"""

from smtpuzzles.advice import Advice
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import claim_terms, describe, vector_text
from smtpuzzles.objectives.count import IntMax
from smtpuzzles.objectives.lex import LexMax
from smtpuzzles.objectives.satisfy import Satisfy

Objective = LexMax | IntMax | Satisfy  # or any kind registered with smtpuzzles.objectives.register

__all__ = ["Advice", "Encoding", "IntMax", "LexMax", "Objective", "Satisfy", "claim_terms", "describe", "vector_text"]
