"""Every referee, handed solutions that break exactly one rule each (a table per puzzle).

Each illegal solution is made from a known-good one (a seed's answer, or a small case checked by
hand in the comments), changed so that one rule alone is broken. The referee must accept the
good one, and for the bad one report that rule, with its place, and nothing else. A referee that
forgot a rule would pass every solver answer (the driver only ever hands it legal ones), so these
are the tests that can catch it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import SEED_CASES
from smtpuzzles.puzzles import kingtour, nonary, rogue, tatamibari

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"


def changed(solution: dict, change) -> dict:
    """A deep copy of `solution` with `change` applied to it."""
    out = copy.deepcopy(solution)
    change(out)
    return out


# ------------------------------------------------------------------------------------ King's tour
# The seed's 6x6 example (2x3 boxes): a legal grid and a legal king's tour, as printed there.
SEED_6x6 = SEED_CASES["kingtour"]["example_6x6"]
SEED_GRID = SEED_6x6["grid"]  # 654321 / 123654 / 462135 / 315246 / 536412 / 241563
SEED_TOUR = SEED_6x6["tour"]  # 1 2 3 34 35 36 / 31 32 33 4 5 6 / 30 23 28 27 26 7 / ...
KT_BOARD = kingtour.parse(6, "2x3", None)
KT_GOOD = {"grid": [[int(ch) for ch in row] for row in SEED_GRID], "tour": SEED_TOUR}


def swap_cells(key, a, b):
    def change(s):
        (r1, c1), (r2, c2) = a, b
        s[key][r1][c1], s[key][r2][c2] = s[key][r2][c2], s[key][r1][c1]
    return change


def set_cell(key, at, v):
    def change(s):
        s[key][at[0]][at[1]] = v
    return change


def reverse_first_visits(k):
    """Visits 1..k walked backwards: still a king's path inside, but visit k now sits where 1 was,
    and the step from it to visit k + 1 is a jump (the only broken step)."""
    def change(s):
        for row in s["tour"]:
            for c, t in enumerate(row):
                if t <= k:
                    row[c] = k + 1 - t
    return change


def reverse_visits_after_the_first(s):
    """Visits 2..36 walked backwards: the only jump is from visit 1 to visit 2."""
    for row in s["tour"]:
        for c, t in enumerate(row):
            if t >= 2:
                row[c] = 38 - t


def swap_columns(a, b):
    def change(s):
        for row in s["grid"]:
            row[a], row[b] = row[b], row[a]
    return change


FIRST_VISIT = next((r, c) for r in range(6) for c in range(6) if KT_GOOD["tour"][r][c] == 1)
KINGTOUR_BROKEN = [
    # rule: digits 1..N (0 and N + 1 are the edges of the range); nothing else breaks, as the
    # duplicate check only sees repeated values
    ("digit 0", set_cell("grid", (2, 3), 0), None, ["r3c4 holds 0, not a digit 1..6"]),
    ("digit N+1", set_cell("grid", (5, 0), 7), None, ["r6c1 holds 7, not a digit 1..6"]),
    # rule: a digit is a whole number (JSON's 1.0 and true compare equal to the digit 1 in Python)
    ("digit a float", lambda s: set_cell("grid", (0, 0), float(s["grid"][0][0]))(s), None,
     [f"r1c1 holds {float(KT_GOOD['grid'][0][0])!r}, not a whole number (a digit 1..6)"]),
    ("digit a bool", set_cell("grid", (0, 5), True), None, ["r1c6 holds True, not a whole number (a digit 1..6)"]),
    # rule: once per row. Swapping two cells of one column inside one box keeps columns and boxes
    ("row", swap_cells("grid", (0, 0), (1, 0)), None,
     ["digit 1 twice: r1c1 and r1c6", "digit 6 twice: r2c1 and r2c4"]),
    # rule: once per column. Two cells of one row inside one box keep rows and boxes
    ("column", swap_cells("grid", (4, 4), (4, 5)), None,
     ["digit 2 twice: r1c5 and r5c5", "digit 1 twice: r1c6 and r5c6"]),
    # rule: the clue. The seed's r4c2 is 1; a clue of 2 there is broken and nothing else
    ("clue", None, "......\n......\n......\n.2....\n......\n......\n",
     ["r4c2 holds 1 but the clue is 2"]),
    # rule: visit numbers 1..N*N
    ("visit 0", set_cell("tour", (0, 0), 0), None, ["r1c1 has visit number 0, not 1..36"]),
    ("visit N*N+1", set_cell("tour", (0, 5), 37), None, ["r1c6 has visit number 37, not 1..36"]),
    ("visit not a number", set_cell("tour", (0, 5), "36"), None, ["r1c6 has visit number '36', not 1..36"]),
    ("visit a float", set_cell("tour", (0, 5), 36.0), None, ["r1c6 has visit number 36.0, not 1..36"]),
    ("visit a bool", set_cell("tour", FIRST_VISIT, True), None,
     [f"r{FIRST_VISIT[0] + 1}c{FIRST_VISIT[1] + 1} has visit number True, not 1..36"]),
    # rule: every cell visited once (36 is gone, 35 is there twice; 34 -> 35 is still a king move)
    ("visit twice", set_cell("tour", (0, 5), 35), None, ["visit 35 appears twice: r1c5 and r1c6"]),
    # rule: consecutive visits a king move apart
    ("king move", reverse_first_visits(4), None, ["visit 4 r1c1 to visit 5 r2c5 is not a king move"]),
    ("king move, far end", reverse_first_visits(35), None, ["visit 35 r1c1 to visit 36 r1c6 is not a king move"]),
    ("king move, first step", reverse_visits_after_the_first, None, ["visit 1 r1c1 to visit 2 r1c6 is not a king move"]),
]


def test_kingtour_seed_solutions_are_legal():
    assert kingtour.referee(KT_BOARD, KT_GOOD) == []
    assert kingtour.value_text(kingtour.value(KT_BOARD, KT_GOOD)) == SEED_6x6["number"]
    # The seed's 9x9 record: its grid and tour, and the number read along it.
    record = SEED_CASES["kingtour"]["record_9x9"]
    solution = {"grid": [[int(ch) for ch in row] for row in record["grid"]], "tour": record["tour"]}
    board = kingtour.parse(9, "3x3", None)
    assert kingtour.referee(board, solution) == []
    assert kingtour.value_text(kingtour.value(board, solution)) == record["number"]
    assert record["number"].startswith("999899898789789787876789658767666545")


@pytest.mark.parametrize("rule,change,clues,expected", KINGTOUR_BROKEN, ids=[row[0] for row in KINGTOUR_BROKEN])
def test_kingtour_referee_reports_the_one_broken_rule(rule, change, clues, expected):
    board = kingtour.parse(6, "2x3", clues) if clues else KT_BOARD
    solution = changed(KT_GOOD, change) if change else KT_GOOD
    assert sorted(kingtour.referee(board, solution)) == sorted(expected)


def test_kingtour_box_rule_alone():
    """Columns 3 and 4 swapped: rows and columns stay permutations, only the 2x3 boxes break. The
    referee's message does not name the unit, so the test checks each reported pair lies in one box
    but in different rows and columns."""
    solution = changed(KT_GOOD, swap_columns(2, 3))
    problems = kingtour.referee(KT_BOARD, solution)
    assert problems
    boxes = set()
    for p in problems:
        assert p.startswith("digit ") and " twice: " in p, p
        a, b = p.split(": ")[1].split(" and ")
        (r1, c1), (r2, c2) = [(int(x[1:x.index("c")]) - 1, int(x[x.index("c") + 1:]) - 1) for x in (a, b)]
        assert r1 != r2 and c1 != c2
        assert (r1 // 2, c1 // 3) == (r2 // 2, c2 // 3)
        boxes.add((r1 // 2, c1 // 3))
    # each of the six boxes lost a digit to its neighbour and holds a repeated one
    assert len(boxes) == 6


@pytest.mark.parametrize("solution,expected", [
    ({"grid": KT_GOOD["grid"][:5], "tour": SEED_TOUR}, "grid is not 6x6"),
    ({"grid": KT_GOOD["grid"], "tour": [row[:5] for row in SEED_TOUR]}, "tour is not 6x6"),
    ({"tour": SEED_TOUR}, "grid is not 6x6"),
    ({"grid": KT_GOOD["grid"], "tour": "1 2 3"}, "tour is not 6x6"),
])
def test_kingtour_referee_rejects_misshapen_solutions(solution, expected):
    assert kingtour.referee(KT_BOARD, solution) == [expected]


# -------------------------------------------------------------------------------------------- Nonary
# The seed's two example plans: everyone escapes the first map, four escape the second.
NONARY_NINE = nonary.from_doors([[6, 0, 1], [3, 0, 1], [4, 1, 2], [5, 1, 2], [9, 2, -1], [9, 2, -1]])
NONARY_NINE_PLAN = {"moves": [
    {"door": 0, "players": [1, 2, 3, 4, 5]}, {"door": 1, "players": [6, 7, 8, 9]},
    {"door": 2, "players": [1, 2, 3, 7]}, {"door": 3, "players": [4, 5, 6, 8, 9]},
    {"door": 4, "players": [1, 2, 3, 4, 8]}, {"door": 5, "players": [5, 6, 7, 9]},
]}
NONARY_FOUR = nonary.from_doors([[8, 0, 1], [9, 1, -1]])
NONARY_FOUR_PLAN = {"moves": [{"door": 0, "players": [1, 3, 5, 8, 9]}, {"door": 1, "players": [1, 3, 5, 9]}]}


def moves(*pairs):
    return {"moves": [{"door": d, "players": list(p)} for d, p in pairs]}


NONARY_BROKEN = [
    # rule: a door that exists (one past the last, and a negative index)
    ("no such door", NONARY_FOUR, moves((0, [1, 3, 5, 8, 9]), (2, [1, 3, 5, 9])), "move 2: there is no door 2"),
    ("negative door", NONARY_FOUR, moves((-1, [1, 3, 5, 9])), "move 1: there is no door -1"),
    # rule: each door once. Players 4, 6, 7 are still in room 0 and sum to 17 = 8 mod 9
    ("door twice", NONARY_FOUR, moves((0, [1, 3, 5, 8, 9]), (0, [4, 6, 7])), "move 2: door 0 was already passed"),
    # rule: a group is a set of players 1..9
    ("player twice in a group", NONARY_FOUR, moves((0, [1, 1, 6])), "move 1: the group [1, 1, 6] is not a set of players 1..9"),
    ("player 10", NONARY_FOUR, moves((0, [10, 7, 9])), "move 1: the group [10, 7, 9] is not a set of players 1..9"),
    ("player 0", NONARY_FOUR, moves((0, [0, 8, 9])), "move 1: the group [0, 8, 9] is not a set of players 1..9"),
    # rule: players and doors are whole numbers (true == 1 and 1.0 == 1 in Python)
    ("player a bool", NONARY_FOUR, moves((0, [True, 3, 5, 8, 9])),
     "move 1: the group [True, 3, 5, 8, 9] is not a set of players 1..9"),
    ("player a float", NONARY_FOUR, moves((0, [1.0, 3, 5, 8, 9])),
     "move 1: the group [1.0, 3, 5, 8, 9] is not a set of players 1..9"),
    ("door a bool", NONARY_FOUR, moves((0, [1, 3, 5, 8, 9]), (True, [1, 3, 5, 9])), "move 2: there is no door True"),
    ("door a float", NONARY_FOUR, moves((0.0, [1, 3, 5, 8, 9])), "move 1: there is no door 0.0"),
    # rule: 3 to 5 players (both edges; the sums are right: 8 + 9 = 17, 1+2+3+4+7+9 = 26, both 8 mod 9)
    ("group of 2", NONARY_FOUR, moves((0, [8, 9])), "move 1: a group of 2 cannot pass (3 to 5 players)"),
    ("group of 6", NONARY_FOUR, moves((0, [1, 2, 3, 4, 7, 9])), "move 1: a group of 6 cannot pass (3 to 5 players)"),
    # rule: the players stand in the door's room (1+3+5+9 = 18 fits the door 9, but they are in room 0)
    ("wrong room", NONARY_FOUR, moves((1, [1, 3, 5, 9])), "move 1: player 1 is in room 0, not at door 1 in room 1"),
    ("wrong room, later move", NONARY_NINE,
     moves((0, [1, 2, 3, 4, 5]), (2, [1, 2, 3, 7])), "move 2: player 7 is in room 0, not at door 2 in room 1"),
    # rule: the sum modulo 9 (1+2+3 = 6 for a door 8; 1+2+4+5+6 = 18 for a door 8)
    ("sum", NONARY_FOUR, moves((0, [1, 2, 3])), "move 1: 1+2+3 = 6 is not 8 modulo 9"),
    ("sum 0 at a door 8", NONARY_FOUR, moves((0, [1, 2, 4, 5, 6])), "move 1: 1+2+4+5+6 = 18 is not 8 modulo 9"),
    # shape
    ("no moves", NONARY_FOUR, {"plan": []}, "the solution has no list of moves"),
    ("move not an object", NONARY_FOUR, {"moves": [[0, [1, 3, 5, 8, 9]]]}, "move 1: there is no door None"),
    ("group not a list", NONARY_FOUR, {"moves": [{"door": 0, "players": "13589"}]},
     "move 1: the group '13589' is not a set of players 1..9"),
]


def test_nonary_seed_plans_are_legal():
    assert nonary.referee(NONARY_NINE, NONARY_NINE_PLAN) == []
    assert nonary.value(NONARY_NINE, NONARY_NINE_PLAN) == 9
    assert nonary.referee(NONARY_FOUR, NONARY_FOUR_PLAN) == []
    assert nonary.value(NONARY_FOUR, NONARY_FOUR_PLAN) == 4
    # A plan may stop early, and doors 9 take groups whose sum is 0 mod 9 (18 and 27 here).
    assert nonary.referee(NONARY_NINE, {"moves": NONARY_NINE_PLAN["moves"][:3]}) == []
    assert nonary.value(NONARY_NINE, {"moves": NONARY_NINE_PLAN["moves"][:4]}) == 0


@pytest.mark.parametrize("rule,game,solution,expected", NONARY_BROKEN, ids=[row[0] for row in NONARY_BROKEN])
def test_nonary_referee_reports_the_one_broken_rule(rule, game, solution, expected):
    assert nonary.referee(game, solution) == [expected]


def test_nonary_value_counts_only_the_escaped():
    game = nonary.from_doors([[6, 0, 1], [9, 1, -1], [9, 0, -1]])
    # 1+2+3 = 6 into room 1, 4+5+9 = 18 out through room 0's door 9: three escape, not six
    plan = moves((0, [1, 2, 3]), (2, [4, 5, 9]))
    assert nonary.referee(game, plan) == [] and nonary.value(game, plan) == 3


# ---------------------------------------------------------------------------------------- Tatamibari
def board(text: str) -> tatamibari.Board:
    return tatamibari.from_text(text)


# Each row: the rule, a board, a solution breaking that rule alone, the one expected problem. The
# boards are tiny; in each, the other regions are legal rectangles with one fitting clue, and no
# corner has four regions around it (checked by hand for every row).
TATAMIBARI_BROKEN = [
    # rule: rectangles. The L of three cells holds one '?'; the last cell is a 1x1 with its '?'
    ("rectangle", "?*\n*?\n", [[1, 1], [1, 2]], "region 1 (from r1c1) is not a rectangle"),
    ("rectangle, later region", "?*?\n*??\n", [[1, 2, 2], [1, 3, 2]], "region 2 (from r1c2) is not a rectangle"),
    # the two outer columns share one id: right cell count for neither rows nor columns alone
    ("rectangle in two pieces", "??*\n***\n", [[1, 2, 1], [1, 2, 1]], "region 1 (from r1c1) is not a rectangle"),
    # rule: exactly one clue (none, and two)
    ("no clue", "?*\n**\n", [[1, 1], [2, 2]], "region 2 (r2c1 to r2c2) holds 0 clues, not 1"),
    ("two clues", "??\n**\n", [[1, 1], [1, 1]], "region 1 (r1c1 to r2c2) holds 2 clues, not 1"),
    ("two clues, placed", "-**\n*??\n", [[1, 1, 1], [2, 2, 2]], "region 2 (r2c1 to r2c3) holds 2 clues, not 1"),
    # rule: '+' in a square, '|' taller than wide, '-' wider than tall (and the equal edge for each)
    ("+ in a 1x2", "+*\n?*\n", [[1, 1], [2, 2]], "region 1 is 1 tall and 2 wide, wrong for its '+' at r1c1"),
    ("+ in a 2x1", "?+\n?*\n", [[1, 2], [3, 2]], "region 2 is 2 tall and 1 wide, wrong for its '+' at r1c2"),
    ("| in a 1x2", "?*\n|*\n", [[1, 1], [2, 2]], "region 2 is 1 tall and 2 wide, wrong for its '|' at r2c1"),
    ("| in a 1x1", "|?\n", [[1, 2]], "region 1 is 1 tall and 1 wide, wrong for its '|' at r1c1"),
    ("- in a 2x1", "-?\n*?\n", [[1, 2], [1, 3]], "region 1 is 2 tall and 1 wide, wrong for its '-' at r1c1"),
    ("- in a 2x2", "-*?\n***\n", [[1, 1, 2], [1, 1, 2]], "region 1 is 2 tall and 2 wide, wrong for its '-' at r1c1"),
    # rule: no four regions at one corner (away from the top-left, so the place is really computed)
    ("four at a corner", "-**\n|++\n*+?\n", [[1, 1, 1], [2, 3, 4], [2, 5, 6]],
     "four regions meet at the corner below and right of r2c2"),
    ("four at the first corner", "++\n++\n", [[1, 2], [3, 4]], "four regions meet at the corner below and right of r1c1"),
    # rule: region ids are whole numbers (1, 1.0 and true would be one region)
    ("id a float", "?*\n*?\n", [[1, 1], [2.0, 2]], "r2c1's region 2.0 is not a whole-number id"),
    ("id a bool", "??\n**\n", [[True, 2], [True, 2]], "r1c1's region True is not a whole-number id"),
]


def test_tatamibari_seed_solutions_are_legal():
    expected = json.loads((EXAMPLES / "tatamibari" / "expected.json").read_text())
    for name, entry in expected.items():
        b = tatamibari.load((EXAMPLES / "tatamibari" / name).read_text(), name, {})
        regions = [[tatamibari.REGION_CHARS.index(ch) + 1 for ch in row] for row in entry["solution"]]
        assert tatamibari.referee(b, {"regions": regions}) == [], name


@pytest.mark.parametrize("rule,text,regions,expected", TATAMIBARI_BROKEN, ids=[row[0] for row in TATAMIBARI_BROKEN])
def test_tatamibari_referee_reports_the_one_broken_rule(rule, text, regions, expected):
    assert tatamibari.referee(board(text), {"regions": regions}) == ([expected] if expected else [])


def test_tatamibari_referee_reports_every_broken_region():
    """One problem per region, in reading order: a referee that stopped at the first bad region
    would hide the rest (and a region's first problem is the one it reports)."""
    regions = [[1, 1, 2, 3], [1, 4, 4, 3], [5, 5, 5, 3]]
    problems = tatamibari.referee(board("?*+?\n****\n*??*\n"), {"regions": regions})
    assert problems == [
        "region 1 (from r1c1) is not a rectangle",
        "region 4 (r2c2 to r2c3) holds 0 clues, not 1",
        "region 5 (r3c1 to r3c3) holds 2 clues, not 1",
    ]
    regions = [[1, 2, 3], [1, 2, 3]]
    problems = tatamibari.referee(board("-+?\n***\n"), {"regions": regions})
    assert problems == ["region 1 is 2 tall and 1 wide, wrong for its '-' at r1c1",
                        "region 2 is 2 tall and 1 wide, wrong for its '+' at r1c2"]


@pytest.mark.parametrize("regions", [None, [[1, 1]], [[1, 1], [1]], [[1, 1], "11"]])
def test_tatamibari_referee_rejects_misshapen_solutions(regions):
    assert tatamibari.referee(board("?*\n**\n"), {"regions": regions}) == ["regions is not a 2x2 grid"]


# --------------------------------------------------------------------------------------------- Rogue
# The seed's map 3: gold at r1c3 (0-based), a monster right of it. Watched by g: (0,3) (0,4) (1,3)
# (2,3) (2,4). Every step between two watched cells wakes g, so (0,4) and (2,4), whose only
# walkable neighbours are watched, cannot be reached; every other walkable cell can (by hand).
ROGUE_MAP = "@....\n...$g\n.....\n"
DUNGEON = rogue.load(ROGUE_MAP, "map", {})
REACHABLE = [[r, c] for r in range(3) for c in range(5) if (r, c) not in {(1, 4), (0, 4), (2, 4)}]
ROGUE_GOOD = {"path": [[0, 0], [0, 1], [1, 2], [1, 3]], "closed": REACHABLE}
# Two monsters watch the cell (1, 1); the step from it to (1, 2) stays next to x only: the message
# must name x, not the other monster y.
TWO_MONSTERS = rogue.load("y.....\n......\n..x...\n......\n@.....\n", "map", {})
WALLED = rogue.load("@$#.\n###$\n....\n", "map", {})  # the seed's map 6: one gold reachable
OPEN = rogue.load("@.\n.$\n", "map", {})


def with_path(*cells):
    return {"path": [list(c) for c in cells], "closed": REACHABLE}


ROGUE_BROKEN = [
    # rule: the walk starts at @
    ("start", DUNGEON, {"path": [[0, 1], [0, 0]]}, ["the path starts at [0, 1], not at @ [0, 0]"]),
    # rule: steps onto empty or gold cells, inside the map
    ("onto the monster", DUNGEON, with_path((0, 0), (0, 1), (0, 2), (0, 3), (1, 4)),
     None),  # (0,3) -> (1,4) is onto g, and (0,2) -> (0,3) is legal: checked below
    ("onto a wall", WALLED, {"path": [[0, 0], [0, 1], [0, 2]]}, ["step 2 enters [0, 2], which is not an empty or gold cell"]),
    ("off the map, above", DUNGEON, with_path((0, 0), (-1, 0)), ["step 1 enters [-1, 0], which is not an empty or gold cell"]),
    ("off the map, right", OPEN, {"path": [[0, 0], [0, 1], [0, 2]]},
     ["step 2 enters [0, 2], which is not an empty or gold cell"]),
    ("off the map, left", OPEN, {"path": [[0, 0], [1, -1]]}, ["step 1 enters [1, -1], which is not an empty or gold cell"]),
    ("off the map, below", DUNGEON, with_path((0, 0), (1, 0), (2, 0), (3, 0)),
     ["step 3 enters [3, 0], which is not an empty or gold cell"]),
    # rule: a king move each turn (a jump of two, and standing still)
    ("jump", DUNGEON, with_path((0, 0), (0, 2)), ["step 1 from [0, 0] to [0, 2] is not a king move"]),
    ("knight jump", DUNGEON, with_path((0, 0), (1, 2)), ["step 1 from [0, 0] to [1, 2] is not a king move"]),
    ("standing still", DUNGEON, with_path((0, 0), (0, 0)), ["step 1 from [0, 0] to [0, 0] is not a king move"]),
    # rule: never next to the same monster two turns running
    ("two turns by g", DUNGEON, with_path((0, 0), (0, 1), (1, 2), (1, 3), (0, 3)),
     ["step 4 from [1, 3] to [0, 3] stays next to the monster at [1, 4] for two turns"]),
    ("two turns by x, y near", TWO_MONSTERS, {"path": [[4, 0], [3, 0], [2, 0], [1, 1], [1, 2]]},
     ["step 4 from [1, 1] to [1, 2] stays next to the monster at [2, 2] for two turns"]),
    # shape
    ("no path", DUNGEON, {"closed": REACHABLE}, ["the solution has no path"]),
    ("empty path", DUNGEON, {"path": []}, ["the solution has no path"]),
    ("not a pair", DUNGEON, {"path": [[0, 0], [0, 1, 2]]}, ["path entry 1 is not a [row, col] pair"]),
    # rule: cells are whole numbers
    ("row a float", DUNGEON, with_path((0, 0), (0.0, 1)), ["path entry 1 is not a [row, col] pair"]),
    ("column a bool", DUNGEON, with_path((0, 0), (0, True)), ["path entry 1 is not a [row, col] pair"]),
]


def test_rogue_known_walks_are_legal():
    assert rogue.referee(DUNGEON, ROGUE_GOOD) == [] and rogue.value(DUNGEON, ROGUE_GOOD) == 1
    assert rogue.certificate(DUNGEON, ROGUE_GOOD)[0]
    # Diagonal steps count as king moves; walking back over the gold counts it once.
    back = {"path": [[0, 0], [1, 1], [1, 2], [1, 3], [1, 2], [1, 3]]}
    assert rogue.referee(DUNGEON, back) == [] and rogue.value(DUNGEON, back) == 1
    walled = {"path": [[0, 0], [0, 1]], "closed": [[0, 0], [0, 1]]}
    assert rogue.referee(WALLED, walled) == [] and rogue.value(WALLED, walled) == 1


@pytest.mark.parametrize("rule,dungeon,solution,expected", ROGUE_BROKEN, ids=[row[0] for row in ROGUE_BROKEN])
def test_rogue_referee_reports_the_one_broken_rule(rule, dungeon, solution, expected):
    problems = rogue.referee(dungeon, solution)
    if expected is None:  # the last step is the broken one
        last = len(solution["path"]) - 1
        assert len(problems) == 1 and problems[0].startswith(f"step {last} enters {solution['path'][-1]}, "), problems
        assert problems[0].endswith("which is not an empty or gold cell")
    else:
        assert problems == expected


ROGUE_BAD_CLOSED = [
    ("without @", [p for p in REACHABLE if p != [0, 0]], "the closed set does not hold @"),
    ("with the monster", REACHABLE + [[1, 4]], "the closed set holds [1, 4], which is not walkable"),
    ("with a cell off the map", REACHABLE + [[3, 0]], "the closed set holds [3, 0], which is not walkable"),
    ("a cell of floats", REACHABLE[:-1] + [[float(x) for x in REACHABLE[-1]]],
     "the closed set is not a list of [row, col] pairs of whole numbers"),
    ("a cell of bools", REACHABLE + [[True, False]], "the closed set is not a list of [row, col] pairs of whole numbers"),
]


@pytest.mark.parametrize("rule,closed,expected", ROGUE_BAD_CLOSED, ids=[row[0] for row in ROGUE_BAD_CLOSED])
def test_rogue_closed_set_rules(rule, closed, expected):
    solution = {"path": ROGUE_GOOD["path"], "closed": closed}
    assert rogue.referee(DUNGEON, solution) == [expected]
    assert rogue.certificate(DUNGEON, solution) == (False, expected)


@pytest.mark.parametrize("hole", [[2, 3], [0, 3], [2, 0]])
def test_rogue_closed_set_with_a_hole_names_the_step_out(hole):
    """Any reachable cell left out leaves an allowed step from inside to it; the message names one
    such step, and its target must be the hole."""
    solution = {"path": ROGUE_GOOD["path"], "closed": [p for p in REACHABLE if p != hole]}
    problems = rogue.referee(DUNGEON, solution)
    assert len(problems) == 1 and problems[0].startswith("the closed set is not closed: ")
    assert problems[0].endswith(f"steps to {hole} outside it")
    inside = problems[0].split(": ")[1].split(" steps")[0]
    assert DUNGEON.allowed(tuple(json.loads(inside)), tuple(hole))


def test_rogue_unreachable_cells_may_join_the_closed_set():
    """(0, 4) has no allowed step at all: a closed set may hold it (it proves the same)."""
    solution = {"path": ROGUE_GOOD["path"], "closed": REACHABLE + [[0, 4]]}
    assert rogue.referee(DUNGEON, solution) == []
