"""Tatamibari: partition the grid into rectangles, each holding exactly one clue; `+` in a square,
`|` in a rectangle taller than wide, `-` in one wider than tall, `?` in any; no four rectangles meet
at one corner.

Input: a text grid (`+ - | ?` clues; `*`, `.` or `_` empty) or a puzz.link / pzv.jp URL.

This package is the puzzle's contract: the board and its rules (board.py), reading it (parse.py), the
rectangles a clue may take (candidates.py), and two encodings (spans.py, the default, and
rectangles.py); the drawing (drawing.py), the reference encoding (reference.py) and the brute-force
search (brute.py), both written from the rules alone.
"""

from __future__ import annotations

from smtpuzzles.contract import InlineKey, examples_in
from smtpuzzles.errors import InputError
from smtpuzzles.encoding import Encoding
from smtpuzzles.puzzles import BUNDLED

# The reference encoding, written from the rules alone (reference.py: it imports nothing of this
# package, and no module here but this one imports it). Imported first, under another name: the
# hook `reference` below takes the package's name `reference` back from the submodule.
from . import reference as _rules

from .board import (CLUES, EMPTY, REGION_CHARS, LIMITS, Board, shape_fits, canonical, regions_from_rects, renumber,
                    rects_from_regions, region_boxes, referee, value, value_json, same_solution, _colouring, describe)
from .candidates import rects_with_clue, candidate_rects, row_spans, fitting_widths, candidate_cells
from .parse import URL, URL_CLUE, check_limits, from_text, from_url, to_url, to_text, from_canonical
from .rectangles import rect_name, encode_rectangles
from .spans import (Spans, clue_spans, contiguous, SpanLength, shape_rule, cell_name, cell_owners,
                    held_together, no_four_meet, encode_spans)


NAME = "tatamibari"
SUMMARY = "a partition of the grid into rectangles, one clue each, no four meeting at a corner"
INLINE = (InlineKey("grid", str, "the text grid itself"), InlineKey("url", str, "a puzz.link or pzv.jp URL"))
CONVERTS = "text grid <-> puzz.link URL"
ENCODINGS = ("spans", "rectangles")
DEFAULT_ENGINE = "sat"
MODES = ("solve", "unique", "count")
ACCEPTS_URLS = True  # `solve` and `convert` take a puzz.link / pzv.jp address where a file would go


# --------------------------------------------------------------------------------------------- parse
def load(text: str | None, source: str, options: dict) -> Board:
    if text is None:
        raise InputError("a puzzle is needed (a text grid or a puzz.link URL)", "input")
    stripped = text.strip()
    if stripped.lower().startswith(("http://", "https://")):
        return from_url(stripped, source)
    return from_text(text, source)


def convert(text: str, source: str) -> str:
    """URL in, text grid out; text grid in, URL out."""
    board = load(text, source, {})
    return to_text(board).rstrip("\n") if text.strip().startswith("http") else to_url(board)


def examples():
    """The seed's puzzles, in smtpuzzles/examples/tatamibari/ (package data)."""
    return examples_in(BUNDLED / NAME, load, ENCODINGS[0])


def encode(board: Board, encoding: str = "spans") -> Encoding:
    """The formula of one of ENCODINGS (encodings/tatamibari.md says what each is and why)."""
    if encoding == "spans":
        return encode_spans(board)
    if encoding == "rectangles":
        return encode_rectangles(board)
    raise InputError(f"unknown encoding {encoding!r} ({', '.join(ENCODINGS)})", "--encoding")


def render(board: Board, solution: dict, proved=None):
    from rich.text import Text

    from smtpuzzles.render import WIDTH

    regions = solution["regions"]
    h, w = board.height, board.width
    palette = ["on #3b4f7a", "on #6b3b5e", "on #3d6b4a", "on #7a5a2e", "on #4a3d7a", "on #2e6b6b", "on #6b2e2e"]
    colour = _colouring(regions, len(palette))
    if 4 * w - 1 > WIDTH:
        # Too wide for ruled cells at 80 columns: regions told apart by colour alone, one or two
        # columns a cell; wider than 80 cells, rows are never broken (read the saved SVG).
        cell = 2 if 2 * w <= WIDTH else 1
        out = Text(no_wrap=True, overflow="ignore")
        for r in range(h):
            for c in range(w):
                ch = board.rows[r][c]
                out.append(f"{ch if ch != '.' else ' ':<{cell}}", style=f"bold white {palette[colour[regions[r][c]]]}")
            out.append("\n")
        return out
    out = Text()
    for r in range(h):
        for c in range(w):
            style = palette[colour[regions[r][c]]]
            ch = board.rows[r][c]
            out.append(f" {ch if ch != '.' else ' '} ", style=f"bold white {style}")
            if c + 1 < w:
                same = regions[r][c + 1] == regions[r][c]
                out.append(" " if same else "│", style=style if same else "bold white")
        out.append("\n")
        if r + 1 < h:
            for c in range(w):
                same = regions[r + 1][c] == regions[r][c]
                out.append("   " if same else "───", style=palette[colour[regions[r][c]]] if same else "bold white")
                if c + 1 < w:
                    a, b, d, e = regions[r][c], regions[r][c + 1], regions[r + 1][c], regions[r + 1][c + 1]
                    joint = JOINTS[(a != b, d != e, a != d, b != e)]
                    out.append(joint, style=palette[colour[a]] if joint == " " else "bold white")
            out.append("\n")
    return out


def draw(board: Board, solution: dict | None) -> str:
    """The board as an SVG document, each region a rectangle (drawing.py)."""
    from . import drawing

    return drawing.draw(board, solution)


# Box-drawing joint from which borders meet there: (up, down, left, right).
JOINTS = {
    (False, False, False, False): " ", (True, True, False, False): "│", (False, False, True, True): "─",
    (True, True, True, True): "┼", (True, False, True, True): "┴", (False, True, True, True): "┬",
    (True, True, True, False): "┤", (True, True, False, True): "├", (True, False, True, False): "┘",
    (True, False, False, True): "└", (False, True, True, False): "┐", (False, True, False, True): "┌",
    (True, False, False, False): "╵", (False, True, False, False): "╷", (False, False, True, False): "╴",
    (False, False, False, True): "╶",
}


def reference(instance, claim: dict) -> str:
    """The claim as a formula written from the rules alone (reference.py), which shares no code
    with `encode`: `certify` and `audit --proof` refute each closing claim on it too.
    Built within the caller's time limit, if any (TimeoutError past it)."""
    from smtpuzzles.contract import reference_deadline

    return _rules.reference(instance, claim, reference_deadline()).dimacs()


def reference_witness(instance, solution: dict) -> list[int]:
    """The literals of the reference formula that say a solution (smtpuzzles.auditing.witness holds
    the reference to the run's own solutions with them)."""
    return _rules.witness(instance, solution)


def brute_force(instance, limit: int) -> list | None:
    """Every solution, by a search written from the rules (brute.py), or None past
    `limit` rectangles tried: `smtpuzzles.auditing.crosscheck` holds the solver to it."""
    from . import brute

    return brute.solutions(instance.rows, limit)


# The contract's face: the package's public names, as a single module would have them (no private ones).
__all__ = ['ACCEPTS_URLS', 'Board', 'CLUES', 'CONVERTS', 'DEFAULT_ENGINE', 'EMPTY', 'ENCODINGS', 'INLINE', 'JOINTS',
           'LIMITS', 'MODES', 'NAME', 'REGION_CHARS', 'SUMMARY', 'SpanLength', 'Spans', 'URL', 'URL_CLUE',
           'brute_force', 'candidate_cells', 'candidate_rects',
           'canonical', 'cell_name', 'cell_owners', 'check_limits', 'clue_spans', 'contiguous', 'convert',
           'describe', 'draw', 'encode', 'encode_rectangles', 'encode_spans', 'examples', 'fitting_widths',
           'from_canonical', 'from_text', 'from_url', 'held_together', 'load', 'no_four_meet', 'rect_name',
           'rects_from_regions', 'rects_with_clue', 'referee', 'reference',
           'reference_witness', 'region_boxes', 'regions_from_rects',
           'render', 'renumber', 'row_spans', 'same_solution', 'shape_fits', 'shape_rule', 'to_text', 'to_url',
           'value', 'value_json']
