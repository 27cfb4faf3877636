"""What a puzzle hands the driver: a base formula, an objective over it, and a model decoder.

Objectives speak in `Term`s, so the driver can build every claim it checks (and the audit can rebuild
every claim it reads) without knowing which puzzle it is looking at. A claim is a small JSON object;
`claim_terms` turns it into the assumptions of one solver check. The same function serves the driver
when it asks and the audit when it checks that a recorded query is what today's encoder emits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from smtpuzzles.formula import Formula, Term, all_of, any_of, lit


@dataclass
class LexMax:
    """Maximise a vector of small ints lexicographically (position 0 most significant)."""

    length: int
    domain: Sequence[int]
    greater: Callable[[int, int], Term]  # position i holds a value > d
    equal: Callable[[int, int], Term]  # position i holds d
    # How many times each value occurs in every feasible vector (a Latin square read in any order
    # holds each digit N times): lets the driver close a position whose value is the largest one left.
    multiplicity: dict[int, int] | None = None
    kind: str = "lex"
    # How the puzzle writes a vector, for the words of each step (default: `vector_text`).
    show: Callable[[Sequence[int]], str] | None = None

    def prefix_terms(self, prefix: Sequence[int]) -> list[Term]:
        return [self.equal(i, d) for i, d in enumerate(prefix)]

    def lex_greater(self, best: Sequence[int]) -> Term:
        """The whole vector is lexicographically greater than `best`, as one formula."""
        options = []
        for i, d in enumerate(best):
            if d < max(self.domain):
                options.append(all_of(self.prefix_terms(best[:i]) + [self.greater(i, d)]))
        return any_of(options)


# How the driver raises a lexicographic position (driver._lex): a run records its search so a
# resume asks the same questions in the same order.
SEARCHES = ("descend", "leap", "climb")


@dataclass
class IntMax:
    """Maximise an integer count: bounds asked as checks, closed by UNSAT at best + 1."""

    at_least: Callable[[int], Term]
    upper: int | None = None
    # Ask upper, upper - 1, ... before climbing: for a small known ceiling where low bounds are slow
    # to satisfy (skipped when the encoding's guess gave the first model). Either way the
    # certificate is the UNSAT step at best + 1.
    descend: bool = False
    kind: str = "max"


@dataclass
class Satisfy:
    """Find a solution; optionally prove it unique or count solutions by blocking each one found."""

    block: Callable[[Any], Term]  # a term that excludes this solution (and its equals)
    kind: str = "satisfy"


Objective = LexMax | IntMax | Satisfy


@dataclass
class Encoding:
    name: str
    version: int
    formula: Formula
    objective: Objective
    decode: Callable[[Any], dict]  # engine model -> solution (JSON)
    engines: tuple[str, ...] = ("z3",)  # engines this formula can run on (sat needs a CNF)
    notes: dict = field(default_factory=dict)
    # A cheap heuristic's answer as a partial assignment, which engines try first under each check's
    # assumptions. It only steers the search: a SAT answer is still the solver's model of the formula
    # and the claim (decoded and refereed as any other), and an UNSAT answer never rests on it.
    guess: Callable[[], list[Term]] | None = None
    # A slower search for a guess (seconds, not milliseconds), which the driver makes only when a
    # check is not settled within SECOND_GUESS_AFTER seconds (smtpuzzles.driver) and then tries in
    # place of `guess`. It is given the seconds the check has left (None: no limit) and must end
    # within them; None from it means it found nothing better. It steers like `guess`, no more.
    second_guess: Callable[[float | None], list[Term] | None] | None = None
    # A symmetry-breaking clause's justification (smtpuzzles.symmetry.Lemma): checked by machine in
    # the run and in every audit, or the encoding is not used.
    lemma: Any = None
    # The puzzle's proposal for splitting a check (`solve --cubes DEPTH`): DEPTH -> cubes, each a
    # list of variable names. Only a proposal: smtpuzzles.cubes checks that they cover every case.
    cubes: Callable[[int], list[list[str]]] | None = None


def claim_terms(objective: Objective, claim: dict) -> list[Term]:
    """The assumptions of the check that tests `claim` (a recorded step's structured claim); a
    claim split into cubes (smtpuzzles.cubes) adds its cube's variables as true literals."""
    if "cube" in claim:
        return _claim_terms(objective, claim) + [lit(name) for name in claim["cube"]]
    return _claim_terms(objective, claim)


def _claim_terms(objective: Objective, claim: dict) -> list[Term]:
    op = claim["op"]
    if op == "first":
        return []
    if op == "exceed":  # lex: prefix fixed, position `pos` larger than `than`
        return objective.prefix_terms(claim["prefix"]) + [objective.greater(claim["pos"], claim["than"])]
    if op == "lex_greater":
        return [objective.lex_greater(claim["best"])]
    if op == "at_least":
        return [objective.at_least(claim["k"])]
    if op == "block":
        return [objective.block(s) for s in claim["solutions"]]
    raise ValueError(f"unknown claim {op!r}")


def describe(claim: dict, objective: Objective | None = None) -> str:
    """The claim in words, as the ledger and the progress display show it; vectors as the
    objective's puzzle writes them when it says how."""
    if "cube" in claim:
        rest = {k: v for k, v in claim.items() if k != "cube"}
        return f"{describe(rest, objective)}, in cube {' '.join(claim['cube'])}"
    show = getattr(objective, "show", None) or vector_text
    op = claim["op"]
    if op == "first":
        return "there is a solution"
    if op == "exceed":
        prefix = show(claim["prefix"]) or "(empty)"
        return f"with prefix {prefix}, position {claim['pos'] + 1} can exceed {claim['than']}"
    if op == "lex_greater":
        return f"some solution beats {show(claim['best'])} lexicographically"
    if op == "at_least":
        return f"some solution reaches at least {claim['k']}"
    if op == "block":
        n = len(claim["solutions"])
        return f"there is a solution other than the {n} found" if n > 1 else "there is a solution other than the one found"
    return op


def vector_text(vector: Sequence[int]) -> str:
    """A vector of small ints in few characters: digits run together, anything larger comma-separated."""
    if all(isinstance(d, int) and 0 <= d < 10 for d in vector):
        return "".join(map(str, vector))
    return ",".join(map(str, vector))
