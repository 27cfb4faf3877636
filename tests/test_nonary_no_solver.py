"""Nonary's listed games are answered without a solver: the listing's best position, its plan
refereed as a model (`by: search`), and "at least best + 1" settled by the bound the formula
states (`by: bound`); the audit still checks the certificate, and --resolve has z3 and cvc5 refute
the claim. Expected values come from the seed's test cases and the tests' brute force."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from brute_nonary import most_escapees
from smtpuzzles import recorder, run as runner
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.puzzles import nonary
from smtpuzzles.puzzles.nonary import positions

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples" / "nonary"
EXPECTED = json.loads((EXAMPLES / "expected.json").read_text())


def steps_of(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("name", ["02", "01"])  # optimum 4 (every position listed), 9 (a plan frees all nine)
def test_a_listed_game_loads_no_solver_and_records_the_search_and_the_bound(tmp_path, name):
    path = EXAMPLES / f"{name}.json"
    code = ("import sys, json; from smtpuzzles.cli import main\n"
            f"try: main(['solve', 'nonary', {str(path)!r}, '--json', '--out', {str(tmp_path / 'runs')!r}])\n"
            "except SystemExit: pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('z3', 'pysat', 'cvc5'))), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    answer = json.loads(done.stdout)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []  # no solver module was imported
    expected = EXPECTED[f"{name}.json"]
    assert (answer["status"], answer["value"]) == ("optimal", expected)
    run_dir = Path(answer["run_dir"])
    first, closing = steps_of(run_dir)
    assert (first["claim"], first["result"], first["by"], first["value"]) == ({"op": "first"}, "sat", "search", expected)
    assert (closing["claim"], closing["result"], closing["by"]) == ({"op": "at_least", "k": expected + 1}, "unsat", "bound")
    report = audit(run_dir, resolve="certificate", solvers=("z3", "cvc5"))
    assert report.ok, [f.text for f in report.findings if not f.ok]
    assert any("re-solved unsat by z3 and cvc5" in f.text for f in report.findings)


def test_the_answer_is_the_brute_forces_on_every_seed_map(tmp_path):
    for path in sorted(EXAMPLES.glob("[01]*.json")):
        doors = json.loads(path.read_text())
        outcome, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
        assert (outcome.status, outcome.value) == ("optimal", EXPECTED[path.name] == most_escapees(doors) and
                                                   EXPECTED[path.name]), path.name
        assert [s["by"] for s in steps_of(ledger.dir)] == ["search", "bound"]


def understated(monkeypatch, doors) -> int:
    """Make the encoder's answer a plan worth less than the most (its closing claim just above it):
    the value it understates to."""
    graph = nonary.explore(nonary.from_doors(doors), 10**6)
    lower = next(i for i in range(len(graph.standing)) if 0 < graph.escaped(i) < most_escapees(doors))
    worth = graph.escaped(lower)
    real = positions.encode_positions

    def wrong(*args):
        enc = real(*args)
        answer = dict(enc.notes["answer"], solution=graph.plan(lower), value=worth,
                      closing={"op": "at_least", "k": worth + 1})
        return replace(enc, notes={**enc.notes, "answer": answer})

    monkeypatch.setattr(nonary, "encode_positions", wrong)
    return worth


def test_an_understated_answer_is_a_finding_of_the_plain_audit_and_of_the_resolve(tmp_path, monkeypatch):
    """A listing bug that stopped short of the best position: the run seals "optimal" at the lower
    value with its bound step, and the audit must fail it (exit 1), by the solver-free certificate
    without --resolve and by z3 and cvc5 answering sat with it."""
    doors = json.loads((EXAMPLES / "08.json").read_text())  # optimum 7
    worth = understated(monkeypatch, doors)
    outcome, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
    assert (outcome.status, outcome.value) == ("optimal", worth) and worth < EXPECTED["08.json"]
    monkeypatch.undo()  # the audit's encoder is today's, honest one (the base formula is the same)
    plain = audit(ledger.dir)
    assert not plain.ok and plain.exit_code == 1
    assert any(not f.ok and f"not {worth}" in f.text for f in plain.findings)
    resolved = audit(ledger.dir, resolve="certificate", solvers=("z3", "cvc5"))
    assert resolved.exit_code == 1
    assert {(f.text.split(":")[1].split()[0]) for f in resolved.findings if not f.ok and "answered sat" in f.text} \
        == {"z3", "cvc5"}


def test_a_run_stopped_after_its_model_resumes_to_the_bound(tmp_path, monkeypatch):
    """Stopped between the two steps (as a kill or Ctrl-C would leave it): the run is sealed
    interrupted with its model, and a resume replays the model and records the bound."""
    doors = json.loads((EXAMPLES / "07.json").read_text())
    real = recorder.Recorder.settled

    def stop(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(recorder.Recorder, "settled", stop)
    outcome, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
    assert outcome.status == "interrupted"
    assert [s["by"] for s in steps_of(ledger.dir)] == ["search"]
    monkeypatch.setattr(recorder.Recorder, "settled", real)
    outcome, ledger = runner.resume(ledger.dir)
    assert (outcome.status, outcome.value) == ("optimal", EXPECTED["07.json"])
    assert [s["by"] for s in steps_of(ledger.dir)] == ["search", "bound"]
    report = audit(ledger.dir, resolve="certificate", solvers=("z3",))
    assert report.ok, [f.text for f in report.findings if not f.ok]


def test_a_resume_refuses_a_recorded_model_worth_less_than_todays_search(tmp_path, monkeypatch):
    """Stopped after a first step whose plan is legal but worth less than the optimum (a forged
    folder, or one written by a listing bug): the resume must not close "at least best + 1" over
    today's best while keeping the recorded value. It refuses in one line and leaves the run as it
    was found (sealed interrupted, one step), never "optimal" at the lower value."""
    from smtpuzzles.errors import LedgerError

    doors = json.loads((EXAMPLES / "08.json").read_text())  # optimum 7
    worth = understated(monkeypatch, doors)

    def stop(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(recorder.Recorder, "settled", stop)
    outcome, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
    assert outcome.status == "interrupted" and [(s["by"], s["value"]) for s in steps_of(ledger.dir)] == [("search", worth)]
    monkeypatch.undo()  # today's honest encoder and recorder
    with pytest.raises(LedgerError, match=f"worth {worth}; today's search finds {EXPECTED['08.json']}"):
        runner.resume(ledger.dir)
    run = json.loads((ledger.dir / "run.json").read_text())
    assert (run["status"], run["steps"]) == ("interrupted", 1)
    assert len(steps_of(ledger.dir)) == 1
