"""Brute-force reference for small King's-tour Sudokus (tests only, never on the answer path)."""

from __future__ import annotations



def sudokus(n: int, br: int, bc: int, clues=None):
    """Every n x n Sudoku with br x bc boxes (that agrees with `clues`, rows of ints, 0 where
    empty), by backtracking cell by cell."""
    grid = [[0] * n for _ in range(n)]

    def ok(r, c, d):
        if d in grid[r] or any(grid[i][c] == d for i in range(n)):
            return False
        top, left = r - r % br, c - c % bc
        return all(grid[i][j] != d for i in range(top, top + br) for j in range(left, left + bc))

    def fill(k):
        if k == n * n:
            yield [row[:] for row in grid]
            return
        r, c = divmod(k, n)
        for d in range(1, n + 1) if not (clues and clues[r][c]) else (clues[r][c],):
            if ok(r, c, d):
                grid[r][c] = d
                yield from fill(k + 1)
                grid[r][c] = 0

    yield from fill(0)


def best_reading(grid, floor: list[int] | None = None) -> list[int]:
    """The lexicographically largest digit sequence along any king's tour of this grid, or `floor`
    if none beats it (depth-first over all Hamiltonian paths, cut where the prefix already loses)."""
    n = len(grid)
    cells = [(r, c) for r in range(n) for c in range(n)]
    best: list[int] = list(floor or [])
    seq: list[int] = []
    seen = set()

    def go(r, c):
        nonlocal best
        k = len(seq)
        if best and seq < best[:k]:
            return
        if k == n * n:
            if seq > best:
                best = seq[:]
            return
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                a, b = r + dr, c + dc
                if (dr or dc) and 0 <= a < n and 0 <= b < n and (a, b) not in seen:
                    seen.add((a, b))
                    seq.append(grid[a][b])
                    go(a, b)
                    seen.discard((a, b))
                    seq.pop()

    for r, c in cells:
        seen.add((r, c))
        seq.append(grid[r][c])
        go(r, c)
        seen.discard((r, c))
        seq.pop()
    return best


def best_overall(n: int, br: int, bc: int) -> list[int]:
    best: list[int] = []
    for grid in sudokus(n, br, bc):
        best = best_reading(grid, best)
    return best


def best_with_clues(n: int, br: int, bc: int, clues) -> list[int]:
    """The best reading over every Sudoku that agrees with `clues` (rows of ints, 0 where empty)."""
    best: list[int] = []
    for grid in sudokus(n, br, bc):
        if all(not clues[r][c] or clues[r][c] == grid[r][c] for r in range(n) for c in range(n)):
            best = best_reading(grid, best)
    return best


def clue_text(size: int, clues: dict) -> str:
    """A clue grid as the puzzle's input reads it: {(row, col): digit}, '.' elsewhere."""
    rows = [["."] * size for _ in range(size)]
    for (r, c), d in clues.items():
        rows[r][c] = str(d)
    return "\n".join("".join(row) for row in rows)


def reachable(grids, n: int, prefix: list[int], at_least: int, starts) -> bool:
    """Whether some grid of `grids` has a king's tour from one of `starts` that reads `prefix`,
    then `at_least` or more (any digits after): depth-first over paths, the prefix first, then any
    way through the cells left."""
    steps = n * n

    def around(r, c):
        return [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n]

    def cut_off(cell, seen) -> bool:
        """Whether some cell left cannot be reached from `cell` through cells left (then no
        way goes through them all): a prune that only saves time."""
        reached, todo = {cell}, [cell]
        while todo:
            for nxt in around(*todo.pop()):
                if nxt not in seen and nxt not in reached:
                    reached.add(nxt)
                    todo.append(nxt)
        return len(reached) - 1 < steps - len(seen)

    known: dict = {}  # (cells taken, the last) -> whether a way goes on through the rest

    def through(cell, seen) -> bool:
        if len(seen) == steps:
            return True
        key = (frozenset(seen), cell)
        if key not in known:
            known[key] = False
            if not cut_off(cell, seen):
                for nxt in around(*cell):
                    if nxt not in seen:
                        seen.add(nxt)
                        found = through(nxt, seen)
                        seen.discard(nxt)
                        if found:
                            known[key] = True
                            break
        return known[key]

    def reads(grid, cell, seen) -> bool:
        t = len(seen) - 1  # the step `cell` was taken at
        digit = grid[cell[0]][cell[1]]
        if t < len(prefix):
            if digit != prefix[t]:
                return False
        else:
            return digit >= at_least and through(cell, seen)
        for nxt in around(*cell):
            if nxt not in seen:
                seen.add(nxt)
                if reads(grid, nxt, seen):
                    return True
                seen.discard(nxt)
        return False

    return any(reads(grid, start, {start}) for grid in grids for start in starts)
