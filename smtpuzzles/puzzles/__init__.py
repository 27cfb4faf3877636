"""The puzzles. Each module has the same shape:

  load(text, source, options) -> instance      parse and validate (InputError on bad input)
  canonical(instance) / from_canonical(data)   the instance as JSON, and back
  encode(instance, encoding) -> Encoding       base formula, objective, model decoder
  referee(instance, solution) -> [problems]    pure Python, never imports z3
  value(instance, solution)                    the objective value of a solution
  value_json(value)                            that value as the JSON output shows it
  render(instance, solution, proved) -> rich   a picture of the solution
plus ENCODINGS (default first), DEFAULT_ENGINE, MODES (what `solve` may be asked to do) and LIMITS
(the largest instance `load` accepts, measured); ACCEPTS_URLS where INPUT may be a URL.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from smtpuzzles.errors import InputError

NAMES = ("kingtour", "nonary", "tatamibari", "rogue")


def get(name: str) -> ModuleType:
    if name not in NAMES:
        import difflib

        near = difflib.get_close_matches(str(name), NAMES, n=1, cutoff=0.5)
        hint = f"; did you mean {near[0]}?" if near else ""
        raise InputError(f"unknown puzzle {name!r} (one of {', '.join(NAMES)}){hint}", "puzzle")
    return importlib.import_module(f"smtpuzzles.puzzles.{name}")
