"""The puzzles, found through the entry-point group `smtpuzzles.puzzles`.

Each entry point names an object that keeps the contract in `smtpuzzles.contract` (the built-ins
are modules of this package; a third-party package registers its own the same way, see
examples/plugin/). `get(name)` hands out the puzzle wrapped as a `contract.Puzzle`, so the commands
call every hook, optional or not, the same way. A plugin that fails to import or breaks the contract
is left out and named: `get` and `solve --help` say why, and every other puzzle still works.

Start-up: `get` of a built-in loads that puzzle alone, without importlib.metadata's scan and the
other puzzles, when the installed packages' entry-point files (read directly, a few hundred
microseconds) declare no puzzle but the built-ins as they are; then discovery would find exactly
the built-ins. Anything else (a plug-in, a stale declaration, a path entry that is a zip file or an
egg, a finder of distributions other than Python's own) is discovered through the entry points,
as is every listing of the puzzles (`names`, `all_puzzles`, `registry`, `solve --help`).
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field

from smtpuzzles.contract import ContractError, Puzzle
from smtpuzzles.errors import InputError

GROUP = "smtpuzzles.puzzles"
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


def __getattr__(name: str):
    # The built-ins' bundled examples (smtpuzzles/examples/NAME/, package data: an installed copy has
    # them too); `export`, the contract test and the tests of each puzzle read them. Looked up when
    # asked for (importlib.resources is not needed to solve).
    if name == "BUNDLED":
        from smtpuzzles.bundled import EXAMPLES

        return EXAMPLES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_registry: Registry | None = None
_builtins_alone: Registry | None = None  # built-ins `get` loaded one at a time, before any discovery
_only_builtins_declared: bool | None = None


class BuiltinEntry:
    """A built-in's entry point as `discover` reads one (name, value, load), made without
    importlib.metadata."""

    def __init__(self, name: str, value: str):
        self.name, self.value = name, value

    def load(self):
        return importlib.import_module(self.value)


def discover(entry_points=None) -> Registry:
    """Load every registered puzzle. `entry_points` (for tests) replaces what the installed
    metadata declares."""
    registry = Registry()
    if entry_points is None:
        from importlib import metadata

        try:
            found = list(metadata.entry_points(group=GROUP))
        except Exception:  # noqa: BLE001 - one package's unreadable entry_points.txt: read them one by one
            found = _declared_one_by_one(metadata, registry)
        if not any(ep.name in BUILTIN and ep.value == BUILTIN[ep.name] for ep in found):
            found = [metadata.EntryPoint(name, value, GROUP) for name, value in BUILTIN.items()] + found
    else:
        found = list(entry_points)
    order = list(BUILTIN)
    found.sort(key=lambda ep: (order.index(ep.name) if ep.name in order else len(order), ep.name))
    return registered(found, registry)


def _declared_one_by_one(metadata, registry: Registry) -> list:
    """The group's entry points, each installed package read on its own (the first of a name on
    sys.path, as importlib.metadata takes it): a package whose entry_points.txt does not parse is
    named among the puzzles left out instead of ending every command with a traceback."""
    found, seen = [], set()
    for dist in metadata.distributions():
        name = getattr(dist, "_normalized_name", None) or str(dist.metadata["Name"] or "").lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            found += list(dist.entry_points.select(group=GROUP))
        except Exception as exc:  # noqa: BLE001 - a file of another package's, in any shape
            registry.failed[f"(package {name})"] = f"its entry_points.txt cannot be read ({exc.__class__.__name__})"
    return found


def registered(found: list, registry: Registry) -> Registry:
    """`registry` with the entry points `found` loaded into it, in order: each puzzle kept, or left
    out with the reason."""
    first = {}
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
        for name, puzzle in (_builtins_alone.puzzles if _builtins_alone else {}).items():
            if name in _registry.puzzles and _registry.puzzles[name].source is puzzle.source:
                _registry.puzzles[name] = puzzle  # the one `get` handed out already
    return _registry


def reset(entry_points=None) -> Registry:
    """Discover the puzzles again (tests: with `entry_points` standing in for installed metadata)."""
    global _registry, _builtins_alone, _only_builtins_declared
    _builtins_alone = _only_builtins_declared = None
    _registry = discover(entry_points)
    return _registry


def only_builtins_declared() -> bool:
    """Whether discovery would find the built-ins and nothing else: every entry-point file on
    sys.path that declares the group declares exactly the built-ins (or none declares it), read as
    importlib.metadata reads them. False, to be safe, wherever this reading might see less than
    importlib.metadata does."""
    from importlib.machinery import PathFinder

    if any(getattr(finder, "find_distributions", None) is not None and finder is not PathFinder
           for finder in sys.meta_path):
        return False
    for entry in sys.path:
        if not isinstance(entry, str):
            return False
        root = entry or "."
        try:
            children = os.listdir(root)
        except OSError:
            if os.path.exists(root):  # a zip file: importlib.metadata looks inside
                return False
            continue
        if os.path.basename(root).endswith(".egg"):
            return False
        for child in children:
            if not child.lower().endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(root, child, "entry_points.txt"), encoding="utf-8") as file:
                    text = file.read()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
                continue
            except (OSError, UnicodeDecodeError):
                return False
            if GROUP in text and declared(text) not in ({}, BUILTIN):
                return False
    return True


def declared(text: str) -> dict[str, str] | None:
    """The entries of the group in one entry_points.txt, as importlib.metadata parses the file
    (None: a line it would refuse)."""
    entries, section = {}, None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section == GROUP:
            if "=" not in line:
                return None
            name, value = line.split("=", 1)
            if name.strip() in entries:
                return None
            entries[name.strip()] = value.strip()
    return entries


def loaded() -> list[Puzzle]:
    """The puzzles loaded so far: every one once they have been discovered, else the built-ins `get`
    loaded alone (`solve` parsed with one puzzle's options knows no other's)."""
    if _registry is not None or _builtins_alone is None:
        return all_puzzles()
    return list(_builtins_alone.puzzles.values())


def names() -> tuple[str, ...]:
    return tuple(registry().puzzles)


def all_puzzles() -> list[Puzzle]:
    return list(registry().puzzles.values())


def get(name: str) -> Puzzle:
    global _builtins_alone, _only_builtins_declared
    if _registry is None and name in BUILTIN:
        if _only_builtins_declared is None:
            _only_builtins_declared = only_builtins_declared()
        if _only_builtins_declared:
            _builtins_alone = _builtins_alone or Registry()
            if name not in _builtins_alone.puzzles and name not in _builtins_alone.failed:
                registered([BuiltinEntry(name, BUILTIN[name])], _builtins_alone)
            if name in _builtins_alone.puzzles:
                return _builtins_alone.puzzles[name]
    found = registry()
    if name in found.puzzles:
        return found.puzzles[name]
    if name in found.failed:
        raise InputError(f"{name!r} is installed but left out: {found.failed[name]}", "puzzle")
    import difflib  # only for a name it does not know: the nearest

    known = tuple(found.puzzles)
    near = difflib.get_close_matches(str(name), known, n=1, cutoff=0.5)
    hint = f"; did you mean {near[0]}?" if near else ""
    raise InputError(f"unknown puzzle {name!r} (one of {', '.join(known)}){hint}", "puzzle")
