"""Roguelike pathfinding: how much gold the rogue collects without waking a monster.

Rules as this tool reads them: `@` the rogue, `$` gold, `#` wall, `.` or space empty, any of
[a-zA-Z*&] a monster, every monster cell its own monster. Each turn the rogue makes a king move onto an
empty or gold cell; it may not be next to the same monster on two consecutive turns. So a step p -> q
is allowed exactly when no monster is next to both p and q, the relation is symmetric (any route can be
walked back), and the answer is the gold reachable by allowed steps. Short rows are padded with empty
cells; the start may not be next to a monster.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from smtpuzzles.contract import InlineKey, examples_in, whole
from smtpuzzles.errors import InputError
from smtpuzzles.formula import SmtBuilder, raw, sum_of
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import IntMax
from smtpuzzles.puzzles import BUNDLED

NAME = "rogue"
SUMMARY = "how much gold the rogue can take without waking a monster"
INLINE = (InlineKey("map", str, "the map itself"),)
ENCODINGS = ("regions", "flow")
DEFAULT_ENGINE = "z3"
MODES = ("optimise",)
MONSTER = re.compile(r"[a-zA-Z*&]")
WALKABLE = set(".$@ ")
UNKNOWN = re.compile(r"[^.$@ #a-zA-Z*&]")
# Measured (scripts/bench_rogue.py, the regions encoding): a generated 1000x1000 map solved with its
# proof in 11 s at 0.42 GB peak, `audit --resolve` 13 s; 300x300 2.1 s at 95 MB: time and memory
# linear in the cells. 1000x1000 is the largest map measured, so the largest accepted. The flow
# encoding is accepted as far, but took 382 s and 4.1 GB at 300x300: ask for it on small maps only.
LIMITS = {"cells": 1_000_000}


# The eight king moves, in the order every list of steps follows (row by row, as `around` yields them).
DIRECTIONS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
# SHARED[d]: the neighbours e of a cell p (bit e) that are also next to q = p + DIRECTIONS[d]. A monster
# is never p or q (both walkable), so the step p -> q wakes one exactly when a SHARED[d] bit of p's
# monster mask is set: two or four cells looked at instead of two sets of watchers intersected.
SHARED = tuple(
    sum(1 << e for e, (er, ec) in enumerate(DIRECTIONS) if e != d and max(abs(er - dr), abs(ec - dc)) == 1)
    for d, (dr, dc) in enumerate(DIRECTIONS))
# For each monster mask (256 of them), the directions a step may take from a cell with that mask.
QUIET = tuple(tuple(d for d in range(8) if not mask & SHARED[d]) for mask in range(256))
KIND = bytes(1 if chr(b) in WALKABLE else 2 if MONSTER.fullmatch(chr(b)) else 0 for b in range(256))


@dataclass(frozen=True)
class Grid:
    """The map as flat arrays with a border of walls, so that a neighbour needs no bounds check:
    cell (r, c) is index (r + 1) * stride + c + 1; `kind` is 1 walkable, 2 monster, 0 wall or border;
    `near` has bit d set when a monster stands at DIRECTIONS[d] from the cell."""

    stride: int
    kind: bytearray
    near: bytearray
    offsets: tuple  # per monster mask: the index offsets of the quiet directions

    def index(self, p) -> int:
        return (p[0] + 1) * self.stride + p[1] + 1

    def cell(self, i: int) -> tuple[int, int]:
        r, c = divmod(i, self.stride)
        return r - 1, c - 1

    def targets(self, i: int) -> list[int]:
        """Indices one allowed step from walkable index i, in DIRECTIONS order."""
        kind = self.kind
        return [i + o for o in self.offsets[self.near[i]] if kind[i + o] == 1]


@dataclass(frozen=True)
class Dungeon:
    rows: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @cached_property
    def start(self) -> tuple[int, int]:
        return next((r, row.index("@")) for r, row in enumerate(self.rows) if "@" in row)

    @cached_property
    def gold(self) -> list[tuple[int, int]]:
        return [(r, m.start()) for r, row in enumerate(self.rows) for m in re.finditer(r"\$", row)]

    @cached_property
    def walkable(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch in WALKABLE]

    @cached_property
    def grid(self) -> Grid:
        stride = self.width + 2
        kind = bytearray(stride * (self.height + 2))
        for r, row in enumerate(self.rows):
            at = (r + 1) * stride + 1
            kind[at:at + len(row)] = row.encode("latin-1", "replace").translate(KIND)
        near = bytearray(len(kind))
        steps = [dr * stride + dc for dr, dc in DIRECTIONS]
        m = kind.find(2)
        while m >= 0:
            for d, o in enumerate(steps):  # the cell at m - o has this monster in direction d
                near[m - o] |= 1 << d
            m = kind.find(2, m + 1)
        offsets = tuple(tuple(steps[d] for d in quiet) for quiet in QUIET)
        return Grid(stride, kind, near, offsets)

    def on_map(self, p: tuple[int, int]) -> bool:
        return 0 <= p[0] < self.height and 0 <= p[1] < self.width

    def watchers_of(self, p: tuple[int, int]) -> set[tuple[int, int]]:
        """The monsters (by cell) that would notice the rogue standing on p: none off the map."""
        if not self.on_map(p):
            return set()
        return {q for q in around(*p, self.height, self.width) if MONSTER.fullmatch(self.rows[q[0]][q[1]])}

    def allowed(self, p: tuple[int, int], q: tuple[int, int]) -> bool:
        """The step p -> q (a king move apart) wakes nobody; a cell off the map has no watchers."""
        if not (self.on_map(p) and self.on_map(q)):
            return True
        d = DIRECTIONS.index((q[0] - p[0], q[1] - p[1]))
        return not self.grid.near[self.grid.index(p)] & SHARED[d]

    def is_walkable(self, p) -> bool:
        """p is a (row, col) pair inside the map on an empty or gold cell."""
        return (len(p) == 2 and all(isinstance(x, int) for x in p) and 0 <= p[0] < self.height
                and 0 <= p[1] < self.width and self.rows[p[0]][p[1]] in WALKABLE)

    def steps_from(self, p: tuple[int, int]) -> list[tuple[int, int]]:
        """Allowed steps out of the walkable cell p, in DIRECTIONS order."""
        grid = self.grid
        return [grid.cell(i) for i in grid.targets(grid.index(p))]

    @cached_property
    def steps(self) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """Allowed steps out of every walkable cell."""
        return {p: self.steps_from(p) for p in self.walkable}

    @cached_property
    def regions(self) -> array:
        """The contraction: for every grid index, the region (connected component of walkable cells
        under allowed steps) holding it, named by its first index in reading order; -1 off the
        walkable cells. One depth-first pass, each cell and step looked at once: linear in the map."""
        grid = self.grid
        kind, near, offsets = grid.kind, grid.near, grid.offsets
        label = array("q", [-1]) * len(kind)
        seed = kind.find(1)
        while seed >= 0:
            if label[seed] < 0:  # the first unlabelled cell in reading order names its region
                label[seed] = seed
                stack = [seed]
                while stack:
                    i = stack.pop()
                    for o in offsets[near[i]]:
                        j = i + o
                        if kind[j] == 1 and label[j] < 0:
                            label[j] = seed
                            stack.append(j)
            seed = kind.find(1, seed + 1)
        return label


def around(r: int, c: int, height: int, width: int):
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr or dc) and 0 <= r + dr < height and 0 <= c + dc < width:
                yield r + dr, c + dc


# --------------------------------------------------------------------------------------------- parse
def load(text: str | None, source: str, options: dict) -> Dungeon:
    if text is None:
        raise InputError("a map is needed (a file or - for stdin)", "input")
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise InputError("the map is empty", source)
    width = max(len(line.rstrip("\r")) for line in lines)
    if width * len(lines) > LIMITS["cells"]:  # before padding short rows, which would make the cells
        raise InputError(f"a {width}x{len(lines)} map has {width * len(lines)} cells, more than the "
                         f"{LIMITS['cells']} accepted", source)
    rows = []
    starts = []
    for r, line in enumerate(lines):
        line = line.rstrip("\r")
        bad = UNKNOWN.search(line)
        if bad:
            raise InputError(f"unknown symbol {bad.group()!r} (map symbols: @ $ # . space, monsters a-z A-Z * &)",
                             f"{source} line {r + 1} column {bad.start() + 1}")
        if "@" in line:
            starts += [(r, c) for c, ch in enumerate(line) if ch == "@"]
        rows.append(line.ljust(width))  # editors strip trailing spaces: a short row ends in empty cells
    if not starts:
        raise InputError("the map has no @ (the rogue's start)", source)
    if len(starts) > 1:
        (r1, c1), (r2, c2) = starts[:2]
        raise InputError(f"the map has {len(starts)} @ (line {r1 + 1} column {c1 + 1} and line {r2 + 1} column {c2 + 1}); "
                         "exactly one is allowed", source)
    dungeon = Dungeon(tuple(rows))
    r, c = dungeon.start
    if dungeon.watchers_of((r, c)):
        mr, mc = sorted(dungeon.watchers_of((r, c)))[0]
        raise InputError(f"the start is next to the monster {rows[mr][mc]!r} at line {mr + 1} column {mc + 1}",
                         f"{source} line {r + 1} column {c + 1}")
    return dungeon


def canonical(dungeon: Dungeon) -> dict:
    return {"map": list(dungeon.rows)}


def from_canonical(data: dict) -> Dungeon:
    return load("\n".join(data["map"]), "instance", {})


def examples():
    """The seed's maps and more, in smtpuzzles/examples/rogue/ (package data)."""
    return examples_in(BUNDLED / NAME, load, ENCODINGS[0])


# -------------------------------------------------------------------------------------------- encode
def cell_name(p) -> str:
    return f"{p[0]}_{p[1]}"


def encode(dungeon: Dungeon, encoding: str = ENCODINGS[0]) -> Encoding:
    if encoding == "regions":
        return encode_regions(dungeon)
    if encoding == "flow":
        return encode_flow(dungeon)
    raise InputError(f"unknown encoding {encoding!r} ({', '.join(ENCODINGS)})", "--encoding")


def region_name(dungeon: Dungeon, region: int) -> str:
    return f"R{cell_name(dungeon.grid.cell(region))}"


def encode_regions(dungeon: Dungeon) -> Encoding:
    """The flow's question asked of the contracted map: one label per region of allowed steps.

    The contraction: the walkable cells split into regions, the connected components under allowed
    steps (`Dungeon.regions`, one linear pass). No allowed step joins two regions, so a walk from
    `@` reaches exactly the cells of `@`'s region: the flow's justification, asked of the graph whose
    nodes are regions, has no edge to carry a unit into any other region, and says `(not R)` for
    each. Declared are `@`'s region and every region holding gold, named by its first cell in
    reading order; the count weighs each label by its region's gold. Regions without gold are left
    out: no claim speaks of them.

    Where the proof lives: the contraction is part of the map -> formula mapping, not of any
    recorded claim. The audit rebuilds this formula from the recorded map with today's code and
    refuses a run whose base formula differs (encoding drift), so a tampered formula or query that
    moves gold into `@`'s region or out of it is refused: that rebuild is the audit of the
    contraction, linear in the map like the contraction itself. The UNSAT step at best + 1 is then
    re-solved from its recorded query by z3 and cvc5 (`audit --resolve`), and the solution's closed
    set, checked by the pure-Python referee, proves the same answer without any solver.

    Measured while choosing: the cell-level flow spends its time in z3's linear arithmetic, not in
    building the formula (150x150: built in 0.4 s, parsed in 1.4 s, first model 15.5 s, UNSAT at
    best + 1 10.1 s; at 100x100 without the closure clauses no first model within 120 s, 23 GB when
    left to run), and grows faster than the map (scripts/bench_rogue.py, 300x300: flow 382 s and
    4.1 GB, regions 2.1 s and 95 MB; regions 1000x1000: 11 s and 0.42 GB, audit --resolve 13 s).
    """
    grid = dungeon.grid
    label = dungeon.regions
    home = label[grid.index(dungeon.start)]
    gold_in: dict[int, int] = {}
    for g in dungeon.gold:
        region = label[grid.index(g)]
        gold_in[region] = gold_in.get(region, 0) + 1
    named = sorted(set(gold_in) | {home})
    size = Counter(label[i] for i in named_cells(label, set(named)))
    smt = SmtBuilder("QF_LIA")
    for region in named:
        cells = f"{size[region]} cell{'s' if size[region] > 1 else ''}"
        smt.lines.append(f"; {region_name(dungeon, region)}: a region of {cells}, "
                         f"{gold_in.get(region, 0)} gold{', holding @' if region == home else ''}")
        smt.bool(region_name(dungeon, region))
    smt.lines.append("; no allowed step joins two regions: a walk from @ stays in its region")
    smt.assert_(region_name(dungeon, home))
    for region in named:
        if region != home:
            smt.assert_(f"(not {region_name(dungeon, region)})")
    gold_count = sum_of([f"(ite {region_name(dungeon, r)} {gold_in[r]} 0)" for r in named if r in gold_in])

    def decode(model) -> dict:
        chosen = {r for r in named if model[region_name(dungeon, r)]}
        inside = bytearray(len(label))
        for i in named_cells(label, chosen):
            inside[i] = 1
        return {"moves": moves_of(dungeon, tour(dungeon, inside)), "closed_rows": rows_of(dungeon, inside)}

    objective = IntMax(lambda k: raw(f"(>= {gold_count} {k})"), upper=len(dungeon.gold))
    return Encoding("regions", 1, smt.formula(), objective, decode, engines=("z3",))


def named_cells(label: array, regions: set) -> list[int]:
    """The grid indices of the cells in `regions`, in reading order."""
    return [i for i, r in enumerate(label) if r in regions]


def encode_flow(dungeon: Dungeon) -> Encoding:
    """Reachability labels, justified by a flow from `@`, and closed under allowed steps.

    Every labelled cell other than the start absorbs one unit of flow, which can only travel along
    allowed steps between labelled cells (one integer per undirected step, its sign the direction),
    and only `@` supplies it. Decomposing such a flow gives a walk from `@` to every labelled cell,
    so no label is unjustified. Closure (a labelled cell labels every cell one allowed step away)
    adds nothing a walk could not do, since allowed steps are symmetric, but lets unit propagation
    label the whole region at once: the first model is already the best one.

    Measured while choosing (scripts/bench_rogue.py keeps the numbers): ranks strictly decreasing
    along a parent step make z3 search for an acyclic choice of parents and took minutes on 100x100;
    the flow is a network-flow feasibility problem with no such search, seconds on the same map.
    """
    smt = SmtBuilder("QF_LIA")
    start = dungeon.start
    steps = dungeon.steps
    for p in dungeon.walkable:
        smt.bool(f"r{cell_name(p)}")
    smt.assert_(f"r{cell_name(start)}")
    balance: dict = {p: [] for p in dungeon.walkable}
    for p in dungeon.walkable:
        for q in steps[p]:
            if p < q:
                f = smt.int(f"f{cell_name(p)}_{cell_name(q)}")
                smt.assert_(f"(=> (not r{cell_name(p)}) (= {f} 0))")
                smt.assert_(f"(=> (not r{cell_name(q)}) (= {f} 0))")
                balance[q].append(f)
                balance[p].append(f"(- {f})")
    for p in dungeon.walkable:
        if p != start:
            smt.assert_(f"(= {sum_of(balance[p])} (ite r{cell_name(p)} 1 0))")
        for q in steps[p]:
            smt.assert_(f"(=> r{cell_name(p)} r{cell_name(q)})")
    gold_count = sum_of([f"(ite r{cell_name(g)} 1 0)" for g in dungeon.gold])

    def decode(model) -> dict:
        labelled = {p for p in dungeon.walkable if model[f"r{cell_name(p)}"]}
        return {"path": walk_collecting(dungeon, labelled), "closed": close_region(dungeon, labelled)}

    # The count lives in the objective's condition, not in the base formula.
    objective = IntMax(lambda k: raw(f"(>= {gold_count} {k})"), upper=len(dungeon.gold))
    return Encoding("flow", 1, smt.formula(), objective, decode, engines=("z3",))


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
    if "moves" in solution:
        if "path" in solution:
            return None, "the solution has both a path and moves (one walk, in either form)"
        moves = solution["moves"]
        if not isinstance(moves, str):
            return None, "the moves are not a string of numpad keys"
        bad = re.search(r"[^12346789]", moves)
        if bad:
            return None, f"move {bad.start() + 1} is {bad.group()[:1]!r}, not a numpad key (1-4, 6-9)"
        r, c = dungeon.start
        cells = [(r, c)]
        for key in moves:
            dr, dc = KEYS[key]
            r += dr
            c += dc
            cells.append((r, c))
        return cells, None
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
    return cells, None


def referee(dungeon: Dungeon, solution: dict) -> list[str]:
    cells, shape = walk_of(dungeon, solution)
    if shape:
        return [shape]
    problems = []
    height, width, rows = dungeon.height, dungeon.width, dungeon.rows
    for i in range(1, len(cells)):
        p, q = cells[i - 1], cells[i]
        r, c = q
        if not (0 <= r < height and 0 <= c < width) or rows[r][c] not in WALKABLE:
            problems.append(f"step {i} enters {list(q)}, which is not an empty or gold cell")
        elif max(abs(p[0] - r), abs(p[1] - c)) != 1:
            problems.append(f"step {i} from {list(p)} to {list(q)} is not a king move")
        elif not dungeon.allowed(p, q):
            m = sorted(dungeon.watchers_of(p) & dungeon.watchers_of(q))[0]
            problems.append(f"step {i} from {list(p)} to {list(q)} stays next to the monster at {list(m)} for two turns")
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
    gold = set(dungeon.gold)
    if "moves" in solution:
        cells, shape = walk_of(dungeon, solution)
        if shape:
            raise ValueError(shape)
        return len(set(cells) & gold)
    return len({tuple(p) for p in solution["path"]} & gold)


def value_json(v) -> int:
    return v


def certify(dungeon: Dungeon, solution: dict) -> tuple[bool, str]:
    """Audit hook: does the solution carry a closed set proving its gold is all there is?"""
    inside, problem = check_closed(dungeon, solution)
    if inside is None:
        return False, problem or "no closed set recorded"
    shape = walk_of(dungeon, solution)[1] if "moves" in solution else None
    if shape:
        return False, shape
    held = sum(1 for g in dungeon.gold if inside[dungeon.grid.index(g)])
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


def render(dungeon: Dungeon, solution: dict, proved=None):
    from rich.text import Text

    walk = walk_of(dungeon, solution)[0]
    on_path = set(walk)
    gold = set(dungeon.gold)
    near = dungeon.grid.near
    out = Text(no_wrap=True, overflow="ignore")  # a map wider than the terminal is never re-flowed

    def look(r: int, c: int, ch: str) -> tuple[str, str]:
        if ch == "@":
            return "@", "bold white on dark_green"
        if ch == "$":
            return "$", "bold black on yellow" if (r, c) in on_path else "yellow dim"
        if ch == "#":
            return "█", "grey42"
        if MONSTER.fullmatch(ch):
            return ch, "bold red"
        if (r, c) in on_path:
            return "·", "white on dark_green"
        if near[dungeon.grid.index((r, c))]:
            return "░", "red dim"
        return " " if ch == " " else ".", "dim"

    for r, row in enumerate(dungeon.rows):
        # Runs of one style appended at once: one span a run, not a cell (a 1000x1000 map drawn
        # cell by cell held 1.15 GB).
        run, style = [], None
        for c, ch in enumerate(row):
            shown, looks = look(r, c, ch)
            if looks != style and run:
                out.append("".join(run), style=style)
                run = []
            run.append(shown)
            style = looks
        if run:
            out.append("".join(run), style=style)
        out.append("\n")
    out.append(f"gold taken: {value(dungeon, solution)} of {len(gold)}; walk of {len(walk) - 1} steps", style="bold")
    return out


def draw(dungeon: Dungeon, solution: dict | None) -> str:
    """The map as an SVG document, the walk and the gold on it (smtpuzzles.puzzles.drawings.rogue)."""
    from smtpuzzles.puzzles.drawings import rogue as drawing

    return drawing.draw(dungeon, solution)


def describe(dungeon: Dungeon) -> str:
    return f"{dungeon.width}x{dungeon.height}, {len(dungeon.gold)} gold"
