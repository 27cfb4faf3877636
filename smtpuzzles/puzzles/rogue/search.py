"""The answer without a solver: one depth-first search from `@` over allowed steps gives the closed set
(every cell a walk can reach) and a walk through every gold cell in it, in time linear in the map.

The search is what the `reach` encoding (the default) states as a formula and what the referee checks
(the walk step by step, the set's closure): nothing here is trusted.
"""

from __future__ import annotations

import gc

from .dungeon import Dungeon
from .walks import KEYS, rows_of

# Grid kinds (0 wall or border, 1 walkable, 2 monster) -> 1 where a cell is still free to enter.
FREE = bytes([0, 1] + [0] * 254)


class Reached:
    """What the search found: the closed set as marks on the grid, the walk as numpad keys, and the
    gold in the set (all of it taken by the walk)."""

    __slots__ = ("inside", "moves", "gold")

    def __init__(self, inside: bytearray, moves: str, gold: int):
        self.inside, self.moves, self.gold = inside, moves, gold

    def solution(self, dungeon: Dungeon) -> dict:
        return {"moves": self.moves, "closed_rows": rows_of(dungeon, self.inside)}


def reach(dungeon: Dungeon) -> Reached:
    """The search, with the cyclic garbage collector paused: it makes a tuple a cell and no cycle,
    and the collector's passes over the growing stack took 40% of a 1000x1000 search."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _search(dungeon)
    finally:
        if collecting:
            gc.enable()


def _search(dungeon: Dungeon) -> Reached:
    """Depth first from `@`: each cell entered once (by the first allowed step found into it) and
    left once, so the walk is a tour of the search's tree. A branch that holds no gold is cut from
    the walk when the search leaves it, and the walk stops at the last gold. Cells and allowed steps
    are each looked at once (flat arrays, no bounds checks: the grid has a border of walls)."""
    grid = dungeon.grid
    near, offsets = grid.near, grid.offsets
    free = bytearray(grid.kind.translate(FREE))
    gold = dungeon.gold_marks
    key = {grid.index((dr, dc)) - grid.index((0, 0)): k for k, (dr, dc) in KEYS.items()}
    keys: list[str] = []
    p = grid.index(dungeon.start)
    free[p] = 0
    found = False  # whether the branch being searched holds gold (`@` is not gold)
    last = 0  # the keys up to the last gold entered
    taken = 0
    branch = iter(offsets[near[p]])
    stack = []
    while True:
        for o in branch:
            q = p + o
            if free[q]:
                free[q] = 0
                stack.append((p, branch, found))
                keys.append(key[o])
                p, branch, found = q, iter(offsets[near[q]]), False
                if gold[q]:
                    found = True
                    taken += 1
                    last = len(keys)
                break
        else:  # every step out of p looked at: back to the cell it was entered from
            if not stack:
                break
            child, held = p, found
            p, branch, found = stack.pop()
            if held:
                keys.append(key[p - child])
                found = True
            else:  # a branch without gold: the step into it is the only key it left
                keys.pop()
    # Entered: walkable and no longer free (one XOR of the two as integers, byte for byte).
    walkable = int.from_bytes(grid.kind.translate(FREE), "little")
    inside = bytearray((walkable ^ int.from_bytes(free, "little")).to_bytes(len(free), "little"))
    return Reached(inside, "".join(keys[:last]), taken)
