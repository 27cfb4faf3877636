"""The puzzles, found through the entry-point group `smtpuzzles.puzzles`.

Each entry point names an object that keeps the contract in `smtpuzzles.contract` (the built-ins
are modules of this package; a third-party package registers its own the same way, see
examples/plugin/). `get(name)` hands out the puzzle wrapped as a `contract.Puzzle`, so the commands
call every hook, optional or not, the same way. A plugin that fails to import or breaks the contract
is left out and named: `get` and `solve --help` say why, and every other puzzle still works.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from importlib import metadata

from smtpuzzles.bundled import EXAMPLES
from smtpuzzles.contract import ContractError, Puzzle
from smtpuzzles.errors import InputError

GROUP = "smtpuzzles.puzzles"
# The built-ins' bundled examples (smtpuzzles/examples/NAME/, package data: an installed copy has
# them too); `export`, the contract test and the tests of each puzzle read them.
BUNDLED = EXAMPLES
# The built-ins' entry points as pyproject.toml declares them (a test keeps the two equal). Used
# only when this package's own metadata does not declare the group: a source tree run without
# being installed, or an install made before the entry points existed.
BUILTIN = {
    "kingtour": "smtpuzzles.puzzles.kingtour",
    "nonary": "smtpuzzles.puzzles.nonary",
    "tatamibari": "smtpuzzles.puzzles.tatamibari",
    "rogue": "smtpuzzles.puzzles.rogue",
}


@dataclass
class Registry:
    puzzles: dict[str, Puzzle] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # name -> why it was left out


_registry: Registry | None = None


def discover(entry_points=None) -> Registry:
    """Load every registered puzzle. `entry_points` (for tests) replaces what the installed
    metadata declares."""
    found = list(metadata.entry_points(group=GROUP) if entry_points is None else entry_points)
    if entry_points is None and not any(ep.name in BUILTIN and ep.value == BUILTIN[ep.name] for ep in found):
        found = [metadata.EntryPoint(name, value, GROUP) for name, value in BUILTIN.items()] + found
    order = list(BUILTIN)
    found.sort(key=lambda ep: (order.index(ep.name) if ep.name in order else len(order), ep.name))
    registry, first = Registry(), {}
    for ep in found:
        if ep.name in first:  # the same package seen twice (a checkout and its install) is one
            if ep.value != first[ep.name]:
                registry.puzzles.pop(ep.name, None)
                registry.failed[ep.name] = f"registered twice, as {first[ep.name]} and {ep.value}"
            continue
        first[ep.name] = ep.value
        try:
            puzzle = Puzzle(ep.load())
        except ContractError as exc:
            registry.failed[ep.name] = f"breaks the puzzle contract ({exc})"
            continue
        except Exception as exc:  # noqa: BLE001 - a broken plugin never stops the other puzzles
            registry.failed[ep.name] = f"{ep.value} does not load ({exc.__class__.__name__}: {exc})"
            continue
        if puzzle.NAME != ep.name:
            registry.failed[ep.name] = f"{ep.value} calls itself {puzzle.NAME!r}, not {ep.name!r}"
            continue
        clash = _option_clash(registry, puzzle)
        if clash:
            registry.failed[ep.name] = clash
            continue
        registry.puzzles[ep.name] = puzzle
    return registry


def _option_clash(registry: Registry, puzzle: Puzzle) -> str | None:
    """Puzzles may share an option name (one flag on `solve` serves both) only if they agree on
    what it is."""
    for other in registry.puzzles.values():
        for mine in puzzle.OPTIONS:
            theirs = other.option(mine.name)
            if theirs and (theirs.type, theirs.input_file) != (mine.type, mine.input_file):
                return f"its option {mine.flag} is not the {other.NAME} option of that name"
    return None


def registry() -> Registry:
    global _registry
    if _registry is None:
        _registry = discover()
    return _registry


def reset(entry_points=None) -> Registry:
    """Discover the puzzles again (tests: with `entry_points` standing in for installed metadata)."""
    global _registry
    _registry = discover(entry_points)
    return _registry


def names() -> tuple[str, ...]:
    return tuple(registry().puzzles)


def all_puzzles() -> list[Puzzle]:
    return list(registry().puzzles.values())


def get(name: str) -> Puzzle:
    found = registry()
    if name in found.puzzles:
        return found.puzzles[name]
    if name in found.failed:
        raise InputError(f"{name!r} is installed but left out: {found.failed[name]}", "puzzle")
    known = tuple(found.puzzles)
    near = difflib.get_close_matches(str(name), known, n=1, cutoff=0.5)
    hint = f"; did you mean {near[0]}?" if near else ""
    raise InputError(f"unknown puzzle {name!r} (one of {', '.join(known)}){hint}", "puzzle")
