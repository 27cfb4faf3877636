"""The contract's brute_force hook: `smtpuzzles.auditing.crosscheck` holds every mode's answer (solve, unique,
count, optimum, infeasible) against a search written from the rules, on every bundled example of
every puzzle that has the hook and on small generated boards, and it must catch an encoder that is
stricter than the rules."""

from __future__ import annotations

import random

import pytest

from smtpuzzles import puzzles
from smtpuzzles.auditing.crosscheck import cross_check
from smtpuzzles.puzzles import tatamibari
from smtpuzzles.puzzles.tatamibari import brute as search
from tests.brute_tatamibari import rectangles, solutions as cell_filling_solutions
from tests.test_reference_claims import owner_only_in, stricter

HOOKED = [name for name in puzzles.names() if puzzles.get(name).brute_force is not None]


def test_tatamibari_has_the_hook():
    assert "tatamibari" in HOOKED


@pytest.mark.parametrize("name", HOOKED)
def test_every_example_the_brute_force_can_list_agrees_in_every_mode(name, tmp_path):
    puzzle = puzzles.get(name)
    checked = 0
    for example in puzzle.examples():
        check = cross_check(puzzle, example.instance, workdir=tmp_path)
        assert check.ok, (example.stem, check.problems)
        checked += check.checked
    assert checked, f"{name}: the brute force gave up on every example, so nothing was compared"


def random_board(rng: random.Random) -> tatamibari.Board:
    height, width = rng.randint(2, 4), rng.randint(2, 5)
    cells = [[rng.choice("+-|" + "." * 4) for _ in range(width)] for _ in range(height)]
    return tatamibari.from_text("\n".join("".join(row) for row in cells))


def generated(count: int, seed: int) -> list[tatamibari.Board]:
    rng, out = random.Random(seed), []
    while len(out) < count:
        board = random_board(rng)
        if any(ch != "." for row in board.rows for ch in row):
            out.append(board)
    return out


def test_the_hooks_search_agrees_with_the_suites_cell_filling_search():
    seen = set()
    for board in generated(150, 11):
        by_clues = {rectangles(s["regions"]) for s in search.solutions(board.rows, 10**6)}
        by_cells = set(cell_filling_solutions(list(board.rows)))
        assert by_clues == by_cells, board.rows
        seen.add(min(len(by_cells), 2))
    assert seen == {0, 1, 2}  # boards with no solution, one, and several were all among them


def test_generated_boards_with_none_one_and_several_solutions_agree_in_every_mode(tmp_path):
    kinds = {}
    for board in generated(40, 7):
        check = cross_check(tatamibari, board, workdir=tmp_path)
        assert check.checked and check.ok, (board.rows, check.problems)
        kinds.setdefault(min(check.solutions, 2), board)
    assert set(kinds) == {0, 1, 2}


def test_past_its_limit_the_brute_force_gives_up_and_nothing_is_claimed(tmp_path):
    board = tatamibari.from_text("+..\n...\n..+")
    check = cross_check(tatamibari, board, limit=1, workdir=tmp_path)
    assert not check.checked and check.ok


def test_an_encoder_stricter_than_the_rules_is_caught(monkeypatch, tmp_path):
    board = tatamibari.from_text("-...\n|..|\n..+.")  # two solutions: the "-" 1x3 in one, 1x4 in the other
    first, second = (s["regions"] for s in search.solutions(board.rows, 10**6))
    stricter(tatamibari, monkeypatch, lambda b: [owner_only_in(board, first, second)])  # the first is lost
    check = cross_check(tatamibari, board, workdir=tmp_path)
    assert check.checked and check.solutions == 2
    assert check.problems == ["unique: answered unique True; brute force finds 2 solutions",
                              "count: counted 1; brute force finds 2 solutions"]
    stricter(tatamibari, monkeypatch, lambda b: [owner_only_in(board, first, second),
                                                 owner_only_in(board, second, first)])  # and the other: none left
    check = cross_check(tatamibari, board, workdir=tmp_path)
    assert check.problems == [f"{mode}: answered infeasible; brute force finds 2 solutions"
                              for mode in ("solve", "unique", "count")]


def test_a_puzzle_without_the_hook_is_named():
    check = cross_check("kingtour", None)
    assert not check.checked and check.problems == ["kingtour has no brute_force hook"]
