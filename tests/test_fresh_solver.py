"""A check the sat engine's own solver leaves open goes on in a fresh solver holding the claim's
literals as unit clauses (`satengine.FRESH_AFTER`). Its answers are the formula's (a brute force
over every assignment says which), its models fit the formula and the claim, and the time limit,
an interrupt and `fresh = false` hold on it."""

from __future__ import annotations

import itertools
import threading
import time

import pytest
from hypothesis import given, settings, strategies as st

from smtpuzzles.engines import make_engine, satengine
from smtpuzzles.errors import InputError
from smtpuzzles.formula import CNF, Formula


def pigeon_formula(holes: int) -> Formula:
    """holes + 1 pigeons in `holes` holes (unsatisfiable; Glucose needs seconds from 8 holes on)."""
    cnf = CNF()
    var = {(p, h): cnf.var(f"p{p}h{h}") for p in range(holes + 1) for h in range(holes)}
    for p in range(holes + 1):
        cnf.add([var[p, h] for h in range(holes)])
    for h in range(holes):
        for p, q in itertools.combinations(range(holes + 1), 2):
            cnf.add([-var[p, h], -var[q, h]])
    return Formula.from_cnf(cnf)


@given(st.integers(3, 7).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.lists(st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=3),
             max_size=14),
    st.lists(st.tuples(st.integers(1, n), st.booleans()), max_size=3))))
@settings(max_examples=60, deadline=None)
def test_the_fresh_solver_answers_as_a_brute_force_does(case):
    n, clauses, assumed = case
    cnf = CNF()
    for v in range(1, n + 1):
        cnf.var(f"x{v}")
    for clause in clauses:
        cnf.add(clause)
    engine = make_engine("sat", Formula.from_cnf(cnf))
    terms = [("lit", f"x{v}", value) for v, value in assumed]
    models = [bits for bits in itertools.product([False, True], repeat=n)
              if all(any((x > 0) == bits[abs(x) - 1] for x in c) for c in clauses)
              and all(bits[v - 1] == value for v, value in assumed)]
    lits = [engine.cnf.term_literal(t, [], engine._cache) for t in terms]
    fresh: dict = {}
    answer = engine._solve_fresh(lits, fresh)
    assert answer is bool(models)
    if models:
        true = {x for x in fresh["model"] if x > 0}
        assert tuple(engine.cnf.index[f"x{v}"] in true for v in range(1, n + 1)) in models


def test_a_check_left_open_goes_on_fresh_and_is_answered():
    engine = make_engine("sat", pigeon_formula(8))
    engine.fresh_after = 0.05
    answer = engine.check([], None)
    assert answer.status == "unsat" and answer.stats.get("fresh") == 1 and answer.core is None


def test_without_fresh_the_engine_s_own_solver_answers():
    engine = make_engine("sat", pigeon_formula(7), {"fresh": False})
    assert engine.fresh_after is None
    answer = engine.check([], None)
    assert answer.status == "unsat" and "fresh" not in answer.stats
    with pytest.raises(InputError, match="fresh must be bool"):
        make_engine("sat", pigeon_formula(2), {"fresh": "yes"})


def test_the_time_limit_holds_on_the_fresh_solver():
    engine = make_engine("sat", pigeon_formula(11))  # hours for Glucose
    engine.fresh_after = 0.2
    started = time.monotonic()
    answer = engine.check([], 2.0)
    assert answer.status == "unknown" and time.monotonic() - started < 10


def test_an_interrupt_stops_the_fresh_solver():
    engine = make_engine("sat", pigeon_formula(11))
    engine.fresh_after = 0.2
    timer = threading.Timer(1.5, engine.interrupt)
    timer.start()
    started = time.monotonic()
    answer = engine.check([], None)
    timer.join()
    assert answer.status == "unknown" and time.monotonic() - started < 10


def test_fresh_after_is_longer_than_a_small_board_s_checks():
    assert satengine.FRESH_AFTER >= 10
