"""The game itself: nine players, one-way numbered doors, what an input may say, and a plan played
move by move under the rules (the referee and the value rest on `replay` alone).

Players 1..9 start in room 0. Each door [number, from, to] is one-way and can be passed once, by one
group of 3 to 5 players standing in its room whose numbers sum to the door's number modulo 9. Doors
numbered 9 lead to the exit (-1) and no other door does; whoever passes a 9 escapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import combinations

from smtpuzzles.contract import whole
from smtpuzzles.errors import InputError

PLAYERS = tuple(range(1, 10))
START, EXIT = 0, -1
# The largest game accepted, as measured (encodings/nonary.md, "Limits"); positions and moves are
# what `explore` lists at most (past either, auto falls back to chains).
LIMITS = {"doors": 100, "label_chars": 40, "positions": 100_000, "moves": 1_000_000}


def _groups() -> dict[int, list[tuple[int, ...]]]:
    out: dict[int, list] = {r: [] for r in range(9)}
    for size in (3, 4, 5):
        for group in combinations(PLAYERS, size):
            out[sum(group) % 9].append(group)
    return out


GROUPS = _groups()


@dataclass(frozen=True)
class Game:
    doors: tuple[tuple[int, object, object], ...]  # (number, from, to) with room labels as given


def load(text: str | None, source: str, options: dict) -> Game:
    if text is None:
        raise InputError("a door list is needed (a file or - for stdin)", "input")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", f"{source} line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:  # an integer of thousands of digits (Python's int-conversion limit)
        raise InputError(f"not usable JSON: {str(exc).split(';')[0]}", source) from None
    except RecursionError:
        raise InputError("not usable JSON: lists nested too deeply", source) from None
    return from_doors(data, source)


def _short(value) -> str:
    """repr() cut to a length that fits a one-line message."""
    text = repr(value)
    return text if len(text) <= LIMITS["label_chars"] else text[:LIMITS["label_chars"] - 3] + "..."


def _room(value, where: str):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputError(f"room label {_short(value)} is neither an integer nor a string", where)
    if len(str(value)) > LIMITS["label_chars"]:
        raise InputError(f"room label {_short(value)} is longer than {LIMITS['label_chars']} characters", where)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate such as "\ud800": no file could record it
            raise InputError(f"room label {_short(value)} is not valid Unicode text", where) from None
        if not value.isprintable():
            raise InputError(f"room label {_short(value)} holds a control character", where)
    return value


def from_doors(data, source: str = "input") -> Game:
    if not isinstance(data, list) or not data:
        raise InputError("expected a non-empty JSON list of [door, from, to] triples", source)
    if len(data) > LIMITS["doors"]:
        raise InputError(f"{len(data)} doors, more than the {LIMITS['doors']} accepted", source)
    doors = []
    for i, triple in enumerate(data):
        shown = json.dumps(triple)
        where = f"{source} door {i} ({shown if len(shown) <= 60 else shown[:57] + '...'})"
        if not isinstance(triple, list) or len(triple) != 3:
            raise InputError("a door is a [number, from, to] triple", where)
        number, origin, target = triple
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 9:
            raise InputError(f"door number {_short(number)} is outside 1..9", where)
        origin, target = _room(origin, where), _room(target, where)
        if number == 9 and target != EXIT:
            raise InputError(f"a door 9 must lead to the exit -1, this one leads to {_short(target)}", where)
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
        if not whole(d) or not 0 <= d < len(game.doors):
            raise ValueError(f"move {i + 1}: there is no door {d!r}")
        if d in used:
            raise ValueError(f"move {i + 1}: door {d} was already passed")
        number, origin, target = game.doors[d]
        if not isinstance(group, list) or not all(whole(p) and p in where for p in group) \
                or len(set(group)) != len(group):
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


def describe(game: Game) -> str:
    rooms = {d[1] for d in game.doors} | {d[2] for d in game.doors}
    doors, others = len(game.doors), len(rooms) - 1
    return f"{doors} door{'s' * (doors != 1)}, {others} room{'s' * (others != 1)}"


# ------------------------------------------------------------------------- facts of every map
def escape_sets(nine_doors: int) -> set[frozenset]:
    """Every set of players that could escape through `nine_doors` doors 9: unions of disjoint
    groups of 3..5 whose numbers sum to 0 mod 9, one group per door."""
    zero = [frozenset(g) for g in GROUPS[0]]
    sets, frontier = {frozenset()}, {frozenset()}
    for _ in range(nine_doors):
        frontier = {s | g for s in frontier for g in zero if not s & g}
        if not frontier - sets:
            break
        sets |= frontier
    return sets


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
