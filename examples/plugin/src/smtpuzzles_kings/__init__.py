"""Peaceful kings: place as many kings as possible on the free cells of a board with holes so that
no two attack each other (no two on cells a king's move apart, diagonals included).

Input: a text grid, `.` a free cell and `#` a hole; blank lines are ignored. With the option
`torus` the board wraps around at its edges, so the first and last columns (and rows) touch.

This module is the whole puzzle: it keeps the contract in `smtpuzzles.contract`, and this
package's pyproject.toml registers it in the entry-point group `smtpuzzles.puzzles`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from smtpuzzles.contract import InlineKey, Option, examples_in
from smtpuzzles.errors import InputError
from smtpuzzles.formula import CNF, FALSE, TRUE, Formula, lit
from smtpuzzles.objective import Encoding, IntMax

NAME = "kings"
SUMMARY = "the most kings on a board with holes, no two attacking each other"
ENCODINGS = ("blocks",)
DEFAULT_ENGINE = "sat"
MODES = ("optimise",)
# Measured on random boards with a tenth of their cells holes, whole optimal solves with Glucose:
# 30x30 in 11 s, 40x40 in 62 s and 0.28 GB (encoding 0.5 s). The counter over the 2x2 blocks grows
# with the square of their number, so 1,600 cells are accepted.
LIMITS = {"cells": 1600}
OPTIONS = (Option("torus", bool, "the board wraps around at its edges", default=False),)
INLINE = (InlineKey("board", str, "the board itself, rows of . and #"),)
FREE, HOLE = ".", "#"


@dataclass(frozen=True)
class Board:
    rows: tuple[str, ...]
    torus: bool = False

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @cached_property
    def free(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch == FREE]

    def around(self, r: int, c: int) -> set[tuple[int, int]]:
        """The cells a king on (r, c) attacks, holes included."""
        out = set()
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                a, b = r + dr, c + dc
                if self.torus:
                    a, b = a % self.height, b % self.width
                if (dr or dc) and 0 <= a < self.height and 0 <= b < self.width and (a, b) != (r, c):
                    out.add((a, b))
        return out


# --------------------------------------------------------------------------------------------- parse
def load(text: str | None, source: str, options: dict) -> Board:
    if text is None:
        raise InputError("a board is needed (a file or - for stdin)", "input")
    torus = options.get("torus", False)
    if not isinstance(torus, bool):
        raise InputError(f"torus is true or false, not {torus!r}", "--torus")
    numbered = [(i + 1, line.strip()) for i, line in enumerate(text.split("\n")) if line.strip()]
    if not numbered:
        raise InputError("the board is empty", source)
    width = len(numbered[0][1])
    if len(numbered) * width > LIMITS["cells"]:
        raise InputError(f"{len(numbered)}x{width} cells, more than the {LIMITS['cells']} accepted", source)
    for number, line in numbered:
        if len(line) != width:
            raise InputError(f"{len(line)} cells where the first row has {width}", f"{source} line {number}")
        for column, ch in enumerate(line, 1):
            if ch not in (FREE, HOLE):
                raise InputError(f"unknown symbol {ch!r} (. free, # hole)", f"{source} line {number} column {column}")
    return Board(tuple(line for _, line in numbered), torus)


def canonical(board: Board) -> dict:
    return {"board": list(board.rows), "torus": board.torus}


def from_canonical(data: dict) -> Board:
    return load("\n".join(data["board"]), "instance", {"torus": data["torus"]})


def examples():
    """The boards bundled in this package's examples/ folder."""
    return examples_in(Path(__file__).parent / "examples", load, ENCODINGS[0])


# -------------------------------------------------------------------------------------------- encode
def encode(board: Board, encoding: str = "blocks") -> Encoding:
    """Booleans only: `k{r}_{c}` a king on a free cell; one clause per attacking pair.

    The count is taken over 2x2 blocks of the board rather than over cells: the cells of a block
    attack each other, so a block holds at most one king and the number of kings is the number of
    blocks holding one (`b{i}`). That makes "at least k" cheap to refute where k exceeds the
    blocks, which a counter over cells would leave to a long search. `kings_ge{k}` names the bound.
    """
    if encoding != "blocks":
        raise InputError(f"unknown encoding {encoding!r} (blocks)", "--encoding")
    cnf = CNF()
    king = {p: cnf.var(f"k{p[0]}_{p[1]}") for p in board.free}
    for p in board.free:
        for q in board.around(*p):
            if q in king and p < q:
                cnf.not_both(king[p], king[q])
    blocks = []
    for top in range(0, board.height, 2):
        for left in range(0, board.width, 2):
            cells = [king[(r, c)] for r in range(top, top + 2) for c in range(left, left + 2) if (r, c) in king]
            if cells:
                used = cnf.var(f"b{len(blocks)}")
                cnf.any_of(used, cells)
                blocks.append(used)
    count = cnf.counter(blocks)
    for k in range(1, len(blocks) + 1):
        named = cnf.var(f"kings_ge{k}")
        cnf.same(named, count[k])

    def at_least(k: int):
        if k <= 0:
            return TRUE
        return lit(f"kings_ge{k}") if k <= len(blocks) else FALSE

    def decode(model) -> dict:
        return {"kings": [list(p) for p in board.free if model[f"k{p[0]}_{p[1]}"]]}

    return Encoding("blocks", 1, Formula.from_cnf(cnf), IntMax(at_least, upper=len(blocks)), decode,
                    engines=("sat", "z3"))


# ------------------------------------------------------------------------------------------- referee
def referee(board: Board, solution: dict) -> list[str]:
    """Every broken rule, with its place. Pure Python: the answer is checked against this."""
    kings = solution.get("kings")
    if not isinstance(kings, list):
        return ["the solution has no list of kings"]
    problems, seen = [], {}
    for i, king in enumerate(kings):
        if not (isinstance(king, list) and len(king) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                                for v in king)):
            problems.append(f"king {i + 1} is {king!r}, not a [row, column] pair")
            continue
        r, c = king
        if not (0 <= r < board.height and 0 <= c < board.width):
            problems.append(f"king {i + 1} at r{r + 1}c{c + 1} is off the {board.height}x{board.width} board")
        elif board.rows[r][c] == HOLE:
            problems.append(f"king {i + 1} at r{r + 1}c{c + 1} stands on a hole")
        elif (r, c) in seen:
            problems.append(f"kings {seen[r, c] + 1} and {i + 1} both stand on r{r + 1}c{c + 1}")
        else:
            for (a, b), j in seen.items():
                if (a, b) in board.around(r, c):
                    problems.append(f"kings {j + 1} at r{a + 1}c{b + 1} and {i + 1} at r{r + 1}c{c + 1} attack each other")
            seen[r, c] = i
    return problems


def value(board: Board, solution: dict) -> int:
    return len(solution["kings"])


def value_json(v: int) -> int:
    return v


def render(board: Board, solution: dict, proved=None):
    from rich.text import Text

    kings = {tuple(p) for p in solution["kings"]}
    out = Text(no_wrap=True, overflow="ignore")
    for r, row in enumerate(board.rows):
        for c, ch in enumerate(row):
            if (r, c) in kings:
                out.append("K ", style="bold yellow")
            else:
                out.append("# " if ch == HOLE else ". ", style="grey42" if ch == HOLE else "dim")
        out.append("\n")
    out.append(f"{len(kings)} kings" + (" (the board wraps around)" if board.torus else ""), style="bold")
    return out


def describe(board: Board) -> str:
    holes = board.height * board.width - len(board.free)
    return f"{board.width}x{board.height}, {holes} holes" + (", torus" if board.torus else "")


# --------------------------------------------------------------------------------------- brute force
def brute_force(board: Board, limit: int) -> list | None:
    """Every placement of kings (each a solution; the best has the most kings), or None past `limit`
    placements: `smtpuzzles.auditing.crosscheck` holds the solver's optimum to the largest of these."""
    found: list[dict] = []

    def extend(i: int, kings: list) -> bool:
        if len(found) >= limit:
            return False
        if i == len(board.free):
            found.append({"kings": [list(p) for p in kings]})
            return True
        cell = board.free[i]
        if not extend(i + 1, kings):
            return False
        if not any(k in board.around(*cell) for k in kings):
            return extend(i + 1, kings + [cell])
        return True

    return found if extend(0, []) else None
