"""Tatamibari, from the rules: partition the grid into rectangles, each holding exactly one clue;
`+` in a square, `|` in a rectangle taller than wide, `-` in one wider than tall, `?` in any; no
four rectangles meet at one point. Cells other than `+ - | ?` are empty.

Claims: {"op": "first"} (there is a solution) and {"op": "block", "solutions": [solution, ...]}
(there is a solution other than each of these; the same partition is the same solution, whatever
its region ids).
"""

from __future__ import annotations

import time

from smtpuzzles.trusted.cnf import Reference, true_vars

CLUES = "+-|?"


def _fits(clue: str, height: int, width: int) -> bool:
    if clue == "+":
        return height == width
    if clue == "|":
        return height > width
    if clue == "-":
        return width > height
    return True


def _rectangles(board, deadline: float | None = None) -> list[tuple[int, int, int, int]]:
    """Every rectangle (top, left, bottom, right) the rules allow as a region: exactly one clue
    inside, and a shape that clue accepts; in the order of (top, bottom, left, right).

    Each is found from its one clue, growing outwards: a rectangle holding two clues holds them
    whatever it grows to, so each direction stops at the first second clue, and the widths a clue's
    shape rules out are never tried. The work is about the number of rectangles allowed, not the
    grid's n^4 rectangles (times n^2 cells each)."""
    rows = board.rows
    h, w = len(rows), len(rows[0])
    # clues[r][c]: how many clues lie above and left of cell (r, c), so any rectangle's count is four lookups
    clues = [[0] * (w + 1) for _ in range(h + 1)]
    for r in range(h):
        for c in range(w):
            clues[r + 1][c + 1] = clues[r][c + 1] + clues[r + 1][c] - clues[r][c] + (rows[r][c] in CLUES)

    def inside(top: int, left: int, bottom: int, right: int) -> int:
        return clues[bottom + 1][right + 1] - clues[top][right + 1] - clues[bottom + 1][left] + clues[top][left]

    out = []
    for r in range(h):
        for c in range(w):
            clue = rows[r][c]
            if clue not in CLUES:
                continue
            _in_time(deadline)
            for top in range(r, -1, -1):
                if inside(top, c, r, c) > 1:
                    break
                for bottom in range(r, h):
                    if inside(top, c, bottom, c) > 1:
                        break
                    height = bottom - top + 1
                    for left in range(c, -1, -1):
                        if inside(top, left, bottom, c) > 1:
                            break
                        # The widths this clue's shape allows: a square's is its height, a tall
                        # rectangle's below it, a wide one's above it.
                        low = max(c, left + height - 1 if clue == "+" else left + height if clue == "-" else c)
                        high = min(w - 1, left + height - 1 if clue == "+" else left + height - 2 if clue == "|" else w - 1)
                        if high < c:  # too wide already for a square or a tall one; further left, wider
                            break
                        for right in range(low, high + 1):
                            if inside(top, left, bottom, right) > 1:
                                break
                            if _fits(clue, height, right - left + 1):
                                out.append((top, left, bottom, right))
    out.sort(key=lambda rect: (rect[0], rect[2], rect[1], rect[3]))
    return out


def _in_time(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise TimeoutError("the Tatamibari reference formula was not built within the time limit")


def _declare(board, deadline: float | None = None) -> tuple[Reference, dict]:
    """One variable per allowed rectangle, "this rectangle is a region" (decode relies on the order)."""
    ref = Reference()
    return ref, {rect: ref.var("region r{} c{} to r{} c{}".format(*rect)) for rect in _rectangles(board, deadline)}


def reference(board, claim: dict, deadline: float | None = None) -> Reference:
    """The claim's formula; past `deadline` (a time.monotonic() instant), TimeoutError."""
    h, w = len(board.rows), len(board.rows[0])
    ref, region = _declare(board, deadline)

    # Each rectangle listed under the cells it covers, and under the inner grid points around which
    # it covers two of the four cells (its inner points and those along its sides, not its corners):
    # the work is the rectangles' areas, as the formula's size is.
    cells = [[[] for _ in range(w)] for _ in range(h)]
    points = [[[] for _ in range(max(w - 1, 0))] for _ in range(max(h - 1, 0))]
    for number, ((top, left, bottom, right), v) in enumerate(region.items()):
        if number % 1024 == 0:
            _in_time(deadline)
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                cells[r][c].append(v)
        for r in range(max(top - 1, 0), min(bottom, h - 2) + 1):
            for c in range(max(left - 1, 0), min(right, w - 2) + 1):
                if top <= r < bottom or left <= c < right:
                    points[r][c].append(v)

    # The regions partition the grid: each cell lies in exactly one chosen rectangle. (Each allowed
    # rectangle holds one clue of its shape, so each region does.)
    for row in cells:
        _in_time(deadline)
        for covering in row:
            ref.exactly_one(covering)

    # No four regions meet at a point: around every inner grid point, some region holds two of the
    # four cells (regions are rectangles, so otherwise the four cells lie in four regions).
    for row in points:
        for holding_two in row:
            ref.add(holding_two)

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
