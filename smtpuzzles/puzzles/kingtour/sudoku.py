"""The Sudoku's clauses, written once for the encodings and for reach's first part."""

from __future__ import annotations

from smtpuzzles.formula import CNF

from .board import Board


def sudoku_clauses(cnf: CNF, board: Board, digit: dict[tuple[int, int, int], int]) -> None:
    """Each cell one digit (the clue where there is one), each unit each digit once, over the
    variables `digit[r, c, k]` the caller made (so its numbering stays the caller's)."""
    n = board.size
    for r, c in board.cells:
        cnf.exactly_one([digit[r, c, k] for k in range(1, n + 1)])
        if board.clues[r][c]:
            cnf.require(digit[r, c, board.clues[r][c]])
    for unit in board.units():
        for k in range(1, n + 1):
            cnf.exactly_one([digit[r, c, k] for r, c in unit])
