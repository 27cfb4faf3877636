"""King's-tour Sudoku, from the rules: an N x N grid with R x C boxes holds each digit 1..N once per
row, column and box, clues kept; a king's tour visits every cell once (visit numbers 1..N*N, each
step a king move); the number is the digits read along the tour.

Claims: {"op": "first"} (there is a solution) and {"op": "lex_greater", "best": [digits]} (some
solution's number is lexicographically greater than `best`, a list of N*N digits).
"""

from __future__ import annotations

from smtpuzzles.trusted.cnf import Reference, true_vars


def _declare(board) -> tuple[Reference, dict, dict, dict]:
    """The variables the rules speak of, always made in this order (decode relies on it)."""
    n, ref = board.size, Reference()
    cells = [(r, c) for r in range(n) for c in range(n)]
    digit = {(r, c, k): ref.var(f"digit r{r} c{c} = {k}") for r, c in cells for k in range(1, n + 1)}
    visit = {(t, r, c): ref.var(f"step {t} at r{r} c{c}") for t in range(n * n) for r, c in cells}
    reads = {(t, k): ref.var(f"step {t} reads {k}") for t in range(n * n) for k in range(1, n + 1)}
    return ref, digit, visit, reads


def reference(board, claim: dict) -> Reference:
    n, br, bc = board.size, board.box_rows, board.box_cols
    if br * bc != n:
        raise ValueError(f"{br}x{bc} boxes do not tile {n}x{n}")
    ref, digit, visit, reads = _declare(board)
    cells = [(r, c) for r in range(n) for c in range(n)]
    digits = range(1, n + 1)
    steps = range(n * n)

    # Each cell holds one digit; a clue is the digit its cell holds.
    for r, c in cells:
        ref.exactly_one([digit[r, c, k] for k in digits])
        if board.clues[r][c]:
            ref.add([digit[r, c, board.clues[r][c]]])

    # Each digit once per row, once per column and once per box.
    rows = [[(r, c) for c in range(n)] for r in range(n)]
    cols = [[(r, c) for r in range(n)] for c in range(n)]
    boxes = [[(top + i, left + j) for i in range(br) for j in range(bc)]
             for top in range(0, n, br) for left in range(0, n, bc)]
    for unit in rows + cols + boxes:
        for k in digits:
            ref.exactly_one([digit[r, c, k] for r, c in unit])

    # The tour: each step is at one cell, each cell is visited at one step.
    for t in steps:
        ref.exactly_one([visit[t, r, c] for r, c in cells])
    for r, c in cells:
        ref.exactly_one([visit[t, r, c] for t in steps])

    # Each step after the first is a king move from the step before.
    kings = {(r, c): [(a, b) for a, b in cells if max(abs(a - r), abs(b - c)) == 1] for r, c in cells}
    for t in steps[:-1]:
        for r, c in cells:
            ref.add([-visit[t, r, c]] + [visit[t + 1, a, b] for a, b in kings[r, c]])

    # Step t reads the digit of the cell it visits, and reads one digit.
    for t in steps:
        for r, c in cells:
            for k in digits:
                ref.add([-visit[t, r, c], -digit[r, c, k], reads[t, k]])
        ref.at_most_one([reads[t, k] for k in digits])

    op = claim.get("op")
    if op == "first":
        return ref
    if op != "lex_greater":
        raise ValueError(f"unknown King's-tour claim {claim!r}")
    best = claim["best"]
    if len(best) != n * n or not all(isinstance(d, int) and not isinstance(d, bool) for d in best):
        raise ValueError(f"best is {len(best)} digits, not {n * n} whole numbers")

    # Lexicographically greater than best: the number equals best on steps before some step i and
    # reads a larger digit than best at i. "same i" holds only if steps 0..i-1 read best's digits.
    same = [ref.true()] + [ref.var(f"same as best before step {i}") for i in range(1, n * n)]
    for i in steps[:-1]:
        ref.add([-same[i + 1], same[i]])
        ref.add([-same[i + 1]] + ([reads[i, best[i]]] if best[i] in digits else []))
    beats = [ref.var(f"first beats best at step {i}") for i in steps]
    for i in steps:
        ref.add([-beats[i], same[i]])
        ref.add([-beats[i]] + [reads[i, k] for k in digits if k > best[i]])
    ref.add(beats)
    return ref


def decode(board, model) -> dict:
    """The grid and the tour of a model (a cell or step the model leaves empty stays 0, for the
    referee to name)."""
    n, true = board.size, true_vars(model)
    _, digit, visit, _ = _declare(board)
    grid = [[next((k for k in range(1, n + 1) if digit[r, c, k] in true), 0) for c in range(n)] for r in range(n)]
    tour = [[0] * n for _ in range(n)]
    for (t, r, c), v in visit.items():
        if v in true:
            tour[r][c] = t + 1
    return {"grid": grid, "tour": tour}



def witness(board, solution: dict) -> list[int]:
    """The literals that say a solution: each cell's digit, and the cell each step visits."""
    n = board.size
    _, digit, visit, _ = _declare(board)
    grid, tour = solution["grid"], solution["tour"]
    return [digit[r, c, grid[r][c]] for r in range(n) for c in range(n)] + \
        [visit[tour[r][c] - 1, r, c] for r in range(n) for c in range(n)]
