"""The `positions` encoding: every position of the game (who stands where, which doors are spent)
listed by a search under the rules, and the listing itself written as clauses, which a solver would
only propagate (a run answers from the listing and loads none). Also the search's pieces the
all-out plan reuses (numbered rooms, the moves from a position)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from smtpuzzles.formula import CNF, FALSE, TRUE, Formula, lit
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import IntMax

from .game import EXIT, GROUPS, LIMITS, PLAYERS, START, Game

POSITIONS_VERSION = 1  # raised with any change to the formula


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


def explore(game: Game, limit: int, all_out: bool = False) -> Positions | None:
    """Every position reachable from the start under the rules, or None past `limit` positions (or
    LIMITS["moves"] distinct moves). With `all_out`, the search stops at the first position where
    every player is out and gives the positions of the plan that led there, one move after another:
    nothing beats it, so nothing else needs listing.

    A move passes an unspent door with a group of 3..5 players standing at it whose numbers sum to
    the door's number mod 9. Equal doors (same number and rooms) are passed lowest index first, as
    the chains encoding orders them: any plan becomes such a plan by renaming equal doors, with the
    same players escaping, so no escape count is lost."""
    return Listing(game, all_out).upto(limit)


class Listing:
    """`explore`'s depth-first search, which can stop at a limit and go on later to a larger one
    where it stopped (auto's first listing, then the rest): `upto(a)` then `upto(b)` gives what
    `explore(game, b)` gives, without listing the first `a` positions twice."""

    def __init__(self, game: Game, all_out: bool = False):
        self.labels, exits, earlier_equal = _numbered(game)
        self.all_out = all_out
        self.everyone = (1 << len(PLAYERS)) - 1
        start = tuple([self.everyone] + [0] * len(self.labels))
        self.index = {(start, 0): 0}
        self.standing, self.spent, self.parent, self.moves = [start], [0], [None], []
        self.stack = [0]
        order = range(len(exits))
        if all_out:  # moves out of the building searched first (pushed last): on 5 of 10 mixed maps that
            # the quick plan frees, it found all nine out within 8 positions instead of 12 to 100,000+
            order = sorted(order, key=lambda d: exits[d][2] == len(self.labels))
        self.passes = _passes(exits, earlier_equal, order)
        # Where the search stopped at a limit: the position being expanded, the moves from it left
        # to try, the positions one move from it so far, and the move that met the limit.
        self.paused: tuple | None = None
        self.done: Positions | None = None
        self.too_many_moves = False

    def upto(self, limit: int) -> Positions | None:
        if self.done is not None or self.too_many_moves:
            return self.done
        standing, spent, parent, moves, index, stack = \
            self.standing, self.spent, self.parent, self.moves, self.index, self.stack
        all_out, everyone, passes, max_moves = self.all_out, self.everyone, self.passes, LIMITS["moves"]
        paused, self.paused = self.paused, None
        while paused is not None or stack:
            if paused is not None:
                i, tries, reached, waiting = paused
                paused = None
            else:
                i = stack.pop()
                tries = _moves_from(standing[i], spent[i], passes)
                reached: set[int] = set()  # the positions one move from i, each listed once
                waiting = None
            while True:
                if waiting is not None:
                    d, group, key = waiting
                    waiting = None
                else:
                    found = next(tries, None)
                    if found is None:
                        break
                    d, group, key = found
                j = index.get(key)
                if j is None:
                    if len(standing) >= limit:
                        self.paused = (i, tries, reached, (d, group, key))
                        return None
                    j = index[key] = len(standing)
                    standing.append(key[0])
                    spent.append(key[1])
                    parent.append((i, d, group))
                    stack.append(j)
                    if all_out and key[0][-1] == everyone:
                        self.done = _path_to(self.labels, standing, parent, j)
                        return self.done
                if j not in reached:
                    reached.add(j)
                    moves.append((i, j))
                    if len(moves) > max_moves:
                        self.too_many_moves = True
                        return None
        self.done = Positions(tuple(self.labels), standing, parent, moves)
        return self.done


def _path_to(labels, standing: list, parent: list, position: int) -> Positions:
    """The positions from the start to `position` along the moves that first led there, renumbered
    0, 1, ... in that order, as a graph of one move after another."""
    path = [position]
    while parent[path[-1]] is not None:
        path.append(parent[path[-1]][0])
    path.reverse()
    steps = [None] + [(n, parent[i][1], parent[i][2]) for n, i in enumerate(path[1:])]
    return Positions(tuple(labels), [standing[i] for i in path], steps, [(n, n + 1) for n in range(len(path) - 1)])


def encode_positions(game: Game, graph: Positions, name: str, version: int) -> Encoding:
    """The position graph itself as clauses: `at{i}` for each position, the start reached, and each
    legal move carrying `at` from its position to the next; `escaped_ge{k}` holds exactly when a
    reached position has at least k players out.

    Here the search that lists the positions does the work, as a memoised brute force would, and a
    solver would only propagate: "at least best + 1" is false by one clause. So the run loads none
    (notes["answer"]: the best position's plan as the model, that claim settled by the bound), and
    `audit --resolve` has z3 and cvc5 refute its query. What carries the proof is the listing,
    which the audit makes again with today's code (the drift check) and which the solver-free
    certificate confirms by an independent search. See encodings/nonary.md."""
    out = [bin(standing[-1]).count("1") for standing in graph.standing]  # players out, per position
    formula = _graph_formula(len(out), graph.moves, out)

    def decode(model) -> dict:
        reached = [i for i in range(len(out)) if model[f"at{i}"]]
        return graph.plan(max(reached, key=lambda i: (out[i], -i)))

    def at_least(k: int):
        if k <= 0:
            return TRUE
        return lit(f"escaped_ge{k}") if k <= len(PLAYERS) else FALSE

    # Every listed position is reached (at0 and the moves force them all), so the best one is the
    # answer: the run records it without a solver (smtpuzzles.run.answered_without_solver), its plan
    # refereed like a model, and "at least best + 1" settled by the bound the formula states.
    best = max(range(len(out)), key=lambda i: (out[i], -i))
    closing = out[best] + 1
    answer = {"solution": graph.plan(best), "value": out[best], "closing": {"op": "at_least", "k": closing},
              "reason": f"no listed position has {closing} players out, so the formula makes escaped_ge{closing} "
                        "false by one clause" if closing <= len(PLAYERS) else
                        f"there are {len(PLAYERS)} players: at least {closing} is false"}
    return Encoding(name, version, formula, IntMax(at_least, upper=len(PLAYERS)), decode,
                    engines=("sat", "z3"),
                    notes={"positions": len(graph.standing), "moves": len(graph.moves), "answer": answer})


def _graph_formula(count: int, moves: list[tuple[int, int]], out: list[int]) -> Formula:
    """The clauses of `encode_positions` and their SMT-LIB text, written straight out: the same CNF
    and the same text, byte for byte, as stating them through CNF's words and Formula.from_cnf
    (`at{i}` numbered i + 1, then `escaped_ge1..9`; the start, a clause per move, then each
    escaped_ge{k} as any_of the positions with k out; a test holds the two ways to each other).
    The clauses as lists are made only when asked for (`ListedClauses`): a run answered without a
    solver writes the text and never asks, and they were half of the formula's time."""
    names = [f"at{i}" for i in range(count)]
    escaped = [f"escaped_ge{k}" for k in range(1, len(PLAYERS) + 1)]
    cnf = ListedClauses([""] + names + escaped, count, moves, out)
    lines = [f"(declare-fun {name} () Bool)\n" for name in cnf.names[1:]]
    lines.append("(assert at0)\n")
    lines += [f"(assert (or (not at{i}) at{j}))\n" for i, j in moves]
    for k, name in enumerate(escaped, 1):
        reached = [names[i] for i in range(count) if out[i] >= k]
        lines.append(f"(assert (or (not {name}) {' '.join(reached)}))\n" if reached else f"(assert (not {name}))\n")
        tail = f" {name}))\n"
        lines += [f"(assert (or (not {at}){tail}" for at in reached]
    return Formula(logic="QF_UF", text="".join(lines), cnf=cnf, decls={n: "Bool" for n in cnf.names[1:]},
                   z3_solver="QF_FD")


class ListedClauses(CNF):
    """The position graph's CNF, its clauses made on first use (an engine, a proof, a cube) from
    the graph's moves and the players out per position, which it keeps (plain lists: it pickles)."""

    def __init__(self, names: list[str], count: int, moves: list[tuple[int, int]], out: list[int]):
        super().__init__()  # sets clauses to [], then made None: not made yet
        self.names = names
        self.index = {name: v for v, name in enumerate(names) if v}
        self._graph: tuple | None = (count, moves, out)
        self._clauses = None

    @property
    def clauses(self) -> list[list[int]]:
        if self._clauses is None:
            count, moves, out = self._graph
            clauses = [[1]]
            clauses += [[-i - 1, j + 1] for i, j in moves]
            for k in range(1, len(PLAYERS) + 1):
                v = count + k
                reached = [i + 1 for i in range(count) if out[i] >= k]
                clauses.append([-v] + reached)
                clauses += [[-i, v] for i in reached]
            self._clauses, self._graph = clauses, None
        return self._clauses

    @clauses.setter
    def clauses(self, value: list[list[int]]) -> None:  # CNF.__init__'s empty list, replaced by None above
        self._clauses = value
