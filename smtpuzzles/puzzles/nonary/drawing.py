"""The Nonary Game as an SVG drawing: the escape plan as a table, one move a row (the door, its
number and rooms, the group and its sum) and where each of the nine players stands after it, the
group that moved shaded and the escaped in green. With no plan, the door list alone.
"""

from __future__ import annotations

from smtpuzzles.drawing import INK, Cell, Drawing
from smtpuzzles.puzzles.nonary import game as nonary  # the rules; the face imports this drawing

MARGIN = 16
SIZE = 13
SHORT_LABEL = 10  # a room label longer than this is cut in the players' columns (the door column has it whole)
MOVED, ESCAPED, ESCAPED_INK = "#d6e4f5", "#cfe8cf", "#1e6b34"


def room_words(room) -> str:
    return "exit" if room == nonary.EXIT else str(room)


def door_words(game: nonary.Game, d: int) -> str:
    number, origin, target = game.doors[d]
    return f"#{d} [{number}] {room_words(origin)} \u2192 {room_words(target)}"


def draw(game: nonary.Game, solution: dict | None) -> str:
    """The plan when there is one, else the doors."""
    drawing = Drawing(0, 0, title=f"smtpuzzles nonary: {nonary.describe(game)}")
    if solution is None:
        header = ["door", "number", "from", "to"]
        rows = [[f"#{d}", str(number), room_words(origin), room_words(target)]
                for d, (number, origin, target) in enumerate(game.doors)]
        heading = f"{len(game.doors)} doors (0 the start, exit the way out)"
    else:
        header, rows = _plan(game, solution)
        heading = f"escape plan: {nonary.value(game, solution)} of 9 escape"
    drawing.text(MARGIN, MARGIN + SIZE, heading, font_size=SIZE + 1, font_weight="bold", fill=INK, class_="plan-heading")
    width, height = drawing.table(MARGIN, MARGIN + SIZE * 1.8, header, rows, size=SIZE)
    bottom = MARGIN + SIZE * 1.8 + height + 10
    if solution is not None:
        bottom = drawing.legend(MARGIN, bottom, [(_swatch(MOVED), "the group that passed the door"),
                                                 (_swatch(ESCAPED), "escaped (in bold: by this move)")], size=SIZE)
    drawing.width, drawing.height = width + 2 * MARGIN, bottom + MARGIN
    return drawing.document()


def _plan(game: nonary.Game, solution: dict) -> tuple[list[str], list[list]]:
    """The header and rows: the start, then each move and where everyone stands after it."""
    header = ["move", "door [number] from \u2192 to", "group = sum", *(f"p{p}" for p in nonary.PLAYERS)]
    start = {p: nonary.START for p in nonary.PLAYERS}
    rows = [["", "start", "", *(_standing(start[p], False) for p in nonary.PLAYERS)]]
    moves = solution["moves"]
    for i, where in nonary.replay(game, solution):
        group = moves[i]["players"]
        rows.append([str(i + 1), door_words(game, moves[i]["door"]), f"{'+'.join(map(str, group))} = {sum(group)}",
                     *(_standing(where[p], p in group) for p in nonary.PLAYERS)])
    return header, rows


def _standing(room, moved: bool) -> Cell:
    words = room_words(room)
    if len(words) > SHORT_LABEL:
        words = words[:SHORT_LABEL - 2] + ".."
    if room == nonary.EXIT:  # bold only in the move that took them out
        return Cell(words, fill=ESCAPED, bold=moved, colour=ESCAPED_INK)
    return Cell(words, fill=MOVED if moved else None, bold=moved)


def _swatch(fill: str):
    return lambda d, x, y: d.rect(x - 9, y - 8, 18, 16, fill=fill, rx=3)
