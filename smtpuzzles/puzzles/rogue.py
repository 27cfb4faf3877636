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
from dataclasses import dataclass
from functools import cached_property

from smtpuzzles.contract import InlineKey, examples_in
from smtpuzzles.errors import InputError
from smtpuzzles.formula import SmtBuilder, raw, sum_of
from smtpuzzles.objective import Encoding, IntMax
from smtpuzzles.puzzles import BUNDLED

NAME = "rogue"
SUMMARY = "how much gold the rogue can take without waking a monster"
INLINE = (InlineKey("map", str, "the map itself"),)
ENCODINGS = ("flow",)
DEFAULT_ENGINE = "z3"
MODES = ("optimise",)
MONSTER = re.compile(r"[a-zA-Z*&]")
WALKABLE = set(".$@ ")
# Measured: encoding is linear, about 3.7 kB a cell (300x300 in 2 s and 0.33 GB), but z3's own memory
# is not: whole runs of generated maps took 19 s and 0.94 GB at 150x150, 54 s and 1.9 GB at 200x200,
# and at 300x300 4.4 GB with the first check still open after 400 s. So 200x200 worth of cells.
LIMITS = {"cells": 40_000}


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
        return next((r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch == "@")

    @cached_property
    def gold(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch == "$"]

    @cached_property
    def walkable(self) -> list[tuple[int, int]]:
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch in WALKABLE]

    @cached_property
    def watchers(self) -> dict[tuple[int, int], frozenset]:
        """For every cell, the monsters (by cell) that would notice the rogue standing there."""
        out: dict = {}
        for r, row in enumerate(self.rows):
            for c, ch in enumerate(row):
                if MONSTER.fullmatch(ch):
                    for a, b in around(r, c, self.height, self.width):
                        out.setdefault((a, b), set()).add((r, c))
        return {k: frozenset(v) for k, v in out.items()}

    def allowed(self, p: tuple[int, int], q: tuple[int, int]) -> bool:
        """The step p -> q (both walkable, a king move apart) wakes nobody."""
        return not (self.watchers.get(p, frozenset()) & self.watchers.get(q, frozenset()))

    @cached_property
    def steps(self) -> dict[tuple[int, int], list[tuple[int, int]]]:
        """Allowed steps out of every walkable cell."""
        cells = set(self.walkable)
        return {
            p: [q for q in around(*p, self.height, self.width) if q in cells and self.allowed(p, q)]
            for p in self.walkable
        }


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
        for c, ch in enumerate(line):
            if ch == "@":
                starts.append((r, c))
            elif ch not in WALKABLE and ch != "#" and not MONSTER.fullmatch(ch):
                raise InputError(f"unknown symbol {ch!r} (map symbols: @ $ # . space, monsters a-z A-Z * &)",
                                 f"{source} line {r + 1} column {c + 1}")
        rows.append(line.ljust(width))  # editors strip trailing spaces: a short row ends in empty cells
    if not starts:
        raise InputError("the map has no @ (the rogue's start)", source)
    if len(starts) > 1:
        (r1, c1), (r2, c2) = starts[:2]
        raise InputError(f"the map has {len(starts)} @ (line {r1 + 1} column {c1 + 1} and line {r2 + 1} column {c2 + 1}); "
                         "exactly one is allowed", source)
    dungeon = Dungeon(tuple(rows))
    r, c = dungeon.start
    if dungeon.watchers.get((r, c)):
        mr, mc = sorted(dungeon.watchers[r, c])[0]
        raise InputError(f"the start is next to the monster {rows[mr][mc]!r} at line {mr + 1} column {mc + 1}",
                         f"{source} line {r + 1} column {c + 1}")
    return dungeon


def canonical(dungeon: Dungeon) -> dict:
    return {"map": list(dungeon.rows)}


def from_canonical(data: dict) -> Dungeon:
    return load("\n".join(data["map"]), "instance", {})


def examples():
    """The seed's maps and more, in scripts/examples/rogue/ (a checkout's, not installed)."""
    return examples_in(BUNDLED / NAME, load, ENCODINGS[0])


# -------------------------------------------------------------------------------------------- encode
def cell_name(p) -> str:
    return f"{p[0]}_{p[1]}"


def encode(dungeon: Dungeon, encoding: str = "flow") -> Encoding:
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
    if encoding != "flow":
        raise InputError(f"unknown encoding {encoding!r} (flow)", "--encoding")
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
    """A walk from `@`, inside `region`, through every gold cell of it: a depth-first tour of a tree
    of allowed steps, walking back along each branch (allowed steps are symmetric)."""
    start = dungeon.start
    parent = {start: None}
    order = [start]
    for p in order:
        for q in dungeon.steps[p]:
            if q in region and q not in parent:
                parent[q] = p
                order.append(q)
    needed = set()
    for g in dungeon.gold:
        node = g if g in parent else None
        while node is not None and node not in needed:
            needed.add(node)
            node = parent[node]
    children: dict = {}
    for node in order[1:]:
        if node in needed:
            children.setdefault(parent[node], []).append(node)
    path = [list(start)]
    stack = [(start, iter(children.get(start, [])))]
    while stack:
        node, branches = stack[-1]
        child = next(branches, None)
        if child is None:
            stack.pop()
            if stack:
                path.append(list(stack[-1][0]))
            continue
        path.append(list(child))
        stack.append((child, iter(children.get(child, []))))
    # Stop at the last gold: walking home afterwards collects nothing.
    gold = set(dungeon.gold)
    last = max((i for i, p in enumerate(path) if tuple(p) in gold), default=0)
    return path[: last + 1]


# ------------------------------------------------------------------------------------------- referee
def referee(dungeon: Dungeon, solution: dict) -> list[str]:
    path = solution.get("path")
    if not isinstance(path, list) or not path:
        return ["the solution has no path"]
    cells = []
    for i, p in enumerate(path):
        if not (isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) for x in p)):
            return [f"path entry {i} is not a [row, col] pair"]
        cells.append((p[0], p[1]))
    if cells[0] != dungeon.start:
        return [f"the path starts at {list(cells[0])}, not at @ {list(dungeon.start)}"]
    problems = []
    for i in range(1, len(cells)):
        p, q = cells[i - 1], cells[i]
        r, c = q
        if not (0 <= r < dungeon.height and 0 <= c < dungeon.width) or dungeon.rows[r][c] not in WALKABLE:
            problems.append(f"step {i} enters {list(q)}, which is not an empty or gold cell")
        elif max(abs(p[0] - q[0]), abs(p[1] - q[1])) != 1:
            problems.append(f"step {i} from {list(p)} to {list(q)} is not a king move")
        elif not dungeon.allowed(p, q):
            m = sorted(dungeon.watchers[p] & dungeon.watchers[q])[0]
            problems.append(f"step {i} from {list(p)} to {list(q)} stays next to the monster at {list(m)} for two turns")
    closed = solution.get("closed")
    if closed is not None:
        problems += check_closed(dungeon, closed)
    return problems


def check_closed(dungeon: Dungeon, closed) -> list[str]:
    """The solver-free certificate: a set holding `@` and closed under allowed steps contains every
    reachable cell, so no gold outside it can be taken. Linear in the size of the set."""
    region = {tuple(p) for p in closed}
    if dungeon.start not in region:
        return ["the closed set does not hold @"]
    for p in region:
        if p not in dungeon.steps:
            return [f"the closed set holds {list(p)}, which is not walkable"]
        for q in dungeon.steps[p]:
            if q not in region:
                return [f"the closed set is not closed: {list(p)} steps to {list(q)} outside it"]
    return []


def value(dungeon: Dungeon, solution: dict) -> int:
    gold = set(dungeon.gold)
    return len({tuple(p) for p in solution["path"]} & gold)


def value_json(v) -> int:
    return v


def certify(dungeon: Dungeon, solution: dict) -> tuple[bool, str]:
    """Audit hook: does the solution carry a closed set proving its gold is all there is?"""
    closed = solution.get("closed")
    if closed is None:
        return False, "no closed set recorded"
    problems = check_closed(dungeon, closed)
    if problems:
        return False, problems[0]
    inside = {tuple(p) for p in closed} & set(dungeon.gold)
    taken = value(dungeon, solution)
    if len(inside) != taken:
        return False, f"the closed set holds {len(inside)} gold but the walk takes {taken}"
    return True, f"a set of {len(closed)} cells closed under allowed steps holds exactly the {taken} gold taken"


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

    on_path = {tuple(p) for p in solution["path"]}
    gold = set(dungeon.gold)
    out = Text(no_wrap=True, overflow="ignore")  # a map wider than the terminal is never re-flowed
    for r, row in enumerate(dungeon.rows):
        for c, ch in enumerate(row):
            p = (r, c)
            if ch == "@":
                out.append("@", style="bold white on dark_green")
            elif ch == "$":
                out.append("$", style="bold black on yellow" if p in on_path else "yellow dim")
            elif ch == "#":
                out.append("█", style="grey42")
            elif MONSTER.fullmatch(ch):
                out.append(ch, style="bold red")
            elif p in on_path:
                out.append("·", style="white on dark_green")
            elif p in dungeon.watchers:
                out.append("░", style="red dim")
            else:
                out.append(" " if ch == " " else ".", style="dim")
        out.append("\n")
    out.append(f"gold taken: {value(dungeon, solution)} of {len(gold)}; walk of {len(solution['path']) - 1} steps", style="bold")
    return out


def describe(dungeon: Dungeon) -> str:
    return f"{dungeon.width}x{dungeon.height}, {len(dungeon.gold)} gold"
