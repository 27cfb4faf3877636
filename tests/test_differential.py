"""Searches of small instances against brute force, aimed at the shapes random maps rarely make.

Nonary: maps of two rooms joined both ways (0 -> 1 and 1 -> 0), where a plan needs time stamps to
order a walk through both doors of the cycle. Random maps of the older tests seldom need that, and
an off-by-one in the number of time stamps survived them. The fixed maps below were found by a
small random search (two-room maps of 4..7 doors, seeded) against the brute force of
tests/brute_nonary.py, run on deliberately broken copies of the encoder; each broke at least one
copy (the result it got is in the comment) and is kept as a regression case.

Tatamibari: counts of every solution of small boards, against a brute force written here from the
rules alone (it does not use the referee under test).
"""

from __future__ import annotations

import json
import random

import pytest

from brute_nonary import most_escapees
from brute_tatamibari import rectangles
from smtpuzzles import run as runner
from smtpuzzles.puzzles import nonary, tatamibari

# (map, what a broken encoder answered). "stamps - 1": one time-stamp level too few per component;
# "k + 1 -> k": `before` only asking for an equal stamp; "no last": the largest stamp allowed before
# another. The brute-force answer is asserted by the test, not written here.
NONARY_REGRESSIONS = [
    ([[6, 0, 1], [9, 0, -1], [9, 1, -1], [6, 1, 0], [8, 0, 1], [9, 1, -1], [8, 1, 0]], "stamps - 1: 7 of 9"),
    ([[9, 1, -1], [4, 1, 0], [9, 0, -1], [7, 1, 0], [5, 0, 1], [9, 1, -1], [6, 0, 1]], "stamps - 1: 7 of 9"),
    ([[9, 0, -1], [9, 1, -1], [7, 0, 1], [4, 0, 1], [1, 1, 0], [1, 1, 0]], "stamps - 1: 7 of 9"),
    ([[3, 0, 1], [9, 1, -1], [6, 1, 0], [3, 0, 1]], "k + 1 -> k, no last: a plan the referee rejects"),
    ([[5, 0, 1], [7, 1, 0], [9, 1, -1], [9, 0, -1], [9, 0, -1], [8, 0, 1], [2, 1, 0]], "k + 1 -> k, no last: rejected"),
    ([[9, 1, -1], [1, 1, 0], [1, 0, 1], [3, 0, 1], [9, 0, -1], [7, 1, 0]], "k + 1 -> k, no last: rejected"),
]


def two_room_map(rng: random.Random, doors: int) -> list:
    """Rooms 0 and 1 with a door each way, then more doors between them or to the exit."""
    out = [[rng.randint(1, 8), 0, 1], [rng.randint(1, 8), 1, 0]]
    while len(out) < doors:
        if rng.random() < 0.35:
            origin = rng.choice([0, 1])
            out.append([rng.randint(1, 8), origin, 1 - origin])
        else:
            out.append([9, rng.choice([0, 1]), -1])
    if not any(d[0] == 9 for d in out):
        out[-1] = [9, 1, -1]
    rng.shuffle(out)
    return out


def proves_the_brute_force_optimum(doors, tmp_path, guide: bool):
    game = nonary.from_doors(doors)
    outcome, _ = runner.solve(nonary, game, json.dumps(doors), out_dir=tmp_path, params={"guide": guide})
    expected = most_escapees(doors)
    assert (outcome.status, outcome.value) == ("optimal", expected), doors
    # The plan is replayed by hand here too: every move's players stand at the door, and the
    # escapees are those who passed a door 9 (the referee is tested on its own elsewhere).
    where = {p: 0 for p in range(1, 10)}
    for move in outcome.solution["moves"]:
        number, origin, target = doors[move["door"]]
        assert all(where[p] == origin for p in move["players"]) and sum(move["players"]) % 9 == number % 9
        where.update({p: target for p in move["players"]})
    assert sum(1 for room in where.values() if room == -1) == expected


@pytest.mark.parametrize("doors,broken", NONARY_REGRESSIONS, ids=[f"map{i}" for i in range(len(NONARY_REGRESSIONS))])
def test_two_room_cycles_found_by_search(doors, broken, tmp_path):
    """Unguided, so the solver's own search meets the time stamps (a guided run could confirm the
    quick plan by propagation alone)."""
    proves_the_brute_force_optimum(doors, tmp_path, guide=False)


def test_random_two_room_cycles(tmp_path):
    """A fresh seeded sample of the same shape each run (about a second)."""
    rng = random.Random(18)
    for i in range(16):
        proves_the_brute_force_optimum(two_room_map(rng, 4 + i % 4), tmp_path, guide=i % 2 == 1)


# ---------------------------------------------------------------------------------------- Tatamibari
def tatamibari_solutions(rows: list[str]) -> set[tuple]:
    """Every solution of a small board, as a sorted tuple of rectangles (top, left, bottom, right),
    straight from the rules: rectangles tiling the grid, one clue each, of the clue's shape, and
    no point where four of them meet."""
    h, w = len(rows), len(rows[0])
    owner = [[None] * w for _ in range(h)]
    rects: list[tuple] = []
    found = set()

    def shape_ok(clue, height, width):
        return {"?": True, "+": height == width, "|": height > width, "-": width > height}[clue]

    def fill():
        free = next(((r, c) for r in range(h) for c in range(w) if owner[r][c] is None), None)
        if free is None:
            if all(len({owner[r][c], owner[r][c + 1], owner[r + 1][c], owner[r + 1][c + 1]}) < 4
                   for r in range(h - 1) for c in range(w - 1)):
                found.add(tuple(sorted(rects)))
            return
        top, left = free  # the first free cell in reading order is some rectangle's top-left corner
        for bottom in range(top, h):
            for right in range(left, w):
                cells = [(r, c) for r in range(top, bottom + 1) for c in range(left, right + 1)]
                if any(owner[r][c] is not None for r, c in cells):
                    break
                clues = [rows[r][c] for r, c in cells if rows[r][c] in "+-|?"]
                if len(clues) != 1 or not shape_ok(clues[0], bottom - top + 1, right - left + 1):
                    continue
                for r, c in cells:
                    owner[r][c] = len(rects)
                rects.append((top, left, bottom, right))
                fill()
                rects.pop()
                for r, c in cells:
                    owner[r][c] = None

    fill()
    return found


def rects_of(regions) -> tuple:
    return tuple(sorted(rectangles(regions)))


def random_board(rng: random.Random, h: int, w: int) -> list[str]:
    return ["".join(rng.choice("?????+-|**") if rng.random() < 0.6 else "*" for _ in range(w)) for _ in range(h)]


# Boards with known counts (brute force): used by the count-limit tests as well.
COUNTED = {"??*\n*??\n?*?\n": 4, "?*?\n*?*\n?*?\n": 18, "++\n++\n": 0}


def test_brute_force_agrees_with_the_seeds():
    """The brute force itself, on the seed boards whose solutions the seed prints."""
    for rows, solution in ((["|-*", "*+|", "*-*"], ["122", "134", "554"]),
                           (["+***", "**|*", "*+**", "***-"], ["1122", "1122", "3322", "3344"])):
        assert tatamibari_solutions(rows) == {rects_of(solution)}
    for text, count in COUNTED.items():
        assert len(tatamibari_solutions(text.split())) == count


def test_tatamibari_counts_match_brute_force(tmp_path):
    """Every solution the solver lists is one the brute force finds, and the count is complete."""
    rng = random.Random(7)
    boards = [text.split() for text in COUNTED] + [random_board(rng, 2 + i % 2, 2 + i % 3) for i in range(14)]
    for rows in boards:
        expected = tatamibari_solutions(rows)
        board = tatamibari.from_text("\n".join(rows))
        outcome, ledger = runner.solve(tatamibari, board, "", out_dir=tmp_path, mode="count")
        if not expected:
            assert outcome.status == "infeasible", rows
            continue
        assert outcome.status == "solved" and outcome.extra["count"] == len(expected), rows
        assert outcome.extra["count_complete"] is True
        steps = [json.loads(line) for line in (ledger.dir / "steps.jsonl").read_text().splitlines()]
        listed = {rects_of(s["solution"]["regions"]) for s in steps if s["result"] == "sat"}
        assert listed == expected, rows
