"""The rectangles each clue may take: holding that clue alone, in its shape, grown from the clue's
row spans (so the sizes are known without listing every rectangle).
"""

from __future__ import annotations

from typing import Iterator

from .board import Board, shape_fits


# -------------------------------------------------------------------------------------------- encode
def rects_with_clue(board: Board) -> list[tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """Every rectangle (top, left, bottom, right) holding exactly one clue, of that clue's shape,
    with that clue's cell."""
    return list(candidate_rects(board))


def candidate_rects(board: Board) -> Iterator[tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """rects_with_clue one at a time, grown outwards from each clue: rows up, then down, then
    columns left, then right (the rectangles encoding numbers its variables in this order)."""
    for cr, cc, clue in board.clues:
        for top, bottom, first, last in row_spans(board, cr, cc):
            for left in range(cc, first - 1, -1):
                for right in range(cc, last + 1):
                    if shape_fits(clue, bottom - top + 1, right - left + 1):
                        yield (top, left, bottom, right), (cr, cc)


def row_spans(board: Board, cr: int, cc: int) -> Iterator[tuple[int, int, int, int]]:
    """(top, bottom, first, last) for each run of rows top..bottom through the clue at (cr, cc)
    that holds no other clue in the clue's column: first..last are the columns a rectangle on those
    rows may stretch over before a second clue comes in. Tops go up from the clue, bottoms down."""
    for top in range(cr, -1, -1):
        if board.clues_in(top, cc, cr, cc) > 1:
            break
        first = last = cc
        while first > 0 and board.clues_in(top, first - 1, cr, cc) == 1:
            first -= 1
        while last + 1 < board.width and board.clues_in(top, cc, cr, last + 1) == 1:
            last += 1
        for bottom in range(cr, board.height):
            if board.clues_in(top, cc, bottom, cc) > 1:
                break
            while board.clues_in(top, first, bottom, cc) > 1:  # a lower bottom only narrows the run
                first += 1
            while board.clues_in(top, cc, bottom, last) > 1:
                last -= 1
            yield top, bottom, first, last


def fitting_widths(clue: str, height: int, room: int) -> range:
    """The widths the clue's shape allows a rectangle of this height within `room` columns."""
    if clue == "+":
        return range(height, height + 1) if height <= room else range(0)
    if clue == "|":
        return range(1, min(height - 1, room) + 1)
    if clue == "-":
        return range(height + 1, room + 1)
    return range(1, room + 1)


def candidate_cells(clue: str, cc: int, height: int, first: int, last: int) -> int:
    """The cells of all candidates of this height over columns first..last through column cc:
    each width the shape allows, times the places it fits over the clue's column."""
    return sum(height * width * (min(cc, last - width + 1) - max(first, cc - width + 1) + 1)
               for width in fitting_widths(clue, height, last - first + 1))
