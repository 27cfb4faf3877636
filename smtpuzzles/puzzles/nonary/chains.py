"""The `chains` encoding: who passes which door, and for each player a chain of doors from room 0;
all Boolean. Each rule of the game is one method below, in the order the formula is written (the
order fixes the variable numbers, so it is part of the formula's identity).

pass{p}_{d}: player p goes through door d. A used door is passed by one of the few groups of 3..5
players whose numbers sum to its number mod 9 (`group{d}_{members}`, about 37 per residue), so sizes
and sums need no arithmetic. Each door a player passes has exactly one reason: it is the player's
first door and leaves room 0 (`first{p}_{d}`), or it follows a door the player passed just before
that leads into its room (`after{p}_{d}_{e}`); no door is followed twice by one player and only one
door is a first. Where rooms form cycles, a time stamp per door other than the exits (order encoded:
`t{d}_ge{k}`) must grow along every `after` (shared: `before{e}_{d}`), so the chains are walks and
sorting the used doors by time stamp is a plan. Equal doors (same number and rooms) are used in
order, which removes swapped copies of every plan.

Then three families of implied constraints, each true of every plan, which the solver could only
rediscover by case splits (see encodings/nonary.md for the measurements):
- per player and room, doors in (plus 1 for room 0) = doors out (plus 1 where the player ends:
  `ends{p}_{room}`, or `escapes{p}`): the pigeonhole counting the chains imply;
- per room, the numbers of the players who end there sum, mod 9, to the numbers of the used doors in
  minus those out (every group's sum is its door's number mod 9);
- the escapees are a union of disjoint groups of 3..5 summing to 0 mod 9, at most one per door 9.
The objective is the count of escapees, `escaped_ge{k}` meaning at least k escape.

The encoding's `guess` is the quick plan as an assignment of the plan's variables; the engine tries
it under each check's assumptions before searching. Where the quick plan leaves somebody inside, its
`second_guess` is the all-out plan, which the driver asks for only when a check stays undecided for a
few seconds: some large maps' plans that free all nine are 20-odd moves long, and the solver did not
find them in 300 s. Both are made in a run only, never by an audit, which re-solves UNSAT steps.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Callable

from smtpuzzles.engines import ctrl_c_pressed
from smtpuzzles.formula import CNF, FALSE, TRUE, Formula, Term, lit
from smtpuzzles.advice import Advice
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import IntMax

from . import plans
from .game import EXIT, GROUPS, PLAYERS, START, Game, escape_sets, room_components, value
from .positions import _room_labels

CHAINS_VERSION = 3  # raised with any change to the formula


def encode_chains(game: Game, planner: Callable[[], dict]) -> Encoding:
    chains = Chains(game)
    chains.doors_are_passed_by_groups()
    chains.time_stamps_where_rooms_form_cycles()
    chains.each_door_a_player_passes_has_one_reason()
    chains.equal_doors_in_order()
    chains.everyone_ends_somewhere_and_rooms_balance()
    chains.escapees_are_groups_through_doors_9()
    chains.count_the_escapees()
    return chains.encoding(cache(planner))  # each engine built asks for the guess; the search runs once


class Chains:
    def __init__(self, game: Game):
        self.game, self.doors, self.cnf = game, game.doors, CNF()
        self.n = len(self.doors)
        self.labels = _room_labels(self.doors)
        self.room_no = {label: i for i, label in enumerate(self.labels)}  # names use numbers, labels may be strings
        self.x = {(p, d): self.cnf.var(f"pass{p}_{d}") for p in PLAYERS for d in range(self.n)}
        self.used = [self.cnf.var(f"used{d}") for d in range(self.n)]
        self.component, self.cyclic = room_components(self.doors)
        self.at_least_time: dict[int, list[int]] = {}
        self.before: dict[tuple[int, int], int] = {}

    def doors_are_passed_by_groups(self) -> None:
        """A used door is passed by exactly one group of its residue; a player passes it exactly when
        the group holds them."""
        cnf, x = self.cnf, self.x
        for d, (number, _, _) in enumerate(self.doors):
            groups = GROUPS[number % 9]
            choice = [cnf.var(f"group{d}_{''.join(map(str, g))}") for g in groups]
            cnf.at_most_one(choice)
            for p in PLAYERS:
                cnf.any_of(x[p, d], [c for c, g in zip(choice, groups) if p in g])
            cnf.any_of(self.used[d], choice)

    def time_stamps_where_rooms_form_cycles(self) -> None:
        """Time stamps only where a player could walk in circles: doors leaving a room on a cycle of
        rooms. Doors to the exit need none: nothing follows them, so every exit move can wait until
        all other moves out of its group of rooms are made, when its players still stand at it."""
        cnf, component = self.cnf, self.component
        span: dict[int, int] = {}
        for _, origin, target in self.doors:
            if component[origin] in self.cyclic and target != EXIT:
                span[component[origin]] = span.get(component[origin], 0) + 1
        for d, (_, origin, target) in enumerate(self.doors):
            if component[origin] in self.cyclic and target != EXIT:
                stamp = self.at_least_time[d] = [cnf.var(f"t{d}_ge{k}") for k in range(1, span[component[origin]])]
                for k in range(1, len(stamp)):
                    cnf.implies(stamp[k], [stamp[k - 1]])

    def earlier(self, e: int, d: int) -> int:
        """A literal that forces door e's time stamp below door d's (made on first use)."""
        if (e, d) not in self.before:
            cnf = self.cnf
            b = self.before[e, d] = cnf.var(f"before{e}_{d}")
            te, td = self.at_least_time[e], self.at_least_time[d]
            if not td:
                cnf.require(-b)
            else:
                cnf.implies(b, [td[0]])
                for k in range(len(te) - 1):
                    cnf.when([b, te[k]], td[k + 1])
                cnf.not_both(b, te[-1])
        return self.before[e, d]

    def each_door_a_player_passes_has_one_reason(self) -> None:
        """It is the player's first door and leaves room 0, or it follows the door the player passed
        just before, which leads into its room (and, on a cycle, was passed earlier)."""
        cnf, x = self.cnf, self.x
        for p in PLAYERS:
            firsts: list[int] = []
            successors: dict[int, list[int]] = {e: [] for e in range(self.n)}
            for d, (_, origin, _) in enumerate(self.doors):
                reasons = []
                if origin == START:
                    first = cnf.var(f"first{p}_{d}")
                    cnf.implies(first, [x[p, d]])
                    firsts.append(first)
                    reasons.append(first)
                for e, (_, from_e, into) in enumerate(self.doors):
                    if e != d and into == origin:
                        after = cnf.var(f"after{p}_{d}_{e}")
                        cnf.implies(after, [x[p, d]])
                        cnf.implies(after, [x[p, e]])
                        if d in self.at_least_time and self.component[from_e] == self.component[origin]:
                            cnf.implies(after, [self.earlier(e, d)])
                        successors[e].append(after)
                        reasons.append(after)
                cnf.implies(x[p, d], reasons)
                cnf.at_most_one(reasons)
            cnf.at_most_one(firsts)
            for after in successors.values():
                cnf.at_most_one(after)

    def equal_doors_in_order(self) -> None:
        doors, used = self.doors, self.used
        for d in range(self.n):
            for e in range(d + 1, self.n):
                if doors[d] == doors[e]:
                    self.cnf.implies(used[e], [used[d]])
                    if d in self.at_least_time:
                        self.cnf.implies(used[e], [self.earlier(d, e)])
                    break

    def everyone_ends_somewhere_and_rooms_balance(self) -> None:
        """Each player ends in one room or escapes; per player and room, doors in equal doors out
        (room 0 counts one in, the room a player ends in one out); per room the numbers of those who
        end there match the doors' numbers in minus out, mod 9."""
        cnf, x, doors, labels = self.cnf, self.x, self.doors, self.labels
        nines = [d for d, door in enumerate(doors) if door[0] == 9]
        self.escapes = [cnf.var(f"escapes{p}") for p in PLAYERS]
        ends = {(p, r): cnf.var(f"ends{p}_{self.room_no[r]}") for p in PLAYERS for r in labels}
        doors_into = {r: [d for d, door in enumerate(doors) if door[2] == r] for r in labels}
        doors_out_of = {r: [d for d, door in enumerate(doors) if door[1] == r] for r in labels}
        for p, escaped in zip(PLAYERS, self.escapes):
            cnf.any_of(escaped, [x[p, d] for d in nines])
            cnf.exactly_one([ends[p, r] for r in labels] + [escaped])
            for r in labels:
                into = [x[p, d] for d in doors_into[r]] + ([cnf.constant(True)] if r == START else [])
                out_of = [x[p, d] for d in doors_out_of[r]] + [ends[p, r]]
                equal_counts(cnf, into, out_of)
        for r in labels:
            staying = cnf.residue([(ends[p, r], p) for p in PLAYERS], 9)
            moved = cnf.residue([(self.used[d], doors[d][0]) for d in doors_into[r]]
                                + [(self.used[d], -doors[d][0]) for d in doors_out_of[r]], 9)
            for a, b in zip(staying, moved):  # room 0 starts with 1+...+9 = 45, which is 0 mod 9
                cnf.same(a, b)
        self.nines = nines

    def escapees_are_groups_through_doors_9(self) -> None:
        """Every set of players that cannot leave in disjoint zero-sum groups, one per door 9, is
        ruled out as the set of escapees (one clause each)."""
        possible = escape_sets(len(self.nines))
        for bits in range(1 << 9):
            members = frozenset(p for p in PLAYERS if bits >> (p - 1) & 1)
            if members not in possible:
                self.cnf.add([-self.escapes[p - 1] if p in members else self.escapes[p - 1] for p in PLAYERS])

    def count_the_escapees(self) -> None:
        count = self.cnf.counter(self.escapes)
        for k in range(1, len(PLAYERS) + 1):
            self.cnf.same(self.cnf.var(f"escaped_ge{k}"), count[k])

    # ------------------------------------------------------------------------------ the encoding
    def decode(self, model) -> dict:
        doors, component = self.doors, self.component

        def stamp(d: int) -> int:
            return sum(1 for v in self.at_least_time.get(d, []) if model[self.cnf.names[v]])

        moves = [d for d in range(self.n) if any(model[f"pass{p}_{d}"] for p in PLAYERS)]
        moves.sort(key=lambda d: (component[doors[d][1]], doors[d][2] == EXIT, stamp(d), d))
        return {"moves": [{"door": d, "players": [p for p in PLAYERS if model[f"pass{p}_{d}"]]} for d in moves]}

    def plan_literals(self, solution: dict) -> list[Term]:
        """The variables a plan fixes (decode's inverse, for `guess`); the solver derives the rest."""
        n, doors = self.n, self.doors
        group_of = {m["door"]: sorted(m["players"]) for m in solution["moves"]}
        terms = [lit(f"used{d}", d in group_of) for d in range(n)]
        terms += [lit(f"pass{p}_{d}", p in group_of.get(d, ())) for p in PLAYERS for d in range(n)]
        terms += [lit(f"group{d}_{''.join(map(str, g))}") for d, g in group_of.items()]
        stamped: dict = {}  # doors used so far per component: the next door's time stamp
        last: dict[int, int] = {}
        for move in solution["moves"]:
            d = move["door"]
            if d in self.at_least_time:
                rooms = self.component[doors[d][1]]
                stamp = stamped[rooms] = stamped.get(rooms, -1) + 1
                terms += [lit(f"t{d}_ge{k}", stamp >= k) for k in range(1, len(self.at_least_time[d]) + 1)]
            for p in move["players"]:
                terms.append(lit(f"after{p}_{d}_{last[p]}" if p in last else f"first{p}_{d}"))
                last[p] = d
        return terms

    def encoding(self, planner: Callable[[], dict]) -> Encoding:
        game = self.game

        def at_least(k: int):
            if k <= 0:
                return TRUE
            return lit(f"escaped_ge{k}") if k <= len(PLAYERS) else FALSE

        def second_guess(seconds: float | None, claim: dict | None = None) -> list[Term] | None:
            if value(game, planner()) == len(PLAYERS):
                return None  # the first guess frees all nine already
            deadline = None if seconds is None else time.perf_counter() + seconds

            def stop() -> bool:  # a Ctrl-C ends the search (and the run), and so does the check's limit
                return ctrl_c_pressed() or (deadline is not None and time.perf_counter() > deadline)

            plan = plans.all_out_plan(game, stop=stop)
            return self.plan_literals(plan) if plan is not None else None

        # Descending: on these maps "at least k" for small k was often the slowest check to satisfy,
        # while asking 9, 8, ... first settles most maps with one SAT answer (see encodings/nonary.md).
        # The driver climbs instead when the guess gave the first model, as it usually does.
        objective = IntMax(at_least, upper=len(PLAYERS), descend=True)
        return Encoding("chains", CHAINS_VERSION, Formula.from_cnf(self.cnf), objective, self.decode,
                        engines=("sat", "z3"), advice=Advice(first_guess=lambda: self.plan_literals(planner()),
                                                             second_guess=second_guess))


def equal_counts(cnf: CNF, left: list[int], right: list[int]) -> None:
    """As many of `left` hold as of `right` (two counters, tied level by level)."""
    a, b = cnf.counter(left), cnf.counter(right)
    for j in range(1, max(len(left), len(right)) + 1):
        if j < len(a) and j < len(b):
            cnf.same(a[j], b[j])
        elif j < len(a):
            cnf.require(-a[j])
        elif j < len(b):
            cnf.require(-b[j])
