"""King's-tour Sudoku as an SVG drawing: the Sudoku with thin cell rules and heavy box rules, clues
shaded and bold, and the tour as one line through the cell centres, coloured from blue (visit 1) to
red (the last visit), its start a disc and its end a square.

Geometry, for anyone reading a drawing back: cell (r, c) spans CELL units from
(MARGIN + c * CELL, MARGIN + r * CELL), so its centre is `centre(r, c)`.
"""

from __future__ import annotations

from smtpuzzles.drawing import INK, MONO, RULE, Drawing, ramp, text_width
from smtpuzzles.puzzles.kingtour import board as kingtour  # the rules; the face imports this drawing
from smtpuzzles.render import digit_group, group_lines

CELL = 40
MARGIN = 16
DIGIT_SIZE = 18
NUMBER_SIZE = 13
CLUE_FILL = "#e4e4e4"
LATER_DIGIT = "#4a4a4a"  # digits the solver chose: lighter than the clues


def centre(r: int, c: int) -> tuple[float, float]:
    return MARGIN + (c + 0.5) * CELL, MARGIN + (r + 0.5) * CELL


def draw(board: kingtour.Board, solution: dict | None) -> str:
    """The board, and the solution's digits and tour when there is one (None: the clues alone)."""
    n = board.size
    side = n * CELL
    visits = _visit_order(board, solution) if solution else []
    digits = kingtour.value(board, solution) if solution else []
    number_lines = group_lines(kingtour.digits_text(digits), digit_group(len(digits)), _chars_across(side)) if digits else []
    # The clue key only where there are clues to read it by.
    clued = [_clue_entry()] if any(any(row) for row in board.clues) else []
    legend = _legend_entries(n) + clued if solution else clued
    number_h = (len(number_lines) + 1) * NUMBER_SIZE * 1.5 + 8 if number_lines else 0
    legend_top = MARGIN + side + 14 + number_h
    words = [text_width(words, 13) + 28 for _, words in legend] + [text_width(_number_heading(len(digits)), NUMBER_SIZE)]
    width = max(side, *words) + 2 * MARGIN
    drawing = Drawing(width, legend_top + len(legend) * 22 + MARGIN / 2,
                      title=f"smtpuzzles kingtour: {kingtour.describe(board)}")
    _board(drawing, board)
    if solution:
        _tour(drawing, visits)
    _digits(drawing, board, solution)
    if number_lines:
        _number(drawing, number_lines, MARGIN + side + 14, len(digits))
    drawing.legend(MARGIN, legend_top, legend)
    return drawing.document()


def _visit_order(board: kingtour.Board, solution: dict) -> list[tuple[int, int]]:
    """The cells in the order the tour visits them (the solution's visit numbers sorted)."""
    return [(r, c) for _, r, c in sorted((solution["tour"][r][c], r, c) for r, c in board.cells)]


def _chars_across(width: float) -> int:
    return max(8, int(width / text_width("0", NUMBER_SIZE, mono=True)))


def _board(drawing: Drawing, board: kingtour.Board) -> None:
    n = board.size
    side = n * CELL
    with drawing.group(class_="clue-cells", fill=CLUE_FILL):
        for r, c in board.cells:
            if board.clues[r][c]:
                drawing.rect(MARGIN + c * CELL, MARGIN + r * CELL, CELL, CELL)
    with drawing.group(class_="cell-rules", stroke=RULE, stroke_width=1):
        drawing.grid(MARGIN, MARGIN, n, n, CELL, skip=(board.box_rows, board.box_cols), class_="cell-rule")
    with drawing.group(class_="box-rules", stroke=INK, stroke_width=3, stroke_linecap="square"):
        for k in range(board.box_cols, n, board.box_cols):
            drawing.line(MARGIN + k * CELL, MARGIN, MARGIN + k * CELL, MARGIN + side, class_="box-rule")
        for k in range(board.box_rows, n, board.box_rows):
            drawing.line(MARGIN, MARGIN + k * CELL, MARGIN + side, MARGIN + k * CELL, class_="box-rule")
    drawing.rect(MARGIN, MARGIN, side, side, fill="none", stroke=INK, stroke_width=3.5, class_="frame")


def _tour(drawing: Drawing, visits: list[tuple[int, int]]) -> None:
    """One polyline through every centre in visiting order, dark and wide underneath, then each step
    in its ramp colour on top of it; the start a disc and the end a square, under the digits."""
    points = [centre(r, c) for r, c in visits]
    drawing.polyline(points, stroke="#303030", stroke_width=8, stroke_linejoin="round", stroke_linecap="round",
                     stroke_opacity=0.45, class_="tour")
    last = max(len(points) - 1, 1)
    with drawing.group(class_="tour-steps", stroke_width=5, stroke_linecap="round"):
        for i in range(len(points) - 1):
            (x1, y1), (x2, y2) = points[i], points[i + 1]
            drawing.line(x1, y1, x2, y2, stroke=ramp((i + 0.5) / last))
    (sx, sy), (ex, ey) = points[0], points[-1]
    drawing.circle(sx, sy, CELL * 0.36, fill=ramp(0), stroke=INK, stroke_width=1.5, class_="start")
    half = CELL * 0.34
    drawing.rect(ex - half, ey - half, 2 * half, 2 * half, fill=ramp(1), stroke=INK, stroke_width=1.5, class_="end")


def _digits(drawing: Drawing, board: kingtour.Board, solution: dict | None) -> None:
    """Each digit on a pale disc, so the tour passes under it and the digit stays legible; white on
    the start and end markers."""
    ends = set()
    if solution:
        tour = solution["tour"]
        ends = {(r, c) for r, c in board.cells if tour[r][c] in (1, board.size ** 2)}
    with drawing.group(class_="digits", font_size=DIGIT_SIZE, text_anchor="middle"):
        for r, c in board.cells:
            digit = solution["grid"][r][c] if solution else board.clues[r][c]
            if not digit:
                continue
            x, y = centre(r, c)
            clue = bool(board.clues[r][c])
            if solution and (r, c) not in ends:
                drawing.circle(x, y, CELL * 0.25, fill=CLUE_FILL if clue else "#ffffff", fill_opacity=0.92,
                               class_="digit-disc")
            colour = "#ffffff" if (r, c) in ends else (INK if clue else LATER_DIGIT)
            drawing.text(x, y + DIGIT_SIZE * 0.36, kingtour.digits_text([digit]), fill=colour,
                         font_weight="bold" if clue else "normal", class_="digit clue" if clue else "digit")


def _number(drawing: Drawing, lines: list[str], top: float, count: int) -> None:
    with drawing.group(class_="number", font_size=NUMBER_SIZE, fill=INK):
        drawing.text(MARGIN, top + NUMBER_SIZE, _number_heading(count))
        for i, line in enumerate(lines):
            drawing.text(MARGIN, top + (i + 2) * NUMBER_SIZE * 1.5, line, font_family=MONO, font_weight="bold")


def _number_heading(count: int) -> str:
    return f"the number read along the tour ({count} digits):"


def _legend_entries(n: int) -> list:
    def start(d: Drawing, x: float, y: float) -> None:
        d.circle(x, y, 8, fill=ramp(0), stroke=INK, stroke_width=1.5)

    def end(d: Drawing, x: float, y: float) -> None:
        d.rect(x - 7.5, y - 7.5, 15, 15, fill=ramp(1), stroke=INK, stroke_width=1.5)

    def steps(d: Drawing, x: float, y: float) -> None:
        for k in range(5):
            d.line(x - 10 + 4 * k, y, x - 6 + 4 * k, y, stroke=ramp(k / 4), stroke_width=4)

    return [(start, "start: visit 1"), (end, f"end: visit {n * n}"), (steps, f"tour, coloured from visit 1 to {n * n}")]


def _clue_entry():
    def clue(d: Drawing, x: float, y: float) -> None:
        d.rect(x - 9, y - 9, 18, 18, fill=CLUE_FILL, stroke=RULE)
        d.text(x, y + 4.5, "5", font_size=13, font_weight="bold", text_anchor="middle", fill=INK)

    return clue, "a given digit (clue), in bold"
