"""The `rectangles` encoding: one variable per candidate rectangle (kept so that older runs audit).
"""

from __future__ import annotations

from smtpuzzles.formula import CNF, Formula, any_of, lit
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import Satisfy

from .board import Board, rects_from_regions, regions_from_rects
from .candidates import rects_with_clue


def rect_name(rect) -> str:
    return "q{}_{}_{}_{}".format(*rect)


def encode_rectangles(board: Board) -> Encoding:
    """One Boolean per candidate rectangle; exactly one covers each cell; at every interior grid
    point, not all four cells around it may be corners of their rectangles there (that is four
    rectangles meeting). Clauses are built straight into a CNF: large grids spend their time here."""
    h, w = board.height, board.width
    cnf = CNF()
    rects = [rect for rect, _ in rects_with_clue(board)]
    covering: list[list[list[int]]] = [[[] for _ in range(w)] for _ in range(h)]
    # corner[k][r][c]: the rectangle covering (r, c) has its corner k there (0 top-left, 1 top-right,
    # 2 bottom-left, 3 bottom-right): only rectangles force these flags, and the rule forbids them.
    corner = [[[0] * w for _ in range(h)] for _ in range(4)]

    def flag(k: int, r: int, c: int) -> int:
        if not corner[k][r][c]:
            corner[k][r][c] = cnf.var(f"k{k}_{r}_{c}")
        return corner[k][r][c]

    # claim[(r, c, clue)]: the cell belongs to a rectangle of that clue. Two rectangles of one clue
    # already exclude each other at the clue's own cell, so a cell only needs "at most one clue",
    # over the few clues that can reach it, instead of "at most one rectangle" over hundreds.
    claims: list[list[dict]] = [[{} for _ in range(w)] for _ in range(h)]
    for rect, clue in rects_with_clue(board):
        top, left, bottom, right = rect
        v = cnf.var(rect_name(rect))
        for r in range(top, bottom + 1):
            row = covering[r]
            for c in range(left, right + 1):
                row[c].append(v)
                owner = claims[r][c].get(clue)
                if owner is None:
                    owner = claims[r][c][clue] = cnf.var(f"c{r}_{c}_{clue[0]}_{clue[1]}")
                cnf.add([-v, owner])
        for k, (r, c) in enumerate(((top, left), (top, right), (bottom, left), (bottom, right))):
            cnf.add([-v, flag(k, r, c)])
    for r in range(h):
        for c in range(w):
            if not covering[r][c]:
                cnf.add([])  # no rectangle can cover this cell: no solution
            else:
                cnf.at_least_one(covering[r][c])
                cnf.at_most_one(list(claims[r][c].values()))
    for cr, cc, _ in board.clues:
        cnf.at_most_one(covering[cr][cc])
    for r in range(h - 1):
        for c in range(w - 1):
            around = (corner[3][r][c], corner[2][r][c + 1], corner[1][r + 1][c], corner[0][r + 1][c + 1])
            if all(around):
                cnf.add([-x for x in around])

    def decode(model) -> dict:
        chosen = [rect for rect in rects if model[rect_name(rect)]]
        return {"regions": regions_from_rects(h, w, chosen)}

    def block(solution: dict):
        return any_of([lit(rect_name(rect), False) for rect in rects_from_regions(solution["regions"])])

    return Encoding("rectangles", 2, Formula.from_cnf(cnf), Satisfy(block), decode, engines=("sat", "z3"))
