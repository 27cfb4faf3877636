"""King's-tour Sudoku: a Sudoku and a king's tour over it whose digits, read along the tour, form the
largest number.

Rules: an N x N grid with R x C boxes (R * C = N) holds each digit 1..N once per row, column and box;
the tour visits every cell once, each step a king move (an open Hamiltonian path); the objective is
the sequence of digits in visiting order, maximised lexicographically.

This package is the puzzle's contract: the board and its rules (board.py), the encodings
(encodings.py), and the pictures (here, and in drawing.py); the reference encoding (reference.py) and
the symmetry proposed on it (symmetry.py).
"""

from __future__ import annotations

from typing import Iterator, Sequence

from smtpuzzles.contract import Example, Option
from smtpuzzles.errors import InputError

# The reference encoding, written from the rules alone (reference.py: it imports nothing of this
# package, and no module here but this one imports it). Imported first, under another name: the
# hook `reference` below takes the package's name `reference` back from the submodule.
from . import reference as _rules

from .board import (DIGIT_CHARS, LIMITS, Board, parse_box, default_box, parse, canonical, from_canonical, referee,
                    value, digits_text, value_text, value_json, describe)
from .encodings import ENCODINGS, SPLITS, encode, snake_solution, tour_cubes, board_symmetries


NAME = "kingtour"
SUMMARY = "a Sudoku and a king's tour over it whose digits, read along the tour, form the largest number"
DEFAULT_ENGINE = "sat"  # measured in scripts/bench_kingtour.py: python-sat's Glucose far ahead of z3 here
# Glucose 4.2 over 4: its SAT answers, which carry the proof's time, are about a fifth faster on 9x9
# (scripts/bench_kingtour.py; the same numbers and steps of the search).
ENGINE_PARAMS = {"sat": {"solver": "glucose42"}}
MODES = ("optimise",)
OPTIONS = (
    Option("size", int, "board size N (up to 18)", metavar="N", minimum=1),
    Option("box", str, "box shape (default: the squarest, e.g. 2x3 for 6)", metavar="RxC"),
    Option("clues", str, "clue grid, digits and '.' for empty", metavar="FILE", input_file=True),
)
INPUT_REQUIRED = False  # --size alone is a board with no clues


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


def examples() -> Iterator[Example]:
    """Empty 4x4 and 6x6 boards in every encoding (the 9x9 record's formula is too large to keep)."""
    for size, box in ((4, "2x2"), (6, "2x3")):
        board = parse(size, box, None)
        for encoding in ENCODINGS:
            yield Example(f"{size}x{size}-{encoding}", board, encoding)


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
    """The board as an SVG document, the tour on its digits (drawing.py)."""
    from . import drawing

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


def reference(instance, claim: dict) -> str:
    """The claim as a formula written from the rules alone (reference.py), which shares no code
    with `encode`: `certify` and `audit --proof` refute each closing claim on it too."""
    from smtpuzzles.puzzles.kingtour import symmetry

    built = _rules.reference(instance, claim)
    symmetry.keep_for_proposal(instance, claim, built)
    return built.dimacs()


def reference_witness(instance, solution: dict) -> list[int]:
    """The literals of the reference formula that say a solution (smtpuzzles.auditing.witness holds
    the reference to the run's own solutions with them)."""
    return _rules.witness(instance, solution)


def reference_symmetry(instance, claim: dict) -> dict | None:
    """The board's symmetries as a lemma on that formula (the tour's start among orbit
    representatives), checked by smtpuzzles.trusted.symmetry.check_formula before a proof may use it: on
    the 9x9 closing claim CaDiCaL refutes the reference formula 5.5x faster with it."""
    from smtpuzzles.puzzles.kingtour import symmetry

    return symmetry.proposal(_rules, instance, claim)


# The contract's face: the package's public names, as a single module would have them (no private ones).
__all__ = ['Board', 'DEFAULT_ENGINE', 'DIGIT_CHARS', 'ENCODINGS', 'ENGINE_PARAMS', 'INPUT_REQUIRED', 'LIMITS',
           'MODES', 'NAME', 'OPTIONS', 'SPLITS', 'SUMMARY', 'board_symmetries', 'canonical', 'default_box', 'describe',
           'digits_text', 'draw',
           'encode', 'examples', 'from_canonical', 'load', 'parse', 'parse_box', 'progress', 'referee', 'reference',
           'reference_witness',
           'reference_symmetry',
           'render', 'snake_solution', 'tour_cubes', 'value', 'value_json', 'value_text']
