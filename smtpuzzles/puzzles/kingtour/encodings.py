"""The encodings: one-hot cells, digits and tour steps (with the symmetry lemma, or without), and the
posted answer's integer formulation.
"""

from __future__ import annotations

import time
from dataclasses import replace

from smtpuzzles.errors import InputError
from smtpuzzles.formula import CNF, Formula, SmtBuilder, any_of, count_true, lit, raw
from smtpuzzles.advice import Advice
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import LexMax
from smtpuzzles.symmetry import Lemma, generating_set

from .board import Board, digits_text, value
from . import reach
from .guess import SudokuSolver, first_answer, improve
from .sudoku import sudoku_clauses

# CPU seconds the first answer's walk may take per cell of the board (25.6 s on 16x16, which walks
# in about 10 s; 9x9 in 0.3 s): past the allowance the snake guess is taken.
GUESS_SECONDS_PER_CELL = 0.1
# CPU seconds the polish of a 9x9 model may take (most end sooner), growing with the fourth power
# of the cells: a larger board's Sudoku queries cost more, and its SAT answers far more; at most
# POLISH_SECONDS_MAX (14x14 and 16x16, against SAT answers of minutes).
POLISH_SECONDS_9X9, POLISH_SECONDS_MAX = 0.16, 10.0
# Cells from which the polish raises each position by `reach` instead of guess.improve's search,
# a check undecided after 5 s is answered by `reach` where it can, within SECOND_GUESS_SECONDS, and
# the closing claim's proof made by `certify` or `audit --proof` is made by its cases
# (Advice.proof_parts). On every board the run closes by its cases (Advice.close_by_cases): each
# was refuted as its position closed, and asking the whole claim again took 9x9 0.7 s of its 4.8.
REACH_FROM_CELLS = 144
SECOND_GUESS_SECONDS = 60.0


ENCODINGS = ("onehot-sym", "onehot", "posted")
SPLITS = ("onehot-sym", "onehot")  # checks split by the tour's first cells (`solve --cubes`)


# -------------------------------------------------------------------------------------------- encode
def encode(board: Board, encoding: str = "onehot-sym") -> Encoding:
    if encoding == "onehot-sym":
        return _encode_symmetric(board)
    if encoding == "onehot":
        return _encode_onehot(board)
    if encoding == "posted":
        return _encode_posted(board)
    raise InputError(f"unknown encoding {encoding!r} ({', '.join(ENCODINGS)})", "--encoding")


def _encode_onehot(board: Board, starts: list[tuple[int, int]] | None = None) -> Encoding:
    """Booleans only: cell holds digit, step visits cell, step reads digit, and one block of clauses
    per rule, in the order the formula has always been written (its sha-256 is recorded in every
    run). SAT solvers propagate this far better than integers.

    With `starts`, the tour's first cell is one of them, a last clause that `_encode_symmetric`
    justifies; the formula is written once, with it.
    """
    n, cnf = board.size, CNF()
    digit = {(r, c, k): cnf.var(f"d{r}_{c}_{k}") for r, c in board.cells for k in range(1, n + 1)}
    visit = {(t, r, c): cnf.var(f"v{t}_{r}_{c}") for t in range(n * n) for r, c in board.cells}
    reads = {(t, k): cnf.var(f"s{t}_{k}") for t in range(n * n) for k in range(1, n + 1)}
    sudoku_clauses(cnf, board, digit)
    tour_clauses(cnf, board, visit)
    reading_clauses(cnf, board, visit, digit, reads)
    if starts is not None:
        starts_clause(cnf, visit, starts)
    guides = _Guides(board, starts)
    advice = Advice(first_guess=None if any(any(row) for row in board.clues) else guides.first,
                    polish=guides.polish, second_guess=guides.answer if n * n >= REACH_FROM_CELLS else None,
                    second_guess_each_check=True, cubes=lambda depth: tour_cubes(board, starts or board.cells, depth),
                    close_by_cases=True, proof_parts=n * n >= REACH_FROM_CELLS)
    return Encoding("onehot" if starts is None else "onehot-sym", 1, Formula.from_cnf(cnf), number_objective(n),
                    decoder(board), engines=("sat", "z3"), advice=advice)


# --------------------------------------------------------------------------------- the rules, as CNF
def tour_clauses(cnf: CNF, board: Board, visit: dict[tuple[int, int, int], int]) -> None:
    """The tour: each step one cell, each cell one step, consecutive steps a king move apart (both
    ways in time). With every cell visited once that is already an open Hamiltonian path: no circuit
    or connectivity constraint is needed."""
    cells = board.cells
    steps = len(cells)
    at = [[visit[t, r, c] for r, c in cells] for t in range(steps)]  # step -> cell number -> its literal
    for t in range(steps):
        cnf.exactly_one(at[t])
    number = {cell: i for i, cell in enumerate(cells)}
    for i, (r, c) in enumerate(cells):
        cnf.exactly_one([at[t][i] for t in range(steps)])
        around = [number[x] for x in board.neighbours(r, c)]
        for t in range(steps):
            if t + 1 < steps:
                cnf.implies(at[t][i], [at[t + 1][j] for j in around])
            if t > 0:
                cnf.implies(at[t][i], [at[t - 1][j] for j in around])


def reading_clauses(cnf: CNF, board: Board, visit: dict[tuple[int, int, int], int],
                    digit: dict[tuple[int, int, int], int], reads: dict[tuple[int, int], int]) -> None:
    """The number read along the tour: step t reads exactly one digit, the digit of the cell it visits."""
    n, digits = board.size, range(1, board.size + 1)
    holds = [[digit[r, c, k] for k in digits] for r, c in board.cells]
    for t in range(n * n):
        read = [reads[t, k] for k in digits]
        cnf.exactly_one(read)
        for (r, c), held in zip(board.cells, holds):
            cnf.when_each(visit[t, r, c], held, read)


def starts_clause(cnf: CNF, visit: dict[tuple[int, int, int], int], starts: list[tuple[int, int]]) -> None:
    """The symmetry clause, the CNF's last: the tour starts in one of `starts` (the symmetry lemma
    says why that loses no number)."""
    cnf.at_least_one([visit[0, r, c] for r, c in starts])


def number_objective(n: int) -> LexMax:
    """The number read along the tour, lexicographically maximal: "position i exceeds d" is the clause
    s_i_(d+1) or ... or s_i_n, "position i is d" the literal s_i_d; each digit occurs n times."""
    def greater(i: int, d: int):
        return any_of([lit(f"s{i}_{k}") for k in range(d + 1, n + 1)])

    def equal(i: int, d: int):
        return lit(f"s{i}_{d}")

    return LexMax(n * n, list(range(1, n + 1)), greater, equal, {k: n for k in range(1, n + 1)}, show=digits_text)


def decoder(board: Board):
    """A model read as each cell's digit and each step's cell: the first true name of each exactly-one
    (names made once: a 9x9 proof decodes some fifty models of 7,000 variables)."""
    n, cells = board.size, board.cells
    digit_names = [[[f"d{r}_{c}_{k}" for k in range(1, n + 1)] for c in range(n)] for r in range(n)]
    visit_names = [[f"v{t}_{r}_{c}" for r, c in cells] for t in range(n * n)]

    def decode(model) -> dict:
        grid = [[next((k for k, name in enumerate(names, 1) if model[name]), 0) for names in row] for row in digit_names]
        tour = [[0] * n for _ in range(n)]
        for t, names in enumerate(visit_names, 1):  # a step with no cell leaves a 0 for the referee to name
            i = next((i for i, name in enumerate(names) if model[name]), None)
            if i is not None:
                tour[cells[i][0]][cells[i][1]] = t
        return {"grid": grid, "tour": tour}

    return decode


def solution_literals(board: Board, solution: dict) -> list:
    """The literals that say a solution: each cell's digit and the step that visits it."""
    return [lit(f"d{r}_{c}_{solution['grid'][r][c]}") for r, c in board.cells] + \
        [lit(f"v{solution['tour'][r][c] - 1}_{r}_{c}") for r, c in board.cells]


# --------------------------------------------------------------------------- the guesses that steer
class _Guides:
    """The search's guesses for one board: the first answer, the polish of each model, the second
    guess of a check that stays undecided. Only guesses: the engine's models are refereed like any
    other and no UNSAT step rests on them."""

    def __init__(self, board: Board, starts: list[tuple[int, int]] | None):
        self.board, self.starts = board, starts
        self.steps = board.size * board.size
        self.guessed: list[dict] = []
        self.sudoku: SudokuSolver | None = None
        self.polished: list[dict] = []
        self.reached = 0  # with `reach`: the step the last polish stopped at

    def first(self):
        if not self.guessed:  # each engine built asks; the walk runs once
            walked = first_answer(self.board, self.starts or quadrant(self.board), GUESS_SECONDS_PER_CELL * self.steps)
            self.guessed.append(walked or snake_solution(self.board))
        return solution_literals(self.board, self.guessed[0])

    def polish(self, solution: dict, claim: dict, seconds: float | None = None):
        """The model's own tour with the best Sudoku along it, then larger digits sought at the
        positions after the claim's: on a 9x9 board by a small search around the model's tour
        (guess.improve), where a solve then asks the solver 9 SAT questions instead of 27, 10 more
        answered by the guide; from REACH_FROM_CELLS on, each position in turn gets the largest
        digit the first steps and a way through can give (reach.improve), so the solver is left
        the refutations (encodings/kingtour.md). Within `seconds` where the run gives them (its
        limit for a check), else the board's own time."""
        board, steps = self.board, self.steps
        if self.sudoku is None:
            self.sudoku = SudokuSolver(board)
        focus = claim["pos"] + 1 if isinstance(claim.get("pos"), int) else 0
        own = min(POLISH_SECONDS_9X9 * (steps / 81) ** 4, POLISH_SECONDS_MAX)
        deadline = time.thread_time() + (own if seconds is None else min(own, seconds))
        by_reach = steps >= REACH_FROM_CELLS
        if self.polished and self.polished[-1] == solution:
            # the guide this polish made, answered: its steps up to `reached` were tried already
            if not by_reach or self.reached >= steps:
                return None
            better, focus = solution, max(focus, self.reached)
        else:
            better = {"grid": self.sudoku.best_along(solution["tour"]), "tour": solution["tour"]}
            if value(board, better) <= value(board, solution):
                better = solution
        if by_reach:
            walked, self.reached = reach.improve(board, better, focus, self.starts or board.cells, deadline)
        else:
            walked = improve(board, self.sudoku, better, focus, deadline)
        better = walked or better
        self.polished[:] = [better]
        return solution_literals(board, better) if better is not solution else None

    def answer(self, seconds: float | None, claim: dict):
        """An answer to a check that stays undecided, "position i can exceed d" after the prefix
        proved, by `reach`, or None: on 14x14 questions the solver was still on after 10 to 90
        minutes came this way within seconds (encodings/kingtour.md, "Reach")."""
        if claim.get("op") != "exceed" or not isinstance(claim.get("prefix"), list):
            return None
        board = self.board
        if "cube" in claim:  # a split check's cube fixes the tour's first cell
            groups = [[tuple(int(x) for x in claim["cube"][0][1:].split("_")[1:])]]
        else:
            groups = reach.start_groups(board, self.polished[-1] if self.polished else None, self.starts or board.cells)
        budget = SECOND_GUESS_SECONDS if seconds is None else min(seconds, SECOND_GUESS_SECONDS)
        found = reach.search(board, claim["prefix"], [claim["than"] + 1], groups, time.thread_time() + budget)
        return solution_literals(board, found) if isinstance(found, dict) else None


def quadrant(board: Board) -> list[tuple[int, int]]:
    """The cells of the board's top-left quarter, where the symmetry lemma's starts lie: the walk's
    starts when the encoding has no lemma to say which."""
    half = (board.size + 1) // 2
    return [(r, c) for r, c in board.cells if r < half and c < half]


def snake_solution(board: Board) -> dict:
    """A first answer without search, for when the walk (guess.py) runs out of its time (16x16 has
    no first model after 15 minutes of Glucose without a guess): the shifted-rows Sudoku (row r is row 0 moved by
    C * (r mod R) + r div R, valid for any R x C boxes), read along the row-by-row snake from the
    corner, its digits renamed so that the first new digit read is the largest, and so on. Only a
    guess: the solver's model is refereed like any other and no UNSAT step rests on it."""
    n, rows, cols = board.size, board.box_rows, board.box_cols
    pattern = [[(cols * (r % rows) + r // rows + c) % n for c in range(n)] for r in range(n)]
    order = [(r, c if r % 2 == 0 else n - 1 - c) for r in range(n) for c in range(n)]
    names: dict[int, int] = {}
    for r, c in order:
        names.setdefault(pattern[r][c], n - len(names))
    tour = [[0] * n for _ in range(n)]
    for t, (r, c) in enumerate(order, 1):
        tour[r][c] = t
    return {"grid": [[names[v] for v in row] for row in pattern], "tour": tour}


def tour_cubes(board: Board, starts, depth: int) -> list[list[str]]:
    """A check split by the tour's first cell (depth 1) or its first two cells (depth 2)."""
    if depth == 1:
        return [[f"v0_{r}_{c}"] for r, c in starts]
    return [[f"v0_{r}_{c}", f"v1_{a}_{b}"] for r, c in starts for a, b in board.neighbours(r, c)]


def board_symmetries(board: Board) -> list[dict[tuple[int, int], tuple[int, int]]]:
    """The maps of the square (rotations, reflections) that keep king moves, which all do, and the
    box grid and the clues, which not all do: 8 for square boxes, 4 for R x C boxes, fewer with
    clues. The identity is left out. Only a proposal: `symmetry.check` proves each one."""
    n = board.size
    last = n - 1
    shapes = [lambda r, c: (r, last - c), lambda r, c: (last - r, c), lambda r, c: (last - r, last - c),
              lambda r, c: (c, r), lambda r, c: (last - c, last - r), lambda r, c: (c, last - r),
              lambda r, c: (last - c, r)]
    boxes = {frozenset(unit) for unit in board.units()[2 * n:]}
    kept = []
    for shape in shapes:
        cell_map = {(r, c): shape(r, c) for r, c in board.cells}
        if all(frozenset(cell_map[x] for x in box) in boxes for box in boxes) and \
                all(board.clues[r][c] == board.clues[a][b] for (r, c), (a, b) in cell_map.items()):
            kept.append(cell_map)
    return kept


def _encode_symmetric(board: Board) -> Encoding:
    """`onehot` plus one clause: the tour starts in a cell that no symmetry of the board maps to a
    smaller cell (15 of 81 on 9x9). Sound because of the lemma that `symmetry.check` verifies: each
    symmetry maps the clauses onto themselves and keeps the number (the steps' digits are not moved),
    and every start cell is moved into the allowed ones by some symmetry."""
    maps = board_symmetries(board)
    if not maps:
        return replace(_encode_onehot(board), name="onehot-sym")
    n, steps = board.size, board.size * board.size
    starts = sorted({min([x] + [m[x] for m in maps]) for x in board.cells})
    generators = []
    for m in generating_set(maps):
        names = {}
        for (r, c), (a, b) in m.items():
            if (r, c) != (a, b):
                names.update({f"d{r}_{c}_{k}": f"d{a}_{b}_{k}" for k in range(1, n + 1)})
                names.update({f"v{t}_{r}_{c}": f"v{t}_{a}_{b}" for t in range(steps)})
        generators.append(names)
    lemma = Lemma(tuple(generators), tuple(f"v0_{r}_{c}" for r, c in starts),
                  tuple(f"v0_{r}_{c}" for r, c in board.cells),
                  f"the tour starts in one of {len(starts)} of the {steps} cells, by {len(maps) + 1} symmetries of the board")
    # certify refutes the closing query whole: on 12x12, with CaDiCaL's probing off, 73 s against
    # about 11 minutes one "first beats the best at position i" at a time (docs/benchmarks.md)
    return replace(_encode_onehot(board, starts), lemma=lemma)


def _encode_posted(board: Board) -> Encoding:
    """The posted answer's model, written anew: Int digit and Int visit time per cell, move
    Booleans with degree constraints (portable `ite` sums instead of z3's PbEq), and a digit per step."""
    n, smt = board.size, SmtBuilder("QF_LIA")
    steps = n * n
    num = {(r, c): smt.int(f"num{r}_{c}", 1, n) for r, c in board.cells}
    for r, c in board.cells:
        if board.clues[r][c]:
            smt.assert_(f"(= {num[r, c]} {board.clues[r][c]})")
    for unit in board.units():
        smt.assert_(f"(distinct {' '.join(num[x] for x in unit)})")
        for k in range(1, n + 1):
            smt.assert_(f"(or {' '.join(f'(= {num[x]} {k})' for x in unit)})")
    tour = {(r, c): smt.int(f"tour{r}_{c}", 0, steps - 1) for r, c in board.cells}
    move = {}
    for a in board.cells:
        for b in board.neighbours(*a):
            move[a, b] = smt.bool(f"move{a[0]}_{a[1]}_{b[0]}_{b[1]}")
    for a in board.cells:
        outs = [move[a, b] for b in board.neighbours(*a)]
        smt.assert_(f"(= (+ {count_true(outs)} (ite (= {tour[a]} {steps - 1}) 1 0)) 1)")
        ins = [move[b, a] for b in board.neighbours(*a)]
        smt.assert_(f"(= (+ {count_true(ins)} (ite (= {tour[a]} 0) 1 0)) 1)")
    smt.assert_(f"(distinct {' '.join(tour[x] for x in board.cells)})")
    for t in range(steps):
        smt.assert_(f"(or {' '.join(f'(= {tour[x]} {t})' for x in board.cells)})")
    for (a, b), m in move.items():
        smt.assert_(f"(= {m} (= (+ {tour[a]} 1) {tour[b]}))")
    value = [smt.int(f"value{t}", 1, n) for t in range(steps)]
    for a in board.cells:
        for t in range(steps):
            smt.assert_(f"(=> (= {tour[a]} {t}) (= {num[a]} {value[t]}))")

    def decode(model) -> dict:
        grid = [[model[f"num{r}_{c}"] for c in range(n)] for r in range(n)]
        tour_grid = [[model[f"tour{r}_{c}"] + 1 for c in range(n)] for r in range(n)]
        return {"grid": grid, "tour": tour_grid}

    objective = LexMax(
        steps,
        list(range(1, n + 1)),
        lambda i, d: raw(f"(> value{i} {d})"),
        lambda i, d: raw(f"(= value{i} {d})"),
        {k: n for k in range(1, n + 1)},
        show=digits_text,
    )
    return Encoding("posted", 1, smt.formula(), objective, decode, engines=("z3",))
