"""The board and its rules: clues, the referee, and a solution's regions read as rectangles.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from smtpuzzles.contract import whole


CLUES = "+-|?"
EMPTY = "*._"
REGION_CHARS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# The `rectangles` encoding's memory follows the cells of all candidate rectangles (1.7 million on a
# generated 100x100, 0.83 GB; one clue amid 20x20 empty cells already has 1.3 million, 0.44 GB), so
# both are bounded at load, whichever encoding is asked for (`spans` on that 100x100: 0.18 GB).
LIMITS = {"cells": 10_000, "rectangle_cells": 2_000_000}


@dataclass(frozen=True)
class Board:
    rows: tuple[str, ...]  # one character per cell: a clue or '.'

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @cached_property
    def clues(self) -> list[tuple[int, int, str]]:
        return [(r, c, ch) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch in CLUES]

    @cached_property
    def _prefix(self) -> list[list[int]]:
        h, w = self.height, self.width
        table = [[0] * (w + 1) for _ in range(h + 1)]
        for r in range(h):
            for c in range(w):
                table[r + 1][c + 1] = table[r][c + 1] + table[r + 1][c] - table[r][c] + (self.rows[r][c] in CLUES)
        return table

    def clues_in(self, top: int, left: int, bottom: int, right: int) -> int:
        t = self._prefix
        return t[bottom + 1][right + 1] - t[top][right + 1] - t[bottom + 1][left] + t[top][left]


def shape_fits(clue: str, height: int, width: int) -> bool:
    return clue == "?" or (clue == "+" and height == width) or (clue == "|" and height > width) \
        or (clue == "-" and width > height)


def canonical(board: Board) -> dict:
    return {"grid": list(board.rows)}


def regions_from_rects(h: int, w: int, rects) -> list[list[int]]:
    grid = [[0] * w for _ in range(h)]
    for top, left, bottom, right in rects:
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                grid[r][c] = -1 - (top * w + left)  # temporary id, renumbered below
    return renumber(grid)


def renumber(grid) -> list[list[int]]:
    """Region ids 1, 2, ... in reading order of each region's first cell (the seed's numbering)."""
    ids: dict = {}
    return [[ids.setdefault(v, len(ids) + 1) for v in row] for row in grid]


def rects_from_regions(regions) -> list[tuple[int, int, int, int]]:
    return sorted(region_boxes(regions).values())


def region_boxes(regions) -> dict:
    """Each region id's bounding box (top, left, bottom, right): the region itself where it is a rectangle."""
    boxes: dict = {}
    for r, row in enumerate(regions):
        for c, v in enumerate(row):
            top, left, bottom, right = boxes.get(v, (r, c, r, c))
            boxes[v] = (min(top, r), min(left, c), max(bottom, r), max(right, c))
    return boxes


# ------------------------------------------------------------------------------------------- referee
def referee(board: Board, solution: dict) -> list[str]:
    regions = solution.get("regions")
    h, w = board.height, board.width
    if not isinstance(regions, list) or len(regions) != h or any(not isinstance(row, list) or len(row) != w for row in regions):
        return [f"regions is not a {h}x{w} grid"]
    problems = []
    cells: dict = {}
    for r in range(h):
        for c in range(w):
            if not whole(regions[r][c]):  # ids are indices: 1, 1.0 and true would be one region
                return [f"r{r + 1}c{c + 1}'s region {regions[r][c]!r} is not a whole-number id"]
            cells.setdefault(regions[r][c], []).append((r, c))
    for rid, members in cells.items():
        top, left, bottom, right = (min(m[0] for m in members), min(m[1] for m in members),
                                    max(m[0] for m in members), max(m[1] for m in members))
        if len(members) != (bottom - top + 1) * (right - left + 1):
            problems.append(f"region {rid} (from r{top + 1}c{left + 1}) is not a rectangle")
            continue
        clues = [(r, c) for r, c in members if board.rows[r][c] in CLUES]
        if len(clues) != 1:
            problems.append(f"region {rid} (r{top + 1}c{left + 1} to r{bottom + 1}c{right + 1}) holds {len(clues)} clues, not 1")
            continue
        clue = board.rows[clues[0][0]][clues[0][1]]
        if not shape_fits(clue, bottom - top + 1, right - left + 1):
            problems.append(f"region {rid} is {bottom - top + 1} tall and {right - left + 1} wide, wrong for its "
                            f"{clue!r} at r{clues[0][0] + 1}c{clues[0][1] + 1}")
    for r in range(h - 1):
        for c in range(w - 1):
            four = {regions[r][c], regions[r][c + 1], regions[r + 1][c], regions[r + 1][c + 1]}
            if len(four) == 4:
                problems.append(f"four regions meet at the corner below and right of r{r + 1}c{c + 1}")
    return problems


def value(board: Board, solution: dict) -> list[str]:
    """The solution as the seed prints it: one character per region."""
    grid = renumber(solution["regions"])
    return ["".join(REGION_CHARS[(v - 1) % len(REGION_CHARS)] for v in row) for row in grid]


def value_json(v):
    return v


def same_solution(board: Board, a: dict, b: dict) -> bool:
    return renumber(a["regions"]) == renumber(b["regions"])


def _colouring(regions, colours: int) -> dict:
    """Greedy colouring so that touching regions differ where the palette allows."""
    touching: dict = {}
    h, w = len(regions), len(regions[0])
    for r in range(h):
        for c in range(w):
            touching.setdefault(regions[r][c], set())
            for a, b in ((r + 1, c), (r, c + 1)):
                if a < h and b < w and regions[a][b] != regions[r][c]:
                    touching[regions[r][c]].add(regions[a][b])
                    touching.setdefault(regions[a][b], set()).add(regions[r][c])
    out: dict = {}
    for region in sorted(touching):
        taken = {out[o] for o in touching[region] if o in out}
        out[region] = next((k for k in range(colours) if k not in taken), region % colours)
    return out


def describe(board: Board) -> str:
    return f"{board.width}x{board.height}, {len(board.clues)} clues"
