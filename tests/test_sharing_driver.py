"""A run whose hard checks are shared out by look-ahead (Steering.sharing): the brute force's optimum,
each shared refutation one step `by: tree` whose summary passes the check, SAT answers recorded as
any solver's, and Ctrl-C honoured mid-question."""

from __future__ import annotations

import pytest

from brute_kingtour import best_overall
from ledger_forge import read_ledger
from smtpuzzles import driver
from smtpuzzles import run as runner
from smtpuzzles.engines import press_ctrl_c
from smtpuzzles.objectives import claim_terms
from smtpuzzles.formula import smt2
from smtpuzzles.puzzles import kingtour
from smtpuzzles.sharing.runner import Sharing
from smtpuzzles.sharing.tree import summary_problem

BRUTE_4x4 = "".join(map(str, best_overall(4, 2, 2)))

pytestmark = pytest.mark.usefixtures("closing_asked_whole")  # the closing claim is a shared check too


@pytest.fixture
def sharing_runs(monkeypatch):
    """Runs whose Steering shares every check out on two local workers with a small budget."""
    made = []

    class SharingSteering(driver.Steering):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.sharing = Sharing.local(2, budget=15)
            made.append(self)

    monkeypatch.setattr(runner, "Steering", SharingSteering)
    yield made
    for steering in made:
        steering.sharing.close()


def test_a_shared_run_finds_the_optimum_and_records_each_refutation_as_one_tree_step(sharing_runs, tmp_path):
    board = kingtour.parse(4, "2x2", None)
    outcome, ledger = runner.solve(kingtour, board, "", out_dir=tmp_path, encoding="onehot", split_after=0)
    assert outcome.status == "optimal" and kingtour.value_text(outcome.value) == BRUTE_4x4
    run, steps = read_ledger(ledger.dir)
    enc = kingtour.encode(board, "onehot")
    trees = [s for s in steps if s.get("by") == "tree"]
    assert trees and trees[-1]["claim"] == {"op": "lex_greater", "best": outcome.value}
    for step in trees:
        assert step["result"] == "unsat"
        assert step["assumptions"] == [smt2(t) for t in claim_terms(enc.objective, step["claim"])]
        assert summary_problem(step["tree"], step["claim"], run["base"]["sha256"], enc.formula.cnf.index) is None
        assert step["stats"]["cubes"] == step["tree"]["tree"].count(0)
    assert run["base"]["sha256"] == enc.formula.sha256
    shared_sat = [s for s in steps if s["result"] == "sat" and s["stats"].get("cube_runs")]
    assert shared_sat and all(kingtour.referee(board, s["solution"]) == [] for s in shared_sat)
    assert not any(s.get("by") == "cubes" or "cube" in s["claim"] for s in steps)  # no step per cube


def test_ctrl_c_during_a_shared_check_ends_the_run_interrupted(sharing_runs, tmp_path, monkeypatch):
    # The run's first Ctrl-C comes as the first check is shared out (a question the share stops
    # mid-way is tests/test_sharing.py's): the check is recorded interrupted, and the run ends so.
    monkeypatch.setattr(Sharing, "ask", _pressing_ctrl_c_first(Sharing.ask))
    outcome, ledger = runner.solve(kingtour, kingtour.parse(4, "2x2", None), "", out_dir=tmp_path, split_after=0)
    assert outcome.status == "interrupted"
    _, steps = read_ledger(ledger.dir)
    assert [s["result"] for s in steps] == ["interrupted"] and steps[0]["claim"] == {"op": "first"}


def _pressing_ctrl_c_first(ask):
    def pressing(self, formula, terms, time_limit):
        press_ctrl_c()
        return ask(self, formula, terms, time_limit)
    return pressing
