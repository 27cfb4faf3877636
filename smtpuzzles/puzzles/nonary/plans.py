"""Plans found by search, with no claim that they are best: the quick plan (the encodings' first
guess, and `auto`'s choice) and the all-out plan (a slower search for a plan that frees all nine,
made only when a check stays undecided). Both steer the solver; no UNSAT answer rests on them."""

from __future__ import annotations

import random
from functools import cache
from typing import Callable

from .game import EXIT, GROUPS, PLAYERS, START, Game
from .positions import _moves_from, _numbered, _passes, _walked_back, groups_within


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


# all_out_plan's searches: at most this many, each stopped after this many positions: several short
# searches beat one long one (encodings/nonary.md, "Limits").
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


class _Hopeless:
    """The all-out search's pruning: the rules that hold of every position on a plan that gets all
    nine out (see `all_out_plan`), over rooms and doors numbered as `_numbered` gives them."""

    def __init__(self, exits: list, out: int, everyone: int):
        self.exits, self.out, self.everyone = exits, out, everyone
        self.within, self.fewest = groups_within(), _fewest_zero_groups()  # within: leave_at_once's groups
        self.nines = [d for d, (_, _, target) in enumerate(exits) if target == out]
        self.doors_into = [[d for d, door in enumerate(exits) if door[2] == r] for r in range(out)]
        self.doors_out_of = [[d for d, door in enumerate(exits) if door[1] == r] for r in range(out)]
        self.leave_at_once = cache(self._leave_at_once)

    def _leave_at_once(self, players: int, residues: tuple) -> bool:
        """Whether these players can be split into groups, one per door of the given residues."""
        if not players:
            return True
        lowest = players & -players
        for i, residue in enumerate(residues):
            if i and residues[i - 1] == residue:
                continue
            rest = residues[:i] + residues[i + 1:]
            if any(g & lowest and self.leave_at_once(players ^ g, rest) for g in self.within[residue][players]):
                return True
        return False

    def hopeless(self, standing: tuple, used: int) -> bool:
        exits, out, nines = self.exits, self.out, self.nines
        if self.fewest[self.everyone ^ standing[out]] > sum(1 for d in nines if not used >> d & 1):
            return True
        hopeful = {exits[d][1] for d in nines if not used >> d & 1}  # rooms that can still reach a door 9
        frontier = list(hopeful)
        while frontier:
            room = frontier.pop()
            for d in self.doors_into[room]:
                origin = exits[d][1]
                if not used >> d & 1 and origin not in hopeful:
                    hopeful.add(origin)
                    frontier.append(origin)
        for room in range(out):
            if not standing[room]:
                continue
            if room not in hopeful:
                return True
            if all(used >> d & 1 for d in self.doors_into[room]):
                residues = tuple(sorted(exits[d][0] for d in self.doors_out_of[room] if not used >> d & 1))
                if not self.leave_at_once(standing[room], residues):
                    return True
        return False


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
    hopeless = _Hopeless(exits, out, everyone).hopeless

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
