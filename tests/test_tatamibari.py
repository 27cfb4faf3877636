"""Tatamibari: the seeds, solution counts, published puzzles, URLs, the referee, bad input."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from conftest import DATA, SEED_CASES, one_error_line
from smtpuzzles.auditor import audit
from smtpuzzles.puzzles import tatamibari as T

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples" / "tatamibari"
EXPECTED = json.loads((EXAMPLES / "expected.json").read_text())
URL_EXAMPLE = "https://puzz.link/p?tatamibari/5/5/m3g11i2g31h13g3g"


def test_examples_are_the_seed_puzzles():
    """The bundled examples are the specification's test cases, in order, with its solutions."""
    cases = SEED_CASES["tatamibari"]
    assert sorted(EXPECTED) == [f"{i:02}.txt" for i in range(1, len(cases) + 1)]
    for name, case in zip(sorted(EXPECTED), cases):
        assert (EXAMPLES / name).read_text().split() == case["puzzle"], name
        assert EXPECTED[name]["solution"] == case["solution"], name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_seed_puzzles_solve_and_count(cli, name):
    result = cli.solve_json("tatamibari", EXAMPLES / name, "--count")
    board = T.load((EXAMPLES / name).read_text(), name, {})
    assert result["status"] == "solved"
    assert T.referee(board, result["solution"]) == []
    assert result["count"] == EXPECTED[name]["count"] and result["count_complete"]
    if EXPECTED[name]["count"] == 1:  # a unique puzzle: the seed's solution, character for character
        assert result["value"] == EXPECTED[name]["solution"]
    report = audit(Path(result["run_dir"]))
    assert report.ok, [f.text for f in report.findings if not f.ok]


def brute_force_count(board: T.Board) -> int:
    """Reference count for tiny grids: every labelling of cells into rectangles, via the referee."""
    h, w = board.height, board.width
    found = set()

    def fill(grid, next_id):
        for r, c in product(range(h), range(w)):
            if grid[r][c] == 0:
                break
        else:
            if not T.referee(board, {"regions": grid}):
                found.add(tuple(map(tuple, T.renumber(grid))))
            return
        for bottom in range(r, h):
            for right in range(c, w):
                if any(grid[a][b] for a in range(r, bottom + 1) for b in range(c, right + 1)):
                    break
                new = [row[:] for row in grid]
                for a in range(r, bottom + 1):
                    for b in range(c, right + 1):
                        new[a][b] = next_id
                fill(new, next_id + 1)

    fill([[0] * w for _ in range(h)], 1)
    return len(found)


def test_counts_agree_with_brute_force_on_small_grids(cli):
    for name in ("01.txt", "02.txt"):
        board = T.load((EXAMPLES / name).read_text(), name, {})
        assert brute_force_count(board) == EXPECTED[name]["count"]
    for text in ("?*?\n*?*\n?*?\n", "?*?*\n**?*\n?**?\n", "?|\n*?\n-*\n"):
        board = T.from_text(text)
        result = cli.solve_json("tatamibari", "-", "--count", stdin=text)
        assert result["count"] == brute_force_count(board), text
        assert result["count_complete"]


def test_unique_and_not_unique(cli):
    result = cli.solve_json("tatamibari", EXAMPLES / "05.txt", "--unique")
    assert result["unique"] is True
    run_dir = Path(result["run_dir"])
    steps = [json.loads(l) for l in (run_dir / "steps.jsonl").read_text().splitlines()]
    assert steps[-1]["result"] == "unsat" and steps[-1]["claim"]["op"] == "block"
    assert audit(run_dir, resolve="certificate").ok
    result = cli.solve_json("tatamibari", EXAMPLES / "03.txt", "--unique")
    assert result["unique"] is False
    assert audit(Path(result["run_dir"])).ok


def test_published_puzzles_match_their_solutions(tmp_path):
    """Ten of the 150 published puzzles, shipped in tests/data (the benchmark runs them all):
    unique, and the published solution."""
    from smtpuzzles import run as runner

    puzzles = json.loads((DATA / "tatamibari_janko_sample.json").read_text())["puzzles"]
    assert len(puzzles) == 10
    for entry in puzzles:
        assert T.referee(T.from_text("\n".join(entry["puzzle"])), {"regions": entry["solution"]}) == []
        board = T.from_text("\n".join(entry["puzzle"]))
        outcome, _ = runner.solve(T, board, "", out_dir=tmp_path, mode="unique")
        assert outcome.extra["unique"] is True, entry["name"]
        assert T.renumber(outcome.solution["regions"]) == T.renumber(entry["solution"])


def test_url_round_trip(cli):
    board = T.from_url(URL_EXAMPLE)
    assert (board.width, board.height) == (5, 5)
    assert T.to_url(board) == URL_EXAMPLE
    assert T.to_url(T.from_text(T.to_text(board))) == URL_EXAMPLE
    code, out, _ = cli("convert", URL_EXAMPLE)
    assert code == 0 and T.from_text(out) == board
    grid = cli.tmp_path / "g.txt"
    grid.write_text(out)
    code, out2, _ = cli("convert", grid)
    assert out2.strip() == URL_EXAMPLE
    result = cli.solve_json("tatamibari", "-", stdin=URL_EXAMPLE)
    assert result["status"] == "solved" and T.referee(board, result["solution"]) == []


def test_unsolvable_puzzle_is_infeasible_with_a_recorded_step(cli):
    result = cli.solve_json("tatamibari", "-", stdin="++\n++\n")  # four 1x1 squares meet in the middle
    assert result["status"] == "infeasible"
    run_dir = Path(result["run_dir"])
    steps = [json.loads(l) for l in (run_dir / "steps.jsonl").read_text().splitlines()]
    assert steps == [s for s in steps if s["result"] == "unsat"] and len(steps) == 1
    assert audit(run_dir, resolve="certificate").ok


def test_referee_names_the_broken_rule():
    board = T.from_text("+*\n**\n")
    assert T.referee(board, {"regions": [[1, 1], [1, 1]]}) == []
    problems = T.referee(board, {"regions": [[1, 1], [2, 2]]})
    assert any("region 2 (r2c1 to r2c2) holds 0 clues" in p for p in problems)
    assert any("wrong for its '+' at r1c1" in p for p in problems)
    assert "region 2 (from r1c1) is not a rectangle" in T.referee(board, {"regions": [[1, 2], [2, 2]]})[0]
    board = T.from_text("-*\n**\n")
    assert "wrong for its '-'" in T.referee(board, {"regions": [[1, 1], [1, 1]]})[0]
    board = T.from_text("++\n++\n")
    assert T.referee(board, {"regions": [[1, 2], [3, 4]]}) == ["four regions meet at the corner below and right of r1c1"]


@pytest.mark.parametrize("text,fragment", [
    ("+*\n*\n", "line 2: 1 cells where the first row has 2 (ragged grid)"),
    ("+x\n**\n", "line 1 column 2: unknown symbol 'x'"),
    ("https://puzz.link/p?tatamibari/5/5/m3g11i2g3!", "not a puzz.link tatamibari URL"),
    ("https://puzz.link/p?tatamibari/2/2/3333333", "more than 2x2"),
])
def test_bad_input_exits_2_with_one_line(cli, text, fragment):
    code, out, err = cli("solve", "tatamibari", "-", "--out", cli.tmp_path / "runs", stdin=text)
    assert code == 2
    assert fragment in one_error_line(err)
