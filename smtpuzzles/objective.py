"""What a puzzle imports to say what it asks: its `Encoding` and the objective kinds (`LexMax`,
`IntMax`, `Satisfy`). Each kind's meaning (its claims, search, closing claim and progress) lives in
its own module under `smtpuzzles.objectives`; this module only gathers the names a puzzle uses.
"""

from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import SEARCHES, claim_terms, describe, vector_text
from smtpuzzles.objectives.count import IntMax
from smtpuzzles.objectives.lex import LexMax
from smtpuzzles.objectives.satisfy import Satisfy

Objective = LexMax | IntMax | Satisfy  # or any kind registered with smtpuzzles.objectives.register

__all__ = ["Encoding", "IntMax", "LexMax", "Objective", "SEARCHES", "Satisfy", "claim_terms", "describe",
           "vector_text"]
