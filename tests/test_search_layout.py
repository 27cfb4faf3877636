"""The search's layout holds (issue 45): the recorder only records and verifies, readable on one
screen; each search heuristic is one named method of the encoding's advice, switched on by the
encoding and asked for by the driver's steering through that method; the objective kinds take the
advice, not a strategy string."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from smtpuzzles import driver, recorder
from smtpuzzles.advice import ORDERS, Advice
from smtpuzzles.objectives import KINDS
from smtpuzzles.puzzles import kingtour
from smtpuzzles.puzzles.kingtour import encodings

PACKAGE = Path(recorder.__file__).resolve().parent
RECORDER_LINES = 120  # one screen
STEERING_WORDS = re.compile(r"guess|polish|cube|split|clos|steer|guide|hint|advice|engine", re.IGNORECASE)


def test_the_recorder_stays_on_one_screen_and_steers_nothing():
    lines = inspect.getsource(recorder.Recorder).splitlines()
    assert len(lines) <= RECORDER_LINES, f"Recorder is {len(lines)} lines; steering belongs in driver.Steering"
    methods = [name for name, _ in inspect.getmembers(recorder.Recorder, inspect.isfunction)]
    steering = [name for name in methods if STEERING_WORDS.search(name)]
    assert steering == [], f"Recorder methods that steer the search: {steering}"
    # It knows no engine and no advice: nothing it imports could steer one.
    imported = {node.module for node in ast.walk(ast.parse(Path(recorder.__file__).read_text()))
                if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "typing", "smtpuzzles.canonical", "smtpuzzles.formula", "smtpuzzles.objectives"}


def test_each_heuristic_is_a_named_advice_method_the_encoding_switches_on():
    public = {name for name, _ in inspect.getmembers(Advice, inspect.isfunction) if not name.startswith("_")}
    assert public == set(Advice.HEURISTICS) | {"on", "replace"}
    switches = inspect.signature(Advice).parameters
    default = Advice()
    for name in Advice.HEURISTICS:
        assert switches[name].kind is inspect.Parameter.KEYWORD_ONLY and switches[name].default in (None, False), name
        assert not default.on(name), name  # the default advises nothing special
        on = Advice(**{name: True if switches[name].default is False else (lambda *args: ["x"])})
        assert [other for other in Advice.HEURISTICS if on.on(other)] == [name]
    # Switched off, each says "nothing".
    assert (default.first_guess(), default.second_guess(1.0, {}), default.polish({}, {}), default.cubes(1)) == \
        (None, None, None, None)
    assert default.close_by_cases([{"op": "first"}], lambda case: 0) is None
    assert default.proof_parts(lambda: ["a case"]) is None
    assert Advice(close_by_cases=True).close_by_cases([{"op": "first"}], lambda case: 3) == [3]
    assert Advice(close_by_cases=True).close_by_cases([{"op": "first"}], lambda case: None) is None
    assert Advice(proof_parts=True).proof_parts(lambda: ["a case"]) == ["a case"]
    assert default.order == "descend" and set(ORDERS) == {"descend", "leap", "climb"}


def test_the_kings_tour_switches_on_its_advice_and_the_posted_model_none(monkeypatch):
    board = kingtour.parse(4, "2x2", None)
    assert {name for name in Advice.HEURISTICS if kingtour.encode(board).advice.on(name)} == \
        {"first_guess", "polish", "cubes", "close_by_cases"}
    monkeypatch.setattr(encodings, "REACH_FROM_CELLS", 16)  # as from 12x12 on
    assert {name for name in Advice.HEURISTICS if kingtour.encode(board, "onehot").advice.on(name)} == \
        {"first_guess", "polish", "cubes", "close_by_cases", "second_guess", "proof_parts"}
    assert not any(kingtour.encode(board, "posted").advice.on(name) for name in Advice.HEURISTICS)


def test_the_steering_asks_each_heuristic_through_its_named_method_and_checks_in_a_short_loop():
    steering = inspect.getsource(driver.Steering)
    asked = set(re.findall(r"self\.advice\.(\w+)", steering)) - {"on", "second_guess_each_check"}
    assert asked == {"first_guess", "second_guess", "polish", "close_by_cases"}, asked
    for name in ("first_guess", "second_guess", "polish", "split", "close_by_cases", "close_by_bound"):
        assert inspect.isfunction(getattr(driver.Steering, name)), name
    assert len(inspect.getsource(driver.Steering.check).splitlines()) <= 25
    # The cubes the encoding proposes are checked to cover every case before any run uses them, and
    # proofs in parts are the certifier's and the audit's, chosen in one place for both
    # (auditproof.claim_split): read where those are made.
    calls = {path.name for path in PACKAGE.rglob("*.py") if re.search(r"advice\.cubes\(", path.read_text())}
    assert calls == {"splitting.py"}  # how a run splits its checks, beside run.py
    calls = {path.name for path in PACKAGE.rglob("*.py") if re.search(r"advice\.proof_parts\(", path.read_text())}
    assert calls == {"auditproof.py"}


def test_the_objective_kinds_take_the_advice_not_a_strategy_string():
    for kind in KINDS.values():
        parameters = list(inspect.signature(kind.search).parameters)
        assert parameters[-1] == "advice" and "how" not in parameters, kind.KIND
    assert not hasattr(KINDS["lex"], "SEARCHES")
    run_source = (PACKAGE / "run.py").read_text()
    assert "search: str" not in run_source and "settings.search" not in run_source
