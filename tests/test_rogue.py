"""Roguelike pathfinding: the seeds, a BFS reference, distinct monsters, certificates, bad maps."""

from __future__ import annotations

import gzip
import json
import sys
import tempfile
from collections import deque
from pathlib import Path

import pytest
from hypothesis import settings, given, strategies as st

from conftest import SEED_CASES, one_error_line
from ledger_forge import forge_chain, read_ledger, write_gz_text
from smtpuzzles import run as runner
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.puzzles import rogue

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples" / "rogue"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # gen_rogue, the benchmark's generator
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

    def watchers(p):  # the monsters on the eight cells around p
        return {monsters[q] for q in ((p[0] + dr, p[1] + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
                if q in monsters}

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


@pytest.mark.parametrize("encoding", rogue.ENCODINGS)
def test_agrees_with_bfs_on_random_maps(cli, encoding):
    for seed in range(25):
        size = 4 + seed % 9
        text = random_map(size, size + seed % 4, seed, monsters=0.08, gold=0.15)
        path = cli.tmp_path / f"m{seed}.txt"
        path.write_text(text)
        result = cli.solve_json("rogue", path, "--encoding", encoding)
        assert result["status"] == "optimal"
        assert result["value"] == bfs_gold(text), text


@pytest.mark.parametrize("encoding", ["reach", "regions", "flow"])
def test_reach_is_the_default_and_every_encoding_solves_and_audits(cli, encoding):
    """Old runs name regions or flow: they still solve the seed maps, and each run audits clean with
    the UNSAT step re-solved by z3 and cvc5 and the closed set checked."""
    assert rogue.ENCODINGS[0] == "reach"
    for name in ("04.txt", "08.txt", "11.txt"):
        result = cli.solve_json("rogue", EXAMPLES / name, "--encoding", encoding)
        assert result["status"] == "optimal" and result["value"] == EXPECTED[name]
        # the cell lists flow's runs always had; the compact forms of the others
        assert set(result["solution"]) == ({"path", "closed"} if encoding == "flow" else {"moves", "closed_rows"})
    report = audit(Path(result["run_dir"]), resolve="certificate")
    assert report.ok and report.verdict == "clean"
    assert [f.ok for f in report.findings if f.section in ("drift", "resolve", "certificate")] == [True] * 3


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 14), st.integers(1, 14), st.integers(0, 10**6), st.floats(0, 0.5), st.floats(0, 0.3))
def test_regions_agrees_with_bfs_on_generated_maps(height, width, seed, walls, monsters):
    text = random_map(height, width, seed, walls=walls, monsters=monsters, gold=0.2)
    dungeon = rogue.load(text, "map", {})
    with tempfile.TemporaryDirectory() as tmp:
        outcome, _ = runner.solve(rogue, dungeon, text, out_dir=Path(tmp), encoding="regions")
    assert outcome.status == "optimal" and outcome.value == bfs_gold(text), text
    assert rogue.referee(dungeon, outcome.solution) == [] and rogue.certificate(dungeon, outcome.solution)[0]


def test_300_by_300_agrees_with_bfs(tmp_path):
    rogue_map = random_map(300, 300, 1)
    dungeon = rogue.load(rogue_map, "map", {})
    outcome, _ = runner.solve(rogue, dungeon, rogue_map, out_dir=tmp_path)
    assert outcome.status == "optimal" and outcome.value == bfs_gold(rogue_map) > 1000
    assert rogue.certificate(dungeon, outcome.solution)[0]


def forge_base(run_dir: Path, edit) -> None:
    """Rewrite the base formula and the certificate's query with `edit`, with every hash renewed
    and the chain resealed, as a careful forger would."""
    run, steps = read_ledger(run_dir)
    for key, name in (("base", "base.smt2.gz"), ("certificate", "certificate.smt2.gz")):
        text = edit(gzip.decompress((run_dir / name).read_bytes()).decode())
        run[key]["sha256"] = write_gz_text(run_dir / name, text)
    forge_chain(run_dir, run, steps)


def test_a_contraction_that_frees_a_region_is_refused(cli):
    """Seed map 8: two gold sit in regions of their own. A formula that no longer says they are
    out of reach would let a model take them; the audit rebuilds the contraction from the map and
    refuses the forged formula and query."""
    result = cli.solve_json("rogue", EXAMPLES / "08.txt", "--encoding", "regions")
    run_dir = Path(result["run_dir"])
    base = gzip.decompress((run_dir / "base.smt2.gz").read_bytes()).decode()
    assert "(assert (not R0_5))" in base and "(assert (not R5_5))" in base
    assert audit(run_dir, resolve="certificate").ok
    forge_base(run_dir, lambda text: text.replace("(assert (not R0_5))\n", ""))
    report = audit(run_dir)
    assert not report.ok
    failed = [(f.section, f.text) for f in report.findings if f.ok is False]
    assert ("drift", "encoding drift: today's encoder writes a different base formula") in failed
    assert any(section == "claims" and "certificate.smt2.gz" in text for section, text in failed), failed


def test_reach_states_the_gold_the_search_found_and_a_forged_count_is_refused(cli):
    """The reach formula is the map contracted to @'s closed set: its gold G, stated as a number.
    A forger who raises G in the formula and its query (to claim more) is refused by the drift
    check, which runs the search again from the recorded map."""
    result = cli.solve_json("rogue", EXAMPLES / "08.txt")
    run_dir = Path(result["run_dir"])
    assert result["value"] == 3
    query = gzip.decompress((run_dir / "certificate.smt2.gz").read_bytes()).decode()
    assert "(assert (>= (ite home 3 0) 4))" in query
    assert audit(run_dir, resolve="certificate").ok
    forge_base(run_dir, lambda text: text.replace("(ite home 3 0)", "(ite home 4 0)").replace("3 gold", "4 gold"))
    report = audit(run_dir)
    failed = [(f.section, f.text) for f in report.findings if f.ok is False]
    assert not report.ok and ("drift", "encoding drift: today's encoder writes a different base formula") in failed


def forge_solution(run_dir: Path, edit) -> None:
    """Rewrite the solution in solution.json and in the step that found it, the chain resealed."""
    run, steps = read_ledger(run_dir)
    saved = json.loads((run_dir / "solution.json").read_text())
    saved["solution"] = edit(saved["solution"])
    for step in steps:
        if "solution" in step:
            step["solution"] = edit(step["solution"])
    (run_dir / "solution.json").write_text(json.dumps(saved))
    forge_chain(run_dir, run, steps)


def test_a_forged_closed_set_is_refused(cli):
    """The certificate is checked by the referee: a set with a hole (a reachable cell left out) or
    one holding gold the walk leaves behind fails the audit, however carefully resealed."""
    text = (EXAMPLES / "08.txt").read_text()
    result = cli.solve_json("rogue", "-", stdin=text)
    run_dir = Path(result["run_dir"])
    assert audit(run_dir).ok

    def hole(solution):  # (1, 0), the gold below @, left out
        rows = list(solution["closed_rows"])
        rows[1] = "0" + rows[1][1:]
        return dict(solution, closed_rows=rows)

    forge_solution(run_dir, hole)
    report = audit(run_dir)
    failed = [(f.section, f.text) for f in report.findings if f.ok is False]
    assert not report.ok and any(section == "models" and "the closed set is not closed: [0, 0] steps to [1, 0]" in words
                                 for section, words in failed), failed

    again = cli.solve_json("rogue", "-", stdin=text)
    run_dir = Path(again["run_dir"])
    forge_solution(run_dir, lambda solution: dict(solution, moves=solution["moves"][:1]))  # only the first gold
    report = audit(run_dir)
    failed = [(f.section, f.text) for f in report.findings if f.ok is False]
    assert not report.ok and ("certificate", "solver-free certificate: the closed set holds 3 gold but the walk takes 1") \
        in failed, failed


def test_two_same_letter_monsters_are_two_monsters(cli):
    # Seed map 4 with its `h` renamed `g`: the zig-zag between the two still works.
    text = (EXAMPLES / "04.txt").read_text().replace("h", "g")
    assert bfs_gold(text, merge_letters=True) == 0  # the golfed reading would say 0
    result = cli.solve_json("rogue", "-", stdin=text)
    assert result["value"] == 1 == bfs_gold(text)


@pytest.mark.parametrize("encoding", rogue.ENCODINGS)
def test_walk_and_closed_set_are_checked(cli, encoding):
    text = (EXAMPLES / "08.txt").read_text()
    result = cli.solve_json("rogue", "-", "--encoding", encoding, stdin=text)
    dungeon = rogue.load(text, "map", {})
    solution = result["solution"]
    assert rogue.certificate(dungeon, solution)[0]
    # The walk's first step, (1, 0) in seed map 8 (a wall right of @): a hole in the closed set there.
    if encoding == "flow":
        assert solution["path"][1] == [1, 0]
        broken = dict(solution, closed=[p for p in solution["closed"] if p != [1, 0]])
    else:
        assert solution["moves"][0] == "2" and solution["closed_rows"][1][0] == "1"
        broken = dict(solution, closed_rows=[solution["closed_rows"][0], "0" + solution["closed_rows"][1][1:]]
                      + solution["closed_rows"][2:])
    assert rogue.certificate(dungeon, broken) == (False, "the closed set is not closed: [0, 0] steps to [1, 0] outside it")
    assert rogue.referee(dungeon, broken) == ["the closed set is not closed: [0, 0] steps to [1, 0] outside it"]
    jump = {"path": [[0, 0], [5, 5]]}
    assert rogue.referee(dungeon, jump) == ["step 1 from [0, 0] to [5, 5] is not a king move"]
    report = audit(Path(result["run_dir"]), resolve="certificate")
    assert report.ok
    assert any(f.section == "certificate" and f.ok for f in report.findings)


# Seed map 8 (0-based): @ at (0, 0), a wall at (0, 1), gold at (1, 0), (3, 2) and (4, 4).
COMPACT_BROKEN = [
    ("both walks", {"path": [[0, 0]], "moves": ""}, "the solution has both a path and moves (one walk, in either form)"),
    ("moves not a string", {"moves": [2]}, "the moves are not a string of numpad keys"),
    ("a 5 among the moves", {"moves": "235"}, "move 3 is '5', not a numpad key (1-4, 6-9)"),
    ("onto the wall", {"moves": "6"}, "step 1 enters [0, 1], which is not an empty or gold cell"),
    ("off the map", {"moves": "8"}, "step 1 enters [-1, 0], which is not an empty or gold cell"),
    ("next to e twice", {"moves": "23"}, "step 2 from [1, 0] to [2, 1] stays next to the monster at [2, 0] for two turns"),
    ("both sets", {"moves": "", "closed": [[0, 0]], "closed_rows": ["1"]},
     "the solution has both closed and closed_rows (one closed set, in either form)"),
    ("rows not a list", {"moves": "", "closed_rows": "1"}, "closed_rows is not a list of 6 rows"),
    ("a short row", {"moves": "", "closed_rows": ["10000"] + ["000000"] * 5}, "closed_rows row 0 is not 6 characters 0 or 1"),
    ("an x in a row", {"moves": "", "closed_rows": ["100000", "x00000"] + ["000000"] * 4},
     "closed_rows row 1 is not 6 characters 0 or 1"),
    ("without @", {"moves": "", "closed_rows": ["000000"] * 6}, "the closed set does not hold @"),
    ("with the wall", {"moves": "", "closed_rows": ["110000"] + ["000000"] * 5},
     "the closed set holds [0, 1], which is not walkable"),
]


@pytest.mark.parametrize("rule,solution,expected", COMPACT_BROKEN, ids=[row[0] for row in COMPACT_BROKEN])
def test_compact_walks_and_sets_break_the_rules_in_words(rule, solution, expected):
    dungeon = rogue.load((EXAMPLES / "08.txt").read_text(), "map", {})
    assert rogue.referee(dungeon, solution) == [expected]


def test_compact_and_cell_list_forms_say_the_same():
    """Seed map 8: the same walk and set in both forms, the value and certificate agree. By hand:
    besides walls and monsters, (0, 5), (5, 0) and (5, 5) have no allowed step at all, and every
    step into (3, 0) starts next to e as well; the other 21 cells are reachable."""
    dungeon = rogue.load((EXAMPLES / "08.txt").read_text(), "map", {})
    walls_and_monsters = {(0, 1), (0, 3), (0, 4), (1, 4), (1, 5), (2, 0), (4, 0), (4, 1), (4, 5), (5, 1), (5, 4)}
    reach = {(r, c) for r in range(6) for c in range(6)} - walls_and_monsters - {(0, 5), (5, 0), (5, 5), (3, 0)}
    rows = ["".join("1" if (r, c) in reach else "0" for c in range(6)) for r in range(6)]
    # @ (0,0) down to the gold at (1,0), back up, diagonally to (2,2), down to the gold at (3,2),
    # right and diagonally to the gold at (4,4).
    path = [[0, 0], [1, 0], [0, 0], [1, 1], [2, 2], [3, 2], [3, 3], [4, 4]]
    compact = {"moves": "2833263", "closed_rows": rows}
    listed = {"path": path, "closed": sorted(map(list, reach))}
    assert rogue.walk_of(dungeon, compact)[0] == [tuple(p) for p in path]
    assert rogue.referee(dungeon, compact) == rogue.referee(dungeon, listed) == []
    assert rogue.value(dungeon, compact) == rogue.value(dungeon, listed) == 3 == EXPECTED["08.txt"]
    assert rogue.certificate(dungeon, compact) == rogue.certificate(dungeon, listed) == (
        True, "a set of 21 cells closed under allowed steps holds exactly the 3 gold taken")


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
