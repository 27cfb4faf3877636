"""Every Tatamibari solution of a small board, by search over the clues.

Each clue in reading order takes one rectangle that holds it and no other clue, has the clue's shape
and overlaps none taken before; once every clue has one, the rectangles must cover the board and no
four may meet at a point. (The test suite's brute force fills cells instead; two searches that agree
are unlikely to share a mistake.)
"""

from __future__ import annotations

CLUES = "+-|?"
SHAPES = {"+": lambda h, w: h == w, "|": lambda h, w: h > w, "-": lambda h, w: w > h, "?": lambda h, w: True}


def _choices(rows, r: int, c: int) -> list[frozenset]:
    """The rectangles (as cell sets) the clue at (r, c) may be the one clue of."""
    height, width = len(rows), len(rows[0])
    out = []
    for top in range(r + 1):
        for bottom in range(r, height):
            for left in range(c + 1):
                for right in range(c, width):
                    cells = frozenset((a, b) for a in range(top, bottom + 1) for b in range(left, right + 1))
                    clues = sum(1 for a, b in cells if rows[a][b] in CLUES)
                    if clues == 1 and SHAPES[rows[r][c]](bottom - top + 1, right - left + 1):
                        out.append(cells)
    return out


def _four_meet(rows, owner: dict) -> bool:
    height, width = len(rows), len(rows[0])
    return any(len({owner[r, c], owner[r, c + 1], owner[r + 1, c], owner[r + 1, c + 1]}) == 4
               for r in range(height - 1) for c in range(width - 1))


def solutions(rows, limit: int) -> list[dict] | None:
    """Each solution as {"regions": grid of region ids}; None past `limit` rectangles tried."""
    clues = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in CLUES]
    choices = [_choices(rows, r, c) for r, c in clues]
    area = len(rows) * len(rows[0])
    found: list[dict] = []
    taken: list[frozenset] = []
    tried = 0

    def place(i: int, covered: frozenset) -> bool:
        nonlocal tried
        if i == len(clues):
            if len(covered) == area:
                owner = {cell: k for k, rect in enumerate(taken) for cell in rect}
                if not _four_meet(rows, owner):
                    found.append({"regions": [[owner[r, c] for c in range(len(rows[0]))] for r in range(len(rows))]})
            return True
        for rect in choices[i]:
            tried += 1
            if tried > limit:
                return False
            if not rect & covered:
                taken.append(rect)
                going = place(i + 1, covered | rect)
                taken.pop()
                if not going:
                    return False
        return True

    return found if place(0, frozenset()) else None
