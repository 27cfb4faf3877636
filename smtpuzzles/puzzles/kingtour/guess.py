"""A first answer near the record, for the solver to start from (`Advice.first_guess`).

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
from typing import Iterable, Iterator

from smtpuzzles.engines import sat_solver_class

from .board import Board, value
from .reach import probe, take, untake

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

        self.solver = sat_solver_class()(name="minisat22")  # on use: any --help needs no solver

        def var(r, c, k):
            return 1 + (r * n + c) * n + (k - 1)

        self.var = var
        # The cells by number and each one's king moves, for every path walked on this board (a
        # polish walks dozens).
        self.cells = board.cells
        self.ids = {cell: i for i, cell in enumerate(self.cells)}
        self.around = [[self.ids[x] for x in board.neighbours(*cell)] for cell in self.cells]
        # Each cell's row, column and box, as offsets into a `Placed` count of digits by unit.
        across = n // board.box_cols  # boxes in a band
        self.units = [(r * (n + 1), (n + c) * (n + 1), (2 * n + r // board.box_rows * across + c // board.box_cols) * (n + 1))
                      for r, c in board.cells]
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
        placed = Placed(self)
        grid = self.grid(fixed)
        n = self.board.size
        for r, c in sorted(self.board.cells, key=lambda cell: tour[cell[0]][cell[1]]):
            _, grid = self.largest(fixed, (r, c), grid, placed)
            fixed.append(self.var(r, c, grid[r][c]))
            placed.add(r * n + c, grid[r][c])
        return grid

    def largest(self, fixed: list[int], cell: tuple[int, int], grid, placed: "Placed") -> tuple[int, list[list[int]]]:
        """The largest digit `cell` can hold under `fixed` (placed as `placed`), with a completed
        grid that has it; `grid`, a completion under `fixed`, is the floor, so no digit below its
        own is asked."""
        r, c = cell
        q = r * self.board.size + c
        for k in range(self.board.size, grid[r][c], -1):
            found = self.grid(fixed + [self.var(r, c, k)]) if placed.allows(q, k) else None
            if found is not None:
                return k, found
        return grid[r][c], grid

    def grid(self, assumptions: list[int]) -> list[list[int]] | None:
        """A completed grid under `assumptions`, or None if there is none."""
        if not self.solver.solve(assumptions=assumptions):
            return None
        n = self.board.size
        # One digit a cell, its variables in a row: the model's true variables, in order, are the
        # grid read row by row.
        digits = [(v - 1) % n + 1 for v in self.solver.get_model() if v > 0]
        return [digits[r * n:(r + 1) * n] for r in range(n)]

    def close(self) -> None:
        self.solver.delete()


class Placed:
    """How many fixed cells of each row, column and box hold each digit. A cell whose row, column
    or box holds k already cannot take k: the Sudoku's clauses refute it by propagation alone, so it
    is refused here without a solver call (nine in ten of a 9x9 solve's Sudoku queries were such)."""

    def __init__(self, sudoku: SudokuSolver):
        self.units = sudoku.units  # cell number -> its three units' offsets
        n = sudoku.board.size
        self.count = [0] * (3 * n * (n + 1))

    def add(self, q: int, k: int) -> None:
        for u in self.units[q]:
            self.count[u + k] += 1

    def remove(self, q: int, k: int) -> None:
        for u in self.units[q]:
            self.count[u + k] -= 1

    def allows(self, q: int, k: int) -> bool:
        """Whether free cell `q` may take digit `k` as far as the fixed cells' units go."""
        a, b, c = self.units[q]
        count = self.count
        return not (count[a + k] or count[b + k] or count[c + k])


class _Path:
    """A tour being walked: the cells taken in order, the digit fixed on each, and what is left
    (free cells, and how many free neighbours each cell has, for Warnsdorff's rule)."""

    def __init__(self, board: Board, sudoku: SudokuSolver):
        self.board, self.sudoku, self.cells = board, sudoku, sudoku.cells
        self.ids, self.around = sudoku.ids, sudoku.around  # read only
        self.free = bytearray([1] * len(self.cells))
        self.ways = [len(a) for a in self.around]
        self.path: list[int] = []
        self.fixed: list[int] = []  # the digits along the path, as the Sudoku solver's literals
        self.digits: list[int] = []  # the same digits
        self.placed = Placed(sudoku)

    def take(self, q: int, k: int) -> None:
        take(self.around, self.free, self.ways, q)
        self.extend(q, k)

    def extend(self, q: int, k: int) -> None:
        """The path goes on to `q` (already taken from the free cells), which holds `k`."""
        self.path.append(q)
        self.fixed.append(self.sudoku.var(*self.cells[q], k))
        self.digits.append(k)
        self.placed.add(q, k)

    def completion(self, q: int, k: int) -> list[list[int]] | None:
        """A completed grid with the path's digits and `k` on free cell `q`, or None if none."""
        if not self.placed.allows(q, k):
            return None
        return self.sudoku.grid(self.fixed + [self.sudoku.var(*self.cells[q], k)])

    def probe(self, q: int) -> list[int] | None:
        return probe(self.around, self.free, self.ways, q)

    def probe_after(self, q: int) -> list[int] | None:
        """The probe's way through the free cells if the path went on to `q`, the path unchanged."""
        take(self.around, self.free, self.ways, q)
        try:
            return [] if len(self.path) + 1 == len(self.cells) else self.probe(q)
        finally:
            untake(self.around, self.free, self.ways, q)

    def back_to(self, length: int) -> None:
        """Undo the path's steps past its first `length` cells."""
        while len(self.path) > length:
            q = self.path.pop()
            untake(self.around, self.free, self.ways, q)
            self.fixed.pop()
            self.placed.remove(q, self.digits.pop())

    def offers(self, grid, above: int = 0) -> Iterator[tuple]:
        """The king moves from the path's end, each with the largest digit its cell can hold (more
        than `above`) and a completed grid that has it, best first: larger digit, then fewer ways
        on, then the higher cell number. Made as they are read: a walk mostly takes the first, so
        the digits below the best are seldom asked. `grid`, a completion under the path's digits,
        answers for each cell's own digit."""
        waiting = [q for q in self.around[self.path[-1]] if self.free[q]]
        for k in range(self.board.size, above, -1):
            group = []
            for q in waiting:
                r, c = self.cells[q]
                if grid[r][c] == k:
                    group.append((k, -self.ways[q], q, grid))
                elif grid[r][c] < k:
                    completed = self.completion(q, k)
                    if completed is not None:
                        group.append((k, -self.ways[q], q, completed))
            if group:
                taken = {o[2] for o in group}
                waiting = [q for q in waiting if q not in taken]
                yield from sorted(group, key=lambda o: o[:3], reverse=True)
            if not waiting:
                return

    def go(self, offers: Iterable[tuple], through: list[int] | None, deadline: float,
           steps: int | None = None, whole_at_deadline: bool = False) -> dict | None:
        """Walk on from the path's end, first among `offers`, then by the largest digit each step,
        keeping a probe's way through the rest: the whole answer, or the first `steps` cells then
        the probe's path; None where no offer keeps a way through, and past the deadline (unless
        `whole_at_deadline`: then the path so far and the probe's way through the rest)."""
        n, cells, grid = self.board.size, self.cells, None
        while True:
            for k, _, q, completed in offers:
                take(self.around, self.free, self.ways, q)
                if len(self.path) + 1 == len(cells):
                    rest = []
                else:
                    rest = through[1:] if through and through[0] == q else self.probe(q)
                if rest is not None:
                    break
                untake(self.around, self.free, self.ways, q)
            else:
                return None
            self.extend(q, k)
            grid, through = completed, rest
            if len(self.path) >= min(steps or len(cells), len(cells)):
                break
            if time.thread_time() >= deadline:
                if whole_at_deadline:
                    break
                return None
            offers = self.offers(grid)
        tour = [[0] * n for _ in range(n)]
        for t, i in enumerate(self.path + through, 1):
            tour[cells[i][0]][cells[i][1]] = t
        return {"grid": grid, "tour": tour}


def walk(board: Board, sudoku: SudokuSolver, start: tuple[int, int], deadline: float,
         steps: int | None = None) -> dict | None:
    """The walk from `start` (a cell that can hold the largest digit), whole or its first `steps`
    cells (the rest of the answer then the probe's path on a completed grid); None past the
    deadline or if `start` cannot hold the largest digit."""
    n = board.size
    walking = _Path(board, sudoku)
    first = walking.ids[start]
    grid = sudoku.grid([sudoku.var(*start, n)])
    through = walking.probe_after(first)
    if grid is None or through is None:
        return None
    return walking.go([(n, 0, first, grid)], [first] + through, deadline, steps)


def improve(board: Board, sudoku: SudokuSolver, answer: dict, focus: int, deadline: float) -> dict | None:
    """A larger answer than `answer`, or None. From step `focus` on, each step that does not read
    the largest digit is tried in turn (at most `AHEAD` of them): the answer's digits before it are
    kept, the cells of its last `BACK` steps may change for others reading the same digits (a small
    depth-first search), and the step takes a cell with a larger digit and a probe's way through the
    rest; the walk then goes on by the largest digit, and the next steps are tried on the raised
    answer. On large boards deeper passes over the same steps follow while time lasts. Each SAT
    answer of a proof is improved this way into the next checks' guess, so that the next positions'
    questions come by propagation where the solver would have searched."""
    improved, tried = None, []
    for step in range(max(focus, 1), len(board.cells) - 1):
        if len(tried) >= AHEAD or time.thread_time() >= deadline:
            break
        current = improved or answer
        r, c = _cell_at(current, step)
        if current["grid"][r][c] == board.size:
            continue  # no larger digit to take
        tried.append(step)
        improved = _raise_step(board, sudoku, current, step, BACK, deadline) or improved
    if len(board.cells) >= DEEPEN_FROM_CELLS:
        done = BACK
        for back in DEEPER:  # each deeper pass asks each step for more than it reached
            for step in tried:
                if time.thread_time() >= deadline:
                    return improved
                if done < step:  # not yet searched back to the path's first cell
                    raised = _raise_step(board, sudoku, improved or answer, step, min(back, step), deadline)
                    improved = raised or improved
            done = back
    return improved


# Steps before a raised step whose cells may change, and steps tried per answer: on 9x9, 3 and 6
# beat 3 and 4, 2 and 8, and 4 and 6 in paired runs; deeper searches cost more than the SAT answers
# they spare (encodings/kingtour.md). From 12x12 on, where a SAT answer takes minutes, the steps
# tried are then tried again deeper while time lasts, up to the whole path but its first cell: on
# the 14x14 record run, 26 steps back raised the digit the solver had sought for an hour, in 1.3 s.
BACK, AHEAD = 3, 6
DEEPEN_FROM_CELLS = 144
DEEPER = (12, 10 ** 6)


def _cell_at(answer: dict, step: int) -> tuple[int, int]:
    return next((r, c) for r, row in enumerate(answer["tour"]) for c, t in enumerate(row) if t == step + 1)


def _raise_step(board: Board, sudoku: SudokuSolver, answer: dict, step: int, back: int,
                deadline: float) -> dict | None:
    """`answer` with the digit read at `step` raised (the digits before it kept, and the cells
    before its last `back` steps), or None."""
    grid = answer["grid"]
    order = sorted(board.cells, key=lambda cell: answer["tour"][cell[0]][cell[1]])
    digits = [grid[r][c] for r, c in order]
    if digits[step] == board.size:
        return None
    walking = _Path(board, sudoku)
    keep = max(1, step - back)
    for r, c in order[:keep]:
        walking.take(walking.ids[r, c], grid[r][c])
    best: list = []  # (digit, the route's cells, the offer): the largest digit reached at `step`

    def route(grid) -> bool:
        """Every way of reading digits[len(path):step] from the path's end; True to stop (out of
        time, or the largest digit reached)."""
        t = len(walking.path)
        if time.thread_time() >= deadline:
            return True
        if t == step:
            for offer in walking.offers(grid, above=max(digits[step], best[0] if best else 0)):
                if walking.probe_after(offer[2]) is not None:
                    best[:] = [offer[0], list(walking.path), offer]
                    return offer[0] == board.size
            return False
        for q in walking.around[walking.path[-1]]:
            if not walking.free[q]:
                continue
            completed = walking.completion(q, digits[t])
            if completed is None:
                continue
            walking.take(q, digits[t])
            stop = route(completed)
            walking.back_to(t)
            if stop:
                return True
        return False

    route(grid)
    if not best:
        return None
    _, path, offer = best
    for q in path[len(walking.path):]:
        walking.take(q, digits[len(walking.path)])
    return walking.go([offer], None, deadline, whole_at_deadline=True)  # a raise found is kept
