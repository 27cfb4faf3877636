"""Rogue's answer without a solver (search.reach) and the referee's all-at-once checks, each held to
an independent check: the tests' plain BFS, and the referee's own step-by-step loop."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

from smtpuzzles.puzzles import rogue
from smtpuzzles.puzzles.rogue import search, walks
from test_rogue import EXAMPLES, EXPECTED, bfs_gold

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from gen_rogue import random_map  # noqa: E402

MAPS = st.tuples(st.integers(1, 12), st.integers(1, 12), st.integers(0, 10**6), st.floats(0, 0.5), st.floats(0, 0.3))


def generated(height, width, seed, walls, monsters) -> tuple[str, rogue.Dungeon]:
    text = random_map(height, width, seed, walls=walls, monsters=monsters, gold=0.2)
    return text, rogue.load(text, "map", {})


def reachable(dungeon: rogue.Dungeon) -> set:
    """Every cell a walk from @ reaches, by a plain search over `Dungeon.allowed` (cells and
    coordinates, no flat arrays)."""
    seen, todo = {dungeon.start}, [dungeon.start]
    while todo:
        p = todo.pop()
        for q in rogue.around(*p, dungeon.height, dungeon.width):
            if q not in seen and dungeon.rows[q[0]][q[1]] in rogue.WALKABLE and dungeon.allowed(p, q):
                seen.add(q)
                todo.append(q)
    return seen


@settings(max_examples=80, deadline=None)
@given(MAPS)
def test_the_search_finds_the_reachable_set_and_a_walk_through_its_gold(shape):
    text, dungeon = generated(*shape)
    found = search.reach(dungeon)
    solution = found.solution(dungeon)
    cells = {(r, c) for r, row in enumerate(solution["closed_rows"]) for c, x in enumerate(row) if x == "1"}
    assert cells == reachable(dungeon)
    assert found.gold == bfs_gold(text) == sum(dungeon.rows[r][c] == "$" for r, c in cells)
    assert walks._every_problem(dungeon, solution) == []  # the step-by-step referee, not the fast path
    assert rogue.value(dungeon, solution) == found.gold
    assert rogue.certificate(dungeon, solution)[0]
    if found.gold:  # the walk stops at the last gold
        assert walks.walk_of(dungeon, solution)[0][-1] in {g for g in dungeon.gold}
    else:
        assert solution["moves"] == ""


def test_the_search_answers_the_seed_maps():
    for name, answer in EXPECTED.items():
        dungeon = rogue.load((EXAMPLES / name).read_text(), name, {})
        assert search.reach(dungeon).gold == answer, name


def wander(dungeon: rogue.Dungeon, rng: random.Random, length: int) -> str:
    """Keys of a walk that mostly stays on walkable cells (so it meets the monster rule often) and
    sometimes steps anywhere, off the map included."""
    keys, (r, c) = [], dungeon.start
    for _ in range(length):
        options = [k for k, (dr, dc) in walks.KEYS.items() if dungeon.on_map((r + dr, c + dc))
                   and dungeon.rows[r + dr][c + dc] in rogue.WALKABLE]
        key = rng.choice(options) if options and rng.random() < 0.9 else rng.choice(list(walks.KEYS))
        keys.append(key)
        r, c = r + walks.KEYS[key][0], c + walks.KEYS[key][1]
    return "".join(keys)


@settings(max_examples=150, deadline=None)
@given(MAPS, st.integers(0, 10**6), st.integers(0, 40))
def test_the_fast_referee_says_what_the_step_by_step_one_says(shape, seed, length):
    """Walks that break the rules (onto walls, off the map on any side, past a monster twice) and
    walks that do not: the all-at-once check and the step-by-step loop agree, word for word, and on
    the gold taken."""
    _, dungeon = generated(*shape)
    rows = search.reach(dungeon).solution(dungeon)["closed_rows"]
    solution = {"moves": wander(dungeon, random.Random(seed), length), "closed_rows": rows}
    slow = walks._every_problem(dungeon, solution)
    assert rogue.referee(dungeon, solution) == slow
    assert walks.replayed(dungeon, solution["moves"]).clean == (slow == [])
    if not slow:
        cells = walks.walk_of(dungeon, solution)[0]
        assert rogue.value(dungeon, solution) == len(set(cells) & set(dungeon.gold))


@settings(max_examples=150, deadline=None)
@given(MAPS, st.integers(0, 10**6))
def test_the_fast_closure_check_agrees_with_the_cell_by_cell_one(shape, seed):
    """Random sets holding @ (most not closed, some closed, some with walls or monsters in them):
    the rows form, checked all at once, and the cell-list form, checked a cell at a time, agree."""
    _, dungeon = generated(*shape)
    rng = random.Random(seed)
    reach = reachable(dungeon)
    every = [(r, c) for r in range(dungeon.height) for c in range(dungeon.width)]
    choice = rng.random()
    if choice < 0.3:
        cells = set(reach)  # closed
    elif choice < 0.6:
        cells = reach - {rng.choice(sorted(reach))} | {dungeon.start}  # a hole, unless it was @
    else:
        cells = {p for p in every if rng.random() < 0.7} | {dungeon.start}
    rows = ["".join("1" if (r, c) in cells else "0" for c in range(dungeon.width)) for r in range(dungeon.height)]
    fast = walks.check_closed(dungeon, {"closed_rows": rows})[1]
    slow = walks.check_closed(dungeon, {"closed": sorted(map(list, cells))})[1]
    assert (fast is None) == (slow is None), (fast, slow)
    if fast is None:
        assert cells >= reach  # closed and holding @: every reachable cell is in it


def test_a_walk_off_the_far_end_of_the_grid_is_refused_in_words():
    """Flat indices past the grid's last byte (a walk down and off the bottom row, then on) are
    caught before they are read, and the words come from the step-by-step referee."""
    dungeon = rogue.load("@.\n..\n", "map", {})
    solution = {"moves": "2222222", "closed_rows": ["11", "11"]}
    assert rogue.referee(dungeon, solution) == walks._every_problem(dungeon, solution) != []
    assert not walks.replayed(dungeon, "2222222").clean


def test_each_direction_out_of_a_set_is_seen():
    """@ in the middle of walls but one cell, in each of the eight directions in turn: the set
    holding only @ is left by that one step, which the all-at-once check must see."""
    for key, (dr, dc) in walks.KEYS.items():
        rows = [["#"] * 3 for _ in range(3)]
        rows[1][1], rows[1 + dr][1 + dc] = "@", "$"
        dungeon = rogue.load("\n".join("".join(row) for row in rows), "map", {})
        alone = ["000", "010", "000"]
        assert walks.check_closed(dungeon, {"closed_rows": alone})[1] == \
            f"the closed set is not closed: [1, 1] steps to [{1 + dr}, {1 + dc}] outside it", key
        both = ["".join("1" if (r, c) in ((1, 1), (1 + dr, 1 + dc)) else "0" for c in range(3)) for r in range(3)]
        assert walks.check_closed(dungeon, {"closed_rows": both})[1] is None
        assert rogue.referee(dungeon, {"moves": key, "closed_rows": both}) == []


def test_the_monsters_next_to_each_cell_are_those_a_cell_by_cell_count_finds():
    """Grid.near, made for every cell at once from the monsters' marks, against a monster at a time."""
    import random

    from smtpuzzles.puzzles.rogue.dungeon import DIRECTIONS

    rng = random.Random(7)
    for height, width in ((1, 1), (1, 7), (5, 1), (6, 9), (23, 17)):
        rows = ["".join(rng.choice("..$#abZ*&") for _ in range(width)) for _ in range(height)]
        rows[0] = "@" + rows[0][1:]
        grid = rogue.Dungeon(tuple(rows)).grid
        expected = bytearray(len(grid.kind))
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch in "abZ*&":
                    for d, (dr, dc) in enumerate(DIRECTIONS):
                        expected[grid.index((r - dr, c - dc))] |= 1 << d
        assert grid.near == expected, rows
