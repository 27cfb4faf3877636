"""The kings puzzle through smtpuzzles' own commands, its referee rule by rule, and every answer
against an exhaustive search that shares no code with the encoder.

Needs the puzzle registered: `pip install ./examples/plugin` (the main suite's
tests/test_plugin_example.py runs these tests from a checkout by putting the package and its
entry point on the path instead).
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

import smtpuzzles_kings as kings
from smtpuzzles.cli import main

HERE = Path(__file__).resolve().parents[1]
EXAMPLES = HERE / "src" / "smtpuzzles_kings" / "examples"
BOARDS = sorted(EXAMPLES.glob("*.txt"))


# ------------------------------------------------------------------------------- exhaustive search
def attacks(a, b, height, width, torus) -> bool:
    dr, dc = abs(a[0] - b[0]), abs(a[1] - b[1])
    if torus:
        dr, dc = min(dr, height - dr), min(dc, width - dc)
    return a != b and dr <= 1 and dc <= 1


def most_kings_by_subsets(rows: list[str], torus: bool = False) -> int:
    """Every subset of free cells, largest first: for boards of up to about 16 free cells."""
    free = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "."]
    h, w = len(rows), len(rows[0])
    for size in range(len(free), 0, -1):
        for chosen in combinations(free, size):
            if not any(attacks(a, b, h, w, torus) for a, b in combinations(chosen, 2)):
                return size
    return 0


def most_kings_by_rows(rows: list[str], torus: bool = False) -> int:
    """Row by row over every placement of a row (bit masks), for boards up to 10 wide: a row's
    kings are never side by side, and a row's and the next row's never touch."""
    h, w = len(rows), len(rows[0])

    def row_ok(mask: int, row: str) -> bool:
        if any(mask >> c & 1 and row[c] == "#" for c in range(w)) or mask & (mask << 1):
            return False
        return not (torus and w > 2 and mask & 1 and mask >> (w - 1) & 1)

    def spread(mask: int) -> int:
        out = mask | mask << 1 | mask >> 1
        if torus and w > 2:
            out |= (mask & 1) << (w - 1) | mask >> (w - 1)
        return out & ((1 << w) - 1)

    masks = [[m for m in range(1 << w) if row_ok(m, row)] for row in rows]
    best = 0
    firsts = masks[0] if torus and h > 2 else [None]
    for first in firsts:  # on a torus the first row also touches the last: fix it
        level = {m: bin(m).count("1") for m in (masks[0] if first is None else [first])}
        for r in range(1, h):
            nxt: dict[int, int] = {}
            for m in masks[r]:
                scores = [s for p, s in level.items() if not m & spread(p)]
                if scores:
                    nxt[m] = max(scores) + bin(m).count("1")
            level = nxt
        if first is not None:
            level = {m: s for m, s in level.items() if not m & spread(first)}
        best = max([best, *level.values()])
    return best


def rows_of(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def test_the_two_searches_agree_on_small_boards():
    """The row search, checked against plain subsets where those are affordable."""
    boards = [rows_of(BOARDS[0]), rows_of(BOARDS[1]), ["..#", "...", "#.."], ["....", "....", "....", "...."]]
    for rows in boards:
        for torus in (False, True):
            assert most_kings_by_rows(rows, torus) == most_kings_by_subsets(rows, torus), (rows, torus)
    assert most_kings_by_subsets(["...", "...", "..."]) == 4 and most_kings_by_subsets(["...", "...", "..."], True) == 1


# ------------------------------------------------------------------------------ solve, audit, show
def solve(tmp_path: Path, capsys, *args) -> dict:
    code = main(["solve", "kings", *map(str, args), "--json", "--out", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("path", BOARDS, ids=lambda p: p.name)
def test_every_bundled_board_is_solved_optimally_and_audits_clean(tmp_path, capsys, path):
    result = solve(tmp_path, capsys, path)
    board = kings.load(path.read_text(), path.name, {})
    assert result["status"] == "optimal" and result["value"] == most_kings_by_rows(rows_of(path))
    assert kings.referee(board, result["solution"]) == []
    code = main(["audit", result["run_dir"], "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["verdict"] in ("clean", "consistent") and report["value"] == result["value"]


@pytest.mark.parametrize("path", BOARDS[:3], ids=lambda p: p.name)
def test_tori_are_solved_optimally(tmp_path, capsys, path):
    result = solve(tmp_path, capsys, path, "--torus")
    assert result["status"] == "optimal" and result["value"] == most_kings_by_rows(rows_of(path), torus=True)
    assert kings.referee(kings.load(path.read_text(), path.name, {"torus": True}), result["solution"]) == []


def test_show_draws_the_kings_and_export_writes_each_board(tmp_path, capsys):
    result = solve(tmp_path, capsys, BOARDS[0])
    assert main(["show", result["run_dir"]]) == 0
    assert capsys.readouterr().out.count("K ") == 4
    assert main(["export", "--puzzle", "kings", "--out", str(tmp_path / "enc")]) == 0
    written = sorted(p.name for p in (tmp_path / "enc" / "kings").iterdir())
    assert written == [p.stem + ".smt2" for p in BOARDS]


def test_the_job_file_runs_every_job(tmp_path, capsys):
    code = main(["batch", str(HERE / "jobs.toml"), "--out", str(tmp_path / "out")])
    capsys.readouterr()
    rows = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert code == 0 and all(r["status"] == "optimal" for r in rows)
    values = {r["job"]: r["value"] for r in rows}
    for path in BOARDS:
        assert values[f"kings-{path.stem}"] == most_kings_by_rows(rows_of(path))
    for path in BOARDS[:3]:
        assert values[f"kings-torus-{path.stem}"] == most_kings_by_rows(rows_of(path), torus=True)
    assert values["kings-inline"] == most_kings_by_rows([".#.#.", ".....", "#...#"])


# ------------------------------------------------------------------------------- the referee
BOARD = kings.load("....\n.#..\n....\n", "board", {})
GOOD = [[0, 0], [0, 2], [2, 0], [2, 2]]


def test_a_good_placement_passes():
    assert kings.referee(BOARD, {"kings": GOOD}) == [] and kings.value(BOARD, {"kings": GOOD}) == 4


@pytest.mark.parametrize("kings_placed,fragment", [
    (GOOD + [[1, 1]], "stands on a hole"),
    (GOOD + [[3, 0]], "off the 3x4 board"),
    (GOOD + [[0, -1]], "off the 3x4 board"),
    (GOOD + [[0, 0]], "kings 1 and 5 both stand on r1c1"),
    ([[0, 0], [0, 1]], "kings 1 at r1c1 and 2 at r1c2 attack each other"),
    ([[0, 0], [1, 0]], "kings 1 at r1c1 and 2 at r2c1 attack each other"),
    ([[0, 2], [1, 3]], "attack each other"),
    ([[0, 0], ["1", 3]], "not a [row, column] pair"),
    ([[0, 0], [True, 3]], "not a [row, column] pair"),
    ([[0, 0], [2]], "not a [row, column] pair"),
])
def test_each_broken_rule_is_named_once(kings_placed, fragment):
    problems = kings.referee(BOARD, {"kings": kings_placed})
    assert len(problems) == 1 and fragment in problems[0], problems


def test_a_torus_joins_the_edges():
    torus = kings.load("....\n.#..\n....\n", "board", {"torus": True})
    assert kings.referee(torus, {"kings": [[0, 0], [0, 2]]}) == []
    problems = kings.referee(torus, {"kings": [[0, 0], [0, 3]]})
    assert len(problems) == 1 and "attack each other" in problems[0]
    problems = kings.referee(torus, {"kings": [[0, 0], [2, 1]]})  # rows 1 and 3 touch, diagonally
    assert len(problems) == 1 and "attack each other" in problems[0]


def test_a_solution_without_a_list_of_kings_is_refused():
    assert kings.referee(BOARD, {"queens": []}) == ["the solution has no list of kings"]


# ------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("text,fragment", [
    ("..\n.x\n", "line 2 column 2: unknown symbol 'x'"),
    ("...\n..\n", "line 2: 2 cells where the first row has 3"),
    ("\n\n", "the board is empty"),
    (("." * 41 + "\n") * 40, "more than the 1600 accepted"),
])
def test_bad_boards_are_one_line_exit_2(tmp_path, capsys, text, fragment):
    path = tmp_path / "board.txt"
    path.write_text(text)
    code = main(["solve", "kings", str(path), "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and fragment in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


# ----------------------------------------------------------------- the contract's brute_force hook
def test_the_brute_force_hook_finds_the_subset_search_optimum():
    import random

    rng = random.Random(3)
    for _ in range(20):
        rows = ["".join(rng.choice("..#") for _ in range(4)) for _ in range(3)]
        if "." not in "".join(rows):
            continue
        found = kings.brute_force(kings.load("\n".join(rows), "board", {}), 10_000)
        assert max(len(s["kings"]) for s in found) == most_kings_by_subsets(rows)


def test_the_solver_agrees_with_the_brute_force_on_small_boards(tmp_path):
    import random

    from smtpuzzles.auditing.crosscheck import cross_check

    rng = random.Random(5)
    for _ in range(6):
        rows = ["".join(rng.choice("...#") for _ in range(4)) for _ in range(4)]
        board = kings.load("\n".join(rows), "board", {"torus": rng.random() < 0.5})
        check = cross_check(kings, board, workdir=tmp_path)
        assert check.checked and check.ok, (rows, check.problems)
