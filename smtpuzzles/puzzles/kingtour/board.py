"""The board and its rules: what an input may say, the referee, and the number a solution reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from smtpuzzles.contract import whole
from smtpuzzles.errors import InputError


DIGIT_CHARS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# The read-digit clauses grow as N^5 (encodings/kingtour.md): 18x18, the largest record board, holds
# 2.1 GB while it is solved; 20x20 took 2.3 GB before a solver started, and its tour's 3-digit
# steps no longer fit 80 columns.
LIMITS = {"size": 18}


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
    if not box and rows == 1 and size > 1:  # a prime size: the only "box" is a row, so no box rule at all
        raise InputError(f"{size}x{size} has no box shape but 1x{size} (each row its own box, so no box rule): "
                         f"give --box 1x{size} to mean that", "--size")
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


def canonical(board: Board) -> dict:
    return {
        "size": board.size,
        "box": f"{board.box_rows}x{board.box_cols}",
        "clues": ["".join(DIGIT_CHARS[v - 1] if v else "." for v in row) for row in board.clues],
    }


def from_canonical(data: dict) -> Board:
    return parse(int(data["size"]), data["box"], "\n".join(data["clues"]))


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


def describe(board: Board) -> str:
    clues = sum(1 for row in board.clues for v in row if v)
    return f"{board.size}x{board.size}, {board.box_rows}x{board.box_cols} boxes" + (f", {clues} clues" if clues else "")
