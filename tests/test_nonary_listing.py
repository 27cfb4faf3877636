"""Nonary's listing and its formula, made faster, hold to the slow ways they replace: a listing
stopped at a limit and taken on to a larger one is the listing made at once to the larger one, and
the formula written straight out is the one stated through CNF's words, byte for byte (its sha-256
is what the audit compares a run's base with)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from smtpuzzles.formula import CNF, Formula
from smtpuzzles.puzzles import nonary
from smtpuzzles.puzzles.nonary import positions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))  # gen_nonary
from gen_nonary import random_game  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples" / "nonary"
GAMES = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("[01]*.json"))] + \
    [random_game(3000 + i, rooms=1 + i % 4, doors=3 + i % 10) for i in range(20)] + \
    [random_game(i, rooms=2 + i % 7, doors=4 + (i * 7) % 37) for i in range(0, 40, 3)]


def stated(graph) -> Formula:
    """encode_positions' formula as it was written before, through CNF's words."""
    cnf = CNF()
    at = [cnf.var(f"at{i}") for i in range(len(graph.standing))]
    cnf.require(at[0])
    for i, j in graph.moves:
        cnf.implies(at[i], [at[j]])
    out = [bin(standing[-1]).count("1") for standing in graph.standing]
    for k in range(1, 10):
        named = cnf.var(f"escaped_ge{k}")
        cnf.any_of(named, [at[i] for i in range(len(at)) if out[i] >= k])
    return Formula.from_cnf(cnf)


def same(a, b) -> bool:
    return (a.standing, a.parent, a.moves, a.labels) == (b.standing, b.parent, b.moves, b.labels)


@pytest.mark.parametrize("all_out", [False, True])
def test_a_listing_taken_on_past_its_limit_is_the_listing_made_at_once(all_out):
    for number, doors in enumerate(GAMES):
        game = nonary.from_doors(doors)
        whole = nonary.explore(game, 20_000, all_out=all_out)
        for first in (1, 2, 7, 100, 1000):
            listing = positions.Listing(game, all_out)
            early = listing.upto(first)
            if early is not None:  # it ended (or freed nine) within the first limit
                assert whole is not None and same(early, whole), (number, first)
                continue
            later = listing.upto(20_000)
            assert (later is None) == (whole is None), (number, first)
            if whole is not None:
                assert same(later, whole), (number, first)


def test_a_listing_past_the_move_limit_stays_refused(monkeypatch):
    game = nonary.from_doors(random_game(7, rooms=8, doors=31))  # 1,643 positions
    monkeypatch.setitem(nonary.LIMITS, "moves", 50)
    listing = positions.Listing(game)
    assert listing.upto(10**6) is None and listing.upto(10**6) is None
    assert nonary.explore(game, 10**6) is None


def test_the_formula_written_out_is_the_one_stated_through_cnf():
    for number, doors in enumerate(GAMES):
        game = nonary.from_doors(doors)
        for all_out in (False, True):
            graph = nonary.explore(game, 20_000, all_out=all_out)
            if graph is None:
                continue
            fast = nonary.encode_positions(game, graph, "auto", nonary.AUTO_VERSION).formula
            slow = stated(graph)
            assert fast.document() == slow.document(), number
            assert (fast.cnf.names, fast.cnf.index, fast.cnf.clauses) == (slow.cnf.names, slow.cnf.index, slow.cnf.clauses)
            assert (fast.logic, fast.decls, fast.z3_solver) == (slow.logic, slow.decls, slow.z3_solver)
