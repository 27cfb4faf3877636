"""The Nonary Game: how many of the nine players can escape.

Players 1..9 start in room 0. Each door [number, from, to] is one-way and can be passed once, by one
group of 3 to 5 players standing in its room whose numbers sum to the door's number modulo 9. Doors
numbered 9 lead to the exit (-1) and no other door does; whoever passes a 9 escapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from smtpuzzles.errors import InputError
from smtpuzzles.formula import SmtBuilder, count_true, raw, sum_of
from smtpuzzles.objective import Encoding, IntMax

NAME = "nonary"
ENCODINGS = ("chains",)
DEFAULT_ENGINE = "z3"
MODES = ("optimise",)
PLAYERS = tuple(range(1, 10))
START, EXIT = 0, -1


def _groups() -> dict[int, list[tuple[int, ...]]]:
    from itertools import combinations

    out: dict[int, list] = {r: [] for r in range(9)}
    for size in (3, 4, 5):
        for group in combinations(PLAYERS, size):
            out[sum(group) % 9].append(group)
    return out


GROUPS = _groups()


def _any(parts: list[str]) -> str:
    if not parts:
        return "false"
    return parts[0] if len(parts) == 1 else f"(or {' '.join(parts)})"


@dataclass(frozen=True)
class Game:
    doors: tuple[tuple[int, object, object], ...]  # (number, from, to) with room labels as given


# --------------------------------------------------------------------------------------------- parse
def load(text: str | None, source: str, options: dict) -> Game:
    if text is None:
        raise InputError("a door list is needed (a file or - for stdin)", "input")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", f"{source} line {exc.lineno} column {exc.colno}") from None
    return from_doors(data, source)


def _room(value, where: str):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputError(f"room label {value!r} is neither an integer nor a string", where)
    return value


def from_doors(data, source: str = "input") -> Game:
    if not isinstance(data, list) or not data:
        raise InputError("expected a non-empty JSON list of [door, from, to] triples", source)
    doors = []
    for i, triple in enumerate(data):
        where = f"{source} door {i} ({json.dumps(triple)})"
        if not isinstance(triple, list) or len(triple) != 3:
            raise InputError("a door is a [number, from, to] triple", where)
        number, origin, target = triple
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 9:
            raise InputError(f"door number {number!r} is outside 1..9", where)
        origin, target = _room(origin, where), _room(target, where)
        if number == 9 and target != EXIT:
            raise InputError(f"a door 9 must lead to the exit -1, this one leads to {target!r}", where)
        if number != 9 and target == EXIT:
            raise InputError(f"only doors numbered 9 lead to the exit; door {number} does", where)
        if origin == EXIT:
            raise InputError("no door leaves the exit -1", where)
        doors.append((number, origin, target))
    if not any(d[0] == 9 for d in doors):
        raise InputError("the map has no door 9, so nobody can ever escape", source)
    return Game(tuple(doors))


def canonical(game: Game) -> dict:
    return {"doors": [list(d) for d in game.doors]}


def from_canonical(data: dict) -> Game:
    return from_doors(data["doors"], "instance")


# -------------------------------------------------------------------------------------------- encode
def encode(game: Game, encoding: str = "chains") -> Encoding:
    """Who passes which door, and for each player a chain of doors from room 0.

    pass{p}_{d}: player p goes through door d. A used door carries 3..5 players whose numbers sum to
    its number mod 9. Each door a player passes has exactly one reason: it is the player's first door
    and leaves room 0, or it follows a door the player passed earlier (time stamps strictly increase)
    that leads into its room; no door is followed twice by one player and only one door is a first.
    So every player's doors form one walk from room 0, and ordering all used doors by time stamp is a
    plan. Equal doors (same number and rooms) are used in order, which removes swapped copies of
    every plan from the search.
    """
    if encoding != "chains":
        raise InputError(f"unknown encoding {encoding!r} (chains)", "--encoding")
    smt = SmtBuilder("QF_LIA")
    doors = game.doors
    n = len(doors)
    x = {(p, d): smt.bool(f"pass{p}_{d}") for p in PLAYERS for d in range(n)}
    component, cyclic = room_components(doors)
    # Time stamps are only needed where a player could walk in circles: doors leaving a room that lies
    # on a cycle of rooms. Elsewhere the rooms' topological order already orders every chain.
    time = {d: smt.int(f"t{d}", 0, n - 1) for d in range(n) if component[doors[d][1]] in cyclic}
    for d, (number, origin, target) in enumerate(doors):
        # The group through a door is one of the few sets of 3..5 players with the right sum mod 9
        # (about 37 per residue): choosing among them keeps the whole formula Boolean apart from the
        # time stamps, where sums of `ite`s left z3 to rediscover modular arithmetic in every proof.
        choices = [smt.bool(f"group{d}_{''.join(map(str, g))}") for g in GROUPS[number % 9]]
        if len(choices) > 1:
            smt.assert_(f"(<= {count_true(choices)} 1)")
        for p in PLAYERS:
            holding = [c for c, g in zip(choices, GROUPS[number % 9]) if p in g]
            smt.assert_(f"(= {x[p, d]} {_any(holding)})")
    for p in PLAYERS:
        firsts = []
        successors: dict[int, list[str]] = {e: [] for e in range(n)}
        for d, (_, origin, _) in enumerate(doors):
            reasons = []
            if origin == START:
                first = smt.bool(f"first{p}_{d}")
                smt.assert_(f"(=> {first} {x[p, d]})")
                firsts.append(first)
                reasons.append(first)
            for e, (_, _, into) in enumerate(doors):
                if e != d and into == origin:
                    after = smt.bool(f"after{p}_{d}_{e}")
                    ordered = f" (< {time[e]} {time[d]})" if d in time and e in time and component[doors[e][1]] == component[origin] else ""
                    smt.assert_(f"(=> {after} (and {x[p, d]} {x[p, e]}{ordered}))")
                    successors[e].append(after)
                    reasons.append(after)
            smt.assert_(f"(=> {x[p, d]} (= {count_true(reasons)} 1))" if reasons else f"(not {x[p, d]})")
        if len(firsts) > 1:
            smt.assert_(f"(<= {count_true(firsts)} 1)")
        for e, after in successors.items():
            if len(after) > 1:
                smt.assert_(f"(<= {count_true(after)} 1)")
    for d in range(n):  # equal doors in order
        for e in range(d + 1, n):
            if doors[d] == doors[e]:
                used_d, used_e = _any([x[p, d] for p in PLAYERS]), _any([x[p, e] for p in PLAYERS])
                ordered = f" (< {time[d]} {time[e]})" if d in time else ""
                smt.assert_(f"(=> {used_e} (and {used_d}{ordered}))")
                break
    nines = [d for d, door in enumerate(doors) if door[0] == 9]
    escaped = [f"(or {' '.join(x[p, d] for d in nines)})" if len(nines) > 1 else x[p, nines[0]] for p in PLAYERS]
    escapees = count_true(escaped)

    def decode(model) -> dict:
        used = [d for d in range(n) if any(model[x[p, d]] for p in PLAYERS)]
        used.sort(key=lambda d: (component[doors[d][1]], model[time[d]] if d in time else 0, d))
        return {"moves": [{"door": d, "players": [p for p in PLAYERS if model[x[p, d]]]} for d in used]}

    objective = IntMax(lambda k: raw(f"(>= {escapees} {k})"), upper=len(PLAYERS))
    # Booleans, cardinalities and bounded time stamps: z3's finite-domain solver proved the seeds'
    # final UNSAT steps about 4x faster than its default arithmetic solver.
    return Encoding("chains", 1, smt.formula(z3_solver="QF_FD"), objective, decode, engines=("z3",))


def room_components(doors) -> tuple[dict, set]:
    """Strongly connected components of the room graph, numbered in topological order, and the set
    of those that contain a cycle (Tarjan's algorithm, iterative)."""
    graph: dict = {}
    for _, origin, target in doors:
        graph.setdefault(origin, []).append(target)
        graph.setdefault(target, [])
    index, low, on_stack, stack, order = {}, {}, set(), [], []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    members.append(top)
                    if top == node:
                        break
                order.append(members)
    order.reverse()  # Tarjan finds components in reverse topological order
    component = {room: i for i, members in enumerate(order) for room in members}
    cyclic = {component[origin] for _, origin, target in doors if component[origin] == component[target]}
    return component, cyclic


# ------------------------------------------------------------------------------------------- referee
def replay(game: Game, solution: dict):
    """Play the moves; yields (move index, room of every player after it) or raises ValueError."""
    where = {p: START for p in PLAYERS}
    used = set()
    moves = solution.get("moves")
    if not isinstance(moves, list):
        raise ValueError("the solution has no list of moves")
    for i, move in enumerate(moves):
        d = move.get("door") if isinstance(move, dict) else None
        group = move.get("players") if isinstance(move, dict) else None
        if not isinstance(d, int) or not 0 <= d < len(game.doors):
            raise ValueError(f"move {i + 1}: there is no door {d!r}")
        if d in used:
            raise ValueError(f"move {i + 1}: door {d} was already passed")
        number, origin, target = game.doors[d]
        if not isinstance(group, list) or not all(isinstance(p, int) and p in where for p in group) or len(set(group)) != len(group):
            raise ValueError(f"move {i + 1}: the group {group!r} is not a set of players 1..9")
        if not 3 <= len(group) <= 5:
            raise ValueError(f"move {i + 1}: a group of {len(group)} cannot pass (3 to 5 players)")
        away = [p for p in group if where[p] != origin]
        if away:
            raise ValueError(f"move {i + 1}: player {away[0]} is in room {where[away[0]]!r}, not at door {d} in room {origin!r}")
        if sum(group) % 9 != number % 9:
            raise ValueError(f"move {i + 1}: {'+'.join(map(str, group))} = {sum(group)} is not {number} modulo 9")
        used.add(d)
        for p in group:
            where[p] = target
        yield i, dict(where)


def referee(game: Game, solution: dict) -> list[str]:
    try:
        for _ in replay(game, solution):
            pass
    except ValueError as exc:
        return [str(exc)]
    return []


def value(game: Game, solution: dict) -> int:
    where = {p: START for p in PLAYERS}
    for _, where in replay(game, solution):
        pass
    return sum(1 for room in where.values() if room == EXIT)


def value_json(v) -> int:
    return v


def render(game: Game, solution: dict, proved=None):
    from rich.table import Table

    rooms = [START] + sorted({d[2] for d in game.doors} - {START, EXIT}, key=str) + [EXIT]
    table = Table(title=f"escape plan: {value(game, solution)} of 9 escape", show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("door", no_wrap=True)
    table.add_column("group", no_wrap=True)
    for room in rooms:
        table.add_column("exit" if room == EXIT else f"room {room}", style="green" if room == EXIT else "", no_wrap=True)
    start_row = ["", "", ""] + ["".join(map(str, PLAYERS)) if room == START else "" for room in rooms]
    table.add_row(*start_row, style="dim")
    moves = solution["moves"]
    for i, where in replay(game, solution):
        d = moves[i]["door"]
        number, origin, target = game.doors[d]
        cells = ["".join(str(p) for p in PLAYERS if where[p] == room) for room in rooms]
        group = "+".join(map(str, moves[i]["players"]))
        table.add_row(str(i + 1), f"#{d} [{number}] {origin}→{target}", f"{group} = {sum(moves[i]['players'])}", *cells)
    return table


def describe(game: Game) -> str:
    rooms = {d[1] for d in game.doors} | {d[2] for d in game.doors}
    return f"{len(game.doors)} doors, {len(rooms) - 1} rooms"
