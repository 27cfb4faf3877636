"""Tatamibari, from the rules: partition the grid into rectangles, each holding exactly one clue;
`+` in a square, `|` in a rectangle taller than wide, `-` in one wider than tall, `?` in any; no
four rectangles meet at one point. Cells other than `+ - | ?` are empty.

Claims: {"op": "first"} (there is a solution) and {"op": "block", "solutions": [solution, ...]}
(there is a solution other than each of these; the same partition is the same solution, whatever
its region ids).
"""

from __future__ import annotations

from .cnf import Reference, true_vars

CLUES = "+-|?"


def _fits(clue: str, height: int, width: int) -> bool:
    return {"+": height == width, "|": height > width, "-": width > height, "?": True}[clue]


def _rectangles(board) -> list[tuple[int, int, int, int]]:
    """Every rectangle (top, left, bottom, right) the rules allow as a region: exactly one clue
    inside, and a shape that clue accepts."""
    rows = board.rows
    h, w = len(rows), len(rows[0])
    out = []
    for top in range(h):
        for bottom in range(top, h):
            for left in range(w):
                for right in range(left, w):
                    clues = [rows[r][c] for r in range(top, bottom + 1) for c in range(left, right + 1) if rows[r][c] in CLUES]
                    if len(clues) == 1 and _fits(clues[0], bottom - top + 1, right - left + 1):
                        out.append((top, left, bottom, right))
    return out


def _declare(board) -> tuple[Reference, dict]:
    """One variable per allowed rectangle, "this rectangle is a region" (decode relies on the order)."""
    ref = Reference()
    return ref, {rect: ref.var("region r{} c{} to r{} c{}".format(*rect)) for rect in _rectangles(board)}


def _covers(rect, r: int, c: int) -> bool:
    top, left, bottom, right = rect
    return top <= r <= bottom and left <= c <= right


def reference(board, claim: dict) -> Reference:
    h, w = len(board.rows), len(board.rows[0])
    ref, region = _declare(board)

    # The regions partition the grid: each cell lies in exactly one chosen rectangle. (Each allowed
    # rectangle holds one clue of its shape, so each region does.)
    for r in range(h):
        for c in range(w):
            ref.exactly_one([v for rect, v in region.items() if _covers(rect, r, c)])

    # No four regions meet at a point: around every inner grid point, some region holds two of the
    # four cells (regions are rectangles, so otherwise the four cells lie in four regions).
    for r in range(h - 1):
        for c in range(w - 1):
            four = [(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
            ref.add([v for rect, v in region.items() if sum(_covers(rect, a, b) for a, b in four) >= 2])

    op = claim.get("op")
    if op == "first":
        return ref
    if op != "block":
        raise ValueError(f"unknown Tatamibari claim {claim!r}")

    # Other than each given solution: not all of its rectangles are regions. A given grid whose
    # regions are not allowed rectangles is no solution, and every model differs from it already.
    for solution in claim["solutions"]:
        rects = _partition(solution["regions"], h, w)
        if rects is not None and all(rect in region for rect in rects):
            ref.add([-region[rect] for rect in rects])
    return ref


def _partition(regions, h: int, w: int):
    """The rectangles of a region grid, or None where a region is not a rectangle."""
    if len(regions) != h or any(len(row) != w for row in regions):
        raise ValueError(f"a solution's regions are not a {h}x{w} grid")
    cells: dict = {}
    for r in range(h):
        for c in range(w):
            cells.setdefault(regions[r][c], []).append((r, c))
    rects = []
    for members in cells.values():
        top, left = min(r for r, _ in members), min(c for _, c in members)
        bottom, right = max(r for r, _ in members), max(c for _, c in members)
        if len(members) != (bottom - top + 1) * (right - left + 1):
            return None
        rects.append((top, left, bottom, right))
    return rects


def decode(board, model) -> dict:
    """The region grid of a model: ids 1, 2, ... in the order of the chosen rectangles (a cell the
    model leaves uncovered stays 0, for the referee to name)."""
    h, w = len(board.rows), len(board.rows[0])
    true = true_vars(model)
    _, region = _declare(board)
    grid = [[0] * w for _ in range(h)]
    chosen = [rect for rect, v in region.items() if v in true]
    for number, (top, left, bottom, right) in enumerate(chosen, 1):
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                grid[r][c] = number
    return {"regions": grid}


def witness(board, solution: dict) -> list[int]:
    """The literals that say a solution: each of its regions is a region. A region that is not a
    rectangle the rules allow has no variable to say it (the referee never passes one)."""
    h, w = len(board.rows), len(board.rows[0])
    _, region = _declare(board)
    rects = _partition(solution["regions"], h, w)
    if rects is None or any(rect not in region for rect in rects):
        raise ValueError("a region the rules do not allow")
    return [region[rect] for rect in rects]
