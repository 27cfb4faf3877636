"""Attacks on split checks and the symmetry lemma that the code resists, kept so they stay resisted:
a false optimum split into forged cubes, forged splits that leave a case out, odd cube fields, odd
cube depths in run.json and job files, foreign steps in a resumed split; the coverage check and the
lemma check judged against independent answers (a SAT solver, the board's geometry, brute force)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from pysat.solvers import Solver

from brute_kingtour import best_with_clues, clue_text, sudokus
from conftest import asking_closing_whole, one_error_line
from ledger_forge import forge_chain, read_ledger, write_gz_text
from smtpuzzles import run as runner
from smtpuzzles import symmetry
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.cubes import coverage_problem
from smtpuzzles.formula import smt2
from smtpuzzles.objective import claim_terms, describe
from smtpuzzles.puzzles import kingtour
from smtpuzzles.symmetry import Lemma

# Their splits are of the closing claim asked whole (conftest.closing_asked_whole).
pytestmark = pytest.mark.usefixtures("closing_asked_whole")

GRIDS_4x4 = list(sudokus(4, 2, 2))  # 288, with 2x2 boxes


def board_with(size: int, box: str, clues: dict) -> kingtour.Board:
    return kingtour.parse(size, box, clue_text(size, clues))


def brute(board: kingtour.Board) -> str:
    return "".join(map(str, best_with_clues(board.size, board.box_rows, board.box_cols, board.clues)))


@pytest.fixture(scope="module")
def split_4x4(tmp_path_factory) -> Path:
    """An empty 4x4 run with every check split by the tour's first cell (3 cubes under symmetry)."""
    out = tmp_path_factory.mktemp("split")
    with asking_closing_whole():
        _, ledger = runner.solve(kingtour, kingtour.parse(4, "2x2", None), "", out_dir=out, cubes=1, split_after=0)
    return ledger.dir


def copy_of(run_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(run_dir, target)
    return target


def cube_step(enc, claim: dict, cube: list[str], result: str = "unsat") -> dict:
    whole = {**claim, "cube": cube}
    return {"claim": whole, "words": describe(whole), "assumptions": [smt2(t) for t in claim_terms(enc.objective, whole)],
            "result": result, "by": "solver", "engine": "sat", "seconds": 0.01, "stats": {}}


# ------------------------------------------------------------------------------ forged optimum
def forge_split_optimum(run_dir: Path) -> str:
    """The run rewritten to claim its first solution optimal, refuted cube by cube with forged UNSAT
    answers, a by-cubes step, certificate and seal all consistent. Returns the forged number."""
    run, steps = read_ledger(run_dir)
    enc = kingtour.encode(kingtour.from_canonical(run["instance"]), run["encoding"]["name"])
    first = steps[0]
    claim = {"op": "lex_greater", "best": first["value"]}
    cubes = [cube_step(enc, claim, cube) for cube in enc.advice.cubes(1)]
    terms = claim_terms(enc.objective, claim)
    closing = {"claim": claim, "words": describe(claim), "assumptions": [smt2(t) for t in terms], "result": "unsat",
               "by": "cubes", "cubes": list(range(1, 1 + len(cubes))), "seconds": 0.0, "stats": {}}
    new = [first, *cubes, closing]
    sha = write_gz_text(run_dir / "certificate.smt2.gz", enc.formula.query(terms))
    shown = kingtour.value_text(first["value"])  # run.json and solution.json write the number as text
    run.update(value=shown, extra={"proved_digits": 16},
               certificate={"file": "certificate.smt2.gz", "claim": claim, "step": len(new) - 1, "sha256": sha})
    (run_dir / "solution.json").write_text(json.dumps({"value": shown, "solution": first["solution"]}))
    forge_chain(run_dir, run, new)
    return shown


def test_a_false_optimum_split_into_forged_cubes_fails_when_the_cubes_are_re_solved(split_4x4, tmp_path):
    run_dir = copy_of(split_4x4, tmp_path)
    forged = forge_split_optimum(run_dir)
    assert forged < brute(kingtour.parse(4, "2x2", None))  # the brute force beats the forged number
    assert audit(run_dir).verdict == "consistent"  # the UNSAT answers taken on trust, as documented
    report = audit(run_dir, resolve="certificate", solvers=("z3",))
    assert report.exit_code == 1 and report.verdict == "FAILED"
    assert any(f.section == "resolve" and f.ok is False and "answered sat" in f.text for f in report.findings)


def test_a_split_whose_cube_is_longer_than_the_case_it_stands_for_leaves_a_case_out(split_4x4, tmp_path):
    # Cube v0_0_0 replaced by v0_0_0 & v1_0_1, truly refuted: the starts at (0,0) going elsewhere
    # are left out, whatever the solvers say about the cubes that are listed.
    run_dir = copy_of(split_4x4, tmp_path)
    run, steps = read_ledger(run_dir)
    enc = kingtour.encode(kingtour.from_canonical(run["instance"]), run["encoding"]["name"])
    closing = steps[run["certificate"]["step"]]
    listed = next(i for i in closing["cubes"] if steps[i]["claim"]["cube"] == ["v0_0_0"])
    steps[listed] = cube_step(enc, closing["claim"], ["v0_0_0", "v1_0_1"])
    forge_chain(run_dir, run, steps)
    report = audit(run_dir)
    assert report.exit_code == 1
    assert any(f.section == "claims" and f.ok is False and "leave out a case" in f.text for f in report.findings)


@pytest.mark.parametrize("result,fragment", [("sat", "the model does not satisfy its claim"),
                                             ("unknown", "no UNSAT answer to one of its cubes")])
def test_a_split_listing_a_cube_that_was_not_refuted_fails(split_4x4, tmp_path, result, fragment):
    run_dir = copy_of(split_4x4, tmp_path)
    run, steps = read_ledger(run_dir)
    closing = steps[run["certificate"]["step"]]
    victim = steps[closing["cubes"][0]]
    victim["result"] = result
    if result == "sat":
        victim.update(solution=steps[0]["solution"], value=steps[0]["value"])
    forge_chain(run_dir, run, steps)
    report = audit(run_dir)
    assert report.exit_code == 1
    assert any(fragment in f.text for f in report.findings if f.ok is False)


# ------------------------------------------------------------------------------ odd cube fields
@pytest.mark.parametrize("cube,fragment", [([], "cube must hold 1..8 variable names"),
                                           ("v0_0_0", "cube must hold 1..8 variable names"),
                                           (["v0_0_0"] * 9, "cube must hold 1..8 variable names"),
                                           (["v0_0_0\u0660"], "cube must hold 1..8 variable names"),
                                           ([7], "cube must hold 1..8 variable names"),
                                           (["v9_9_9"], "no Boolean of this instance's formula")])
def test_odd_cube_fields_are_one_line_exit_2(split_4x4, tmp_path, cli, cube, fragment):
    run_dir = copy_of(split_4x4, tmp_path)
    run, steps = read_ledger(run_dir)
    target = next(s for s in steps if "cube" in s["claim"])
    target["claim"]["cube"] = cube
    forge_chain(run_dir, run, steps)
    code, _, err = cli("audit", run_dir)
    line = one_error_line(err)
    assert code == 2 and fragment in line and f"line {target['index'] + 1}" in line


# ------------------------------------------------------------------------------ resume
def interrupted_copy(run_dir: Path, tmp_path: Path, keep: int) -> tuple[Path, dict, list[dict]]:
    target = copy_of(run_dir, tmp_path)
    run, steps = read_ledger(target)
    for key in ("certificate", "extra"):
        run.pop(key, None)
    run["status"] = "interrupted"
    (target / "certificate.smt2.gz").unlink()
    return target, run, steps[:keep]


@pytest.mark.parametrize("depth", [3, -1, 10**30])
def test_a_run_json_cube_depth_no_solve_writes_is_refused_on_resume_in_one_line(split_4x4, tmp_path, cli, depth):
    run_dir, run, steps = interrupted_copy(split_4x4, tmp_path, 5)
    run["cubes"] = depth
    forge_chain(run_dir, run, steps)
    code, _, err = cli("solve", "kingtour", "--resume", run_dir)
    line = one_error_line(err)
    assert code == 2 and "cubes must be a depth of 1 or 2" in line and line.split(": ")[2].endswith("run.json")


def test_a_cube_step_of_another_claim_inside_a_split_is_refused_on_resume(split_4x4, tmp_path, cli):
    run_dir, run, steps = interrupted_copy(split_4x4, tmp_path, 10**6)
    # Inside the first split of a position (checks follow it), a cube of the closing claim.
    split = next(s for s in steps if s.get("by") == "cubes" and s["claim"]["op"] == "exceed")
    first_cube = split["cubes"][0]
    foreign = next(s for s in steps if "cube" in s["claim"] and s["claim"]["op"] == "lex_greater")
    forge_chain(run_dir, run, steps[: first_cube + 1] + [dict(foreign)])
    code, _, err = cli("solve", "kingtour", "--resume", run_dir)
    line = one_error_line(err)
    assert code == 2 and "cannot resume" in line and "left unfinished" in line


def test_a_resumed_split_with_a_cube_recorded_twice_gives_the_brute_force_number(split_4x4, tmp_path):
    run_dir, run, steps = interrupted_copy(split_4x4, tmp_path, 10**6)
    closing = next(s for s in steps if s.get("by") == "cubes" and s["claim"]["op"] == "lex_greater")
    first_cube = closing["cubes"][0]
    forge_chain(run_dir, run, steps[: first_cube + 1] + [dict(steps[first_cube])])
    outcome, ledger = runner.resume(run_dir)
    assert outcome.status == "optimal"
    assert kingtour.value_text(outcome.value) == brute(kingtour.parse(4, "2x2", None))
    assert audit(ledger.dir).verdict == "consistent"


def test_a_job_file_cube_depth_given_as_a_boolean_is_one_line(cli, tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "king"\npuzzle = "kingtour"\nsize = 4\ncubes = true\n')
    code, _, err = cli("batch", jobs, "--out", tmp_path / "out")
    assert code == 2 and "cubes must be an integer" in one_error_line(err)


# ------------------------------------------------------------------------------ independent judges
@pytest.mark.parametrize("encoding", ["onehot", "onehot-sym"])
def test_every_split_the_coverage_check_accepts_really_covers(encoding):
    """Random subsets and mutations of the puzzle's cubes: whenever coverage_problem accepts a set,
    a SAT solver finds no model of the formula outside every cube."""
    rng = random.Random(17)
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), encoding)
    full = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    cnf = enc.formula.cnf
    named = [n for n in cnf.names[1:] if not n.startswith("_")]
    pools = [enc.advice.cubes(1), enc.advice.cubes(2), full.advice.cubes(1), full.advice.cubes(2),
             enc.advice.cubes(1) + full.advice.cubes(2)]
    accepted = rejected = 0
    for _ in range(400):
        pool = rng.choice(pools)
        keep = rng.choice([0.9, 0.97, 1.0])
        cubes = [list(c) for c in pool if rng.random() < keep]
        for _ in range(rng.randrange(3)):
            i = rng.randrange(len(cubes))
            cubes[i] = rng.choice([cubes[i][::-1], cubes[i][:1], cubes[i] + [rng.choice(named)], cubes[i] * 2])
        if coverage_problem(cnf, cubes) is not None:
            rejected += 1
            continue
        accepted += 1
        with Solver(name="glucose4", bootstrap_with=cnf.clauses + [[-cnf.index[n] for n in c] for c in cubes]) as s:
            assert not s.solve(), cubes
    assert accepted >= 50 and rejected >= 50  # both answers were exercised


def square_maps(n: int) -> list:
    last = n - 1
    return [lambda r, c: (r, last - c), lambda r, c: (last - r, c), lambda r, c: (last - r, last - c),
            lambda r, c: (c, r), lambda r, c: (last - c, last - r), lambda r, c: (c, last - r),
            lambda r, c: (last - c, r)]


@pytest.mark.parametrize("size,box", [(4, "2x2"), (6, "2x3")])
def test_the_lemma_check_accepts_a_square_map_exactly_when_it_keeps_boxes_and_clues(size, box):
    rng = random.Random(size)
    rows, cols = map(int, box.split("x"))
    grids = [g for _, g in zip(range(20), sudokus(size, rows, cols))]
    for _ in range(6):
        grid = rng.choice(grids)
        cells = rng.sample([(r, c) for r in range(size) for c in range(size)], rng.choice([0, 1, 2]))
        clues = {x: grid[x[0]][x[1]] for x in cells}
        if cells:  # a mirrored clue too, so some symmetries survive
            y = rng.choice(square_maps(size))(*cells[0])
            clues[y] = grid[y[0]][y[1]]
        board = board_with(size, box, clues)
        enc = kingtour.encode(board, "onehot-sym")
        if enc.lemma is None:
            continue
        boxes = {frozenset(u) for u in board.units()[2 * size:]}
        for shape in square_maps(size):
            cell_map = {x: shape(*x) for x in board.cells}
            genuine = all(frozenset(cell_map[x] for x in b) in boxes for b in boxes) and \
                all(board.clues[r][c] == board.clues[a][b] for (r, c), (a, b) in cell_map.items())
            names = {}
            for (r, c), (a, b) in cell_map.items():
                if (r, c) != (a, b):
                    names.update({f"d{r}_{c}_{k}": f"d{a}_{b}_{k}" for k in range(1, size + 1)})
                    names.update({f"v{t}_{r}_{c}": f"v{t}_{a}_{b}" for t in range(size * size)})
            problems, _ = symmetry.check(enc.formula, enc.objective,
                                         Lemma((names,), enc.lemma.breaking, enc.lemma.covered, "one map"))
            assert (not any(p.startswith("generator") for p in problems)) == genuine, (clues, problems)


@pytest.mark.parametrize("seed", [4, 16, 17])
def test_split_runs_on_clued_boards_give_the_brute_force_optimum(tmp_path, seed):
    # Seeds whose brute-force optimum differs from the empty board's (found by a scan of 30 seeds).
    rng = random.Random(seed)
    grid = GRIDS_4x4[rng.randrange(288)]
    cells = rng.sample([(r, c) for r in range(4) for c in range(4)], rng.choice([0, 1, 2, 3]))
    board = board_with(4, "2x2", {x: grid[x[0]][x[1]] for x in cells})
    outcome, _ = runner.solve(kingtour, board, "", out_dir=tmp_path, cubes=2, split_after=0)
    assert outcome.status == "optimal" and kingtour.value_text(outcome.value) == brute(board)


# ---------------------------------------------------------------- attacks that once succeeded
def test_a_step_by_cubes_without_its_list_or_with_repeats_is_malformed(split_4x4, tmp_path, cli):
    for change in ({"drop": True}, {"repeat": True}):
        run_dir = copy_of(split_4x4, tmp_path / next(iter(change)))
        run, steps = read_ledger(run_dir)
        closing = steps[run["certificate"]["step"]]
        if "drop" in change:
            del closing["cubes"]
        else:
            closing["cubes"] = closing["cubes"] + closing["cubes"][:1] * 30000  # once cost the audit minutes
        forge_chain(run_dir, run, steps)
        code, _, err = cli("audit", run_dir)
        line = one_error_line(err)
        assert code == 2 and "a step by cubes must be unsat and list distinct earlier steps" in line
        assert f"steps.jsonl line {closing['index'] + 1}" in line


def test_a_whole_answer_forged_after_a_finished_split_stops_the_resume(split_4x4, tmp_path, cli):
    run_dir, run, steps = interrupted_copy(split_4x4, tmp_path, 10**6)
    split = next(s for s in steps if s.get("by") == "cubes" and s["claim"]["op"] == "exceed")
    sat_step = next(s for s in steps if s["result"] == "sat")
    forged = {**sat_step, "claim": split["claim"], "assumptions": split["assumptions"]}
    forge_chain(run_dir, run, steps[: split["index"]] + [forged])
    before = (run_dir / "steps.jsonl").read_bytes()
    code, _, err = cli("solve", "kingtour", "--resume", run_dir)
    line = one_error_line(err)
    assert code == 2 and "cannot resume" in line and "is not the step closing the split" in line
    assert (run_dir / "steps.jsonl").read_bytes() == before


def test_a_resume_may_not_change_the_depth_of_a_split_run(split_4x4, tmp_path, cli):
    run_dir, run, steps = interrupted_copy(split_4x4, tmp_path, 20)
    forge_chain(run_dir, run, steps)
    before = (run_dir / "run.json").read_bytes()
    code, _, err = cli("solve", "kingtour", "--resume", run_dir, "--cubes", 2)
    assert code == 2 and "split its checks at depth 1: resume it with --cubes 1" in one_error_line(err)
    assert (run_dir / "run.json").read_bytes() == before
    outcome, _ = runner.resume(run_dir)  # as recorded, it finishes
    assert outcome.status == "optimal"


def test_a_job_that_cannot_split_is_refused_when_the_file_is_read(cli, tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "kp"\npuzzle = "kingtour"\nsize = 4\nencoding = "posted"\nengine = "z3"\ncubes = 1\n')
    code, _, err = cli("batch", jobs, "--out", tmp_path / "out")
    assert code == 2 and "job kp" in one_error_line(err) and "cannot split its checks" in one_error_line(err)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("address", ["foo", "garbage://x"])
def test_a_malformed_scheduler_address_is_one_line(cli, address):
    code, _, err = cli("solve", "kingtour", "--size", 4, "--cubes", 1, "--scheduler", address)
    assert code == 2 and "Dask scheduler" in one_error_line(err)


def test_a_worker_with_another_encoder_refuses_to_answer(split_4x4):
    from smtpuzzles.cluster import solve_cube

    run, _ = read_ledger(split_4x4)
    job = {"puzzle": "kingtour", "instance": run["instance"], "encoding": "onehot-sym", "engine": "sat", "params": {},
           "base_sha256": "0" * 64}
    with pytest.raises(RuntimeError, match="writes another base formula"):
        solve_cube(job, {"op": "first", "cube": ["v0_0_0"]}, None, "no-such-event")
    job["base_sha256"] = run["base"]["sha256"]
    assert solve_cube(job, {"op": "first", "cube": ["v0_0_0"]}, None, "no-such-event")["status"] == "sat"


@pytest.mark.parametrize("change", ["foreign cube", "other assumptions"])
def test_a_recorded_cube_that_is_not_one_of_today_s_stops_the_resume_naming_both(split_4x4, tmp_path, cli, change):
    run_dir, run, steps = interrupted_copy(split_4x4, tmp_path, 10**6)
    first_cube = next(s for s in steps if "cube" in s["claim"] and s["claim"]["op"] == "exceed")
    forged = dict(first_cube)
    if change == "foreign cube":  # (3, 3) is no start under the symmetry breaking: not one of the 3 cubes
        forged["claim"] = {**first_cube["claim"], "cube": ["v0_3_3"]}
        forged["assumptions"] = first_cube["assumptions"][:-1] + ["v0_3_3"]
    else:
        forged["assumptions"] = first_cube["assumptions"][:-1] + ["v0_3_3"]
    forge_chain(run_dir, run, steps[: first_cube["index"]] + [forged])
    code, _, err = cli("solve", "kingtour", "--resume", run_dir)
    line = one_error_line(err)
    assert code == 2 and f"cannot resume: step {first_cube['index']} asked" in line
    assert "not one of today's cubes for 'with prefix" in line
