"""An answer to one lexicographic question, found in two parts (`Reach`).

"The tour reads `prefix`, then at least `digit`" speaks of the Sudoku and of the tour's first
len(prefix) + 1 steps only: after them the tour may read anything, so it has only to get through
every cell left. The question is therefore asked in two parts:

1. the Sudoku and the tour's first steps, a small SAT query (on 14x14, 57 steps of 196 are 46,000
   variables against the whole formula's 133,000, and no "every cell once" to make it hard);
2. a way through the cells those steps leave, from where they end (`way_through`: a successor per
   cell, each cycle cut as it appears).

First steps with no way through are excluded, by the cells they cover and their last cell, and the
first part is asked again. If the first part has no answer, neither has the whole question.

On the 14x14 record run the SAT answers the whole formula took 500 to 5,762 s over came this way in
under a second each (encodings/kingtour.md, "Reach"). Only a guess, as the walk is: the answer is
handed to the engine as a guide, the solver's model is refereed like any other, and no UNSAT step
rests on it.
"""

from __future__ import annotations

import time
from typing import Sequence


from smtpuzzles.engines import ctrl_c_pressed, sat_solver_class
from smtpuzzles.formula import CNF

from .board import Board, value
from .sudoku import sudoku_clauses

# Conflicts between looks at the clock: a query that overruns its deadline overruns it by this much.
CONFLICTS_PER_LOOK = 2000
SOLVER = "cadical195"
# CPU seconds one way through may take before its first steps are set aside for others: cells left
# with no way through can keep the cuts coming for minutes (14x14, "position 57 can exceed A": one
# such set ran past 20 s; the next first steps had a way through in 0.1 s).
WAY_SECONDS = 0.25


class Reach:
    """The first part for one prefix: asked again and again for the digit after it, from the
    largest down, on one solver."""

    def __init__(self, board: Board, prefix: Sequence[int], starts: Sequence[tuple[int, int]]):
        self.board, self.prefix = board, list(prefix)
        n, last = board.size, len(prefix)
        cnf = CNF()
        digit = {(r, c, k): cnf.var(f"d{r}_{c}_{k}") for r, c in board.cells for k in range(1, n + 1)}
        visit = {(t, r, c): cnf.var(f"v{t}_{r}_{c}") for t in range(last + 1) for r, c in board.cells}
        covered = {(r, c): cnf.var(f"u{r}_{c}") for r, c in board.cells}  # visited by one of the steps
        at_least = {k: cnf.var(f"g{k}") for k in range(1, n + 1)}  # the last step reads k or more

        sudoku_clauses(cnf, board, digit)

        # The first steps: one cell each, no cell twice, a king move apart, reading the prefix.
        for t in range(last + 1):
            cnf.exactly_one([visit[t, r, c] for r, c in board.cells])
        for r, c in board.cells:
            cnf.at_most_one([visit[t, r, c] for t in range(last + 1)])
            # covered exactly: a cell is covered if and only if some first step visits it, so that
            # an exclusion speaking of covered and uncovered cells (`exclusions`) means what it says
            cnf.implies(covered[r, c], [visit[t, r, c] for t in range(last + 1)])
            for t in range(last + 1):
                cnf.when([visit[t, r, c]], covered[r, c])
                if t < last:
                    cnf.implies(visit[t, r, c], [visit[t + 1, a, b] for a, b in board.neighbours(r, c)])
                    cnf.implies(visit[t, r, c], [digit[r, c, self.prefix[t]]])
            for k in range(1, n + 1):
                cnf.implies(at_least[k], [-visit[last, r, c]] + [digit[r, c, j] for j in range(k, n + 1)])
        cnf.at_least_one([visit[0, r, c] for r, c in starts])

        self.cnf, self.visit, self.covered, self.at_least = cnf, visit, covered, at_least
        # Whether some first steps were set aside with their way through undecided: from then on
        # "no answer" is only "none found" (the exclusions stay for every later question).
        self.set_aside_undecided = False
        # On use: loading the puzzle (any --help) needs no solver.
        self.solver = sat_solver_class()(name=SOLVER, bootstrap_with=cnf.clauses)

    def close(self) -> None:
        self.solver.delete()

    def answer(self, at_least: int, deadline: float) -> dict | None | str:
        """A whole answer whose tour reads the prefix, then `at_least` or more; None if there is
        none; "unsure" if none was found but some first steps were set aside undecided; "timeout"
        past `deadline` (thread CPU time)."""
        board, cells, last = self.board, self.board.cells, len(self.prefix)
        while True:
            found = _solve(self.solver, [self.at_least[at_least]], deadline)
            if found is not True:
                return "unsure" if found is None and self.set_aside_undecided else found
            true = {x for x in self.solver.get_model() if x > 0}
            path = [next(cell for cell in cells if self.visit[t, cell[0], cell[1]] in true) for t in range(last + 1)]
            left = set(cells) - set(path)
            ruled_out = self.exclusions(left, path[-1])
            if ruled_out:  # these first steps, and every others that leave the same obstacle
                for clause in ruled_out:
                    self.solver.add_clause(clause)
                continue
            rest = way_through(board, left, path[-1], min(deadline, time.thread_time() + WAY_SECONDS))
            if rest == "timeout":
                if time.thread_time() >= deadline:
                    return rest
                self.set_aside_undecided = True
            elif rest is not None:
                grid = [[next(k for k in range(1, board.size + 1) if self.cnf.index[f"d{r}_{c}_{k}"] in true)
                         for c in range(board.size)] for r in range(board.size)]
                tour = [[0] * board.size for _ in range(board.size)]
                for t, (r, c) in enumerate(path + rest, 1):
                    tour[r][c] = t
                return {"grid": grid, "tour": tour}
            # No way through these cells from this end (or none found in time): set aside every
            # first steps covering them and ending there.
            self.solver.add_clause([-self.visit[last, path[-1][0], path[-1][1]]] +
                                   [-self.covered[cell] for cell in path])

    def exclusions(self, left: set[tuple[int, int]], end: tuple[int, int]) -> list[list[int]]:
        """Clauses ruling out every first steps that leave an obstacle of `obstacle` (none if these
        leave none), whatever else they cover. On 15x15, "position 97 can exceed 9": of 659 first
        steps tried, 283 left the cells apart and 156 more left two dead ends; excluded one by one,
        the answer took 99 CPU s."""
        kind, cells = obstacle(self.board, left, end)
        u, at_end = self.covered, self.visit
        last = len(self.prefix)
        if kind == "apart":
            # The cells around a pocket all covered leave each of its cells covered too (else the
            # cells left fall apart: something beyond the pocket is left, since the pocket is not all
            # of them).
            around = {b for p in cells for b in self.board.neighbours(*p)} - cells
            return [[-u[b] for b in around] + [u[p]] for p in cells]
        if kind == "dead ends":
            # Each dead end stays one while the same neighbours are covered and none is the last
            # step; two dead ends are two last cells of the way through.
            closed = {k for p in cells for k in self.board.neighbours(*p) if k not in left and k != end}
            return [[lit for k in closed for lit in (-u[k], at_end[last, k[0], k[1]])] + [u[p] for p in cells]]
        return []


def obstacle(board: Board, left: set[tuple[int, int]], end: tuple[int, int]):
    """Why no way through `left` from `end` can exist, found without search, as (kind, cells):
    ("apart", a group of cells of `left` cut off from the rest of it), ("dead ends", two cells of
    `left` with one way in each: a way through ends once), or (None, set())."""
    if not left:
        return None, set()
    group, todo = set(), [next(iter(left))]
    while todo:
        cell = todo.pop()
        if cell not in group:
            group.add(cell)
            todo += [x for x in board.neighbours(*cell) if x in left and x not in group]
    if len(group) < len(left):
        rest = left - group
        return "apart", min(group, rest, key=len)
    if len(left) == 1:  # its one cell is both ends of the way through
        return None, set()
    ends = []  # the cells left together, each has a way in from another: one way is a dead end
    for cell in sorted(left):
        if sum(x in left or x == end for x in board.neighbours(*cell)) == 1:
            ends.append(cell)
            if len(ends) == 2:
                return "dead ends", set(ends)
    return None, set()


def improve(board: Board, answer: dict, focus: int, starts: Sequence[tuple[int, int]],
            deadline: float) -> tuple[dict | None, int]:
    """A larger answer than `answer` (or None) and the step it stopped at: from `focus` on, each
    step in turn reads the largest digit an answer with the digits before it can read there (as far
    as the first part and the ways through tell within the time), so a question the driver asks
    about a step before the one returned is answered by the guide or has no answer but maybe one the
    search set aside."""
    improved, current = None, answer
    for step in range(max(focus, 1), len(board.cells)):
        if time.thread_time() >= deadline:
            return improved, step
        raised = raise_at(board, current, step, starts, deadline)
        if raised == "timeout":
            return improved, step
        if raised is not None:
            improved = current = raised
    return improved, len(board.cells)


def raise_at(board: Board, answer: dict, step: int, starts: Sequence[tuple[int, int]], deadline: float):
    """`answer` raised at `step`: an answer reading its first `step` digits, then the largest digit
    found; None if none larger than its own was found; "timeout" past `deadline`."""
    digits = value(board, answer)
    if digits[step] == board.size:
        return None
    return search(board, digits[:step], range(board.size, digits[step], -1), start_groups(board, answer, starts), deadline)


def search(board: Board, prefix: Sequence[int], wanted: Sequence[int], groups: Sequence[Sequence[tuple[int, int]]],
           deadline: float):
    """The first answer found that reads `prefix`, then at least a digit of `wanted`, asked in
    order, its tour starting in a group of `groups`, asked in order; None if none was found;
    "timeout" past `deadline`."""
    for group in groups:
        reach = Reach(board, prefix, group)
        try:
            for k in wanted:
                found = reach.answer(k, deadline)
                if found == "timeout" or isinstance(found, dict):
                    return found
        finally:
            reach.close()
    return None


def start_groups(board: Board, answer: dict | None, starts: Sequence[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """`answer`'s first cell, then the other starts: past the first positions the digits read fix
    the tour's first cells almost completely, and the first part is far smaller with one start than
    with all (14x14, position 59: 0.1 s against 8.9 s)."""
    first = None if answer is None else min(board.cells, key=lambda cell: answer["tour"][cell[0]][cell[1]])
    if first not in starts:
        return [list(starts)]
    others = [s for s in starts if s != first]
    return [[first], others] if others else [[first]]


def way_through(board: Board, left: set[tuple[int, int]], end: tuple[int, int], deadline: float):
    """A path of king moves from a neighbour of `end` through every cell of `left` once, as a list
    of cells; None if there is none; "timeout" past `deadline`.

    Warnsdorff's rule is tried first. Then each cell of `left` takes one predecessor (`end` or a
    neighbour in `left`) and has at most one successor, and `end` one successor: that is a path
    from `end` plus, perhaps, cycles apart from it. Each cycle found is cut (some move must enter
    its cells from outside them), and so is the path (it must go on into the cells it leaves out),
    and the query asked again; on the 14x14 record's questions a few dozen rounds at most. Cells
    left with an `obstacle` are `Reach.answer`'s to rule out before it asks here."""
    if not left:
        return []
    if time.thread_time() >= deadline:
        return "timeout"
    # Warnsdorff's rule first: through a large open region it finds a way at once, where the cuts
    # would take many rounds (15x15, position 7: undecided after 0.25 s by cuts alone).
    ids = {cell: i for i, cell in enumerate(board.cells)}
    around = [[ids[x] for x in board.neighbours(*cell)] for cell in board.cells]
    free = bytearray(cell in left for cell in board.cells)
    quick = probe(around, free, [sum(free[u] for u in near) for near in around], ids[end])
    if quick is not None:
        return [board.cells[q] for q in quick]
    order = sorted(left)
    ids = {cell: i for i, cell in enumerate([end] + order, 1)}
    cnf = CNF()
    moves = {(cell, to): cnf.var(f"m{ids[cell]}_{ids[to]}")  # (from, to) -> its literal
             for cell in [end] + order for to in board.neighbours(*cell) if to in left}
    into = {cell: [] for cell in order}
    out_of = {cell: [] for cell in [end] + order}
    for (a, b), x in moves.items():
        into[b].append(x)
        out_of[a].append(x)
        if (b, a) in moves and ids[a] < ids[b]:
            cnf.not_both(x, moves[b, a])
    for cell in order:
        cnf.exactly_one(into[cell])
        cnf.at_most_one(out_of[cell])
    cnf.exactly_one(out_of[end])
    with sat_solver_class()(name=SOLVER, bootstrap_with=cnf.clauses) as solver:
        while True:
            found = _solve(solver, [], deadline)
            if found is not True:
                return found
            true = {x for x in solver.get_model() if x > 0}
            after = {a: b for (a, b), x in moves.items() if x in true}
            path, cell = [], end
            while cell in after:
                cell = after[cell]
                path.append(cell)
            if len(path) == len(left):
                return path
            seen = set(path)
            # the path must go on into the cells it leaves out
            solver.add_clause([x for (a, b), x in moves.items() if b not in seen and (a in seen or a == end)])
            for first in order:  # every cell off the path lies on a cycle: cut each
                if first in seen:
                    continue
                cycle, cell = set(), first
                while cell not in cycle:
                    cycle.add(cell)
                    cell = after[cell]
                seen |= cycle
                solver.add_clause([x for (a, b), x in moves.items() if b in cycle and a not in cycle])


def _solve(solver, assumptions: list[int], deadline: float):
    """True, None (no answer) or "timeout": thread CPU time past `deadline`, or the run's first
    Ctrl-C (or SIGTERM) waiting, which the driver holds for the next solver call: a second guess
    could otherwise keep a stopped run going for its whole minute."""
    while True:
        if time.thread_time() >= deadline or ctrl_c_pressed():
            return "timeout"
        solver.conf_budget(CONFLICTS_PER_LOOK)
        found = solver.solve_limited(assumptions=assumptions)
        if found is not None:
            return True if found else None


# ------------------------------------------------------------- ways through by Warnsdorff's rule
def take(around, free, ways, q: int) -> None:
    free[q] = 0
    for u in around[q]:
        ways[u] -= 1


def untake(around, free, ways, q: int) -> None:
    free[q] = 1
    for u in around[q]:
        ways[u] += 1


def probe(around, free, ways, end: int) -> list[int] | None:
    """A path from `end` through every free cell by Warnsdorff's rule (the move with the fewest
    ways on), or None where the rule gets stuck under each of its tie-breaks (the lower cell, the
    higher, the one nearer the board's edge); `free` and `ways` are left as they were. ways[u]
    counts u's free neighbours."""
    for rank in _tie_ranks(len(free)):
        found = _warnsdorff(around, free, ways, end, rank)
        if found is not None:
            return found
    return None


_ranks: dict[int, tuple[list[int], ...]] = {}


def _tie_ranks(cells: int) -> tuple[list[int], ...]:
    """Each tie-break as every cell's rank in its order (the lower cell first, the higher, the one
    nearer the edge then the lower), made once a board size: a walk probes hundreds of times."""
    if cells not in _ranks:
        side = round(cells ** 0.5)
        edge = [min(i // side, i % side, side - 1 - i // side, side - 1 - i % side) for i in range(cells)]
        orders = (range(cells), range(cells - 1, -1, -1), sorted(range(cells), key=lambda q: (edge[q], q)))
        ranks = []
        for order in orders:
            rank = [0] * cells
            for position, q in enumerate(order):
                rank[q] = position
            ranks.append(rank)
        _ranks[cells] = tuple(ranks)
    return _ranks[cells]


def _warnsdorff(around, free, ways, end: int, rank: list[int]) -> list[int] | None:
    """The rule's path from `end` under one tie-break. It works on copies: each move's key, ways on
    then rank, is one number kept up to date as cells are taken, so that the move is picked by a
    C-level min (the probe is most of a 9x9 polish's Python)."""
    cells = len(free)
    free = bytearray(free)
    key = [w * cells + r for w, r in zip(ways, rank)]
    taken: list[int] = []
    p = end
    while True:
        q = min(filter(free.__getitem__, around[p]), key=key.__getitem__, default=-1)
        if q < 0:
            break
        free[q] = 0
        for u in around[q]:
            key[u] -= cells
        taken.append(q)
        p = q
    return taken if 1 not in free else None
