"""A lexicographic run tells its engine each proved position (`Steering.settled`), and the sat engine
holds them as unit clauses (`SatEngine.settle`). Its answers stay the formula's: a brute force over
every assignment says what each check must answer, settled or not, and a check that does not assume
what was settled is answered without it."""

from __future__ import annotations


from hypothesis import given, settings, strategies as st

from smtpuzzles import driver as drv
from smtpuzzles.engines import make_engine
from smtpuzzles.formula import CNF, Formula, lit
from smtpuzzles.objective import Advice, Encoding, LexMax
from test_fresh_solver import formula_of, models_of

literal = st.integers(1, 6).flatmap(lambda v: st.sampled_from([v, -v]))


@given(st.lists(st.lists(literal, min_size=1, max_size=3), max_size=14),
       st.lists(literal, max_size=3), st.lists(st.lists(literal, max_size=4), min_size=1, max_size=5))
@settings(max_examples=80, deadline=None)
def test_settled_literals_never_change_an_answer(clauses, settled, checks):
    n = 6
    engine = make_engine("sat", formula_of(n, clauses))

    def term(x):
        return ("lit", f"x{abs(x)}", x > 0)

    engine.settle([term(x) for x in settled])
    for assumed in checks:
        # half the checks assume what was settled, as a lexicographic run's do; the rest need not
        asked = assumed + settled if len(assumed) % 2 else assumed
        models = models_of(n, clauses, asked)
        answer = engine.check([term(x) for x in asked], None)
        assert answer.status == ("sat" if models else "unsat")
        if models:
            assert tuple(answer.model[f"x{v}"] for v in range(1, n + 1)) in models
        elif answer.core is not None:  # the core recorded in a step: its assumptions alone are UNSAT
            assert not models_of(n, clauses, [asked[i] for i in answer.core])


def test_a_check_outside_what_was_settled_is_not_decided_by_it():
    cnf = CNF()
    x, y = cnf.var("x"), cnf.var("y")
    cnf.add([x, y])
    engine = make_engine("sat", Formula.from_cnf(cnf))
    engine.settle([lit("x")])
    assert engine.check([lit("x")], None).status == "sat"
    outside = engine.check([("lit", "x", False)], None)  # the units alone would refute it
    assert outside.status == "sat" and outside.model["y"] and not outside.model["x"]


class Recording:
    """A scripted engine that records what it is told is settled."""

    name, version = "recording", "0"

    def __init__(self, script):
        self.script, self.params, self.settled, self.asked = list(script), {}, [], []

    def check(self, terms, timeout):
        from smtpuzzles.engines import CheckResult

        self.asked.append(list(terms))
        status, model = self.script.pop(0)
        return CheckResult("unsat", core=[0]) if status == "unsat" else \
            CheckResult("sat", model=model, stats={})

    def settle(self, terms):
        self.settled += terms

    def hint(self, model):
        pass

    def guide(self, guess):
        pass


def lex_encoding():
    """Two positions of values 0..2, `p{i}_{d}` true when position i holds d."""
    objective = LexMax(2, range(3), greater=lambda i, d: lit(f"g{i}_{d}"), equal=lambda i, d: lit(f"p{i}_{d}"))
    return Encoding("recording", 1, Formula.from_cnf(CNF()), objective, lambda model: dict(model), advice=Advice())


def test_the_lex_search_settles_each_proved_position_once_and_replays_it_on_resume():
    encoding = lex_encoding()
    # first model [1, 0]; position 1: "exceeds 1" refuted -> 1; position 2: "exceeds 1" and
    # "exceeds 0" refuted -> 0; the closing claim by a solver call (no cases advised)
    script = [("sat", {"v": [1, 0]}), ("unsat", None), ("unsat", None), ("unsat", None), ("unsat", None)]
    engine = Recording(script)
    steps: list[dict] = []
    steering = drv.Steering(encoding, lambda: engine, lambda s: s["v"], lambda s: [],
                            lambda s: steps.append(dict(s, index=len(steps))) or steps[-1])
    outcome = drv.run_objective(steering)
    assert outcome.status == "optimal" and outcome.value == [1, 0]
    assert engine.settled == [lit("p0_1"), lit("p1_0")]
    # every check after a position's settling still assumes it: the engine may hold it for good
    assert all(lit("p0_1") in asked for asked in engine.asked[2:4]) and not engine.script
    # a resume that replays the first steps settles what they proved once the engine is built
    again = Recording([("unsat", None), ("unsat", None)])
    resumed = drv.Steering(encoding, lambda: again, lambda s: s["v"], lambda s: [], lambda s: s, replay=steps[:3])
    assert drv.run_objective(resumed).status == "optimal"
    assert again.settled == [lit("p0_1"), lit("p1_0")]
    # a wholly replayed run never builds its engine to tell it anything
    replayed = drv.Steering(encoding, lambda: (_ for _ in ()).throw(AssertionError("built")), lambda s: s["v"],
                            lambda s: [], lambda s: s, replay=steps)
    assert drv.run_objective(replayed).status == "optimal"
