"""King's-tour Sudoku: a Sudoku and a king's tour over it whose digits, read along the tour, form the
largest number.

Rules: an N x N grid with R x C boxes (R * C = N) holds each digit 1..N once per row, column and box;
the tour visits every cell once, each step a king move (an open Hamiltonian path); the objective is
the sequence of digits in visiting order, maximised lexicographically.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, Sequence

from smtpuzzles.contract import Example, Option, whole
from smtpuzzles.errors import InputError
from smtpuzzles.formula import CNF, Formula, SmtBuilder, any_of, count_true, lit, raw
from smtpuzzles.objective import Encoding, LexMax
from smtpuzzles.symmetry import Lemma, closure

NAME = "kingtour"
SUMMARY = "a Sudoku and a king's tour over it whose digits, read along the tour, form the largest number"
ENCODINGS = ("onehot-sym", "onehot", "posted")
SPLITS = ("onehot-sym", "onehot")  # checks split by the tour's first cells (`solve --cubes`)
DEFAULT_ENGINE = "sat"  # measured in scripts/bench_kingtour.py: python-sat's Glucose far ahead of z3 here
# Glucose 4.2 over 4: its SAT answers, which carry the proof's time, are about a fifth faster on 9x9
# (scripts/bench_kingtour.py; the same numbers and steps of the search).
ENGINE_PARAMS = {"sat": {"solver": "glucose42"}}
MODES = ("optimise",)
DIGIT_CHARS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Measured (load, encode and write the formula): 16x16 takes 7 s and 0.6 GB, 20x20 14 s and 1.6 GB
# before any solver starts, since the read-digit clauses grow as N^5; larger boards are refused.
LIMITS = {"size": 16}
OPTIONS = (
    Option("size", int, "board size N (up to 16)", metavar="N", minimum=1),
    Option("box", str, "box shape (default: the squarest, e.g. 2x3 for 6)", metavar="RxC"),
    Option("clues", str, "clue grid, digits and '.' for empty", metavar="FILE", input_file=True),
)
INPUT_REQUIRED = False  # --size alone is a board with no clues


@dataclass(frozen=True)
class Board:
    size: int
    box_rows: int
    box_cols: int
    clues: tuple[tuple[int, ...], ...]  # 0 where no digit is given

    @property
    def cells(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(self.size) for c in range(self.size)]

    def units(self) -> list[list[tuple[int, int]]]:
        n, br, bc = self.size, self.box_rows, self.box_cols
        rows = [[(r, c) for c in range(n)] for r in range(n)]
        cols = [[(r, c) for r in range(n)] for c in range(n)]
        boxes = [
            [(r, c) for r in range(top, top + br) for c in range(left, left + bc)]
            for top in range(0, n, br)
            for left in range(0, n, bc)
        ]
        return rows + cols + boxes

    def neighbours(self, r: int, c: int) -> list[tuple[int, int]]:
        n = self.size
        return [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n
        ]


# --------------------------------------------------------------------------------------------- parse
def parse_box(text: str, size: int) -> tuple[int, int]:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() and len(p.strip()) <= 3 for p in parts):
        raise InputError(f"box shape {text[:20]!r} is not of the form RxC (for example 3x3)", "--box")
    rows, cols = int(parts[0]), int(parts[1])
    if rows < 1 or cols < 1 or rows * cols != size:
        raise InputError(f"{rows}x{cols} boxes do not tile a {size}x{size} grid (need R*C = {size})", "--box")
    return rows, cols


def default_box(size: int) -> tuple[int, int]:
    """The squarest box shape, rows <= columns (6 -> 2x3, 8 -> 2x4, 12 -> 3x4)."""
    best = None
    for rows in range(1, size + 1):
        if size % rows == 0 and rows <= size // rows:
            best = (rows, size // rows)
    return best


def parse(size: int, box: str | None, clues_text: str | None, where: str = "clues") -> Board:
    if not 1 <= size <= LIMITS["size"]:
        raise InputError(f"size {size} is outside 1..{LIMITS['size']} (the largest board accepted)", "--size")
    rows, cols = parse_box(box, size) if box else default_box(size)
    if rows * cols != size:
        raise InputError(f"no box shape tiles {size}x{size}", "--box")
    grid = [[0] * size for _ in range(size)]
    if clues_text is not None:
        lines = []
        for number, line in enumerate(clues_text.splitlines(), 1):
            cells = [ch for ch in line if ch not in " \t|"]
            if not cells or set(cells) <= set("-+"):
                continue  # blank lines and box rules such as ----+----
            lines.append((number, cells))
        if len(lines) != size:
            raise InputError(f"{len(lines)} rows of cells, expected {size}", where)
        for r, (number, cells) in enumerate(lines):
            if len(cells) != size:
                raise InputError(f"{len(cells)} cells, expected {size}", f"{where} line {number}")
            for c, ch in enumerate(cells):
                if ch in ".0_*":
                    continue
                value = DIGIT_CHARS.find(ch.upper()) + 1
                if not 1 <= value <= size:
                    raise InputError(f"unknown symbol {ch!r} (digits 1..{size} or '.')", f"{where} line {number} column {c + 1}")
                grid[r][c] = value
    return Board(size, rows, cols, tuple(tuple(row) for row in grid))


def load(text: str | None, source: str, options: dict) -> Board:
    """The board from --size/--box and an optional clue grid (`text`, read from `source`)."""
    size = options.get("size")
    if size is None:
        raise InputError("the King's tour needs --size N (and --box RxC unless the squarest shape is meant)", "--size")
    if isinstance(size, bool) or not isinstance(size, int):
        raise InputError(f"the size is a whole number, not {str(size)[:20]!r}", "--size")
    box = options.get("box")
    if box is not None and not isinstance(box, str):
        raise InputError(f"the box shape is text such as 3x3, not {str(box)[:20]!r}", "--box")
    return parse(size, box, text, where=source)


def canonical(board: Board) -> dict:
    return {
        "size": board.size,
        "box": f"{board.box_rows}x{board.box_cols}",
        "clues": ["".join(DIGIT_CHARS[v - 1] if v else "." for v in row) for row in board.clues],
    }


def from_canonical(data: dict) -> Board:
    return parse(int(data["size"]), data["box"], "\n".join(data["clues"]))


def examples() -> Iterator[Example]:
    """Empty 4x4 and 6x6 boards in every encoding (the 9x9 record's formula is too large to keep)."""
    for size, box in ((4, "2x2"), (6, "2x3")):
        board = parse(size, box, None)
        for encoding in ENCODINGS:
            yield Example(f"{size}x{size}-{encoding}", board, encoding)


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
    """Booleans only: cell holds digit, step visits cell, step reads digit.

    Exactly-one per cell, per step and per unit digit; adjacency clauses in both time directions make
    consecutive visits king moves. With every cell visited once, that is already a Hamiltonian path:
    no circuit constraint is needed. SAT solvers propagate this far better than integers.

    With `starts`, the tour's first cell is one of them, a last clause that `_encode_symmetric`
    justifies; the formula is written once, with it.
    """
    n, cnf = board.size, CNF()
    steps = n * n
    digit = {(r, c, k): cnf.var(f"d{r}_{c}_{k}") for r, c in board.cells for k in range(1, n + 1)}
    visit = {(t, r, c): cnf.var(f"v{t}_{r}_{c}") for t in range(steps) for r, c in board.cells}
    reads = {(t, k): cnf.var(f"s{t}_{k}") for t in range(steps) for k in range(1, n + 1)}

    # The Sudoku.
    for r, c in board.cells:
        cnf.exactly_one([digit[r, c, k] for k in range(1, n + 1)])
        if board.clues[r][c]:
            cnf.require(digit[r, c, board.clues[r][c]])
    for unit in board.units():
        for k in range(1, n + 1):
            cnf.exactly_one([digit[r, c, k] for r, c in unit])

    # The tour: each step one cell, each cell one step, consecutive steps a king move apart.
    for t in range(steps):
        cnf.exactly_one([visit[t, r, c] for r, c in board.cells])
    for r, c in board.cells:
        cnf.exactly_one([visit[t, r, c] for t in range(steps)])
        around = board.neighbours(r, c)
        for t in range(steps):
            if t + 1 < steps:
                cnf.implies(visit[t, r, c], [visit[t + 1, a, b] for a, b in around])
            if t > 0:
                cnf.implies(visit[t, r, c], [visit[t - 1, a, b] for a, b in around])

    # The number: step t reads the digit of the cell it visits.
    for t in range(steps):
        cnf.exactly_one([reads[t, k] for k in range(1, n + 1)])
        for r, c in board.cells:
            for k in range(1, n + 1):
                cnf.when([visit[t, r, c], digit[r, c, k]], reads[t, k])

    def greater(i: int, d: int):
        return any_of([lit(f"s{i}_{k}") for k in range(d + 1, n + 1)])

    def equal(i: int, d: int):
        return lit(f"s{i}_{d}")

    cells = board.cells
    digit_names = [[[f"d{r}_{c}_{k}" for k in range(1, n + 1)] for c in range(n)] for r in range(n)]
    visit_names = [[f"v{t}_{r}_{c}" for r, c in cells] for t in range(steps)]

    def decode(model) -> dict:
        """Each cell's digit and each step's cell, the first true name of each exactly-one (names
        made once: a 9x9 proof decodes some fifty models of 7,000 variables)."""
        grid = [[next((k for k, name in enumerate(names, 1) if model[name]), 0) for names in row] for row in digit_names]
        tour = [[0] * n for _ in range(n)]
        for t, names in enumerate(visit_names, 1):  # a step with no cell leaves a 0 for the referee to name
            i = next((i for i, name in enumerate(names) if model[name]), None)
            if i is not None:
                tour[cells[i][0]][cells[i][1]] = t
        return {"grid": grid, "tour": tour}

    def guess():
        solution = snake_solution(board)
        return [lit(f"d{r}_{c}_{solution['grid'][r][c]}") for r, c in board.cells] + \
            [lit(f"v{solution['tour'][r][c] - 1}_{r}_{c}") for r, c in board.cells]

    objective = LexMax(steps, list(range(1, n + 1)), greater, equal, {k: n for k in range(1, n + 1)}, show=digits_text)
    if starts is not None:
        cnf.at_least_one([visit[0, r, c] for r, c in starts])
    return Encoding("onehot" if starts is None else "onehot-sym", 1, Formula.from_cnf(cnf), objective, decode,
                    engines=("sat", "z3"), cubes=lambda depth: tour_cubes(board, starts or board.cells, depth),
                    guess=None if any(any(row) for row in board.clues) else guess)  # the snake starts at (0, 0)


def snake_solution(board: Board) -> dict:
    """A first answer without search, for the engines to try first (16x16 has no first model after
    15 minutes of Glucose without it): the shifted-rows Sudoku (row r is row 0 moved by
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
    for m in _generating(maps):
        names = {}
        for (r, c), (a, b) in m.items():
            if (r, c) != (a, b):
                names.update({f"d{r}_{c}_{k}": f"d{a}_{b}_{k}" for k in range(1, n + 1)})
                names.update({f"v{t}_{r}_{c}": f"v{t}_{a}_{b}" for t in range(steps)})
        generators.append(names)
    lemma = Lemma(tuple(generators), tuple(f"v0_{r}_{c}" for r, c in starts),
                  tuple(f"v0_{r}_{c}" for r, c in board.cells),
                  f"the tour starts in one of {len(starts)} of the {steps} cells, by {len(maps) + 1} symmetries of the board")
    return replace(_encode_onehot(board, starts), lemma=lemma)


def _generating(maps: list[dict]) -> list[dict]:
    """Few of `maps` that generate all of them (3 for a square's 8): each generator costs the lemma
    check one pass over the clauses."""
    chosen: list[dict] = []
    for m in maps:
        if not chosen or m not in closure(chosen):
            chosen.append(m)
    return chosen


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


# ------------------------------------------------------------------------------------------- referee
def referee(board: Board, solution: dict) -> list[str]:
    """Every broken rule, with its place. Pure Python: this is what the answer is checked against."""
    n, problems = board.size, []
    grid, tour = solution.get("grid"), solution.get("tour")
    for name, rows in (("grid", grid), ("tour", tour)):
        if not isinstance(rows, list) or len(rows) != n or any(not isinstance(row, list) or len(row) != n for row in rows):
            return [f"{name} is not {n}x{n}"]
    for r, c in board.cells:
        if not whole(grid[r][c]):
            problems.append(f"r{r + 1}c{c + 1} holds {grid[r][c]!r}, not a whole number (a digit 1..{n})")
        elif not 1 <= grid[r][c] <= n:
            problems.append(f"r{r + 1}c{c + 1} holds {grid[r][c]!r}, not a digit 1..{n}")
        if not whole(tour[r][c]):
            return problems + [f"r{r + 1}c{c + 1} has visit number {tour[r][c]!r}, not 1..{n * n}"]
    if problems:
        return problems  # the rules below read digits as numbers
    for r, c in board.cells:
        if board.clues[r][c] and grid[r][c] != board.clues[r][c]:
            problems.append(f"r{r + 1}c{c + 1} holds {grid[r][c]} but the clue is {board.clues[r][c]}")
    for unit in board.units():
        seen = {}
        for r, c in unit:
            if grid[r][c] in seen:
                a = seen[grid[r][c]]
                problems.append(f"digit {grid[r][c]} twice: r{a[0] + 1}c{a[1] + 1} and r{r + 1}c{c + 1}")
            seen[grid[r][c]] = (r, c)
    where = {}
    for r, c in board.cells:
        t = tour[r][c]
        if not 1 <= t <= n * n:
            problems.append(f"r{r + 1}c{c + 1} has visit number {t!r}, not 1..{n * n}")
        elif t in where:
            problems.append(f"visit {t} appears twice: r{where[t][0] + 1}c{where[t][1] + 1} and r{r + 1}c{c + 1}")
        else:
            where[t] = (r, c)
    for t in range(2, n * n + 1):
        if t in where and t - 1 in where:
            (r0, c0), (r1, c1) = where[t - 1], where[t]
            if max(abs(r0 - r1), abs(c0 - c1)) != 1:
                problems.append(f"visit {t - 1} r{r0 + 1}c{c0 + 1} to visit {t} r{r1 + 1}c{c1 + 1} is not a king move")
    return problems


def value(board: Board, solution: dict) -> list[int]:
    """The digits read along the tour."""
    order = sorted((solution["tour"][r][c], r, c) for r, c in board.cells)
    return [solution["grid"][r][c] for _, r, c in order]


def digits_text(vector: Sequence[int]) -> str:
    """Digits as the board prints them: 1..9, then A, B, C... for boards larger than 9x9."""
    return "".join(DIGIT_CHARS[d - 1] if 1 <= d <= len(DIGIT_CHARS) else f"<{d}>" for d in vector)


def value_text(vector: Sequence[int]) -> str:
    return digits_text(vector)


def value_json(vector: Sequence[int]) -> str:
    return digits_text(vector)


def render(board: Board, solution: dict, proved: int | None = None):
    """The Sudoku and the tour side by side (one above the other when too wide), then the number."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    from smtpuzzles.render import WIDTH, boxed_grid, content_width, ramp, side_by_side

    n = board.size
    total = n * n
    grid, tour = solution["grid"], solution["tour"]

    def digit_cell(r, c):
        style = "bold" if board.clues[r][c] else ""
        return Text(digits_text([grid[r][c]]), style=style or "white")

    def tour_cell(r, c):
        t = tour[r][c]
        return Text(f"{t:>{len(str(total))}}", style=ramp((t - 1) / max(total - 1, 1)))

    sudoku = Panel(boxed_grid(n, n, digit_cell, board.box_rows, board.box_cols, 1), title="Sudoku", expand=False)
    walk = Panel(boxed_grid(n, n, tour_cell, board.box_rows, board.box_cols, len(str(total))), title="King's tour",
                 expand=False)
    pair = side_by_side(sudoku, walk)
    boards = pair if content_width(pair) <= WIDTH else Group(sudoku, walk)  # one above the other
    digits = value(board, solution)
    if proved is not None and proved < total:  # a run still going: its best so far, grouped
        return Group(boards, progress(digits, proved))
    # The answer's number once more, unbroken on one line so that it copies whole: the one line
    # allowed past 80 columns (a terminal folds it; rich neither folds nor cuts it).
    return Group(boards, progress(digits, proved), Text(digits_text(digits), no_wrap=True, overflow="ignore"))


def draw(board: Board, solution: dict | None) -> str:
    """The board as an SVG document, the tour on its digits (smtpuzzles.puzzles.drawings.kingtour)."""
    from smtpuzzles.puzzles.drawings import kingtour as drawing

    return drawing.draw(board, solution)


def progress(digits: Sequence[int], proved: int | None):
    """The number read along the tour, in groups of a board row's length under a heading line (81
    digits do not fit one 80-column line); the proved prefix bright, the rest dim. The live display
    shows the best number so far the same way."""
    from rich.text import Text

    from smtpuzzles.render import WIDTH, digit_group, group_lines

    text = digits_text(digits)
    k = len(text) if proved is None else proved
    indent = "  "
    out = Text("number", style="bold")
    out.append(f" ({len(text)} digits", style="")
    out.append(f", {proved} proved)" if proved is not None and proved < len(text) else ")", style="italic")
    done = 0
    for line in group_lines(text, digit_group(len(text)), WIDTH - len(indent)):
        out.append("\n" + indent)
        for ch in line:
            if ch == " ":
                out.append(" ")
                continue
            out.append(ch, style="bold green" if done < k else "dim")
            done += 1
    return out


def describe(board: Board) -> str:
    clues = sum(1 for row in board.clues for v in row if v)
    return f"{board.size}x{board.size}, {board.box_rows}x{board.box_cols} boxes" + (f", {clues} clues" if clues else "")


def reference(instance, claim: dict) -> str:
    """The claim as a formula written from the rules alone (smtpuzzles.puzzles.rules.kingtour), which
    shares no code with `encode`: `certify` and `audit --proof` refute each closing claim on it too."""
    from smtpuzzles.puzzles.rules import kingtour as rules

    return rules.reference(instance, claim).dimacs()
