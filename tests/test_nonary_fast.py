"""Nonary's first listing (auto, version 2), held to the tests' memoised brute force on generated
games: every answer it gives is the brute force's, and a plan it stops at frees all nine."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from hypothesis import given, settings, strategies as st

from brute_nonary import most_escapees
from smtpuzzles import run as runner
from smtpuzzles.puzzles import nonary

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # gen_nonary
from gen_nonary import random_game  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 5), st.integers(1, 16), st.floats(0.05, 0.5))
def test_the_first_listing_answers_as_the_brute_force_does(seed, rooms, doors, nines):
    """Generated games (a fifth to a half of the doors 9s, so that many free all nine and many do
    not): the listing either ends at a plan freeing all nine, which the referee replays, or lists
    every position; the solved run's optimum is the brute force's either way."""
    door_list = random_game(seed, rooms=rooms, doors=doors, nine_share=nines)
    game = nonary.from_doors(door_list)
    expected = most_escapees(door_list)
    graph = nonary.explore(game, nonary.FIRST_LISTING, all_out=True)
    if graph is not None and graph.escaped(len(graph.standing) - 1) == 9:
        plan = graph.plan(len(graph.standing) - 1)
        assert nonary.referee(game, plan) == [] and nonary.value(game, plan) == 9 == expected
        assert graph.moves == [(i, i + 1) for i in range(len(graph.standing) - 1)]
    elif graph is not None:
        assert max(graph.escaped(i) for i in range(len(graph.standing))) == expected < 9
    with tempfile.TemporaryDirectory() as tmp:
        outcome, _ = runner.solve(nonary, game, json.dumps(door_list), out_dir=Path(tmp))
    assert (outcome.status, outcome.value) == ("optimal", expected)
    assert nonary.referee(game, outcome.solution) == []
