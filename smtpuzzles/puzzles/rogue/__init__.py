"""Roguelike pathfinding: how much gold the rogue collects without waking a monster.

Rules as this tool reads them: `@` the rogue, `$` gold, `#` wall, `.` or space empty, any of
[a-zA-Z*&] a monster, every monster cell its own monster. Each turn the rogue makes a king move onto an
empty or gold cell; it may not be next to the same monster on two consecutive turns. So a step p -> q
is allowed exactly when no monster is next to both p and q, the relation is symmetric (any route can be
walked back), and the answer is the gold reachable by allowed steps. Short rows are padded with empty
cells; the start may not be next to a monster.

This package is the puzzle's contract: the map and what it allows (dungeon.py), walks, their
referee and the closed set that proves the rest unreachable (walks.py), and two encodings
(encodings.py).
"""

from __future__ import annotations

from smtpuzzles.contract import InlineKey, examples_in

from .dungeon import (MONSTER, WALKABLE, UNKNOWN, LIMITS, DIRECTIONS, SHARED, QUIET, KIND, Grid, Dungeon, around,
                      load, canonical, from_canonical, describe)
from .encodings import ENCODINGS, cell_name, encode, region_name, encode_regions, named_cells, encode_flow
from .walks import (walk_collecting, tour, moves_of, rows_of, KEYS, DIGITS, walk_of, referee, check_closed, MARKS,
                    value, value_json, certificate, close_region)


NAME = "rogue"
SUMMARY = "how much gold the rogue can take without waking a monster"
INLINE = (InlineKey("map", str, "the map itself"),)
DEFAULT_ENGINE = "z3"
MODES = ("optimise",)


def examples():
    """The seed's maps and more, in smtpuzzles/examples/rogue/ (package data), in the regions
    encoding: the exports show the question a solver is asked of each map (the default, reach,
    would state the search's answer in two lines)."""
    from smtpuzzles.puzzles import BUNDLED  # importlib.resources, which a solve does not need

    return examples_in(BUNDLED / NAME, load, "regions")


class Picture:
    """The map drawn when it is shown (rich's `__rich__`), not before: `solve --json` makes the
    pictures too and never prints them, and drawing a 1000x1000 map took longer than solving it."""

    def __init__(self, dungeon: Dungeon, solution: dict):
        self.dungeon, self.solution = dungeon, solution

    def __rich__(self):
        return picture(self.dungeon, self.solution)


def render(dungeon: Dungeon, solution: dict, proved=None):
    return Picture(dungeon, solution)


def picture(dungeon: Dungeon, solution: dict):
    from rich.text import Text

    walk = walk_of(dungeon, solution)[0]
    on_path = set(walk)
    gold = set(dungeon.gold)
    near = dungeon.grid.near
    out = Text(no_wrap=True, overflow="ignore")  # a map wider than the terminal is never re-flowed

    def look(r: int, c: int, ch: str) -> tuple[str, str]:
        if ch == "@":
            return "@", "bold white on dark_green"
        if ch == "$":
            return "$", "bold black on yellow" if (r, c) in on_path else "yellow dim"
        if ch == "#":
            return "█", "grey42"
        if MONSTER.fullmatch(ch):
            return ch, "bold red"
        if (r, c) in on_path:
            return "·", "white on dark_green"
        if near[dungeon.grid.index((r, c))]:
            return "░", "red dim"
        return " " if ch == " " else ".", "dim"

    for r, row in enumerate(dungeon.rows):
        # Runs of one style appended at once: one span a run, not a cell (a 1000x1000 map drawn
        # cell by cell held 1.15 GB).
        run, style = [], None
        for c, ch in enumerate(row):
            shown, looks = look(r, c, ch)
            if looks != style and run:
                out.append("".join(run), style=style)
                run = []
            run.append(shown)
            style = looks
        if run:
            out.append("".join(run), style=style)
        out.append("\n")
    out.append(f"gold taken: {value(dungeon, solution)} of {len(gold)}; walk of {len(walk) - 1} steps", style="bold")
    return out


def draw(dungeon: Dungeon, solution: dict | None) -> str:
    """The map as an SVG document, the walk and the gold on it (drawing.py)."""
    from . import drawing

    return drawing.draw(dungeon, solution)


# The contract's face: the package's public names, as a single module would have them (no private ones).
__all__ = ['DEFAULT_ENGINE', 'DIGITS', 'DIRECTIONS', 'Dungeon', 'ENCODINGS', 'Grid', 'INLINE', 'KEYS', 'KIND',
           'LIMITS', 'MARKS', 'MODES', 'MONSTER', 'NAME', 'Picture', 'QUIET', 'SHARED', 'SUMMARY', 'UNKNOWN', 'WALKABLE',
           'around', 'canonical', 'cell_name', 'certificate', 'check_closed', 'close_region', 'describe', 'draw',
           'encode', 'encode_flow', 'encode_regions', 'examples', 'from_canonical', 'load', 'moves_of',
           'named_cells', 'picture', 'referee', 'region_name', 'render', 'rows_of', 'tour', 'value', 'value_json',
           'walk_collecting', 'walk_of']
