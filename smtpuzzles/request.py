"""What a user asks of a puzzle, decided once for the command line, job files and the Python API:
which mode (the puzzle's first, `unique` or `count`), the count's limit, and whether the encoding
may split its checks into cubes. The three front ends hand the user's words here and word only the
place of an error, so they cannot disagree on what a combination means."""

from __future__ import annotations

from typing import Callable

from smtpuzzles.errors import InputError


def asked_count(count) -> bool:
    """`count` asks for a count: True (every solution) or a whole number (0: every solution too)."""
    return count is not None and count is not False


def mode_and_limit(module, unique: bool, count, place: Callable[[str], str]) -> tuple[str, int | None]:
    """(mode, count limit) for `unique` and `count` as given: count True or 0 counts every solution,
    a positive whole number stops there. `place("unique")` / `place("count")` names where each was
    given, for the one-line error."""
    counting = asked_count(count)
    if unique and counting:
        raise InputError("ask for unique or count, not both", place("count"))
    if counting and not isinstance(count, bool) and (not isinstance(count, int) or count < 0):
        raise InputError(f"count must be true, false or a whole number (0: every solution), not {count!r}",
                         place("count"))
    mode = "unique" if unique else "count" if counting else module.MODES[0]
    if mode not in module.MODES:
        raise InputError(f"{module.NAME} has no {mode} mode", place(mode))
    limit = count if counting and not isinstance(count, bool) and count > 0 else None
    return mode, limit


def check_split(module, encoding: str | None, cubes: int, where: str) -> None:
    """`cubes` splits checks only on an encoding whose puzzle proposes cubes for it."""
    encoding = encoding or module.ENCODINGS[0]
    if cubes and encoding not in module.SPLITS:
        raise InputError(f"the {encoding} encoding of {module.NAME} cannot split its checks into cubes", where)
