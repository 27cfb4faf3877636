"""DIMACS, the one form every clausal proof here speaks of: a query's text with its numbers, the
writer and the reader (part of what an auditor trusts: docs/trust.md), and the errors and verdicts
of the proof modules. Nothing here runs a solver or knows a puzzle."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Sequence

from smtpuzzles.errors import InputError


class ProofError(InputError):
    """A query, proof or proof file that cannot be produced, read or accepted."""


class ReferenceProofError(ProofError):
    """The closing claim's proof is stored, its proof on the puzzle's reference formula is not."""


class Satisfiable(ProofError):
    """A solver found a model of the query: there is no proof, and the claim it would refute holds.
    A verdict of its own type, never read from a message's words (a folder's name can hold any)."""


@dataclass(frozen=True)
class Dimacs:
    """A CNF query as DIMACS text, with the numbers a checker needs and the text's sha-256."""

    text: str
    variables: int
    clauses: int
    # The clauses this process wrote the text from, read back instead of parsing the text again
    # (about 0.1 s a query on 8x8). Never changed by the checkers, which copy them.
    written_from: Sequence[Sequence[int]] | None = field(default=None, compare=False, repr=False)

    def clause_list(self) -> tuple[int, Sequence[Sequence[int]]]:
        """(variable count, clauses) of the query."""
        if self.written_from is not None:
            return self.variables, self.written_from
        return read_dimacs(self.text)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def data(self) -> bytes:
        return self.text.encode()


def dimacs_of(nvars: int, clauses: Sequence[Sequence[int]]) -> Dimacs:
    """Clauses as DIMACS CNF text, one clause a line."""
    return Dimacs(f"p cnf {nvars} {len(clauses)}\n" + clause_lines(clauses), nvars, len(clauses), tuple(clauses))


def clause_lines(clauses: Sequence[Sequence[int]]) -> str:
    return "".join(" ".join(map(str, c)) + " 0\n" if c else "0\n" for c in clauses)


def read_dimacs(data: str | bytes, where: str = "dimacs") -> tuple[int, list[list[int]]]:
    """(variable count, clauses) of a DIMACS text, with a clear message for anything malformed."""
    text = data.decode("ascii", errors="replace") if isinstance(data, bytes) else data
    lines = text.split("\n")
    header = 0
    while header < len(lines) and (not lines[header].strip() or lines[header].startswith("c")):
        header += 1
    parts = lines[header].split() if header < len(lines) else []
    if len(parts) != 4 or parts[:2] != ["p", "cnf"] or not (parts[2].isdigit() and parts[3].isdigit()):
        raise ProofError("no 'p cnf VARIABLES CLAUSES' header", where)
    nvars, nclauses = int(parts[2]), int(parts[3])
    try:
        numbers = [int(x) for x in " ".join(lines[header + 1:]).split()]
    except ValueError:
        raise ProofError("a token that is not an integer", where) from None
    if numbers and numbers[-1] != 0:
        raise ProofError("the last clause is not ended by 0", where)
    clauses: list[list[int]] = []
    current: list[int] = []
    for x in numbers:
        if x == 0:
            clauses.append(current)
            current = []
        elif -nvars <= x <= nvars:
            current.append(x)
        else:
            raise ProofError(f"literal {x} is outside the {nvars} declared variables", where)
    if len(clauses) != nclauses:
        raise ProofError(f"{len(clauses)} clauses where the header says {nclauses}", where)
    return nvars, clauses
