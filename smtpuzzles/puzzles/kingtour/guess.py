"""A first answer near the record, for the solver to start from (`Encoding.guess`).

The tour and its digits are built together, a step at a time, never going back. Of the king moves
from the path's end it takes the one whose cell can hold the largest digit, the largest that the
Sudoku can still complete (a small SAT query on the Sudoku alone), then the one with fewer ways
on (Warnsdorff's rule), provided a quick probe by that rule still finds a way through every cell
left. The probe's last success is kept, so some move always passes and the walk never dead-ends.

From a good start this reads like the records: on 9x9 99988897..., against the record's
9998998987... and the snake guess's 9876543219...; it costs a fraction of the solver's time
(encodings/kingtour.md). Only a guess: the solver's model is refereed like any other, and no UNSAT
step rests on it.
"""

from __future__ import annotations

import time

from pysat.solvers import Solver

from .board import Board, value

# The starts kept after every start has walked a row's length: the full walks then cost a few
# starts' worth (16x16: 1.6 s each), not all of them.
FINALISTS = 2


def first_answer(board: Board, starts: list[tuple[int, int]], seconds: float) -> dict | None:
    """The best answer walked from the most promising of `starts` within about `seconds` of this
    thread's CPU time (a loaded machine must not turn the guess into the snake's), or None if none
    finished in time."""
    deadline = time.thread_time() + seconds
    sudoku = SudokuSolver(board)
    try:
        openings = []
        for start in starts:
            walked = walk(board, sudoku, start, deadline, steps=board.size)
            if walked is None:
                break
            openings.append((value(board, walked)[:board.size], start))
        openings.sort(reverse=True)
        best, best_value = None, None
        for _, start in openings[:FINALISTS]:
            walked = walk(board, sudoku, start, deadline)
            if walked is not None and (best is None or value(board, walked) > best_value):
                best, best_value = walked, value(board, walked)
        return best
    finally:
        sudoku.close()


class SudokuSolver:
    """The board's Sudoku alone as clauses, asked under assumptions (4,096 variables on 16x16)."""

    def __init__(self, board: Board):
        self.board, n = board, board.size
        self.solver = Solver(name="minisat22")

        def var(r, c, k):
            return 1 + (r * n + c) * n + (k - 1)

        self.var = var
        for r, c in board.cells:
            self._exactly_one([var(r, c, k) for k in range(1, n + 1)])
            if board.clues[r][c]:
                self.solver.add_clause([var(r, c, board.clues[r][c])])
        for unit in board.units():
            for k in range(1, n + 1):
                self._exactly_one([var(r, c, k) for r, c in unit])

    def _exactly_one(self, lits: list[int]) -> None:
        self.solver.add_clause(lits)
        for i, a in enumerate(lits):
            for b in lits[i + 1:]:
                self.solver.add_clause([-a, -b])

    def best_along(self, tour: list[list[int]]) -> list[list[int]]:
        """The grid whose digits, read along `tour`, form the largest number: each cell in turn
        takes the largest digit some completion allows. A completion found for one cell is a floor
        for every later one, so most cells need no query."""
        fixed: list[int] = []
        grid = self.grid(fixed)
        for r, c in sorted(self.board.cells, key=lambda cell: tour[cell[0]][cell[1]]):
            _, grid = self.largest(fixed, (r, c), grid)
            fixed.append(self.var(r, c, grid[r][c]))
        return grid

    def largest(self, fixed: list[int], cell: tuple[int, int], grid) -> tuple[int, list[list[int]]]:
        """The largest digit `cell` can hold under `fixed`, with a completed grid that has it;
        `grid`, a completion under `fixed`, is the floor, so no digit below its own is asked."""
        r, c = cell
        for k in range(self.board.size, grid[r][c], -1):
            found = self.grid(fixed + [self.var(r, c, k)])
            if found is not None:
                return k, found
        return grid[r][c], grid

    def grid(self, assumptions: list[int]) -> list[list[int]] | None:
        """A completed grid under `assumptions`, or None if there is none."""
        if not self.solver.solve(assumptions=assumptions):
            return None
        n, true = self.board.size, {v for v in self.solver.get_model() if v > 0}
        return [[next(k for k in range(1, n + 1) if self.var(r, c, k) in true) for c in range(n)] for r in range(n)]

    def close(self) -> None:
        self.solver.delete()


def walk(board: Board, sudoku: SudokuSolver, start: tuple[int, int], deadline: float,
         steps: int | None = None) -> dict | None:
    """The walk from `start` (a cell that can hold the largest digit), whole or its first `steps`
    cells (the rest of the answer then the probe's path on a completed grid); None past the
    deadline or if `start` cannot hold the largest digit."""
    n, cells = board.size, board.cells
    ids = {cell: i for i, cell in enumerate(cells)}
    around = [[ids[x] for x in board.neighbours(*cell)] for cell in cells]
    free = bytearray([1] * (n * n))
    ways = [len(a) for a in around]
    first = ids[start]
    path, fixed = [first], [sudoku.var(*start, n)]
    _take(around, free, ways, first)
    grid = sudoku.grid(fixed)
    through = _probe(around, free, ways, first)
    if grid is None or through is None:
        return None
    while len(path) < min(steps or len(cells), len(cells)):
        if time.thread_time() >= deadline:
            return None
        offers = []
        for q in around[path[-1]]:
            if free[q]:
                k, completed = sudoku.largest(fixed, cells[q], grid)
                offers.append((k, -ways[q], q, completed))
        offers.sort(key=lambda o: o[:3], reverse=True)
        for k, _, q, completed in offers:
            _take(around, free, ways, q)
            if len(path) + 1 == len(cells):
                rest = []
            else:
                rest = through[1:] if through and through[0] == q else _probe(around, free, ways, q)
            if rest is not None:
                break
            _untake(around, free, ways, q)
        path.append(q)  # some offer passed: the last probe's next cell is one of them
        fixed.append(sudoku.var(*cells[q], k))
        grid, through = completed, rest
    tour = [[0] * n for _ in range(n)]
    for t, i in enumerate(path + through, 1):
        tour[cells[i][0]][cells[i][1]] = t
    return {"grid": grid, "tour": tour}


def _take(around, free, ways, q: int) -> None:
    free[q] = 0
    for u in around[q]:
        ways[u] -= 1


def _untake(around, free, ways, q: int) -> None:
    free[q] = 1
    for u in around[q]:
        ways[u] += 1


def _probe(around, free, ways, end: int) -> list[int] | None:
    """A path from `end` through every free cell by Warnsdorff's rule (the move with the fewest
    ways on), or None where the rule gets stuck under each of its tie-breaks (the lower cell, the
    higher, the one nearer the board's edge); `free` and `ways` are left as they were. ways[u]
    counts u's free neighbours."""
    side = round(len(free) ** 0.5)
    edge = [min(i // side, i % side, side - 1 - i // side, side - 1 - i % side) for i in range(len(free))]
    for tie in (lambda q: q, lambda q: -q, lambda q: (edge[q], q)):
        found = _warnsdorff(around, free, ways, end, tie)
        if found is not None:
            return found
    return None


def _warnsdorff(around, free, ways, end: int, tie) -> list[int] | None:
    taken: list[int] = []
    p = end
    try:
        while True:
            moves = [q for q in around[p] if free[q]]
            if not moves:
                break
            q = min(moves, key=lambda q: (ways[q], tie(q)))
            _take(around, free, ways, q)
            taken.append(q)
            p = q
        return taken if not any(free) else None
    finally:
        for q in reversed(taken):
            _untake(around, free, ways, q)
