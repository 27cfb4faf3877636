"""Reading a board: a text grid or a puzz.link / pzv.jp address, and the limits checked before encoding.
"""

from __future__ import annotations

import re

from smtpuzzles.errors import InputError

from .board import Board, CLUES, EMPTY, LIMITS
from .candidates import candidate_cells, row_spans


URL = re.compile(r"^https?://(?:puzz\.link/p|pzv\.jp/p(?:\.html)?)\?tatamibari/(\d+)/(\d+)/([0-9a-z.]*)/?$", re.IGNORECASE)
URL_CLUE = {"1": "|", "2": "-", "3": "+", ".": "?"}


def _check_cells(height: int, width: int, source: str) -> None:
    if height * width > LIMITS["cells"]:
        raise InputError(f"a {width}x{height} grid has {height * width} cells, more than the {LIMITS['cells']} accepted", source)


def check_limits(board: Board, source: str) -> Board:
    """Refuses a board whose candidate rectangles would make the formula too large, before encoding."""
    _check_cells(board.height, board.width, source)
    total = 0
    for cr, cc, clue in board.clues:
        for top, bottom, first, last in row_spans(board, cr, cc):
            total += candidate_cells(clue, cc, bottom - top + 1, first, last)
            if total > LIMITS["rectangle_cells"]:
                raise InputError(f"the clues allow rectangles covering more than {LIMITS['rectangle_cells']} cells "
                                 "in all (too few clues for the grid); refused", source)
    return board


def from_text(text: str, source: str = "input") -> Board:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    # Cells may stand apart, as in clue files ("+ . -"): white space is never a cell, so it is dropped.
    numbered = [(i + 1, "".join(line.split())) for i, line in enumerate(lines) if line.strip()]
    if not numbered:
        raise InputError("the puzzle is empty", source)
    width = len(numbered[0][1])
    _check_cells(len(numbered), width, source)
    rows = []
    for number, line in numbered:
        if len(line) != width:
            raise InputError(f"{len(line)} cells where the first row has {width} (ragged grid)", f"{source} line {number}")
        for c, ch in enumerate(line):
            if ch not in CLUES and ch not in EMPTY:
                raise InputError(f"unknown symbol {ch!r} (clues + - | ?, empty * . _)", f"{source} line {number} column {c + 1}")
        rows.append("".join(ch if ch in CLUES else "." for ch in line))
    return check_limits(Board(tuple(rows)), source)


def from_url(url: str, source: str = "input") -> Board:
    match = URL.match(url)
    if not match:
        raise InputError("not a puzz.link tatamibari URL (https://puzz.link/p?tatamibari/COLS/ROWS/BODY)", source)
    if len(match.group(1)) > 6 or len(match.group(2)) > 6:  # no int() of a thousand digits
        raise InputError(f"a grid of {match.group(1)[:12]} by {match.group(2)[:12]} cells is far too large", source)
    cols, rows, body = int(match.group(1)), int(match.group(2)), match.group(3)
    if cols < 1 or rows < 1:
        raise InputError(f"a {cols}x{rows} grid is empty", source)
    _check_cells(rows, cols, source)  # before any cell is made
    cells: list[str] = []
    for i, ch in enumerate(body):
        if ch in URL_CLUE:
            cells.append(URL_CLUE[ch])
        elif "g" <= ch <= "z":
            cells.extend("." * (ord(ch) - ord("f")))
        else:
            raise InputError(f"character {ch!r} at position {i + 1} of the URL body is not a tatamibari code", source)
        if len(cells) > cols * rows:
            raise InputError(f"the URL body describes more than {cols}x{rows} cells (from position {i + 1} on)", source)
    cells.extend("." * (cols * rows - len(cells)))  # puzz.link may leave trailing empties out
    return check_limits(Board(tuple("".join(cells[r * cols:(r + 1) * cols]) for r in range(rows))), source)


def to_url(board: Board) -> str:
    body, run = [], 0
    reverse = {v: k for k, v in URL_CLUE.items()}
    for ch in "".join(board.rows):
        if ch == ".":
            run += 1
            if run == 20:
                body.append("z")
                run = 0
            continue
        if run:
            body.append(chr(ord("f") + run))
            run = 0
        body.append(reverse[ch])
    if run:
        body.append(chr(ord("f") + run))
    return f"https://puzz.link/p?tatamibari/{board.width}/{board.height}/{''.join(body)}"


def to_text(board: Board) -> str:
    return "\n".join(row.replace(".", "*") for row in board.rows) + "\n"


def from_canonical(data: dict) -> Board:
    return from_text("\n".join(data["grid"]), "instance")
