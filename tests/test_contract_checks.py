"""What only running a puzzle shows of its contract is named in one line with the puzzle's name,
exit 2, never a traceback: an encoding whose engines leave out the puzzle's DEFAULT_ENGINE, MODES its
objective cannot answer, a variable name no solver reads, a decoder or referee that crashes on a
model. And one broken referee gives the audit a few lines, not one per step."""

from __future__ import annotations

import types

import pytest

from smtpuzzles import puzzles, run as runner
from smtpuzzles.auditing.auditor import SHOWN_MODEL_FAILURES, audit
from smtpuzzles.contract import Puzzle
from smtpuzzles.encoding import Encoding
from smtpuzzles.errors import PuzzleError
from smtpuzzles.formula import CNF, Formula, all_of, any_of, lit
from smtpuzzles.objective import IntMax, Satisfy

FREE = 3  # a toy: three free switches, every setting a solution (8 in all)


def switches(name="switch", engines=("sat", "z3"), objective="satisfy", decode=None, modes=("solve", "count")):
    def encode(instance, encoding="x"):
        cnf = CNF()
        names = [f"{name}{i}" for i in range(FREE)]
        for n in names:
            cnf.var(n)
        cnf.add([cnf.var(names[0]), -cnf.var(names[0])])  # a tautology keeps every variable in the formula

        def block(solution):
            return any_of([lit(n, not solution["on"][i]) for i, n in enumerate(names)])

        chosen = Satisfy(block) if objective == "satisfy" else IntMax(lambda k: all_of([]))
        return Encoding("x", 1, Formula.from_cnf(cnf), chosen,
                        decode or (lambda model: {"on": [bool(model[n]) for n in names]}), engines=engines)

    module = types.SimpleNamespace(
        NAME="switches", ENCODINGS=("x",), DEFAULT_ENGINE="sat", MODES=modes, LIMITS={"n": 1},
        load=lambda text, source, options: FREE, canonical=lambda i: {"n": i}, from_canonical=lambda d: d["n"],
        encode=encode, referee=lambda i, s: [] if len(s.get("on", [])) == FREE else ["three switches"],
        value=lambda i, s: sum(s["on"]), value_json=lambda v: v, render=lambda i, s, p: str(s["on"]))
    return Puzzle(module)


@pytest.fixture
def registered(monkeypatch):
    def register(puzzle):
        monkeypatch.setitem(puzzles.registry().puzzles, puzzle.NAME, puzzle)
        return puzzle
    return register


@pytest.mark.parametrize("puzzle,fragment", [
    (lambda: switches(engines=("z3",)), "its DEFAULT_ENGINE is sat, but its x encoding runs on z3 (Encoding.engines)"),
    (lambda: switches(modes=("optimise",)), "its MODES has optimise, which its x encoding's satisfy objective cannot answer"),
    (lambda: switches(objective="max", modes=("solve",)), "its MODES has solve, which its x encoding's max objective"),
    (lambda: switches(name="s(0,"), "its x encoding names a variable 's(0,0', not an SMT-LIB symbol"),
    (lambda: switches(decode=lambda model: {}[1]), "its decode failed on a solver's model (KeyError: 1)"),
])
def test_a_contract_broken_at_run_time_is_one_line_naming_the_puzzle(cli, registered, tmp_path, puzzle, fragment):
    made = registered(puzzle())
    with pytest.raises(PuzzleError) as caught:
        runner.solve(made, FREE, "", out_dir=tmp_path / "api", mode=made.MODES[0])
    assert fragment in caught.value.message and caught.value.where == "puzzle switches"
    code, out, err = cli("solve", "switches", "-", "--out", tmp_path / "runs", stdin="x")
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [f"smtpuzzles: error: puzzle switches: {caught.value.message}"]


def test_a_referee_that_crashes_on_a_model_is_named(registered, tmp_path):
    made = switches()
    made.referee = lambda instance, solution: solution["missing"]
    registered(made)
    with pytest.raises(PuzzleError, match=r"its referee failed on a solver's model \(KeyError"):
        runner.solve(made, FREE, "", out_dir=tmp_path, mode="solve")


def test_one_broken_referee_gives_a_few_audit_lines_not_one_per_step(registered, tmp_path):
    made = registered(switches())
    outcome, ledger = runner.solve(made, FREE, "", out_dir=tmp_path, mode="count")
    assert outcome.extra["count"] == 2 ** FREE
    assert audit(ledger.dir).verdict in ("clean", "consistent")
    made.referee = lambda instance, solution: ["every switch is wrong today"]
    report = audit(ledger.dir)
    failures = [f.text for f in report.findings if f.section == "models" and f.ok is False]
    assert report.verdict == "FAILED" and len(failures) == SHOWN_MODEL_FAILURES + 2
    assert all(text.startswith(f"step {i}: the model breaks the rules") for i, text in enumerate(failures[:-2]))
    assert failures[-2:] == [f"and {2 ** FREE - SHOWN_MODEL_FAILURES} more recorded models fail (the first "
                             f"{SHOWN_MODEL_FAILURES} are named above)",
                             "solution.json breaks the rules: every switch is wrong today"]


def test_a_value_of_any_json_shape_is_shown_not_a_traceback(cli, registered, tmp_path):
    """value_json may give any JSON: a list of numbers crashed the summary once (a plug-in author's report)."""
    made = switches()
    made.value_json = lambda v: [v, 0, 1]
    registered(made)
    code, out, err = cli("solve", "switches", "-", "--out", tmp_path / "runs", stdin="x")
    assert code == 0 and "Traceback" not in err and "[" in out


def test_a_unique_or_count_runs_verdict_line_says_which(registered, tmp_path):
    from smtpuzzles.auditview import verdict_line

    made = registered(switches())
    _, ledger = runner.solve(made, FREE, "", out_dir=tmp_path, mode="count")
    line = verdict_line(audit(ledger.dir)).plain
    assert line.startswith(f"switches solved ({2 ** FREE} solutions) 0: audit consistent")
