"""Objective kinds: each one module that owns what its objective means.

A kind module (lex, count, satisfy here) holds, top to bottom:

  KIND: str                      the name runs record ("lex", "max", "satisfy")
  MODES: tuple[str, ...]         the run modes it answers (a puzzle's MODES must be among them)
  PROVES_PREFIX, BEST_IS_VALUE   how the pictures show progress: a proved prefix, a best value
  the objective's dataclass      what a puzzle's `encode` hands over (its `kind` field is KIND)
  CLAIMS: {op: {field: type}}    the claims its search asks, and their fields
  INTEGER_LISTS: tuple[str]      claim fields that hold lists of integers
  terms(objective, claim)        the assumptions of the check that tests a claim
  words(claim, show)             the claim in words (`show` writes a vector)
  meets(claim, worth, solution, same)  whether a model worth `worth` answers the claim
  search(steer, objective, solution, value, mode, limit, advice) -> Outcome
                                 the search after the first model, every check through `steer`
                                 (smtpuzzles.driver.Steering), as the encoding's advice says
  closing(run: Recorded)         the claim a finished run must have refuted, and its words;
                                 raises ClaimFails when the claimed status cannot hold
  unfinished(run: Recorded)      optional: what must hold of a run that stopped early
  progress(out, steps, bad)      how far a run has come, read off its steps into `out`
  where(progress, brief)         where the run is, in a short phrase

The driver, the audit, the live view and the run-folder reader call these through `kind_of`; none of
them names a kind. A new kind is one module, and `register(module)` makes it known.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

from smtpuzzles.formula import Term, lit

from . import count, lex, satisfy
from .count import IntMax
from .lex import LexMax
from .satisfy import Satisfy
from .base import FIRST, ClaimFails, Outcome, Recorded, RefereeRejected, stopped, vector_text

KINDS: dict[str, ModuleType] = {}
OPS: dict[str, ModuleType | None] = {"first": None}  # claim op -> the kind that asks it


def register(kind: ModuleType) -> None:
    """Make a kind module known to the driver, the audit, the live view and the run-folder reader."""
    clash = [op for op in kind.CLAIMS if OPS.get(op, kind) is not kind]
    if kind.KIND in KINDS and KINDS[kind.KIND] is not kind or clash:
        raise ValueError(f"objective kind {kind.KIND!r} takes a name or claim op another kind has: {clash}")
    KINDS[kind.KIND] = kind
    OPS.update({op: kind for op in kind.CLAIMS})


for _kind in (lex, count, satisfy):
    register(_kind)


def kind_of(objective: Any) -> ModuleType:
    """The kind module of an objective, or of a kind's name."""
    name = objective if isinstance(objective, str) else objective.kind
    if name not in KINDS:
        raise ValueError(f"unknown objective kind {name!r}")
    return KINDS[name]


def known(name: str) -> ModuleType | None:
    """The kind module of that name, None for a name no kind has."""
    return KINDS.get(name)


def proves_prefix(name: str | None) -> bool:
    """Whether runs of this kind prove leading positions one by one (False for an unknown name)."""
    return bool(getattr(KINDS.get(name), "PROVES_PREFIX", False))


def best_is_value(name: str | None) -> bool:
    """Whether a run's best so far is a value of its objective (False for an unknown name)."""
    return bool(getattr(KINDS.get(name), "BEST_IS_VALUE", False))


def kind_of_claim(claim: dict) -> ModuleType | None:
    """The kind whose search asks this claim (None for "first", which every kind asks)."""
    return OPS.get(claim["op"])


def claim_fields(op: str) -> dict[str, type] | None:
    """A claim op's fields and their types, None for an op no kind asks."""
    if op not in OPS:
        return None
    kind = OPS[op]
    return FIRST[op] if kind is None else kind.CLAIMS[op]


def integer_list_fields(op: str) -> tuple[str, ...]:
    kind = OPS.get(op)
    return () if kind is None else tuple(kind.INTEGER_LISTS)


def claim_terms(objective: Any, claim: dict) -> list[Term]:
    """The assumptions of the check that tests `claim` (a recorded step's structured claim); a
    claim split into cubes (smtpuzzles.cubes) adds its cube's variables as true literals."""
    if claim["op"] not in OPS:
        raise ValueError(f"unknown claim {claim['op']!r}")
    kind = OPS[claim["op"]]
    base = [] if kind is None else kind.terms(objective, claim)
    return base + [lit(name) for name in claim.get("cube", ())]


def describe(claim: dict, objective: Any = None) -> str:
    """The claim in words, as the ledger and the progress display show it; vectors as the
    objective's puzzle writes them when it says how."""
    if "cube" in claim:
        rest = {k: v for k, v in claim.items() if k != "cube"}
        return f"{describe(rest, objective)}, in cube {' '.join(claim['cube'])}"
    if claim["op"] not in OPS:
        return claim["op"]
    kind = OPS[claim["op"]]
    if kind is None:
        return "there is a solution"
    return kind.words(claim, getattr(objective, "show", None) or vector_text)


def meets(claim: dict, solution: dict, worth, same: Callable) -> bool:
    """Whether a refereed model (worth `worth`) answers the claim its check asked."""
    kind = OPS.get(claim["op"])
    if kind is None:
        return True
    return kind.meets(claim, worth, solution, same)


__all__ = ["ClaimFails", "IntMax", "KINDS", "LexMax", "Outcome", "Recorded", "RefereeRejected", "Satisfy",
           "best_is_value", "claim_fields", "claim_terms", "describe", "integer_list_fields", "kind_of",
           "kind_of_claim", "known", "meets", "proves_prefix", "register", "stopped", "vector_text"]
