"""The King's tour's first answer (puzzles/kingtour/guess.py): a walk that takes, step by step, the
king move whose cell can hold the largest digit. Checked against the referee, brute force and the
seed; it is only a guess, so what matters is that it is a valid answer, never better than the
optimum, and that the solver takes it as its first model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brute_kingtour import best_overall, sudokus
from conftest import SEED_CASES
from smtpuzzles.engines import make_engine
from smtpuzzles.puzzles import kingtour
from smtpuzzles.puzzles.kingtour import encodings, guess

BOARDS = [(4, "2x2"), (4, "1x4"), (4, "4x1"), (6, "2x3"), (6, "3x2"), (6, "1x6"), (8, "2x4"), (8, "4x2"),
          (9, "3x3"), (10, "5x2")]


def walk(board, start):
    sudoku = guess.SudokuSolver(board)
    try:
        return guess.walk(board, sudoku, start, time.thread_time() + 60)
    finally:
        sudoku.close()


def order(board, answer):
    return sorted(board.cells, key=lambda cell: answer["tour"][cell[0]][cell[1]])


@pytest.mark.parametrize("size,box", BOARDS)
def test_every_walk_is_a_whole_answer_from_its_start(size, box):
    """From every cell of the board's quarter, the walk reaches every cell (the probe keeps a way
    through) and the referee accepts it; it starts where it was asked, on the largest digit."""
    board = kingtour.parse(size, box, None)
    for start in encodings.quadrant(board):
        answer = walk(board, start)
        assert answer is not None, start
        assert kingtour.referee(board, answer) == [], start
        assert order(board, answer)[0] == start and kingtour.value(board, answer)[0] == size


@pytest.mark.parametrize("box", ["2x2", "1x4"])
def test_each_digit_is_the_largest_the_sudoku_still_allows(box):
    """Along the walk's own tour, brute force over every 4x4 Sudoku finds no reading larger than
    the walk's: each digit the SAT query allowed was the largest some completion has."""
    board = kingtour.parse(4, box, None)
    for start in board.cells:
        answer = walk(board, start)
        cells = order(board, answer)
        best = max([grid[r][c] for r, c in cells] for grid in sudokus(4, board.box_rows, board.box_cols))
        assert kingtour.value(board, answer) == best, start


def test_the_first_answer_is_never_better_than_the_optimum():
    board = kingtour.parse(4, "2x2", None)
    assert kingtour.value(board, guess.first_answer(board, board.cells, 10)) <= best_overall(4, 2, 2)
    prefix = [int(d) for d in SEED_CASES["kingtour"]["best_prefix_6x6"]]  # the seed's optimal first digits
    board = kingtour.parse(6, "2x3", None)
    found = kingtour.value(board, guess.first_answer(board, encodings.quadrant(board), 10))
    assert found[:len(prefix)] <= prefix


@pytest.mark.parametrize("size,box", [(8, "2x4"), (9, "3x3"), (10, "2x5")])
def test_the_solver_takes_the_first_answer_as_its_first_model(size, box):
    """The guess starts where the symmetry lemma lets a tour start, so the engine's guided first
    check is answered at once with the walk's very number, far above the snake guess's."""
    board = kingtour.parse(size, box, None)
    encoding = kingtour.encode(board)
    engine = make_engine("sat", encoding.formula)
    engine.guide(encoding.advice.first_guess)
    answer = engine.check([], None)
    assert answer.status == "sat" and answer.stats.get("guided") == 1
    solution = encoding.decode(answer.model)
    assert kingtour.referee(board, solution) == []
    starts = sorted({min([x] + [m[x] for m in encodings.board_symmetries(board)]) for x in board.cells})
    walked = guess.first_answer(board, starts, 60)
    assert kingtour.value(board, solution) == kingtour.value(board, walked)
    assert kingtour.value(board, walked) > kingtour.value(board, kingtour.snake_solution(board))


def test_a_walk_out_of_time_leaves_the_snake_guess(monkeypatch):
    monkeypatch.setattr(encodings, "GUESS_SECONDS_PER_CELL", 0.0)
    board = kingtour.parse(8, "2x4", None)
    encoding = kingtour.encode(board)
    engine = make_engine("sat", encoding.formula)
    engine.guide(encoding.advice.first_guess)
    answer = engine.check([], None)
    assert answer.stats.get("guided") == 1
    assert kingtour.value(board, encoding.decode(answer.model)) == kingtour.value(board, kingtour.snake_solution(board))


def terms_solution(board, terms):
    """The answer a polish's guide terms spell out (d{r}_{c}_{k} and v{t}_{r}_{c} literals)."""
    n = board.size
    grid, tour = [[0] * n for _ in range(n)], [[0] * n for _ in range(n)]
    for _, name, positive in terms:
        assert positive
        numbers = [int(x) for x in name[1:].split("_")]
        if name[0] == "d":
            grid[numbers[0]][numbers[1]] = numbers[2]
        else:
            tour[numbers[1]][numbers[2]] = numbers[0] + 1
    return {"grid": grid, "tour": tour}


@pytest.mark.parametrize("box", ["2x2", "1x4"])
def test_the_best_grid_along_a_tour_is_the_brute_forces(box):
    board = kingtour.parse(4, box, None)
    snake = kingtour.snake_solution(board)
    sudoku = guess.SudokuSolver(board)
    grid = sudoku.best_along(snake["tour"])
    sudoku.close()
    cells = order(board, snake)
    assert [grid[r][c] for r, c in cells] == max([g[r][c] for r, c in cells]
                                                 for g in sudokus(4, board.box_rows, board.box_cols))


def test_a_model_is_polished_along_its_own_tour_or_left_alone():
    """The polish keeps the model's tour and takes the best Sudoku along it; it says nothing (None)
    when the model already has that Sudoku, so the engine is not steered for nothing. (A claim at
    the last position but one leaves no step after it to raise.)"""
    board = kingtour.parse(8, "2x4", None)
    encoding = kingtour.encode(board)
    last = {"op": "exceed", "pos": 62}
    snake = kingtour.snake_solution(board)
    worse = {"grid": [row[::-1] for row in snake["grid"]], "tour": snake["tour"]}  # still a Sudoku
    assert kingtour.referee(board, worse) == []
    better = terms_solution(board, encoding.advice.polish(worse, last))
    assert kingtour.referee(board, better) == [] and better["tour"] == worse["tour"]
    assert kingtour.value(board, better) > kingtour.value(board, worse)
    assert kingtour.encode(board).advice.polish(better, last) is None  # a fresh polish: nothing better along it
    assert encoding.advice.polish(better, last) is None  # and the guide just made is not polished again


@pytest.mark.parametrize("size,box", [(4, "2x2"), (6, "2x3"), (6, "1x6"), (8, "2x4"), (9, "3x3")])
def test_an_improved_answer_keeps_the_digits_before_the_focus_and_is_larger(size, box):
    """improve() raises a digit at the focus or after it: a whole answer the referee accepts,
    reading the same digits before the focus and a larger number, never above the optimum."""
    board = kingtour.parse(size, box, None)
    snake = kingtour.snake_solution(board)
    sudoku = guess.SudokuSolver(board)
    try:
        for focus in (1, size, 2 * size):
            raised = guess.improve(board, sudoku, snake, focus, time.thread_time() + 60)
            assert raised is not None, focus
            assert kingtour.referee(board, raised) == [], focus
            before, after = kingtour.value(board, snake), kingtour.value(board, raised)
            assert after > before and after[:focus] == before[:focus], focus
            if size == 4:
                assert after <= best_overall(4, 2, 2)
    finally:
        sudoku.close()


def test_improve_leaves_an_optimal_answer_alone():
    """An answer whose number brute force finds optimal has nothing to raise, from any focus."""
    import smtpuzzles

    board = kingtour.parse(4, "2x2", None)
    best = smtpuzzles.solve("kingtour", {"size": 4, "box": "2x2"}).solution
    assert kingtour.value(board, best) == best_overall(4, 2, 2)
    sudoku = guess.SudokuSolver(board)
    try:
        assert all(guess.improve(board, sudoku, best, f, time.thread_time() + 60) is None for f in range(16))
    finally:
        sudoku.close()


def test_improve_stops_at_its_deadline():
    """Past its deadline improve() answers None at once: the polish never holds up a proof."""
    board = kingtour.parse(9, "3x3", None)
    sudoku = guess.SudokuSolver(board)
    try:
        started = time.thread_time()
        assert guess.improve(board, sudoku, kingtour.snake_solution(board), 1, started) is None
        assert time.thread_time() - started < 0.5
    finally:
        sudoku.close()


def test_a_run_takes_the_polished_answers_as_guided_steps(cli):
    """After a model, the next checks are tried under its polished answer first: some SAT steps
    besides the first are answered guided, every solution still refereed, the optimum unchanged."""
    result = cli.solve_json("kingtour", "--size", 6, "--box", "2x3")
    assert result["status"] == "optimal"
    steps = [json.loads(line) for line in (Path(result["run_dir"]) / "steps.jsonl").read_text().splitlines()]
    guided = [s for s in steps[1:] if s["result"] == "sat" and s.get("stats", {}).get("guided")]
    assert guided
    prefix = SEED_CASES["kingtour"]["best_prefix_6x6"]
    assert result["value"].startswith(prefix)  # the seed's optimal first digits


def test_a_ctrl_c_during_the_sudoku_solver_s_calls_reaches_python_s_own_handler():
    """python-sat, called from the main thread, put in a SIGINT handler of its own that jumped out
    of the C solver: a Ctrl-C the run meant to hold (or the shell to ignore) became python-sat's
    error, and a few in a row crashed the process. Signals sent while the walk's queries run all
    reach the handler Python has, and every query still answers."""
    board = kingtour.parse(6, "2x3", None)
    sudoku = guess.SudokuSolver(board)
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    # From another process, so that signals land inside the C calls (a thread of this one waits
    # for the interpreter's lock, which a solver call holds).
    presser = subprocess.Popen([sys.executable, "-c", "import os, signal, sys, time\n"
                                "while True: os.kill(int(sys.argv[1]), signal.SIGINT); time.sleep(0.0002)",
                                str(os.getpid())])
    try:
        while not seen:
            time.sleep(0.01)
        try:
            grids = [sudoku.grid([sudoku.var(0, 0, 1 + i % 6)]) for i in range(300)]
        except (KeyboardInterrupt, Exception) as exc:  # python-sat's handler caught one
            pytest.fail(f"a query ended on a signal: {exc!r}")
    finally:
        presser.kill()
        presser.wait()
        signal.signal(signal.SIGINT, previous)
        sudoku.close()
    assert all(grid is not None and grid[0][0] == 1 + i % 6 for i, grid in enumerate(grids))
    assert seen


def clashes(board, assumptions) -> bool:
    """Whether the last of a Sudoku query's literals names a digit that a cell of the same row,
    column or box holds among the others (the solver refutes it by propagation alone)."""
    n, units = board.size, board.units()

    def cell_digit(v):
        return divmod((v - 1) // n, n), (v - 1) % n + 1

    (cell, k), others = cell_digit(assumptions[-1]), [cell_digit(v) for v in assumptions[:-1]]
    return any(d == k and x != cell and any(cell in u and x in u for u in units) for x, d in others)


def test_a_digit_its_row_column_or_box_holds_is_refused_without_a_sudoku_query(monkeypatch):
    """The walk and the polish ask the Sudoku solver only for digits no fixed cell of the same row,
    column or box holds (nine in ten of a 9x9 solve's queries were such, each refused at once)."""
    board = kingtour.parse(6, "2x3", None)
    asked = []
    real = guess.SudokuSolver.grid
    monkeypatch.setattr(guess.SudokuSolver, "grid", lambda self, assumptions: asked.append(list(assumptions)) or
                        real(self, assumptions))
    answer = guess.first_answer(board, encodings.quadrant(board), 60)
    sudoku = guess.SudokuSolver(board)
    try:
        guess.improve(board, sudoku, kingtour.snake_solution(board), 1, time.thread_time() + 60)
        sudoku.best_along(answer["tour"])
    finally:
        sudoku.close()
    assert len(asked) > 50 and not any(clashes(board, a) for a in asked if a)


@pytest.mark.parametrize("size,box", [(6, "2x3"), (8, "2x4"), (9, "3x3")])
def test_refusing_a_held_digit_changes_no_walk_and_no_polish(monkeypatch, size, box):
    """The walk, improve() and the best grid along a tour are the same with every refused digit
    asked of the solver instead (which answers UNSAT): the refusal only spares the calls."""
    board = kingtour.parse(size, box, None)

    def answers():
        first = guess.first_answer(board, encodings.quadrant(board), 60)
        sudoku = guess.SudokuSolver(board)
        try:
            raised = [guess.improve(board, sudoku, kingtour.snake_solution(board), focus, time.thread_time() + 60)
                      for focus in (1, size, 3 * size)]
            return first, raised, sudoku.best_along(kingtour.snake_solution(board)["tour"])
        finally:
            sudoku.close()

    refused = answers()
    monkeypatch.setattr(guess.Placed, "allows", lambda self, q, k: True)
    assert answers() == refused
