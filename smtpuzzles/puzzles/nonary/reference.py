"""The Nonary Game, from the rules: players 1..9 start in room 0; a move passes one door, which no
move has passed before, by a group of 3 to 5 players standing in its room whose numbers sum to the
door's number modulo 9; they go to the door's room (doors 9 lead to the exit -1). The value is how
many players stand in the exit after the last move.

A plan passes each door at most once, so it has at most len(doors) moves: the formula has that many
steps, each one move or none, and the players' rooms after every step.

Claims: {"op": "first"} (there is a plan: always true) and {"op": "at_least", "k": k} (some plan
gets at least k players out).
"""

from __future__ import annotations

from itertools import product

from smtpuzzles.trusted.cnf import Reference, true_vars

PLAYERS = range(1, 10)
START, EXIT = 0, -1


def _rooms(game) -> list:
    """Room 0 first, the exit last, every other room a door names in between (by first mention)."""
    rooms = [START]
    for _, origin, target in game.doors:
        for room in (origin, target):
            if room not in rooms and room != EXIT:
                rooms.append(room)
    return rooms + [EXIT]


def _declare(game) -> tuple[Reference, dict, dict, dict]:
    """The variables the rules speak of, always made in this order (decode relies on it)."""
    ref, rooms, steps = Reference(), _rooms(game), len(game.doors)
    at = {(p, t, i): ref.var(f"player {p} in room #{i} after step {t}")
          for p in PLAYERS for t in range(steps + 1) for i in range(len(rooms))}
    door = {(t, d): ref.var(f"step {t} passes door {d}") for t in range(1, steps + 1) for d in range(len(game.doors))}
    goes = {(t, p): ref.var(f"player {p} passes at step {t}") for t in range(1, steps + 1) for p in PLAYERS}
    return ref, at, door, goes


def reference(game, claim: dict) -> Reference:
    doors, rooms = game.doors, _rooms(game)
    room = {label: i for i, label in enumerate(rooms)}
    steps = range(1, len(doors) + 1)
    ref, at, door, goes = _declare(game)

    # Every player stands in one room (the exit counts as one) after every step; all start in room 0.
    for p in PLAYERS:
        for t in range(len(doors) + 1):
            ref.exactly_one([at[p, t, i] for i in range(len(rooms))])
        ref.add([at[p, 0, room[START]]])

    # A step passes at most one door, and a door is passed at most once.
    for t in steps:
        ref.at_most_one([door[t, d] for d in range(len(doors))])
    for d in range(len(doors)):
        ref.at_most_one([door[t, d] for t in steps])

    # The group passing at a step: nobody when no door is passed; else 3 to 5 players whose numbers
    # sum to the passed door's number modulo 9. One clause for each set of players it could be.
    for t in steps:
        for bits in product((False, True), repeat=9):
            group = [p for p, inside in zip(PLAYERS, bits) if inside]
            not_this_group = [-goes[t, p] if inside else goes[t, p] for p, inside in zip(PLAYERS, bits)]
            if not group:
                for d in range(len(doors)):
                    ref.add(not_this_group + [-door[t, d]])
            elif 3 <= len(group) <= 5:
                ref.add(not_this_group + [door[t, d] for d, (number, _, _) in enumerate(doors) if number % 9 == sum(group) % 9])
            else:
                ref.add(not_this_group)

    # Who passes a door stands in its room before the step and in the room it leads to after it.
    for t in steps:
        for d, (_, origin, target) in enumerate(doors):
            for p in PLAYERS:
                ref.add([-door[t, d], -goes[t, p], at[p, t - 1, room[origin]]])
                ref.add([-door[t, d], -goes[t, p], at[p, t, room[target]]])

    # Who does not pass stays where they were.
    for t in steps:
        for p in PLAYERS:
            for i in range(len(rooms)):
                ref.add([goes[t, p], -at[p, t - 1, i], at[p, t, i]])

    op = claim.get("op")
    if op == "first":
        return ref
    if op != "at_least" or isinstance(claim.get("k"), bool) or not isinstance(claim.get("k"), int):
        raise ValueError(f"unknown Nonary claim {claim!r}")

    # At least k players stand in the exit after the last step.
    ref.at_least([at[p, len(doors), room[EXIT]] for p in PLAYERS], claim["k"], "out")
    return ref


def decode(game, model) -> dict:
    """The plan of a model: its steps that pass a door, in order."""
    true, steps = true_vars(model), len(game.doors)
    _, _, door, goes = _declare(game)
    moves = []
    for t in range(1, steps + 1):
        for d in range(len(game.doors)):
            if door[t, d] in true:
                moves.append({"door": d, "players": [p for p in PLAYERS if goes[t, p] in true]})
    return {"moves": moves}


def witness(game, solution: dict) -> list[int]:
    """The literals that say a plan: move t passes its door with its players at step t, and the
    steps after the last move pass none."""
    _, _, door, goes = _declare(game)
    moves, steps = solution["moves"], len(game.doors)
    said = []
    for t in range(1, steps + 1):
        move = moves[t - 1] if t <= len(moves) else None
        said += [door[t, d] if move is not None and move["door"] == d else -door[t, d] for d in range(len(game.doors))]
        if move is not None:
            said += [goes[t, p] if p in move["players"] else -goes[t, p] for p in PLAYERS]
    return said
