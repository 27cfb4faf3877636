"""The shared parts: portable formulas, the driver's bookkeeping, exports in sync, the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import one_error_line
from smtpuzzles.export import documents
from smtpuzzles.puzzles import BUILTIN
from smtpuzzles.formula import CNF, Formula, all_of, any_of, lit, neg, smt2
from smtpuzzles.smtlib import solve_text

ROOT = Path(__file__).resolve().parents[1]


def test_encodings_folder_is_in_sync_with_the_code():
    """`smtpuzzles export` output equals the committed files: the documented formulas are the real ones.
    (The built-ins': a plugin installed beside them keeps its own.)"""
    for relative, text in documents(tuple(BUILTIN)):
        path = ROOT / "encodings" / relative
        assert path.exists(), f"{relative} missing: run `smtpuzzles export`"
        assert path.read_text() == text, f"{relative} drifted: run `smtpuzzles export`"


def test_exported_files_are_standard_smtlib_that_cvc5_and_z3_agree_on():
    seen = 0
    for relative, text in documents():
        if relative.startswith(("rogue/0", "nonary/0", "tatamibari/0")):
            assert "(set-logic " in text and "pbeq" not in text and "pble" not in text
            assert solve_text(text, "cvc5") == solve_text(text, "z3") == "sat"
            seen += 1
    assert seen >= 20


@st.composite
def cnf_and_terms(draw):
    n = draw(st.integers(2, 6))
    clause = st.lists(st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=3)
    clauses = draw(st.lists(clause, max_size=8))
    literal = st.builds(lambda v, s: lit(f"x{v}", s), st.integers(1, n), st.booleans())
    term = st.recursive(literal, lambda inner: st.one_of(
        st.builds(lambda xs: all_of(xs), st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda xs: any_of(xs), st.lists(inner, min_size=1, max_size=3)),
        st.builds(neg, inner)), max_leaves=6)
    return n, clauses, draw(st.lists(term, max_size=3)), draw(st.lists(literal, max_size=n))


@given(cnf_and_terms())
@settings(max_examples=60, deadline=None)
def test_sat_engine_z3_and_brute_force_agree_on_random_formulas(case):
    """Differential test of the shared formula language: the SAT engine's Tseitin clauses, z3 on the
    SMT-LIB2 text and an enumeration of all assignments give the same answer. A guess handed to an
    engine never changes that answer; a non-empty one supplies the model exactly when it fits the
    formula and the assumptions."""
    from itertools import product

    from smtpuzzles.engines import make_engine

    n, clauses, terms, guess = case
    cnf = CNF()
    for v in range(1, n + 1):
        cnf.var(f"x{v}")
    for clause in clauses:
        cnf.add(clause)
    formula = Formula.from_cnf(cnf)

    def holds(term, env):
        kind = term[0]
        if kind == "lit":
            return env[term[1]] == term[2]
        parts = [holds(t, env) for t in term[1]]
        return all(parts) if kind == "and" else any(parts)

    def models(extra):
        return [bits for bits in product([False, True], repeat=n)
                if all(any((v > 0) == bits[abs(v) - 1] for v in c) for c in clauses)
                and all(holds(t, {f"x{i + 1}": b for i, b in enumerate(bits)}) for t in terms + extra)]

    expected = "sat" if models([]) else "unsat"
    fits = bool(guess) and bool(models(guess))  # an empty guess guides nothing
    for name in ("sat", "z3"):
        assert make_engine(name, formula).check(terms, None).status == expected
        guided = make_engine(name, formula)
        guided.guide(lambda: guess)
        answer = guided.check(terms, None)
        assert answer.status == expected, name
        assert bool(answer.stats.get("guided")) == fits, name
    assert solve_text(formula.query(terms), "z3") == expected


@given(st.lists(st.integers(-20, 20), max_size=6), st.integers(2, 9))
@settings(max_examples=40, deadline=None)
def test_counter_and_residue_define_their_outputs_exactly(weights, modulus):
    """For every assignment of the inputs, the counter's and the residue's outputs are forced to the
    count and the weighted sum mod `modulus`, computed here in Python: both directions hold, so a
    bound on them means the same thing in a SAT answer and in an UNSAT one."""
    from itertools import product

    from pysat.solvers import Solver

    cnf = CNF()
    inputs = [cnf.var(f"x{i}") for i in range(len(weights))]
    at_least = cnf.counter(inputs)
    residue = cnf.residue(list(zip(inputs, weights)), modulus)
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as solver:
        for bits in product([False, True], repeat=len(inputs)):
            fixed = [v if b else -v for v, b in zip(inputs, bits)]
            count, total = sum(bits), sum(w for w, b in zip(weights, bits) if b) % modulus
            assert solver.solve(assumptions=fixed)
            for j in range(1, len(inputs) + 1):
                wrong = -at_least[j] if count >= j else at_least[j]
                assert not solver.solve(assumptions=fixed + [wrong]), (bits, j)
            for r in range(modulus):
                wrong = -residue[r] if r == total else residue[r]
                assert not solver.solve(assumptions=fixed + [wrong]), (bits, r)


def maximise_toy_count(forced: int, optimum: int, guess_true: int | None = None):
    """Three Booleans, `forced` of them fixed true and at most `optimum` true, so the count's maximum
    is known by construction; maximised with a descending IntMax, optionally guided by a guess that
    sets the first `guess_true` of them. Returns the outcome and the recorded steps."""
    from smtpuzzles.driver import Steering, run_objective
    from smtpuzzles.engines import make_engine
    from smtpuzzles.formula import FALSE, TRUE
    from smtpuzzles.objective import Advice, Encoding, IntMax

    cnf = CNF()
    bits = [cnf.var(name) for name in "abc"]
    for v in bits[:forced]:
        cnf.add([v])
    at_least = cnf.counter(bits)
    if optimum < 3:
        cnf.add([-at_least[optimum + 1]])
    objective = IntMax(lambda k: TRUE if k <= 0 else FALSE if k > 3 else lit(cnf.names[at_least[k]]), upper=3, descend=True)
    guess = None if guess_true is None else (lambda: [lit(name, i < guess_true) for i, name in enumerate("abc")])
    encoding = Encoding("toy", 1, Formula.from_cnf(cnf), objective, lambda m: {"on": [m[n] for n in "abc"]},
                        engines=("sat",), advice=Advice(first_guess=guess))
    steps = []

    def record(step):
        steps.append({"index": len(steps), **step})
        return steps[-1]

    rec = Steering(encoding, lambda: make_engine("sat", encoding.formula), lambda s: sum(s["on"]), lambda s: [], record)
    return run_objective(rec), steps


@pytest.mark.parametrize("forced,optimum", [(3, 3), (1, 1), (0, 0)])
def test_descending_maximisation_always_records_the_unsat_step_it_cites(forced, optimum):
    """Descending from the ceiling 3 must end `optimal` with a certificate that is a recorded UNSAT
    step at optimum + 1, also when the very first model already hits the ceiling."""
    outcome, steps = maximise_toy_count(forced, optimum)
    assert (outcome.status, outcome.value) == ("optimal", optimum)
    cited = outcome.certificate["claim"]
    assert cited == {"op": "at_least", "k": optimum + 1}
    assert any(s["claim"] == cited and s["result"] == "unsat" for s in steps)


@pytest.mark.parametrize("guess_true", [0, 1, 2])
def test_a_guided_first_model_climbs_instead_of_descending(guess_true):
    """With the optimum 2 and a guess worth `guess_true`, the first model is the guess's; from there
    the driver climbs (bounds asked only upwards, never the ceiling 3 before 2 is settled) and ends
    on the recorded UNSAT step at 3. A guess already optimal costs exactly one more check."""
    outcome, steps = maximise_toy_count(0, 2, guess_true)
    assert (outcome.status, outcome.value) == ("optimal", 2)
    assert steps[0]["stats"].get("guided") == 1 and steps[0]["value"] == guess_true
    asked = [s["claim"]["k"] for s in steps[1:]]
    assert asked == sorted(asked) and asked[-1] == 3 and steps[-1]["result"] == "unsat"
    assert outcome.certificate["claim"] == {"op": "at_least", "k": 3}
    if guess_true == 2:
        assert asked == [3]


def test_term_printing():
    assert smt2(any_of([lit("a"), lit("b", False)])) == "(or a (not b))"
    assert smt2(neg(all_of([lit("a"), lit("b")]))) == "(or (not a) (not b))"
    assert smt2(all_of([])) == "true" and smt2(any_of([])) == "false"


@pytest.mark.parametrize("argv,fragment", [
    (["solve", "sudoku", "x"], "unknown puzzle 'sudoku'"),
    (["solve", "rogue", "no-such-map.txt"], "no-such-map.txt: no such file"),
    (["solve", "rogue"], "a map is needed"),
    (["solve", "kingtour"], "needs --size"),
    (["solve", "kingtour", "--size", "4", "--engine", "sat", "--encoding", "posted"], "runs on z3, not sat"),
    (["solve", "rogue", "-", "--unique"], "rogue has no unique mode"),
    (["show", "nowhere"], "no run.json"),
    (["solve", "kingtour", "--resume", "nowhere"], "no run.json"),
])
def test_cli_errors_are_one_line_exit_2(cli, argv, fragment):
    code, out, err = cli(*argv, stdin="@$\n")
    assert code == 2
    assert fragment in one_error_line(err)


def test_resuming_a_finished_run_is_refused(cli):
    result = cli.solve_json("rogue", "-", stdin="@.$\n")
    code, out, err = cli("solve", "rogue", "--resume", result["run_dir"])
    assert code == 2 and "already finished" in one_error_line(err)


def test_json_output_shapes(cli):
    king = cli.solve_json("kingtour", "--size", 4, "--box", "2x2")
    assert set(king) == {"puzzle", "status", "value", "solution", "run_dir"}
    assert sorted(v for row in king["solution"]["tour"] for v in row) == list(range(1, 17))
    nonary = cli.solve_json("nonary", "-", stdin="[[9, 0, -1]]")
    assert nonary["value"] == 5 and nonary["solution"]["moves"][0]["door"] == 0
    rogue = cli.solve_json("rogue", "-", stdin="@.$\n")
    assert rogue["solution"]["moves"] == "66" and rogue["value"] == 1  # numpad 6: a step east, twice
    tatami = cli.solve_json("tatamibari", "-", "--unique", stdin="+\n")
    assert tatami["unique"] is True and tatami["solution"]["regions"] == [[1]]


def test_rich_output_and_svg(cli, tmp_path):
    svg = tmp_path / "out.svg"
    code, out, err = cli("solve", "nonary", "-", "--out", tmp_path / "runs", "--svg", svg, stdin="[[8, 0, 1], [9, 1, -1]]")
    assert code == 0 and "optimal" in out and "escape plan" in out
    assert "<svg" in svg.read_text()


# ------------------------------------------------------------------- the CNF's words for rules
def _models(cnf, names):
    """Every assignment of `names` that satisfies the clauses, by brute force over all variables."""
    from itertools import product

    n = len(cnf.names) - 1
    found = set()
    for bits in product((False, True), repeat=n):
        value = {v: bits[v - 1] for v in range(1, n + 1)}
        if all(any(value[abs(l)] == (l > 0) for l in clause) for clause in cnf.clauses):
            found.add(tuple(value[cnf.index[name]] for name in names))
    return found


@pytest.mark.parametrize("word,rule", [
    ("implies", lambda a, b, c: (not a) or b or c),
    ("when", lambda a, b, c: not (a and b) or c),
    ("not_both", lambda a, b, c: not (a and b)),
    ("same", lambda a, b, c: a == b),
    ("any_of", lambda a, b, c: a == (b or c)),
    ("require", lambda a, b, c: a),
])
def test_each_word_allows_exactly_the_assignments_its_rule_does(word, rule):
    from itertools import product

    from smtpuzzles.formula import CNF

    cnf = CNF()
    a, b, c = (cnf.var(x) for x in "abc")
    call = {"implies": lambda: cnf.implies(a, [b, c]), "when": lambda: cnf.when([a, b], c),
            "not_both": lambda: cnf.not_both(a, b), "same": lambda: cnf.same(a, b),
            "any_of": lambda: cnf.any_of(a, [b, c]), "require": lambda: cnf.require(a)}
    call[word]()
    assert _models(cnf, "abc") == {bits for bits in product((False, True), repeat=3) if rule(*bits)}
