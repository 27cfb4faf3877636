"""Tatamibari: the seeds, solution counts, published puzzles, URLs, the referee, bad input."""

from __future__ import annotations

import json
import random
import sys
from itertools import product
from pathlib import Path

import pytest

from brute_tatamibari import rectangles as brute_rectangles
from brute_tatamibari import solutions as brute_solutions
from conftest import DATA, SEED_CASES, one_error_line
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.puzzles import tatamibari as T

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "smtpuzzles" / "examples" / "tatamibari"
sys.path.insert(0, str(ROOT / "scripts"))  # gen_tatamibari, the benchmark's generator
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


# ------------------------------------------------------------------ each encoding against the rules
def every_solution(board: T.Board, encoding: str, limit: int = 200) -> set[frozenset]:
    """Every solution of one encoding's formula, as sets of rectangles: solved again and again with
    each found solution blocked by the encoding's own blocking term, as `--count` does; each refereed."""
    from smtpuzzles.engines import make_engine

    enc = T.encode(board, encoding)
    engine = make_engine("sat", enc.formula, {"guide": False})
    found: list[dict] = []
    while len(found) <= limit:
        result = engine.check([enc.objective.block(s) for s in found], None)
        if result.status == "unsat":
            break
        assert result.status == "sat"
        solution = enc.decode(result.model)
        assert T.referee(board, solution) == [], (board.rows, solution)
        found.append(solution)
    rects = {brute_rectangles(s["regions"]) for s in found}
    assert len(rects) == len(found), "a blocked solution came back"
    return rects


def random_rows(rng, h: int, w: int, density: float) -> list[str]:
    return ["".join(rng.choice("+-|?") if rng.random() < density else "." for _ in range(w)) for _ in range(h)]


@pytest.mark.parametrize("encoding", T.ENCODINGS)
def test_every_encoding_lists_exactly_the_brute_force_solutions(encoding):
    """Random boards up to 5x5, sparse and dense, and the seed's small cases: the solutions each
    formula admits are the rules' (tests/brute_tatamibari.py), none missing, none extra; boards
    without a solution, with one and with several all occur."""
    rng = random.Random(11)
    boards = [SEED_CASES["tatamibari"][i]["puzzle"] for i in (0, 1, 2)] + ["++\n++".split(), ["-"], ["|", "."]]
    boards += [random_rows(rng, rng.randint(1, 5), rng.randint(1, 5), rng.choice((0.2, 0.35, 0.5))) for _ in range(90)]
    kinds = []
    for rows in boards:
        board = T.from_text("\n".join(rows))
        expected = set(brute_solutions(list(board.rows), 201))
        assert every_solution(board, encoding) == expected, rows
        kinds.append(min(len(expected), 2))
    assert min(kinds.count(0), kinds.count(1), kinds.count(2)) >= 8, kinds


def test_the_two_encodings_agree_on_a_generated_board():
    """A generated 8x8 with dozens of solutions: the same ones from both formulas, all the brute force's."""
    from gen_tatamibari import random_puzzle

    board = T.from_text(random_puzzle(8, 8, seed=1))
    expected = set(brute_solutions(list(board.rows)))
    assert 1 < len(expected) <= 200
    assert every_solution(board, "spans") == every_solution(board, "rectangles") == expected


def allowed_rectangles(rows: list[str]) -> set[tuple]:
    """Every rectangle holding exactly one clue, of that clue's shape, by looking at all of them."""
    h, w = len(rows), len(rows[0])
    fits = {"?": lambda a, b: True, "+": lambda a, b: a == b, "|": lambda a, b: a > b, "-": lambda a, b: a < b}
    out = set()
    for top, bottom, left, right in product(range(h), range(h), range(w), range(w)):
        clues = [rows[r][c] for r in range(top, bottom + 1) for c in range(left, right + 1) if rows[r][c] != "."]
        if len(clues) == 1 and fits[clues[0]](bottom - top + 1, right - left + 1):
            out.add((top, left, bottom, right))
    return out


def test_candidates_are_the_allowed_rectangles_and_hold_every_solution():
    """What both encodings start from, on random boards: the candidates are exactly the rectangles
    the rules allow (so leaving the others out loses no solution), every rectangle of every
    brute-force solution is among them, and the spans formula lets a clue's rectangle cover exactly
    the cells of its candidates. The limit check's sum of candidate cells is the candidates' own."""
    from smtpuzzles.formula import CNF

    rng = random.Random(5)
    for _ in range(60):
        rows = random_rows(rng, rng.randint(1, 6), rng.randint(1, 6), rng.choice((0.15, 0.3, 0.5)))
        board = T.from_text("\n".join(rows))
        candidates = T.rects_with_clue(board)
        assert {rect for rect, _ in candidates} == allowed_rectangles(list(board.rows)), rows
        used = {rect for solution in brute_solutions(list(board.rows)) for rect in solution}
        assert used <= {rect for rect, _ in candidates}, rows
        for clue, spans in T.clue_spans(board, CNF()).items():
            theirs = {(r, c) for (top, left, bottom, right), owner in candidates if owner == clue
                      for r in range(top, bottom + 1) for c in range(left, right + 1)}
            reach = {(r, c) for r, (first, last) in spans.reach.items() for c in range(first, last + 1)}
            assert reach == theirs, (rows, clue)
        cells = sum((b - t + 1) * (r - l + 1) for (t, l, b, r), _ in candidates)
        assert cells == sum(T.candidate_cells(clue, cc, bottom - top + 1, first, last) for cr, cc, clue in board.clues
                            for top, bottom, first, last in T.row_spans(board, cr, cc)), rows


@pytest.mark.parametrize("encoding", T.ENCODINGS)
def test_blocking_a_solution_ignores_region_ids_and_a_non_solution_blocks_nothing(encoding):
    from smtpuzzles.engines import make_engine

    case = SEED_CASES["tatamibari"][1]  # one solution
    board = T.from_text("\n".join(case["puzzle"]))
    enc = T.encode(board, encoding)
    engine = make_engine("sat", enc.formula, {"guide": False})
    relabelled = [[10 * int(ch) + 3 for ch in row] for row in case["solution"]]
    assert engine.check([enc.objective.block({"regions": relabelled})], None).status == "unsat"
    if encoding == "spans":  # the rectangles encoding has no variable for a rectangle no candidate is
        not_rectangles = [[1, 1, 2, 2], [1, 2, 2, 2], [3, 3, 2, 2], [3, 3, 4, 4]]
        no_clue = [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 2, 2], [6, 3, 4, 4]]  # region 6 holds no clue
        for other in (not_rectangles, no_clue):
            result = engine.check([enc.objective.block({"regions": other})], None)
            assert result.status == "sat" and T.same_solution(board, enc.decode(result.model), {"regions": case["solution"]})


def test_a_text_grid_may_put_spaces_between_its_cells():
    from smtpuzzles.errors import InputError
    from smtpuzzles.puzzles.tatamibari import parse as tatamibari_parse

    apart = tatamibari_parse.from_text("+ . -\n. | .\n? . .\n", "grid")
    assert apart == tatamibari_parse.from_text("+.-\n.|.\n?..\n", "grid")
    with pytest.raises(InputError, match=r"ragged grid"):
        tatamibari_parse.from_text("+ . -\n. |\n", "grid")
