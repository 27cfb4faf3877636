"""The map: reading it, and which steps it allows (a step wakes no monster), as flat arrays with a
border of walls, and its regions of allowed steps.
"""

from __future__ import annotations

import re
import sys
from array import array
from dataclasses import dataclass
from functools import cached_property

from smtpuzzles.errors import InputError


MONSTER = re.compile(r"[a-zA-Z*&]")
WALKABLE = set(".$@ ")
UNKNOWN = re.compile(r"[^.$@ #a-zA-Z*&]")
# The largest map measured, so the largest accepted (encodings/rogue.md, "Limits").
LIMITS = {"cells": 1_000_000}


# The eight king moves, in the order every list of steps follows (row by row, as `around` yields them).
DIRECTIONS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
# SHARED[d]: the neighbours e of a cell p (bit e) that are also next to q = p + DIRECTIONS[d]. A monster
# is never p or q (both walkable), so the step p -> q wakes one exactly when a SHARED[d] bit of p's
# monster mask is set: two or four cells looked at instead of two sets of watchers intersected.
SHARED = tuple(
    sum(1 << e for e, (er, ec) in enumerate(DIRECTIONS) if e != d and max(abs(er - dr), abs(ec - dc)) == 1)
    for d, (dr, dc) in enumerate(DIRECTIONS))
# For each monster mask (256 of them), the directions a step may take from a cell with that mask.
QUIET = tuple(tuple(d for d in range(8) if not mask & SHARED[d]) for mask in range(256))
# For each monster mask, the directions (bits) whose step wakes a monster.
WAKES = bytes(sum(1 << d for d in range(8) if mask & SHARED[d]) for mask in range(256))
NOT_WALKABLE = bytes([255, 0] + [255] * 254)  # Grid.kind -> every direction barred off the walkable cells
KIND = bytes(1 if chr(b) in WALKABLE else 2 if MONSTER.fullmatch(chr(b)) else 0 for b in range(256))
GOLD = bytes(1 if b == ord("$") else 0 for b in range(256))
IS_MONSTER = bytes([0, 0, 1] + [0] * 253)  # Grid.kind -> 1 on the monsters
# Where the low and the high byte of a 16-bit array item lie in its bytes, on this machine.
LOW_HIGH = (0, 1) if sys.byteorder == "little" else (1, 0)


class Grid:
    """The map as flat arrays with a border of walls, so that a neighbour needs no bounds check:
    cell (r, c) is index (r + 1) * stride + c + 1; `kind` is 1 walkable, 2 monster, 0 wall or border;
    `near` has bit d set when a monster stands at DIRECTIONS[d] from the cell. (A plain class, not a
    dataclass: made once a map, and making the dataclass was a millisecond of every start-up.)"""

    __slots__ = ("stride", "kind", "near", "offsets")

    def __init__(self, stride: int, kind: bytearray, near: bytearray, offsets: tuple):
        self.stride, self.kind, self.near = stride, kind, near
        self.offsets = offsets  # per monster mask: the index offsets of the quiet directions

    def index(self, p) -> int:
        return (p[0] + 1) * self.stride + p[1] + 1

    def cell(self, i: int) -> tuple[int, int]:
        r, c = divmod(i, self.stride)
        return r - 1, c - 1

    def targets(self, i: int) -> list[int]:
        """Indices one allowed step from walkable index i, in DIRECTIONS order."""
        kind = self.kind
        return [i + o for o in self.offsets[self.near[i]] if kind[i + o] == 1]


@dataclass(frozen=True)
class Dungeon:
    rows: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @cached_property
    def start(self) -> tuple[int, int]:
        return next((r, row.index("@")) for r, row in enumerate(self.rows) if "@" in row)

    @cached_property
    def gold(self) -> list[tuple[int, int]]:
        return [(r, m.start()) for r, row in enumerate(self.rows) for m in re.finditer(r"\$", row)]

    @cached_property
    def gold_count(self) -> int:
        return sum(row.count("$") for row in self.rows)

    @cached_property
    def walkable(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch in WALKABLE]

    @cached_property
    def grid(self) -> Grid:
        stride = self.width + 2
        kind = bytearray(stride * (self.height + 2))
        for r, row in enumerate(self.rows):
            at = (r + 1) * stride + 1
            kind[at:at + len(row)] = row.encode("latin-1", "replace").translate(KIND)
        steps = [dr * stride + dc for dr, dc in DIRECTIONS]
        # The cell at m - o has the monster at m in direction d (o the step that way): the monsters'
        # marks (a byte a cell, read as one integer) moved o cells back, as bit d of each byte. No
        # monster stands on the border, so none is moved off the grid.
        size = len(kind)
        monsters = int.from_bytes(kind.translate(IS_MONSTER), "little")
        near = 0
        for d, o in enumerate(steps):
            near |= (monsters >> (8 * o) if o > 0 else monsters << (-8 * o)) << d
        near = bytearray((near & ((1 << (8 * size)) - 1)).to_bytes(size, "little"))
        offsets = tuple(tuple(steps[d] for d in quiet) for quiet in QUIET)
        return Grid(stride, kind, near, offsets)

    def on_map(self, p: tuple[int, int]) -> bool:
        return 0 <= p[0] < self.height and 0 <= p[1] < self.width

    def watchers_of(self, p: tuple[int, int]) -> set[tuple[int, int]]:
        """The monsters (by cell) that would notice the rogue standing on p: none off the map."""
        if not self.on_map(p):
            return set()
        return {q for q in around(*p, self.height, self.width) if MONSTER.fullmatch(self.rows[q[0]][q[1]])}

    def allowed(self, p: tuple[int, int], q: tuple[int, int]) -> bool:
        """The step p -> q (a king move apart) wakes nobody; a cell off the map has no watchers."""
        if not (self.on_map(p) and self.on_map(q)):
            return True
        d = DIRECTIONS.index((q[0] - p[0], q[1] - p[1]))
        return not self.grid.near[self.grid.index(p)] & SHARED[d]

    def is_walkable(self, p) -> bool:
        """p is a (row, col) pair inside the map on an empty or gold cell."""
        return (len(p) == 2 and all(isinstance(x, int) for x in p) and 0 <= p[0] < self.height
                and 0 <= p[1] < self.width and self.rows[p[0]][p[1]] in WALKABLE)

    def steps_from(self, p: tuple[int, int]) -> list[tuple[int, int]]:
        """Allowed steps out of the walkable cell p, in DIRECTIONS order."""
        grid = self.grid
        return [grid.cell(i) for i in grid.targets(grid.index(p))]

    @cached_property
    def steps(self) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """Allowed steps out of every walkable cell."""
        return {p: self.steps_from(p) for p in self.walkable}

    @cached_property
    def gold_marks(self) -> bytearray:
        """1 on every gold cell, indexed as the grid is."""
        grid = self.grid
        marks = bytearray(len(grid.kind))
        for r, row in enumerate(self.rows):
            at = (r + 1) * grid.stride + 1
            marks[at:at + len(row)] = row.encode("latin-1", "replace").translate(GOLD)
        return marks

    @cached_property
    def wakes(self) -> bytes:
        """For every grid index, the directions (bits, DIRECTIONS order) a step out of it may not
        take: those that wake a monster, and all eight off the walkable cells."""
        grid = self.grid
        wakes = grid.near.translate(WAKES)
        blocked = int.from_bytes(grid.kind.translate(NOT_WALKABLE), "little")
        return (int.from_bytes(wakes, "little") | blocked).to_bytes(len(wakes), "little")

    @cached_property
    def wakes_and_gold(self) -> array:
        """`wakes` and `gold_marks` of every grid index as one 16-bit array (wakes the low byte): the
        all-at-once replay looks each cell of a walk up once for both."""
        both = bytearray(2 * len(self.wakes))
        low, high = LOW_HIGH
        both[low::2], both[high::2] = self.wakes, self.gold_marks
        table = array("H")
        table.frombytes(both)
        return table

    @cached_property
    def memo(self) -> dict:
        """Room for what is worth keeping between calls on this map (the last walk replayed)."""
        return {}

    @cached_property
    def regions(self) -> array:
        """The contraction: for every grid index, the region (connected component of walkable cells
        under allowed steps) holding it, named by its first index in reading order; -1 off the
        walkable cells. One depth-first pass, each cell and step looked at once: linear in the map."""
        grid = self.grid
        kind, near, offsets = grid.kind, grid.near, grid.offsets
        label = array("q", [-1]) * len(kind)
        seed = kind.find(1)
        while seed >= 0:
            if label[seed] < 0:  # the first unlabelled cell in reading order names its region
                label[seed] = seed
                stack = [seed]
                while stack:
                    i = stack.pop()
                    for o in offsets[near[i]]:
                        j = i + o
                        if kind[j] == 1 and label[j] < 0:
                            label[j] = seed
                            stack.append(j)
            seed = kind.find(1, seed + 1)
        return label


def around(r: int, c: int, height: int, width: int):
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr or dc) and 0 <= r + dr < height and 0 <= c + dc < width:
                yield r + dr, c + dc


# --------------------------------------------------------------------------------------------- parse
def load(text: str | None, source: str, options: dict) -> Dungeon:
    if text is None:
        raise InputError("a map is needed (a file or - for stdin)", "input")
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise InputError("the map is empty", source)
    width = max(len(line.rstrip("\r")) for line in lines)
    if width * len(lines) > LIMITS["cells"]:  # before padding short rows, which would make the cells
        raise InputError(f"a {width}x{len(lines)} map has {width * len(lines)} cells, more than the "
                         f"{LIMITS['cells']} accepted", source)
    rows = []
    starts = []
    for r, line in enumerate(lines):
        line = line.rstrip("\r")
        bad = UNKNOWN.search(line)
        if bad:
            raise InputError(f"unknown symbol {bad.group()!r} (map symbols: @ $ # . space, monsters a-z A-Z * &)",
                             f"{source} line {r + 1} column {bad.start() + 1}")
        if "@" in line:
            starts += [(r, c) for c, ch in enumerate(line) if ch == "@"]
        rows.append(line.ljust(width))  # editors strip trailing spaces: a short row ends in empty cells
    if not starts:
        raise InputError("the map has no @ (the rogue's start)", source)
    if len(starts) > 1:
        (r1, c1), (r2, c2) = starts[:2]
        raise InputError(f"the map has {len(starts)} @ (line {r1 + 1} column {c1 + 1} and line {r2 + 1} column {c2 + 1}); "
                         "exactly one is allowed", source)
    dungeon = Dungeon(tuple(rows))
    r, c = dungeon.start
    if dungeon.watchers_of((r, c)):
        mr, mc = sorted(dungeon.watchers_of((r, c)))[0]
        raise InputError(f"the start is next to the monster {rows[mr][mc]!r} at line {mr + 1} column {mc + 1}",
                         f"{source} line {r + 1} column {c + 1}")
    return dungeon


def canonical(dungeon: Dungeon) -> dict:
    return {"map": list(dungeon.rows)}


def from_canonical(data: dict) -> Dungeon:
    return load("\n".join(data["map"]), "instance", {})


def describe(dungeon: Dungeon) -> str:
    return f"{dungeon.width}x{dungeon.height}, {dungeon.gold_count} gold"
