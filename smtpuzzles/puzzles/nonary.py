"""The Nonary Game: how many of the nine players can escape.

Players 1..9 start in room 0. Each door [number, from, to] is one-way and can be passed once, by one
group of 3 to 5 players standing in its room whose numbers sum to the door's number modulo 9. Doors
numbered 9 lead to the exit (-1) and no other door does; whoever passes a 9 escapes.
"""

from __future__ import annotations

import json
import random
import time
from itertools import combinations
from dataclasses import dataclass, replace
from functools import cache
from typing import Callable

from smtpuzzles.contract import InlineKey, examples_in, whole
from smtpuzzles.engines import ctrl_c_pressed
from smtpuzzles.errors import InputError
from smtpuzzles.formula import CNF, FALSE, TRUE, Formula, Term, lit
from smtpuzzles.objective import Encoding, IntMax
from smtpuzzles.puzzles import BUNDLED

NAME = "nonary"
SUMMARY = "how many of nine players can escape a map of one-way numbered doors"
INLINE = (InlineKey("doors", list, "the door list itself: [[number, from, to], ...]"),)
# auto: `chains` when the quick plan gets all nine out, else `positions` when the game has at most
# LIMITS["positions"] positions, else `chains` (measured: the CDCL solver stalls on some small maps
# whose positions a search lists in a second, and wins by far on the large ones; see
# encodings/nonary.md).
ENCODINGS = ("auto", "chains", "positions")
DEFAULT_ENGINE = "sat"
MODES = ("optimise",)
PLAYERS = tuple(range(1, 10))
START, EXIT = 0, -1
# Measured (load, encode and write the formula): 100 doors all in one room, the worst case since every
# door may follow every other, take 4 s and 0.76 GB (100 seeded doors over 20 rooms: 0.06 GB); 50 such
# doors take 0.17 GB and growth is between quadratic and cubic, so 150 would pass 2 GB. Labels are
# kept short enough to name a room in a table and a message.
# positions and moves: what `explore` lists at most (past either, auto falls back to chains); many
# groups passing one door often land on one position, and each such move is listed once.
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


# --------------------------------------------------------------------------------------------- parse
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


def examples():
    """The seed's maps and more, in smtpuzzles/examples/nonary/ (package data), in the
    chains encoding: the exports show the rules as clauses (auto would list these small maps'
    positions instead)."""
    return examples_in(BUNDLED / NAME, load, "chains")


# -------------------------------------------------------------------------------------------- encode
def encode(game: Game, encoding: str = "auto") -> Encoding:
    """`chains` (below), `positions` (`_encode_positions`), or `auto`: chains when the quick plan
    gets all nine out (nothing is left to refute), else positions for a game with at most
    LIMITS["positions"] of them, else chains. The choice depends on the game alone (the quick plan
    is seeded), so the audit makes the same one.

    `chains`: who passes which door, and for each player a chain of doors from room 0; all Boolean.

    pass{p}_{d}: player p goes through door d. A used door is passed by one of the few groups of
    3..5 players whose numbers sum to its number mod 9 (`group{d}_{members}`, about 37 per residue),
    so sizes and sums need no arithmetic. Each door a player passes has exactly one reason: it is the
    player's first door and leaves room 0 (`first{p}_{d}`), or it follows a door the player passed
    just before that leads into its room (`after{p}_{d}_{e}`); no door is followed twice by one
    player and only one door is a first. Where rooms form cycles, a time stamp per door other than
    the exits (order encoded: `t{d}_ge{k}`) must grow along every `after` (shared: `before{e}_{d}`),
    so the chains are walks and sorting the used doors by time stamp is a plan. Equal doors (same
    number and rooms) are used in order, which removes swapped copies of every plan.

    Then three families of implied constraints, each true of every plan, which the solver could
    only rediscover by case splits (see encodings/nonary.md for the measurements):
    - per player and room, doors in (plus 1 for room 0) = doors out (plus 1 where the player ends:
      `ends{p}_{room}`, or `escapes{p}`): the pigeonhole counting the chains imply;
    - per room, the numbers of the players who end there sum, mod 9, to the numbers of the used
      doors in minus those out (every group's sum is its door's number mod 9);
    - the escapees are a union of disjoint groups of 3..5 summing to 0 mod 9, at most one per door 9.
    The objective is the count of escapees, `escaped_ge{k}` meaning at least k escape.

    The encoding's `guess` is `quick_plan`'s answer as an assignment of the plan's variables; the
    engine tries it under each check's assumptions before searching (see encodings/nonary.md).
    Where the quick plan leaves somebody inside, its `second_guess` is `all_out_plan`'s, which the
    driver asks for only when a check stays undecided for a few seconds: some large maps' plans
    that free all nine are 20-odd moves long, and the solver did not find them in 300 s. Both are
    made in a run only, never by an audit, which re-solves UNSAT steps.
    """
    if encoding == "auto":
        plan = quick_plan(game)
        if value(game, plan) == len(PLAYERS):  # all out: nothing to refute, and chains confirms the plan at once
            return replace(_encode_chains(game, lambda: plan), name="auto", version=AUTO_VERSION)
        graph = explore(game, LIMITS["positions"])
        if graph is not None:
            return _encode_positions(game, graph, encoding)
        return replace(_encode_chains(game, lambda: plan), name="auto", version=AUTO_VERSION)
    if encoding == "positions":
        graph = explore(game, LIMITS["positions"])
        if graph is None:
            raise InputError(f"over {LIMITS['positions']:,} positions or {LIMITS['moves'] / 1e6:g}M moves; use chains",
                             "--encoding")
        return _encode_positions(game, graph, encoding)
    if encoding != "chains":
        raise InputError(f"unknown encoding {encoding!r} ({', '.join(ENCODINGS)})", "--encoding")
    return _encode_chains(game, lambda: quick_plan(game))


def _encode_chains(game: Game, planner: Callable[[], dict]) -> Encoding:
    planner = cache(planner)  # each engine built asks for the guess; the search runs once
    cnf, doors = CNF(), game.doors
    n = len(doors)
    labels = _room_labels(doors)
    room_no = {label: i for i, label in enumerate(labels)}  # variable names use numbers, labels may be strings
    x = {(p, d): cnf.var(f"pass{p}_{d}") for p in PLAYERS for d in range(n)}
    used = [cnf.var(f"used{d}") for d in range(n)]

    for d, (number, _, _) in enumerate(doors):
        groups = GROUPS[number % 9]
        choice = [cnf.var(f"group{d}_{''.join(map(str, g))}") for g in groups]
        cnf.at_most_one(choice)
        for p in PLAYERS:
            holding = [c for c, g in zip(choice, groups) if p in g]
            cnf.add([-x[p, d]] + holding)
            cnf.clauses.extend([-c, x[p, d]] for c in holding)
        cnf.add([-used[d]] + choice)
        cnf.clauses.extend([-c, used[d]] for c in choice)

    # Time stamps, only where a player could walk in circles: doors leaving a room on a cycle of rooms.
    # Doors to the exit need none: nothing follows them, so every exit move can wait until all other
    # moves out of its group of rooms are made, when its players are still standing at it.
    component, cyclic = room_components(doors)
    span: dict[int, int] = {}
    for _, origin, target in doors:
        if component[origin] in cyclic and target != EXIT:
            span[component[origin]] = span.get(component[origin], 0) + 1
    at_least_time = {}
    for d, (_, origin, target) in enumerate(doors):
        if component[origin] in cyclic and target != EXIT:
            at_least_time[d] = [cnf.var(f"t{d}_ge{k}") for k in range(1, span[component[origin]])]
            for k in range(1, len(at_least_time[d])):
                cnf.add([-at_least_time[d][k], at_least_time[d][k - 1]])
    before: dict[tuple[int, int], int] = {}

    def earlier(e: int, d: int) -> int:
        """A literal that forces door e's time stamp below door d's."""
        if (e, d) not in before:
            b = before[e, d] = cnf.var(f"before{e}_{d}")
            te, td = at_least_time[e], at_least_time[d]
            if not td:
                cnf.add([-b])
            else:
                cnf.add([-b, td[0]])
                cnf.clauses.extend([-b, -te[k], td[k + 1]] for k in range(len(te) - 1))
                cnf.add([-b, -te[-1]])
        return before[e, d]

    for p in PLAYERS:
        firsts: list[int] = []
        successors: dict[int, list[int]] = {e: [] for e in range(n)}
        for d, (_, origin, _) in enumerate(doors):
            reasons = []
            if origin == START:
                first = cnf.var(f"first{p}_{d}")
                cnf.add([-first, x[p, d]])
                firsts.append(first)
                reasons.append(first)
            for e, (_, from_e, into) in enumerate(doors):
                if e != d and into == origin:
                    after = cnf.var(f"after{p}_{d}_{e}")
                    cnf.add([-after, x[p, d]])
                    cnf.add([-after, x[p, e]])
                    if d in at_least_time and component[from_e] == component[origin]:
                        cnf.add([-after, earlier(e, d)])
                    successors[e].append(after)
                    reasons.append(after)
            cnf.add([-x[p, d]] + reasons)
            cnf.at_most_one(reasons)
        cnf.at_most_one(firsts)
        for after in successors.values():
            cnf.at_most_one(after)
    for d in range(n):
        for e in range(d + 1, n):
            if doors[d] == doors[e]:  # equal doors in order
                cnf.add([-used[e], used[d]])
                if d in at_least_time:
                    cnf.add([-used[e], earlier(d, e)])
                break

    # Where everyone ends, and the counting each room's doors imply.
    nines = [d for d, door in enumerate(doors) if door[0] == 9]
    escapes = [cnf.var(f"escapes{p}") for p in PLAYERS]
    ends = {(p, r): cnf.var(f"ends{p}_{room_no[r]}") for p in PLAYERS for r in labels}
    doors_into = {r: [d for d, door in enumerate(doors) if door[2] == r] for r in labels}
    doors_out_of = {r: [d for d, door in enumerate(doors) if door[1] == r] for r in labels}
    for p, escaped in zip(PLAYERS, escapes):
        cnf.add([-escaped] + [x[p, d] for d in nines])
        cnf.clauses.extend([-x[p, d], escaped] for d in nines)
        cnf.exactly_one([ends[p, r] for r in labels] + [escaped])
        for r in labels:
            into = [x[p, d] for d in doors_into[r]] + ([cnf.constant(True)] if r == START else [])
            out_of = [x[p, d] for d in doors_out_of[r]] + [ends[p, r]]
            _equal_counts(cnf, into, out_of)
    for r in labels:
        staying = cnf.residue([(ends[p, r], p) for p in PLAYERS], 9)
        moved = cnf.residue([(used[d], doors[d][0]) for d in doors_into[r]]
                            + [(used[d], -doors[d][0]) for d in doors_out_of[r]], 9)
        for a, b in zip(staying, moved):  # room 0 starts with 1+...+9 = 45, which is 0 mod 9
            cnf.add([-a, b])
            cnf.add([a, -b])
    possible = escape_sets(len(nines))
    for bits in range(1 << 9):
        members = frozenset(p for p in PLAYERS if bits >> (p - 1) & 1)
        if members not in possible:
            cnf.add([-escapes[p - 1] if p in members else escapes[p - 1] for p in PLAYERS])
    count = cnf.counter(escapes)
    for k in range(1, len(PLAYERS) + 1):
        named = cnf.var(f"escaped_ge{k}")
        cnf.add([-named, count[k]])
        cnf.add([named, -count[k]])

    def decode(model) -> dict:
        def stamp(d: int) -> int:
            return sum(1 for v in at_least_time.get(d, []) if model[cnf.names[v]])

        moves = [d for d in range(n) if any(model[f"pass{p}_{d}"] for p in PLAYERS)]
        moves.sort(key=lambda d: (component[doors[d][1]], doors[d][2] == EXIT, stamp(d), d))
        return {"moves": [{"door": d, "players": [p for p in PLAYERS if model[f"pass{p}_{d}"]]} for d in moves]}

    def plan_literals(solution: dict) -> list[Term]:
        """The variables a plan fixes (decode's inverse, for `guess`); the solver derives the rest."""
        group_of = {m["door"]: sorted(m["players"]) for m in solution["moves"]}
        terms = [lit(f"used{d}", d in group_of) for d in range(n)]
        terms += [lit(f"pass{p}_{d}", p in group_of.get(d, ())) for p in PLAYERS for d in range(n)]
        terms += [lit(f"group{d}_{''.join(map(str, g))}") for d, g in group_of.items()]
        stamped: dict = {}  # doors used so far per component: the next door's time stamp
        last: dict[int, int] = {}
        for move in solution["moves"]:
            d = move["door"]
            if d in at_least_time:
                rooms = component[doors[d][1]]
                stamp = stamped[rooms] = stamped.get(rooms, -1) + 1
                terms += [lit(f"t{d}_ge{k}", stamp >= k) for k in range(1, len(at_least_time[d]) + 1)]
            for p in move["players"]:
                terms.append(lit(f"after{p}_{d}_{last[p]}" if p in last else f"first{p}_{d}"))
                last[p] = d
        return terms

    def at_least(k: int):
        if k <= 0:
            return TRUE
        return lit(f"escaped_ge{k}") if k <= len(PLAYERS) else FALSE

    def second_guess(seconds: float | None) -> list[Term] | None:
        if value(game, planner()) == len(PLAYERS):
            return None  # the first guess frees all nine already
        deadline = None if seconds is None else time.perf_counter() + seconds

        def stop() -> bool:  # a Ctrl-C ends the search (and the run), and so does the check's limit
            return ctrl_c_pressed() or (deadline is not None and time.perf_counter() > deadline)

        plan = all_out_plan(game, stop=stop)
        return plan_literals(plan) if plan is not None else None

    # Descending: on these maps "at least k" for small k was often the slowest check to satisfy,
    # while asking 9, 8, ... first settles most maps with one SAT answer (measured, see the notes).
    # The driver climbs instead when the guess gave the first model, as it usually does.
    objective = IntMax(at_least, upper=len(PLAYERS), descend=True)
    # On large maps the solver can spend minutes satisfying "at least 9" when a short random search
    # finds such a plan in milliseconds (measured, see encodings/nonary.md); its plan steers the solver.
    return Encoding("chains", CHAINS_VERSION, Formula.from_cnf(cnf), objective, decode, engines=("sat", "z3"),
                    guess=lambda: plan_literals(planner()), second_guess=second_guess)


# The formulas' versions (a change to either formula, or to the choice `auto` makes, raises it).
CHAINS_VERSION = 3
POSITIONS_VERSION = 1
AUTO_VERSION = 1


@cache
def groups_within() -> dict[int, list[list[int]]]:
    """For each residue and each set of players standing in a room (9 bits), the groups among them
    that may pass a door of that residue, as bits: `explore` looks them up instead of testing all 37
    or so (made once, on first use: 40 ms)."""
    bits = {r: [sum(1 << (p - 1) for p in g) for g in groups] for r, groups in GROUPS.items()}
    return {r: [[g for g in options if g & present == g] for present in range(1 << len(PLAYERS))]
            for r, options in bits.items()}


@dataclass(frozen=True)
class Positions:
    """The game's positions as a graph: every position (who stands where, which doors are spent)
    reachable from the start, numbered in the order a depth-first search first meets them (0 the
    start), the move that first led to each, and every legal move between them."""

    labels: tuple  # room labels by number: 0 the start, then the others; the exit is number len(labels)
    standing: list[tuple[int, ...]]  # per position and room number, the players there (bit p - 1 for p)
    parent: list[tuple[int, int, int] | None]  # (position, door, group bits) of the first move here
    moves: list[tuple[int, int]]  # (from, to) for every legal move

    def escaped(self, i: int) -> int:
        return bin(self.standing[i][-1]).count("1")

    def plan(self, i: int) -> dict:
        """The moves that first led from the start to position i, as a solution."""
        return _walked_back(self.parent, i)


def _walked_back(parent, position) -> dict:
    """The plan that led to `position`, read back through `parent` (a position -> (the one before,
    door, group bits), None at the start), as a solution."""
    moves = []
    while parent[position] is not None:
        position, door, group = parent[position]
        moves.append({"door": door, "players": [p for p in PLAYERS if group >> (p - 1) & 1]})
    return {"moves": moves[::-1]}


def _room_labels(doors) -> list:
    """The rooms other than the exit, numbered: 0 the start, then the others in a fixed order."""
    return [START] + sorted({r for _, origin, target in doors for r in (origin, target)} - {START, EXIT}, key=repr)


def _numbered(game: Game) -> tuple[list, list, dict]:
    """Room labels by number (0 the start, the exit number len(labels)), each door as (residue, from,
    to) in numbers, and for each door the equal door (same number and rooms) it must wait for: equal
    doors are passed lowest index first, as the chains encoding orders them."""
    doors = game.doors
    labels = _room_labels(doors)
    number_of = {label: i for i, label in enumerate(labels)}
    number_of[EXIT] = len(labels)
    exits = [(number % 9, number_of[origin], number_of[target]) for number, origin, target in doors]
    earlier_equal = {}  # door -> the equal door it must wait for
    last: dict[tuple, int] = {}
    for d, door in enumerate(doors):
        if door in last:
            earlier_equal[d] = last[door]
        last[door] = d
    return labels, exits, earlier_equal


def _passes(exits: list, earlier_equal: dict, order) -> list[tuple]:
    """For `_moves_from`, each door of `order` (its door numbers, in the order moves are to be tried):
    its bit, the bit of the equal door it waits for (0 for none), the groups that may pass it for
    each set of players standing at it, its rooms, and its number."""
    within = groups_within()
    return [(1 << d, 1 << earlier_equal[d] if d in earlier_equal else 0, within[exits[d][0]], exits[d][1],
             exits[d][2], d) for d in order]


def _moves_from(standing: tuple, used: int, passes: list, arrange=None):
    """Every legal move from a position (players per room as bits, doors spent as bits): (door,
    group, the position after). A door is unspent and its equal predecessor spent; through a door
    back into its own room every group lands alike, so one is tried. `arrange` orders each door's
    groups (the all-out search's random order)."""
    for bit, wait_for, within, origin, target, d in passes:
        if used & bit or used & wait_for != wait_for:
            continue
        groups = within[standing[origin]]
        if origin == target:
            groups = groups[:1]
        if arrange is not None:
            groups = arrange(groups)
        for group in groups:
            after = list(standing)
            after[origin] ^= group
            after[target] |= group
            yield d, group, (tuple(after), used | bit)


def explore(game: Game, limit: int) -> Positions | None:
    """Every position reachable from the start under the rules, or None past `limit` positions (or
    LIMITS["moves"] distinct moves).

    A move passes an unspent door with a group of 3..5 players standing at it whose numbers sum to
    the door's number mod 9. Equal doors (same number and rooms) are passed lowest index first, as
    the chains encoding orders them: any plan becomes such a plan by renaming equal doors, with the
    same players escaping, so no escape count is lost."""
    labels, exits, earlier_equal = _numbered(game)
    start = tuple([(1 << len(PLAYERS)) - 1] + [0] * len(labels))
    index = {(start, 0): 0}
    standing, spent, parent, moves = [start], [0], [None], []
    stack = [0]
    passes = _passes(exits, earlier_equal, range(len(exits)))
    while stack:
        i = stack.pop()
        reached: set[int] = set()  # the positions one move from i, each listed once
        for d, group, key in _moves_from(standing[i], spent[i], passes):
            j = index.get(key)
            if j is None:
                if len(standing) >= limit:
                    return None
                j = index[key] = len(standing)
                standing.append(key[0])
                spent.append(key[1])
                parent.append((i, d, group))
                stack.append(j)
            if j not in reached:
                reached.add(j)
                moves.append((i, j))
                if len(moves) > LIMITS["moves"]:
                    return None
    return Positions(tuple(labels), standing, parent, moves)


def _encode_positions(game: Game, graph: Positions, name: str) -> Encoding:
    """The position graph itself as clauses: `at{i}` for each position, the start reached, and each
    legal move carrying `at` from its position to the next; `escaped_ge{k}` holds exactly when a
    reached position has at least k players out.

    Here the search that lists the positions does the work, as a memoised brute force would, and
    the solver only propagates: the UNSAT step at best + 1 is settled at once. What carries the
    proof is the listing, which the audit makes again with today's code (the drift check) and
    which `certify` confirms by an independent search. See encodings/nonary.md."""
    cnf = CNF()
    at = [cnf.var(f"at{i}") for i in range(len(graph.standing))]
    cnf.add([at[0]])
    for i, j in graph.moves:
        cnf.add([-at[i], at[j]])
    for k in range(1, len(PLAYERS) + 1):
        named = cnf.var(f"escaped_ge{k}")
        reached = [at[i] for i in range(len(at)) if graph.escaped(i) >= k]
        cnf.add([-named] + reached)
        cnf.clauses.extend([-a, named] for a in reached)

    def decode(model) -> dict:
        reached = [i for i in range(len(at)) if model[f"at{i}"]]
        return graph.plan(max(reached, key=lambda i: (graph.escaped(i), -i)))

    def at_least(k: int):
        if k <= 0:
            return TRUE
        return lit(f"escaped_ge{k}") if k <= len(PLAYERS) else FALSE

    version = POSITIONS_VERSION if name == "positions" else AUTO_VERSION
    return Encoding(name, version, Formula.from_cnf(cnf), IntMax(at_least, upper=len(PLAYERS)), decode,
                    engines=("sat", "z3"), notes={"positions": len(graph.standing), "moves": len(graph.moves)})


def _equal_counts(cnf: CNF, left: list[int], right: list[int]) -> None:
    """As many of `left` hold as of `right` (two counters, tied level by level)."""
    a, b = cnf.counter(left), cnf.counter(right)
    for j in range(1, max(len(left), len(right)) + 1):
        if j < len(a) and j < len(b):
            cnf.add([-a[j], b[j]])
            cnf.add([a[j], -b[j]])
        elif j < len(a):
            cnf.add([-a[j]])
        elif j < len(b):
            cnf.add([-b[j]])


def quick_plan(game: Game, restarts: int = 40, nodes: int = 250, seed: int = 0) -> dict:
    """A good plan found fast, with no claim that it is best: depth-first searches from room 0 that
    try doors 9 first and everything else in a random order, each stopped after `nodes` positions,
    keeping the plan where most escape. Short restarts beat one long search here: a search that
    starts down a poor branch stays there (measured, see encodings/nonary.md). Equal doors are used
    lowest index first, as the encoding orders them, so the plan is one the formula admits."""
    doors = game.doors
    copies: dict[tuple, list[int]] = {}
    for d, door in enumerate(doors):
        copies.setdefault(door, []).append(d)
    rng = random.Random(seed)
    best: list = [0, []]
    for _ in range(restarts):
        order = sorted(copies, key=lambda door: (door[0] != 9, rng.random()))
        budget = [nodes]

        def search(where: tuple, left: frozenset, plan: list) -> None:
            budget[0] -= 1
            escaped = where.count(EXIT)
            if escaped > best[0]:
                best[:] = [escaped, list(plan)]
            for door in order:
                if best[0] == len(PLAYERS) or budget[0] <= 0:
                    return
                d = next((c for c in copies[door] if c in left), None)  # equal doors: lowest first
                if d is None:
                    continue
                number, origin, target = door
                here = {p for p, room in zip(PLAYERS, where) if room == origin}
                if len(here) < 3:
                    continue
                groups = [g for g in GROUPS[number % 9] if here.issuperset(g)]
                # Sorted by random keys rather than shuffled: seeded random() is the one sequence
                # Python promises to keep across versions, and `auto` decides by this plan.
                groups.sort(key=lambda group: rng.random())
                for group in groups:
                    moved = tuple(target if p in group else room for p, room in zip(PLAYERS, where))
                    plan.append({"door": d, "players": list(group)})
                    search(moved, left - {d}, plan)
                    plan.pop()
                    if best[0] == len(PLAYERS) or budget[0] <= 0:
                        return

        search((START,) * len(PLAYERS), frozenset(range(len(doors))), [])
        if best[0] == len(PLAYERS) or budget[0] > 0:  # everyone out, or the search ran to its end
            break
    return {"moves": best[1]}


# all_out_plan's searches: at most this many, each stopped after this many positions (measured on
# issue 17's hard maps, see encodings/nonary.md: a plan found after 54,000 to 160,000 positions in
# most orders and after millions in some, so several short searches beat one long one).
ALL_OUT_SEARCHES = {"searches": 5, "positions": 200_000}


@cache
def _fewest_zero_groups() -> tuple[int, ...]:
    """For each set of players (9 bits), the fewest disjoint groups of 3..5 whose numbers sum to 0
    mod 9 that make it up exactly (99 where none do): each group needs a door 9 of its own."""
    zero = [sum(1 << (p - 1) for p in g) for g in GROUPS[0]]
    fewest = [0] + [99] * ((1 << len(PLAYERS)) - 1)
    for players in range(1, 1 << len(PLAYERS)):
        lowest = players & -players  # the group holding the lowest player: each split counted once
        for group in zero:
            if group & lowest and group & players == group:
                fewest[players] = min(fewest[players], fewest[players ^ group] + 1)
    return tuple(fewest)


def all_out_plan(game: Game, searches: int = ALL_OUT_SEARCHES["searches"],
                 positions: int = ALL_OUT_SEARCHES["positions"], seed: int = 0,
                 stop: Callable[[], bool] = lambda: False) -> dict | None:
    """A plan that gets all nine out, or None: for maps where `quick_plan` leaves somebody inside
    and the game is too large to list. Depth-first searches over positions (who stands where, which
    doors are spent), each in its own random order of doors (doors 9 first) and groups and stopped
    after `positions` positions, which skip every position from which not all can still escape:
    - the players inside cannot be split into groups summing to 0 mod 9, one per unspent door 9;
    - somebody stands where no unspent door 9 can be reached over unspent doors;
    - a room that no unspent door leads into holds players who cannot all leave it at once, in
      groups through distinct unspent doors out of it (nobody can come back in to help).
    Each rule holds of every position on a plan that gets everyone out, so a search that ends
    before its limit has met every position there is to meet: then no such plan exists, and the
    searches stop. The plan is a guess like the quick plan's: the referee and the solver check it,
    and no UNSAT step rests on it (nor on the pruning). `stop` is asked every 4,096 positions (a
    run's Ctrl-C): then None at once."""
    labels, exits, earlier_equal = _numbered(game)
    out = len(labels)
    everyone = (1 << len(PLAYERS)) - 1
    within, fewest = groups_within(), _fewest_zero_groups()  # within: leave_at_once's groups
    nines = [d for d, (_, _, target) in enumerate(exits) if target == out]
    doors_into = [[d for d, door in enumerate(exits) if door[2] == r] for r in range(out)]
    doors_out_of = [[d for d, door in enumerate(exits) if door[1] == r] for r in range(out)]

    @cache
    def leave_at_once(players: int, residues: tuple) -> bool:
        """Whether these players can be split into groups, one per door of the given residues."""
        if not players:
            return True
        lowest = players & -players
        for i, residue in enumerate(residues):
            if i and residues[i - 1] == residue:
                continue
            rest = residues[:i] + residues[i + 1:]
            if any(g & lowest and leave_at_once(players ^ g, rest) for g in within[residue][players]):
                return True
        return False

    def hopeless(standing: tuple, used: int) -> bool:
        if fewest[everyone ^ standing[out]] > sum(1 for d in nines if not used >> d & 1):
            return True
        hopeful = {exits[d][1] for d in nines if not used >> d & 1}  # rooms that can still reach a door 9
        frontier = list(hopeful)
        while frontier:
            room = frontier.pop()
            for d in doors_into[room]:
                origin = exits[d][1]
                if not used >> d & 1 and origin not in hopeful:
                    hopeful.add(origin)
                    frontier.append(origin)
        for room in range(out):
            if not standing[room]:
                continue
            if room not in hopeful:
                return True
            if all(used >> d & 1 for d in doors_into[room]):
                residues = tuple(sorted(exits[d][0] for d in doors_out_of[room] if not used >> d & 1))
                if not leave_at_once(standing[room], residues):
                    return True
        return False

    rng = random.Random(seed)
    start = (tuple([everyone] + [0] * out), 0)
    popped = 0
    for _ in range(searches):
        keys = [rng.random() for _ in exits]
        # Tried first is pushed last: doors 9 first, then the rest in this search's random order.
        passes = _passes(exits, earlier_equal, sorted(range(len(exits)), key=lambda d: (exits[d][2] == out, keys[d])))
        group_keys = [rng.random() for _ in range(everyone + 1)]

        def arrange(groups: list) -> list:
            return sorted(groups, key=group_keys.__getitem__)

        parent: dict = {start: None}
        stack = [start]
        while stack:
            standing, used = position = stack.pop()
            if standing[out] == everyone:
                return _walked_back(parent, position)
            if len(parent) > positions:
                break
            popped += 1
            if not popped & 4095 and stop():
                return None
            if hopeless(standing, used):
                continue
            for d, group, child in _moves_from(standing, used, passes, arrange):
                if child not in parent:
                    parent[child] = (position, d, group)
                    stack.append(child)
        else:
            return None  # every position left unpruned was met: nobody's plan gets all nine out
    return None


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


WORK_PER_POSITION = 100  # certify may try 10 million groups in all; issue 17's stall needs 3 to 4 million


def certify(game: Game, solution: dict) -> tuple[bool, str] | None:
    """Audit hook: a second, independent search for the most players who can escape, by other code
    than `explore` (room labels in tuples, memoised on who stands where and which doors are left,
    equal doors tried once), so a slip in either search shows as a disagreement. None where the
    search would pass LIMITS["positions"] positions or WORK_PER_POSITION groups tried for each (it
    gives up within seconds), and for a solution that breaks the rules, which the audit's models check
    reports."""
    if referee(game, solution):
        return None
    taken = value(game, solution)
    seen: dict = {}
    work = [WORK_PER_POSITION * LIMITS["positions"]]  # groups tried, at most
    doors = game.doors

    def most(where: tuple, left: int) -> int:
        key = (where, left)
        if key in seen:
            return seen[key]
        if len(seen) >= LIMITS["positions"] or work[0] <= 0:
            raise OverflowError
        best = where.count(EXIT)
        tried = set()
        for d in range(len(doors)):
            if not left >> d & 1 or doors[d] in tried:
                continue
            tried.add(doors[d])
            number, origin, target = doors[d]
            here = {p for p, room in zip(PLAYERS, where) if room == origin}
            if len(here) < 3:
                continue
            for group in GROUPS[number % 9]:
                if best == len(PLAYERS):
                    break
                work[0] -= 1
                if here.issuperset(group):
                    moved = tuple(target if p in group else room for p, room in zip(PLAYERS, where))
                    best = max(best, most(moved, left & ~(1 << d)))
                    if origin == target:  # back into its own room: any other group lands the same
                        break
        seen[key] = best
        return best

    try:
        found = most((START,) * len(PLAYERS), (1 << len(doors)) - 1)
    except OverflowError:
        return None
    if found != taken:
        return False, f"an independent search of {len(seen):,} positions finds {found} can escape, not {taken}"
    return True, f"an independent search of {len(seen):,} positions (who stands where, which doors are left) " \
                 f"finds at most {found} can escape"


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


def value_json(v) -> int:
    return v


def render(game: Game, solution: dict, proved=None):
    """The plan, one move a line, and where everyone stands after it. Rooms are listed only where
    someone stands (at most nine), not one column each, so the table fits 80 columns."""
    from rich.table import Table
    from rich.text import Text

    from smtpuzzles.render import WIDTH

    rooms = [START] + sorted({d[2] for d in game.doors} - {START, EXIT}, key=str) + [EXIT]
    table = Table(title=f"escape plan: {value(game, solution)} of 9 escape", show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column(Text("door [number] from→to"), overflow="fold")  # Text: no rich markup in labels
    table.add_column("group = sum", overflow="fold")
    table.add_column("room: players after the move", overflow="fold")

    def standing(where: dict) -> Text:
        out = Text()
        for room in rooms:
            players = "".join(str(p) for p in PLAYERS if where[p] == room)
            if players:
                if out:
                    out.append("  ")
                out.append(f"{'exit' if room == EXIT else room}: {players}", style="bold green" if room == EXIT else "")
        return out

    table.add_row("", "start", "", standing({p: START for p in PLAYERS}), style="dim")
    moves = solution["moves"]
    for i, where in replay(game, solution):
        d = moves[i]["door"]
        number, origin, target = game.doors[d]
        group = "+".join(map(str, moves[i]["players"]))
        table.add_row(str(i + 1), Text(f"#{d} [{number}] {origin}→{'exit' if target == EXIT else target}"),
                      f"{group} = {sum(moves[i]['players'])}", standing(where))
    if len(moves) == 0:
        table.caption = "nobody can pass a door"
    table.width = min(WIDTH, _table_width(table))
    return table


def draw(game: Game, solution: dict | None) -> str:
    """The plan as an SVG document, a table of moves (smtpuzzles.puzzles.drawings.nonary)."""
    from smtpuzzles.puzzles.drawings import nonary as drawing

    return drawing.draw(game, solution)


def _table_width(table) -> int:
    from smtpuzzles.render import content_width

    table.width = None
    return content_width(table)


def describe(game: Game) -> str:
    rooms = {d[1] for d in game.doors} | {d[2] for d in game.doors}
    return f"{len(game.doors)} doors, {len(rooms) - 1} rooms"


def reference(instance, claim: dict) -> str:
    """The claim as a formula written from the rules alone (smtpuzzles.puzzles.rules.nonary), which
    shares no code with `encode`: `certify` and `audit --proof` refute each closing claim on it too."""
    from smtpuzzles.puzzles.rules import nonary as rules

    return rules.reference(instance, claim).dimacs()
