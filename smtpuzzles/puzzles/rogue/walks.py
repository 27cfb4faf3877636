"""Walks over the map: the referee of a walk, the gold it takes, and the solver-free certificate (a
closed set of cells, holding the walk, that no allowed step leaves).
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate, compress
from operator import itemgetter

from smtpuzzles.contract import whole

from .dungeon import DIRECTIONS, LOW_HIGH, SHARED, Dungeon, WALKABLE


def walk_collecting(dungeon: Dungeon, region: set) -> list[list[int]]:
    """A walk from `@`, inside `region` (a set of cells), through every gold cell of it."""
    grid = dungeon.grid
    inside = bytearray(len(grid.kind))
    for p in region:
        inside[grid.index(p)] = 1
    return [list(grid.cell(i)) for i in tour(dungeon, inside)]


def tour(dungeon: Dungeon, inside: bytearray) -> list[int]:
    """Grid indices of a walk from `@` through the indices marked in `inside`, collecting every gold
    cell it can reach there: a depth-first tour of a breadth-first tree of allowed steps, walking back
    along each branch (allowed steps are symmetric). Flat arrays, linear in the map."""
    grid = dungeon.grid
    kind, near, offsets = grid.kind, grid.near, grid.offsets
    start = grid.index(dungeon.start)
    parent = array("q", [-2]) * len(kind)  # -2: not reached; -1: the root
    parent[start] = -1
    order = [start]
    for p in order:
        for o in offsets[near[p]]:
            q = p + o
            if parent[q] == -2 and inside[q] and kind[q] == 1:
                parent[q] = p
                order.append(q)
    gold = [i for i in map(grid.index, dungeon.gold) if parent[i] != -2]
    needed = bytearray(len(kind))
    for node in gold:
        while node >= 0 and not needed[node]:
            needed[node] = 1
            node = parent[node]
    children: dict = {}
    for node in order[1:]:
        if needed[node]:
            children.setdefault(parent[node], []).append(node)
    path = [start]
    stack = [(start, iter(children.get(start, ())))]
    while stack:
        node, branches = stack[-1]
        child = next(branches, None)
        if child is None:
            stack.pop()
            if stack:
                path.append(stack[-1][0])
            continue
        path.append(child)
        stack.append((child, iter(children.get(child, ()))))
    # Stop at the last gold: walking home afterwards collects nothing.
    is_gold = set(gold)
    last = max((i for i, p in enumerate(path) if p in is_gold), default=0)
    return path[: last + 1]


def moves_of(dungeon: Dungeon, path: list[int]) -> str:
    """A walk of grid indices as numpad keys, one a step."""
    key = {dungeon.grid.index((dr, dc)) - dungeon.grid.index((0, 0)): k for k, (dr, dc) in KEYS.items()}
    return "".join([key[q - p] for p, q in zip(path, path[1:])])


def rows_of(dungeon: Dungeon, inside: bytearray) -> list[str]:
    """A set of grid indices as one string of 0s and 1s a map row."""
    stride, width = dungeon.grid.stride, dungeon.width
    return [inside[(r + 1) * stride + 1:(r + 1) * stride + 1 + width].translate(DIGITS).decode()
            for r in range(dungeon.height)]


# ------------------------------------------------------------------------------------------- referee
# A solution records its walk as `path` ([row, col] cells from @) or as `moves` (numpad keys from @,
# one byte a step), and its closed set as `closed` ([row, col] cells) or as `closed_rows` (a string
# of 0s and 1s a map row). The cell lists are the flow encoding's; the compact forms are the regions
# encoding's, whose 1000x1000 walks and sets would make a cell list of 16 MB (past the ledger's
# 16 MiB a step line). Either form of each is refereed by the same rules.
KEYS = {"7": (-1, -1), "8": (-1, 0), "9": (-1, 1), "4": (0, -1), "6": (0, 1), "1": (1, -1), "2": (1, 0), "3": (1, 1)}
DIGITS = bytes.maketrans(b"\x00\x01", b"01")


def walk_of(dungeon: Dungeon, solution: dict) -> tuple[list | None, str | None]:
    """(cells of the walk, None), or (None, what is wrong with its shape)."""
    cells, shape = _walk(dungeon, solution)
    return (None, shape) if shape else (list(cells), None)


def _walk(dungeon: Dungeon, solution: dict):
    """`walk_of`, with the cells of a walk of numpad keys made one at a time as they are read (a
    forged walk of millions of keys is never a list of millions of cells)."""
    if "moves" in solution:
        if "path" in solution:
            return None, "the solution has both a path and moves (one walk, in either form)"
        moves = solution["moves"]
        if not isinstance(moves, str):
            return None, "the moves are not a string of numpad keys"
        bad = re.search(r"[^12346789]", moves)
        if bad:
            return None, f"move {bad.start() + 1} is {bad.group()[:1]!r}, not a numpad key (1-4, 6-9)"
        return _stepped(dungeon.start, moves), None
    path = solution.get("path")
    if not isinstance(path, list) or not path:
        return None, "the solution has no path"
    cells = []
    for i, p in enumerate(path):
        if not (isinstance(p, list) and len(p) == 2 and all(whole(x) for x in p)):
            return None, f"path entry {i} is not a [row, col] pair"
        cells.append((p[0], p[1]))
    if cells[0] != dungeon.start:
        return None, f"the path starts at {list(cells[0])}, not at @ {list(dungeon.start)}"
    return iter(cells), None


def _stepped(start: tuple, moves: str):
    """The cells of a walk of numpad keys from `start`, `start` first."""
    r, c = start
    yield r, c
    for key in moves:
        dr, dc = KEYS[key]
        r += dr
        c += dc
        yield r, c


def referee(dungeon: Dungeon, solution: dict) -> list[str]:
    if _shape(dungeon, solution) is None and "moves" in solution and replayed(dungeon, solution["moves"]).clean:
        problem = check_closed(dungeon, solution)[1]  # the walk breaks no rule: only the set is left
        return [problem] if problem else []
    return _every_problem(dungeon, solution)


# Callers show at most three problems (the first in an audit, "; ".join(problems[:3]) in a run).
SHOWN = 3


def _every_problem(dungeon: Dungeon, solution: dict) -> list[str]:
    """The referee step by step, each broken rule in words (also what says why a walk fails the
    all-at-once check of `replayed`): the first SHOWN of them, the steps' in walk order and then the
    closed set's. It stops there, so a forged walk of millions of bad steps costs a few messages,
    and reads the walk a cell at a time, so no list of its cells is made for a walk of moves."""
    cells, shape = _walk(dungeon, solution)
    if shape:
        return [shape]
    problems = []
    height, width, rows = dungeon.height, dungeon.width, dungeon.rows
    p = next(cells)
    for i, q in enumerate(cells, 1):
        r, c = q
        if not (0 <= r < height and 0 <= c < width) or rows[r][c] not in WALKABLE:
            problems.append(f"step {i} enters {list(q)}, which is not an empty or gold cell")
        elif max(abs(p[0] - r), abs(p[1] - c)) != 1:
            problems.append(f"step {i} from {list(p)} to {list(q)} is not a king move")
        elif not dungeon.allowed(p, q):
            m = sorted(dungeon.watchers_of(p) & dungeon.watchers_of(q))[0]
            problems.append(f"step {i} from {list(p)} to {list(q)} stays next to the monster at {list(m)} for two turns")
        if len(problems) == SHOWN:
            return problems
        p = q
    problem = check_closed(dungeon, solution)[1]
    if problem:
        problems.append(problem)
    return problems


def check_closed(dungeon: Dungeon, solution: dict) -> tuple[bytearray | None, str | None]:
    """The solver-free certificate: a set holding `@` and closed under allowed steps contains every
    reachable cell, so no gold outside it can be taken. (The set as marks on the grid, None) when it
    is one, (None, None) when none is recorded, or (None, what is wrong with it). Linear in the map."""
    grid = dungeon.grid
    inside = bytearray(len(grid.kind))
    if "closed_rows" in solution:
        if "closed" in solution:
            return None, "the solution has both closed and closed_rows (one closed set, in either form)"
        rows = solution["closed_rows"]
        if not isinstance(rows, list) or len(rows) != dungeon.height:
            return None, f"closed_rows is not a list of {dungeon.height} rows"
        for r, row in enumerate(rows):
            if not (isinstance(row, str) and len(row) == dungeon.width and re.fullmatch("[01]*", row)):
                return None, f"closed_rows row {r} is not {dungeon.width} characters 0 or 1"
            at = (r + 1) * grid.stride + 1
            inside[at:at + dungeon.width] = row.encode().translate(MARKS)
        if not inside[grid.index(dungeon.start)]:
            return None, "the closed set does not hold @"
        if is_closed(dungeon, inside):
            return inside, None
        # Which cell breaks it, in reading order, as a cell at a time finds it.
        i = inside.find(1)
        while i >= 0:
            if grid.kind[i] != 1:
                return None, f"the closed set holds {list(grid.cell(i))}, which is not walkable"
            i = inside.find(1, i + 1)
        i = inside.find(1)
        while i >= 0:
            for j in grid.targets(i):
                if not inside[j]:
                    return None, f"the closed set is not closed: {list(grid.cell(i))} steps to {list(grid.cell(j))} outside it"
            i = inside.find(1, i + 1)
        return inside, None
    closed = solution.get("closed")
    if closed is None:
        return None, None
    if not isinstance(closed, list) or not all(isinstance(p, list) and len(p) == 2 and all(whole(x) for x in p)
                                               for p in closed):
        return None, "the closed set is not a list of [row, col] pairs of whole numbers"
    region = {tuple(p) for p in closed}
    if dungeon.start not in region:
        return None, "the closed set does not hold @"
    for p in region:
        if dungeon.is_walkable(p):
            inside[grid.index(p)] = 1
    # The first problem in the set's own order, a cell off the walkable ones or a step out of it,
    # as the flow's runs have always been told.
    for p in region:
        if not dungeon.is_walkable(p):
            return None, f"the closed set holds {list(p)}, which is not walkable"
        for j in grid.targets(grid.index(p)):
            if not inside[j]:
                return None, f"the closed set is not closed: {list(p)} steps to {list(grid.cell(j))} outside it"
    return inside, None


MARKS = bytes.maketrans(b"01", b"\x00\x01")


def value(dungeon: Dungeon, solution: dict) -> int:
    if "moves" in solution and "path" not in solution and _keys_only(solution["moves"]):
        walk = replayed(dungeon, solution["moves"])
        if walk.clean:
            return walk.gold
    gold = set(dungeon.gold)
    if "moves" in solution:
        cells, shape = _walk(dungeon, solution)
        if shape:
            raise ValueError(shape)
        return len(gold.intersection(cells))
    return len({tuple(p) for p in solution["path"]} & gold)


def value_json(v) -> int:
    return v


def certificate(dungeon: Dungeon, solution: dict) -> tuple[bool, str]:
    """Audit hook: does the solution carry a closed set proving its gold is all there is?"""
    inside, problem = check_closed(dungeon, solution)
    if inside is None:
        return False, problem or "no closed set recorded"
    shape = _shape(dungeon, solution) if "moves" in solution else None
    if shape:
        return False, shape
    held = (int.from_bytes(inside, "little") & int.from_bytes(dungeon.gold_marks, "little")).bit_count()
    taken = value(dungeon, solution)
    if held != taken:
        return False, f"the closed set holds {held} gold but the walk takes {taken}"
    return True, f"a set of {inside.count(1)} cells closed under allowed steps holds exactly the {taken} gold taken"


def close_region(dungeon: Dungeon, seed: set) -> list[list[int]]:
    """Grow the solver's labelled set until no allowed step leaves it (the certificate above)."""
    region = set(seed) | {dungeon.start}
    frontier = list(region)
    while frontier:
        p = frontier.pop()
        for q in dungeon.steps[p]:
            if q not in region:
                region.add(q)
                frontier.append(q)
    return sorted([list(p) for p in region])


# ------------------------------------------------------------------------------- all at once
# The same rules as the referee's step-by-step loop, applied to whole walks and sets with operations
# that run in C (bytes.translate, map, accumulate, and integers as byte vectors): a 1000x1000 map's
# walk of a million steps and its closed set are checked in a fraction of a second, where a Python
# loop a cell took seconds. Whatever fails here is looked at again step by step for the words.
STEP_OF_KEY = bytes.maketrans(b"12346789", bytes(DIRECTIONS.index(KEYS[k]) for k in "12346789"))
ONE_HOT = bytes.maketrans(bytes(range(8)), bytes(1 << d for d in range(8)))
# For each direction, 1 on the masks that allow a step that way.
QUIET_TOWARDS = tuple(bytes(0 if mask & SHARED[d] else 1 for mask in range(256)) for d in range(8))
WALKABLE_KIND = bytes([0, 1] + [0] * 254)  # Grid.kind -> 1 on walkable cells
STRETCH = 1 << 16  # steps of a walk replayed at once


def _keys_only(moves) -> bool:
    return isinstance(moves, str) and moves.isascii() and not moves.encode("ascii").translate(None, b"12346789")


def _shape(dungeon: Dungeon, solution: dict) -> str | None:
    """What is wrong with the walk's shape (`walk_of`'s words), without listing the cells of a
    walk of numpad keys."""
    if "moves" in solution and "path" not in solution and _keys_only(solution["moves"]):
        return None
    return walk_of(dungeon, solution)[1]


class Replayed:
    """A walk of numpad keys replayed on the grid: `clean` when every step enters an empty or gold
    cell and wakes no monster (the referee's rules); then `gold`, the gold cells it visits."""

    __slots__ = ("moves", "clean", "gold")

    def __init__(self, dungeon: Dungeon, moves: str):
        grid = dungeon.grid
        steps = [grid.index(d) - grid.index((0, 0)) for d in DIRECTIONS]
        looks, gold_marks = dungeon.wakes_and_gold, dungeon.gold_marks
        low, high = LOW_HIGH
        at = grid.index(dungeon.start)
        self.moves, self.gold, self.clean = moves, 0, False
        taken = {at} if gold_marks[at] else set()
        # A stretch of the walk at a time (its flat indices are 8 bytes a step: a forged walk of
        # millions of keys is never one array of them), stopping at the first stretch that fails.
        for lo in range(0, len(moves), STRETCH):
            ways = moves[lo:lo + STRETCH].encode("ascii").translate(STEP_OF_KEY)
            # (A list, not an array: its ints are made once, where an array's are made again at each read.)
            cells = list(accumulate(map(steps.__getitem__, ways), initial=at))
            # Every cell entered is walkable and every step leaves its cell in a direction no
            # monster next to both ends watches: `dungeon.wakes` forbids every direction out of a
            # cell that is not walkable, so a step onto one fails at the next step, and the last
            # cell is looked at alone. On a map with a border of walls, a walk that leaves the map
            # enters a border cell first: the flat indices name the true cells up to there. Each
            # cell is looked up once, for its wakes (low byte) and its gold (high byte), all in
            # one call (a stretch holds a step, so two cells or more: the itemgetter gives a tuple).
            try:
                looked = array("H", itemgetter(*cells)(looks)).tobytes()
            except IndexError:  # past the border's far end: it was crossed first
                return
            woken = looked[low::2]
            if int.from_bytes(woken[:-1], "little") & int.from_bytes(ways.translate(ONE_HOT), "little"):
                return
            taken.update(compress(cells, looked[high::2]))
            at = cells[-1]
        self.clean = grid.kind[at] == 1
        if self.clean:
            self.gold = len(taken)


def replayed(dungeon: Dungeon, moves: str) -> Replayed:
    """The walk replayed, kept for the next call with the same moves (a run referees a solution,
    then values it, then checks its certificate)."""
    memo = dungeon.memo
    walk = memo.get("walk")
    if walk is None or walk.moves != moves:
        walk = memo["walk"] = Replayed(dungeon, moves)
    return walk


def is_closed(dungeon: Dungeon, inside: bytearray) -> bool:
    """`inside` (marks on the grid) holds only walkable cells and no allowed step leaves it: per
    direction, the cells whose step that way is quiet, inside, whose target is walkable and outside,
    must be none. Each mark array is read as one integer, a byte a cell."""
    grid = dungeon.grid
    size = len(inside)
    marks = int.from_bytes(inside, "little")
    walkable = int.from_bytes(grid.kind.translate(WALKABLE_KIND), "little")
    if marks | walkable != walkable:
        return False
    outside = walkable ^ marks
    for d, (dr, dc) in enumerate(DIRECTIONS):
        o = dr * grid.stride + dc
        target = outside >> (8 * o) if o > 0 else (outside << (-8 * o)) & ((1 << (8 * size)) - 1)
        if marks & int.from_bytes(grid.near.translate(QUIET_TOWARDS[d]), "little") & target:
            return False
    return True
