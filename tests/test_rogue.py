"""Roguelike pathfinding: the seeds, a BFS reference, distinct monsters, certificates, bad maps."""

from __future__ import annotations

import json
import sys
from collections import deque
from pathlib import Path

import pytest

from conftest import SEED_CASES, one_error_line
from smtpuzzles.audit import audit
from smtpuzzles.puzzles import rogue

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts" / "examples" / "rogue"
sys.path.insert(0, str(EXAMPLES.parents[1]))
from gen_rogue import random_map  # noqa: E402

EXPECTED = json.loads((EXAMPLES / "expected.json").read_text())


def bfs_gold(text: str, merge_letters: bool = False) -> int:
    """Reference: breadth-first search over allowed steps. With merge_letters, equal letters are one
    monster (the mistake the rules forbid), to show the tests can tell the two readings apart."""
    rows = text.rstrip("\n").split("\n")
    width = max(map(len, rows))
    rows = [r.ljust(width) for r in rows]
    h = len(rows)
    monsters = {}
    for r in range(h):
        for c in range(width):
            ch = rows[r][c]
            if ch.isalpha() or ch in "*&":
                monsters[(r, c)] = ch if merge_letters else (r, c)

    def watchers(p):
        return {m for (mr, mc), m in monsters.items() if max(abs(mr - p[0]), abs(mc - p[1])) == 1}

    start = next((r, c) for r in range(h) for c in range(width) if rows[r][c] == "@")
    seen, queue = {start}, deque([start])
    while queue:
        p = queue.popleft()
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                q = (p[0] + dr, p[1] + dc)
                if (dr or dc) and 0 <= q[0] < h and 0 <= q[1] < width and q not in seen and rows[q[0]][q[1]] in ".$@ ":
                    if not (watchers(p) & watchers(q)):
                        seen.add(q)
                        queue.append(q)
    return sum(1 for (r, c) in seen if rows[r][c] == "$")


def seed_rows(rows: list[str]) -> list[str]:
    """A map as the specification prints it, without the column header and row labels of its
    cases 9 to 11 ("  12345678", "a @....g.D")."""
    if rows[0].strip().isdigit():
        return [row[2:] for row in rows[1:]]
    return rows


def test_examples_are_the_seed_maps():
    """The bundled examples are the specification's test cases, in order, with its answers."""
    cases = SEED_CASES["rogue"]
    assert sorted(EXPECTED) == [f"{i:02}.txt" for i in range(1, len(cases) + 1)]
    for name, case in zip(sorted(EXPECTED), cases):
        assert (EXAMPLES / name).read_text().rstrip("\n").split("\n") == seed_rows(case["rows"]), name
        assert EXPECTED[name] == case["answer"], name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_seed_maps(cli, name):
    result = cli.solve_json("rogue", EXAMPLES / name)
    assert result["status"] == "optimal"
    assert result["value"] == EXPECTED[name]
    dungeon = rogue.load((EXAMPLES / name).read_text(), name, {})
    assert rogue.referee(dungeon, result["solution"]) == []
    assert rogue.value(dungeon, result["solution"]) == EXPECTED[name] == bfs_gold((EXAMPLES / name).read_text())


def test_agrees_with_bfs_on_random_maps(cli):
    for seed in range(25):
        size = 4 + seed % 9
        text = random_map(size, size + seed % 4, seed, monsters=0.08, gold=0.15)
        path = cli.tmp_path / f"m{seed}.txt"
        path.write_text(text)
        result = cli.solve_json("rogue", path)
        assert result["status"] == "optimal"
        assert result["value"] == bfs_gold(text), text


def test_two_same_letter_monsters_are_two_monsters(cli):
    # Seed map 4 with its `h` renamed `g`: the zig-zag between the two still works.
    text = (EXAMPLES / "04.txt").read_text().replace("h", "g")
    assert bfs_gold(text, merge_letters=True) == 0  # the golfed reading would say 0
    result = cli.solve_json("rogue", "-", stdin=text)
    assert result["value"] == 1 == bfs_gold(text)


def test_walk_and_closed_set_are_checked(cli):
    text = (EXAMPLES / "08.txt").read_text()
    result = cli.solve_json("rogue", "-", stdin=text)
    dungeon = rogue.load(text, "map", {})
    solution = result["solution"]
    assert rogue.certify(dungeon, solution)[0]
    broken = dict(solution, closed=[p for p in solution["closed"] if p != solution["path"][1]])
    assert not rogue.certify(dungeon, broken)[0]
    assert rogue.referee(dungeon, broken)  # a set with a hole is not closed
    jump = dict(solution, path=[solution["path"][0], [5, 5]])
    assert rogue.referee(dungeon, jump) == ["step 1 from [0, 0] to [5, 5] is not a king move"]
    report = audit(Path(result["run_dir"]), resolve="certificate")
    assert report.ok
    assert any(f.section == "certificate" and f.ok for f in report.findings)


def test_short_rows_are_padded_with_empty_cells(cli):
    result = cli.solve_json("rogue", "-", stdin="@.\n..$\n")
    assert result["value"] == 1


@pytest.mark.parametrize("text,fragment", [
    ("@..\n.@.\n", "2 @"),
    ("...\n.$.\n", "no @"),
    ("@.%\n", "line 1 column 3: unknown symbol '%'"),
    ("@g.\n...\n", "the start is next to the monster 'g'"),
    ("", "empty"),
])
def test_bad_maps_exit_2_with_one_line(cli, text, fragment):
    code, out, err = cli("solve", "rogue", "-", "--out", cli.tmp_path / "runs", stdin=text)
    assert code == 2
    assert fragment in one_error_line(err)
