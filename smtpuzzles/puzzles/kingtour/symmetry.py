"""The King's-tour reference formula's symmetry, proposed for smtpuzzles.trusted.symmetry.check_formula to
verify before a proof uses it (so none of this is trusted, and none of it is in reference.py).


The reference encoding (reference.py) is handed in by the package's hooks (`rules`): no module of the
package but its __init__ imports it."""

from __future__ import annotations

import json

from smtpuzzles.symmetry import generating_set


# The reference formula the `reference` hook built last, for the proposal the reader of
# references asks for next, of the same board and claim, which takes it (0.14 s on 8x8). Held no
# longer: on 16x16 it is 300 MB.
_kept: list = []


def keep_for_proposal(board, claim: dict, built) -> None:
    _kept[:] = [(board, json.dumps(claim, sort_keys=True)), built]


def _built_for(rules, board, claim: dict):
    key, built = _kept if _kept else (None, None)
    _kept.clear()
    return built if key == (board, json.dumps(claim, sort_keys=True)) else rules.reference(board, claim)


def proposal(rules, board, claim: dict) -> dict | None:
    """A proposal, checked by smtpuzzles.trusted.symmetry.check_formula before any proof uses it: the maps of
    the square that keep the boxes and the clues move the cells (digits and visits with them) and
    leave every step's digit, so the claim, alone; each start cell is moved to the smallest of its
    orbit, so the tour may be asked to start in one of those. None where no map qualifies."""
    n, last = board.size, board.size - 1
    built = _built_for(rules, board, claim)
    _, digit, visit, _ = rules._declare(board)  # the same numbering as `built`'s
    cells = [(r, c) for r in range(n) for c in range(n)]
    boxes = {frozenset((top + i, left + j) for i in range(board.box_rows) for j in range(board.box_cols))
             for top in range(0, n, board.box_rows) for left in range(0, n, board.box_cols)}
    shapes = [lambda r, c: (r, last - c), lambda r, c: (last - r, c), lambda r, c: (last - r, last - c),
              lambda r, c: (c, r), lambda r, c: (last - c, last - r), lambda r, c: (c, last - r),
              lambda r, c: (last - c, r)]
    maps = []
    for shape in shapes:
        moved = {x: shape(*x) for x in cells}
        if all(frozenset(moved[x] for x in b) in boxes for b in boxes) and \
                all(board.clues[r][c] == board.clues[a][b] for (r, c), (a, b) in moved.items()):
            maps.append(moved)
    if not maps:
        return None
    starts = sorted({min([x] + [m[x] for m in maps]) for x in cells})
    generators = []
    for m in generating_set(maps):  # two generate a square's eight: each costs the check a pass
        pairs = [[digit[x + (k,)], digit[m[x] + (k,)]] for x in cells for k in range(1, n + 1)]
        pairs += [[visit[(t,) + x], visit[(t,) + m[x]]] for t in range(n * n) for x in cells]
        generators.append(pairs)
    return {"generators": generators, "blocks": [[list(lits), list(aux)] for lits, aux in built.ladders],
            "breaking": [visit[(0,) + x] for x in starts], "covered": [visit[(0,) + x] for x in cells],
            "summary": f"the tour starts in one of {len(starts)} of the {n * n} cells, by {len(maps) + 1} "
                       "symmetries of the board",
            # Past 10x10 "beats best first at step i" one i at a time (F's last clause), each a
            # question like one of the solve's; at once it is far slower (docs/benchmarks.md).
            "parts": beats_clause(built, n) if n > 10 and claim.get("op") == "lex_greater" else None}


def beats_clause(built, n: int) -> list[int]:
    return [built.names[f"first beats best at step {i}"] for i in range(n * n)]
