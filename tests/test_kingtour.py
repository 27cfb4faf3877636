"""King's-tour Sudoku: answers against brute force and the seed, engines and encodings agreeing."""

from __future__ import annotations

import json

import pytest

from brute_kingtour import best_overall
from conftest import SEED_CASES, kingtour_encoding_with, one_error_line
from smtpuzzles.puzzles import kingtour

SEED_6x6_PREFIX = SEED_CASES["kingtour"]["best_prefix_6x6"]  # the seed's optimal first digits, 6x6, 2x3 boxes


def test_4x4_matches_brute_force(cli):
    expected = "".join(map(str, best_overall(4, 2, 2)))
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2")
    assert result["status"] == "optimal"
    assert result["value"] == expected
    board = kingtour.parse(4, "2x2", None)
    assert kingtour.referee(board, result["solution"]) == []
    assert kingtour.value_text(kingtour.value(board, result["solution"])) == expected


@pytest.mark.parametrize("engine,encoding", [("z3", "onehot"), ("z3", "posted"), ("sat", "onehot")])
def test_engines_and_encodings_agree_on_4x4(cli, engine, encoding):
    expected = "".join(map(str, best_overall(4, 2, 2)))
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--engine", engine, "--encoding", encoding)
    assert (result["status"], result["value"]) == ("optimal", expected)


def test_6x6_proved_audited_and_engines_agree(cli, audited_6x6):
    """The sat engine's run is the session's 6x6 run (sat is the default engine), audited with
    `audit RUN --resolve --json` once for the session (conftest.audited_6x6)."""
    by_sat = audited_6x6.result
    assert json.loads((audited_6x6.run_dir / "run.json").read_text())["engine"]["name"] == "sat"
    by_z3 = cli.solve_json("kingtour", "--size", 6, "--box", "2x3", "--engine", "z3")
    assert by_sat["status"] == by_z3["status"] == "optimal"
    assert by_sat["value"] == by_z3["value"]
    assert by_sat["value"].startswith(SEED_6x6_PREFIX)
    code, out, err = audited_6x6.audit
    report = json.loads(out)
    assert code == 0 and report["ok"], report
    assert {(r["solver"], r["answer"]) for r in report["resolved"]} == {("z3", "unsat"), ("cvc5", "unsat")}


def test_posted_encoding_agrees_on_6x6_optimum(solved_6x6):
    """The posted encoding accepts the one-hot optimum and refutes anything larger at its first
    free positions (a full posted proof of 6x6 takes minutes: scripts/bench_kingtour.py runs it).
    It is asked to accept the one-hot run's own answer, its tour given as assumptions: that answer
    is then a model of the posted formula with the optimum's digits (so some model has them). Left
    to find a tour with those 36 digits itself, z3 took 20 to 60 s of the suite's time."""
    from smtpuzzles.engines import make_engine
    from smtpuzzles.formula import raw
    from smtpuzzles.objective import claim_terms

    onehot = solved_6x6.result  # `solve kingtour --size 6 --box 2x3`, once for the session (conftest)
    best, tour = onehot["value"], onehot["solution"]["tour"]
    vector = [int(ch) for ch in best]
    board = kingtour.parse(6, "2x3", None)
    enc = kingtour.encode(board, "posted")
    engine = make_engine("z3", enc.formula)
    whole = claim_terms(enc.objective, {"op": "exceed", "prefix": vector[:-1], "pos": 35, "than": vector[35] - 1})
    that_tour = [raw(f"(= tour{r}_{c} {step - 1})") for r, row in enumerate(tour) for c, step in enumerate(row)]
    result = engine.check(whole + that_tour, None)
    assert result.status == "sat"
    answer = enc.decode(result.model)
    assert answer["tour"] == tour and kingtour.referee(board, answer) == []
    assert kingtour.value(board, answer) == vector
    for pos in (3, 4):
        claim = {"op": "exceed", "prefix": vector[:pos], "pos": pos, "than": vector[pos]}
        assert engine.check(claim_terms(enc.objective, claim), None).status == "unsat"


def test_referee_names_the_broken_rule():
    board = kingtour.parse(4, "2x2", None)
    grid = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 1]]
    snake = [[1, 2, 3, 4], [8, 7, 6, 5], [9, 10, 11, 12], [16, 15, 14, 13]]
    assert kingtour.referee(board, {"grid": grid, "tour": snake}) == []
    bad_grid = [row[:] for row in grid]
    bad_grid[0][0] = 2
    assert any("digit 2 twice" in p for p in kingtour.referee(board, {"grid": bad_grid, "tour": snake}))
    jump = [row[:] for row in snake]
    jump[0][0], jump[3][3] = 13, 1
    assert any("not a king move" in p for p in kingtour.referee(board, {"grid": grid, "tour": jump}))


def test_contradicting_clues_are_infeasible_with_a_recorded_proof(cli, tmp_path):
    clues = tmp_path / "clues.txt"
    clues.write_text("11..\n....\n....\n....\n")
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--clues", clues)
    assert result["status"] == "infeasible" and result["solution"] is None
    code, out, _ = cli("audit", result["run_dir"], "--json")
    assert code == 0 and json.loads(out)["ok"]


def test_clues_are_respected(cli, tmp_path):
    clues = tmp_path / "clues.txt"
    clues.write_text("1...\n....\n....\n...1\n")
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--clues", clues)
    assert result["status"] == "optimal"
    assert result["solution"]["grid"][0][0] == 1 and result["solution"]["grid"][3][3] == 1
    free = best_overall(4, 2, 2)
    assert [int(c) for c in result["value"]] <= free


@pytest.mark.parametrize("args,fragment", [
    (["--size", 6, "--box", "3x3"], "3x3 boxes do not tile a 6x6 grid"),
    (["--size", 6, "--box", "2by3"], "not of the form RxC"),
    (["--size", 4, "--box", "2x2", "--clues", "missing.txt"], "missing.txt: no such file"),
])
def test_bad_shapes_exit_2_with_one_line(cli, args, fragment):
    code, out, err = cli("solve", "kingtour", *args, "--out", cli.tmp_path / "runs")
    assert code == 2
    assert fragment in one_error_line(err)


@pytest.mark.parametrize("text,fragment", [
    ("12..\n....\n...\n....\n", "line 3: 3 cells, expected 4"),
    ("1x..\n....\n....\n....\n", "line 1 column 2: unknown symbol 'x'"),
    ("15..\n....\n....\n....\n", "unknown symbol '5'"),
])
def test_bad_clue_grids_exit_2_with_one_line(cli, tmp_path, text, fragment):
    clues = tmp_path / "c.txt"
    clues.write_text(text)
    code, _, err = cli("solve", "kingtour", "--size", 4, "--box", "2x2", "--clues", clues, "--out", tmp_path / "runs")
    assert code == 2 and fragment in one_error_line(err)
    assert not (tmp_path / "runs").exists()  # nothing was recorded for bad input


def test_default_box_is_the_squarest():
    assert kingtour.default_box(6) == (2, 3)
    assert kingtour.default_box(9) == (3, 3)
    assert kingtour.default_box(12) == (3, 4)


def test_a_run_recorded_before_the_leap_resumes_climbing(tmp_path):
    """Runs made before the leap carry no `search` key and climbed one value at a time; a resume
    must ask the same questions in the same order (replaying them under the leap would stop with
    a mismatch)."""
    from ledger_forge import forge_chain, read_ledger
    from smtpuzzles import run as runner

    board = kingtour.parse(6, "2x3", None)
    with pytest.MonkeyPatch.context() as patch:
        kingtour_encoding_with(patch, order="climb")  # as the driver raised positions then
        _, ledger = runner.solve(kingtour, board, "", out_dir=tmp_path, encoding="onehot")
    run, steps = read_ledger(ledger.dir)
    assert run.pop("search") == "climb"
    for key in ("certificate", "extra"):
        run.pop(key, None)
    run["status"] = "interrupted"
    (ledger.dir / "certificate.smt2.gz").unlink()
    # Cut just after a raise to a value at least two below 6, the largest digit: a climb asks next
    # for more than that value, a leap for more than 5.
    cut = next(i for i, s in enumerate(steps) if s["result"] == "sat" and s["claim"]["op"] == "exceed"
               and s["value"][s["claim"]["pos"]] <= 4) + 1
    forge_chain(ledger.dir, run, steps[:cut])
    outcome, resumed = runner.resume(ledger.dir)
    assert outcome.status == "optimal" and kingtour.value_text(outcome.value).startswith(SEED_6x6_PREFIX)
    _, after = read_ledger(resumed.dir)
    assert after[:cut] == steps[:cut]
    raised = steps[cut - 1]
    assert after[cut]["claim"] == {**raised["claim"], "than": raised["value"][raised["claim"]["pos"]]}


@pytest.mark.parametrize("size,box", [(4, "2x2"), (6, "2x3"), (6, "3x2"), (8, "2x4"), (9, "3x3"), (10, "5x2"),
                                      (12, "3x4"), (16, "4x4"), (15, "3x5")])
def test_the_snake_guess_is_a_solution_the_referee_accepts(size, box):
    board = kingtour.parse(size, box, None)
    guess = kingtour.snake_solution(board)
    assert kingtour.referee(board, guess) == []
    assert guess["tour"][0][0] == 1  # it starts in the corner, which the symmetry breaking allows
    assert kingtour.value(board, guess)[0] == size  # renamed: the first digit read is the largest


def test_a_board_with_clues_gets_no_guess_and_an_empty_one_answers_its_first_check_at_once():
    from smtpuzzles.engines import make_engine

    assert kingtour.encode(kingtour.parse(4, "2x2", "1...\n....\n....\n....")).advice.on("first_guess") is False
    enc = kingtour.encode(kingtour.parse(12, "3x4", None))
    engine = make_engine("sat", enc.formula)
    engine.guide(enc.advice.first_guess)
    answer = engine.check([], None)
    assert answer.status == "sat" and answer.stats.get("guided") == 1
    assert kingtour.referee(kingtour.parse(12, "3x4", None), enc.decode(answer.model)) == []


def test_runs_ask_for_glucose_4_2_unless_told_otherwise_and_record_what_ran(tmp_path):
    """The puzzle's measured best (ENGINE_PARAMS) is what a run without parameters records; a
    user's or a job's own solver wins over it, and the engine that ran is the one recorded."""
    from smtpuzzles import run as runner

    board = kingtour.parse(4, "2x2", None)
    _, ledger = runner.solve(kingtour, board, "", out_dir=tmp_path / "default")
    assert ledger.run["engine"]["params"]["solver"] == "glucose42"
    assert ledger.run["engine"]["version"].endswith("/ glucose42")
    _, ledger = runner.solve(kingtour, board, "", out_dir=tmp_path / "asked", params={"solver": "glucose4"})
    assert ledger.run["engine"]["params"]["solver"] == "glucose4"
    assert ledger.run["engine"]["version"].endswith("/ glucose4")


def test_a_prime_size_without_a_box_is_one_line_and_with_one_is_taken(cli):
    """--size 7 would silently become 1x7 boxes (no box rule at all): it is refused unless asked for."""
    from conftest import one_error_line

    code, _, err = cli("solve", "kingtour", "--size", 7)
    assert code == 2 and one_error_line(err) == ("smtpuzzles: error: --size: 7x7 has no box shape but 1x7 (each row its own "
                                                 "box, so no box rule): give --box 1x7 to mean that")
    assert kingtour.parse(7, "1x7", None).box_rows == 1
