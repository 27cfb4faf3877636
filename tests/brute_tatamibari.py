"""Brute-force reference for small Tatamibari boards (tests only, never on the answer path): every
partition of the grid into rectangles, by filling the first free cell in reading order (always some
rectangle's top-left corner), kept when each rectangle holds one clue of its shape and no four meet
at a point. Written from the rules, sharing nothing with the encoders or the referee."""

from __future__ import annotations


def solutions(rows: list[str], limit: int | None = None) -> list[frozenset]:
    """Each solution as a frozenset of rectangles (top, left, bottom, right); at most `limit`."""
    h, w = len(rows), len(rows[0])
    owner = [[-1] * w for _ in range(h)]
    placed: list[tuple[int, int, int, int]] = []
    found: list[frozenset] = []

    def shape_ok(clue: str, height: int, width: int) -> bool:
        return clue == "?" or (clue == "+" and height == width) or (clue == "|" and height > width) \
            or (clue == "-" and width > height)

    def four_meet(r: int, c: int) -> bool:
        """Four regions around the point below and right of cell (r, c), all four cells filled."""
        around = {owner[r][c], owner[r][c + 1], owner[r + 1][c], owner[r + 1][c + 1]}
        return -1 not in around and len(around) == 4

    def fill() -> bool:
        free = next(((r, c) for r in range(h) for c in range(w) if owner[r][c] < 0), None)
        if free is None:
            found.append(frozenset(placed))
            return limit is not None and len(found) >= limit
        top, left = free
        for right in range(left, w):
            if owner[top][right] >= 0:
                break
            for bottom in range(top, h):
                if any(owner[bottom][c] >= 0 for c in range(left, right + 1)):
                    break
                clues = [rows[r][c] for r in range(top, bottom + 1) for c in range(left, right + 1) if rows[r][c] in "+-|?"]
                if len(clues) > 1:
                    break
                if not clues or not shape_ok(clues[0], bottom - top + 1, right - left + 1):
                    continue
                for r in range(top, bottom + 1):
                    for c in range(left, right + 1):
                        owner[r][c] = len(placed)
                placed.append((top, left, bottom, right))
                # every point on this rectangle's border whose four cells are now filled
                points = [(r, c) for r in range(max(top - 1, 0), min(bottom + 1, h - 1))
                          for c in range(max(left - 1, 0), min(right + 1, w - 1))]
                stop = not any(four_meet(r, c) for r, c in points) and fill()
                placed.pop()
                for r in range(top, bottom + 1):
                    for c in range(left, right + 1):
                        owner[r][c] = -1
                if stop:
                    return True
        return False

    fill()
    return found


def rectangles(regions) -> frozenset:
    """A solution's regions as the set of its rectangles (top, left, bottom, right), whatever the ids."""
    spans: dict = {}
    for r, row in enumerate(regions):
        for c, v in enumerate(row):
            top, left, bottom, right = spans.get(v, (r, c, r, c))
            spans[v] = (min(top, r), min(left, c), max(bottom, r), max(right, c))
    return frozenset(spans.values())
