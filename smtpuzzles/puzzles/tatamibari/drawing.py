"""Tatamibari as an SVG drawing: the cell grid, the clue symbols, each region of the solution one
rectangle outlined and lightly filled (touching regions in different colours), a heavy frame round
the board.

Geometry: cell (r, c) spans CELL units from (MARGIN + c * CELL, MARGIN + r * CELL); a region from
(top, left) to (bottom, right) is the rectangle `region_box(top, left, bottom, right)`.
"""

from __future__ import annotations

from smtpuzzles.drawing import INK, MONO, RULE, Drawing, text_width
from smtpuzzles.puzzles.tatamibari import board as tatamibari  # the rules; the face imports this drawing

CELL = 36
MARGIN = 16
KEY_SIZE = 13
# Pale fills, so the clues stay the darkest thing on the board; touching regions differ.
FILLS = ("#c9d7f0", "#f3d2c4", "#cfe8cf", "#efe2a8", "#e0cdea", "#bfe3e3", "#f0c9d8")
KEY = ("+ a square", "- wider than tall", "| taller than wide", "? any shape")


def region_box(top: int, left: int, bottom: int, right: int) -> tuple[float, float, float, float]:
    """(x, y, width, height) of the rectangle covering rows top..bottom and columns left..right."""
    return MARGIN + left * CELL, MARGIN + top * CELL, (right - left + 1) * CELL, (bottom - top + 1) * CELL


def draw(board: tatamibari.Board, solution: dict | None) -> str:
    """The board, with the solution's regions when there is one (None: the clues alone)."""
    h, w = board.height, board.width
    key = _key_lines(w * CELL)
    width = max(w * CELL, *(text_width(line, KEY_SIZE) for line in key)) + 2 * MARGIN
    height = h * CELL + 2 * MARGIN + KEY_SIZE * 1.5 * len(key)
    drawing = Drawing(width, height, title=f"smtpuzzles tatamibari: {tatamibari.describe(board)}")
    with drawing.group(class_="cell-rules", stroke=RULE, stroke_width=0.75):
        drawing.grid(MARGIN, MARGIN, h, w, CELL)
    if solution:
        _regions(drawing, solution["regions"])
    _clues(drawing, board)
    drawing.rect(MARGIN, MARGIN, w * CELL, h * CELL, fill="none", stroke=INK, stroke_width=4, class_="frame")
    with drawing.group(class_="key", font_size=KEY_SIZE, fill=INK):
        for i, line in enumerate(key):
            drawing.text(MARGIN, MARGIN + h * CELL + KEY_SIZE * 1.5 * (i + 1) + 4, line)
    return drawing.document()


def _key_lines(width: float) -> list[str]:
    """What the clue symbols ask for, as many to a line as fit the board's width."""
    lines = [KEY[0]]
    for entry in KEY[1:]:
        joined = f"{lines[-1]};  {entry}"
        if text_width(joined, KEY_SIZE) <= width:
            lines[-1] = joined
        else:
            lines.append(entry)
    return lines


def _regions(drawing: Drawing, regions: list[list[int]]) -> None:
    """One rectangle a region, in reading order of its top-left cell; the fill lets the cell rules
    show through, the outline is each region's border (neighbours' outlines coincide)."""
    colour = tatamibari._colouring(regions, len(FILLS))
    spans: dict = {}
    for r, row in enumerate(regions):
        for c, region in enumerate(row):
            top, left, bottom, right = spans.get(region, (r, c, r, c))
            spans[region] = (min(top, r), min(left, c), max(bottom, r), max(right, c))
    with drawing.group(class_="regions", stroke=INK, stroke_width=2.5, stroke_linejoin="miter"):
        for region, (top, left, bottom, right) in sorted(spans.items(), key=lambda item: item[1]):
            x, y, width, height = region_box(top, left, bottom, right)
            drawing.rect(x, y, width, height, fill=FILLS[colour[region]], fill_opacity=0.8, class_="region")


def _clues(drawing: Drawing, board: tatamibari.Board) -> None:
    size = CELL * 0.62
    with drawing.group(class_="clues", font_size=size, font_family=MONO, font_weight="bold", text_anchor="middle",
                       fill=INK):
        for r, c, clue in board.clues:
            drawing.text(MARGIN + (c + 0.5) * CELL, MARGIN + (r + 0.5) * CELL + size * 0.36, clue, class_="clue")
