"""Failure paths, asserted: exit statuses per command, `unknown` never `optimal`, count limits at
the boundary, and the driver's and the ledger's refusals, each on the one fault it exists for.

Exit statuses (README): 0 an answer, 1 an internal error (a model the referee rejects), 2 bad input
(one line on stderr, nothing recorded), 3 `unknown` (a time limit), 130 interrupted.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from conftest import one_error_line
from smtpuzzles import driver as drv
from smtpuzzles.engines import CheckResult
from smtpuzzles.errors import LedgerError
from smtpuzzles.formula import CNF, Formula, lit
from smtpuzzles.folders.ledger import Ledger
from smtpuzzles.folders.runfolder import chain_end, read_run_json, read_steps, seal_problem
from smtpuzzles.objective import Advice, Encoding, IntMax, LexMax, Satisfy
from smtpuzzles.puzzles import nonary
from test_differential import COUNTED, tatamibari_solutions

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"
NONARY_02 = EXAMPLES / "nonary" / "02.json"  # the seed's [[8, 0, 1], [9, 1, -1]]: 4 escape


def steps_of(run_dir) -> list[dict]:
    return [json.loads(line) for line in (Path(run_dir) / "steps.jsonl").read_text().splitlines()]


# ------------------------------------------------------------------------------------------ solve
def test_solve_exits_0_for_each_kind_of_answer(cli):
    assert cli.solve_json("nonary", NONARY_02, code=0)["status"] == "optimal"
    assert cli.solve_json("tatamibari", EXAMPLES / "tatamibari" / "01.txt", code=0)["status"] == "solved"
    assert cli.solve_json("tatamibari", "-", stdin="++\n++\n", code=0)["status"] == "infeasible"


@pytest.mark.parametrize("puzzle,text,fragment", [
    ("nonary", "[[8, 0, 1], [9, 1, -1]", "not valid JSON"),
    ("tatamibari", "+*\n*\n", "line 2"),
    ("rogue", "@g\n", "next to the monster"),
])
def test_solve_exits_2_on_bad_input_and_records_nothing(cli, puzzle, text, fragment):
    out = cli.tmp_path / "runs"
    code, stdout, err = cli("solve", puzzle, "-", "--json", "--out", out, stdin=text)
    assert (code, stdout) == (2, "")
    assert fragment in one_error_line(err)
    assert not out.exists() or not any(out.iterdir())


def test_solve_exits_2_for_a_missing_file_and_an_unknown_puzzle(cli):
    code, _, err = cli("solve", "nonary", cli.tmp_path / "nowhere.json", "--out", cli.tmp_path / "runs")
    assert code == 2 and "nowhere.json: no such file" in one_error_line(err)
    code, _, err = cli("solve", "chess", "-", "--out", cli.tmp_path / "runs", stdin="")
    assert code == 2 and "chess" in one_error_line(err)


def test_a_time_limit_gives_unknown_exit_3_and_never_optimal(cli):
    """The 9x9 record takes about half a minute; 0.05 s per check cannot prove it."""
    result = cli.solve_json("kingtour", "--size", 9, "--box", "3x3", "--time-limit", 0.05, code=3)
    assert result["status"] == "unknown"
    run_dir = Path(result["run_dir"])
    run = read_json(run_dir / "run.json")
    assert run["status"] == "unknown" and "certificate" not in run
    assert not (run_dir / "certificate.smt2.gz").exists()
    assert steps_of(run_dir)[-1]["result"] == "unknown"
    # The picture says so too, and tells how to go on; it never says optimal.
    code, out, _ = cli("show", run_dir)
    assert code == 0 and "unknown" in out and "optimal" not in out


def test_a_time_limit_without_json_prints_unknown_and_the_resume_command(cli):
    code, out, _ = cli("solve", "kingtour", "--size", 9, "--box", "3x3", "--time-limit", 0.05, "--out", cli.tmp_path / "r")
    assert code == 3
    assert "unknown" in out and "optimal" not in out
    assert "--resume" in out


def interrupt_after(monkeypatch, checks: int):
    """Ctrl-C arriving during solver check number `checks + 1` (in this process)."""
    real = drv.Steering.check
    seen = []

    def check(self, claim):
        seen.append(claim)
        if len(seen) > checks:
            raise KeyboardInterrupt
        return real(self, claim)

    monkeypatch.setattr(drv.Steering, "check", check)


def test_ctrl_c_exits_130_interrupted_and_resumes_to_optimal(cli, monkeypatch):
    interrupt_after(monkeypatch, 1)
    # chains: a listed game (the default's choice here) is answered without a solver check to interrupt
    result = cli.solve_json("nonary", NONARY_02, "--encoding", "chains", code=130)
    assert result["status"] == "interrupted"
    run_dir = Path(result["run_dir"])
    assert read_json(run_dir / "run.json")["status"] == "interrupted"
    assert "certificate" not in read_json(run_dir / "run.json")
    monkeypatch.undo()
    code, out, err = cli("solve", "nonary", "--resume", run_dir, "--json")
    assert code == 0, err
    assert (json.loads(out)["status"], json.loads(out)["value"]) == ("optimal", 4)


def test_ctrl_c_before_any_check_exits_130_with_one_line(cli, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(nonary, "load", interrupted)
    code, out, err = cli("solve", "nonary", NONARY_02, "--out", cli.tmp_path / "runs")
    assert code == 130 and one_error_line(err) == "smtpuzzles: interrupted"


def test_ctrl_c_while_the_parser_loads_the_puzzles_exits_130_with_one_line(cli, monkeypatch):
    """CI once sent its Ctrl-C while `solve --help`'s puzzle list was importing the puzzles: a traceback."""
    from smtpuzzles import cli as cli_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "build_parser", interrupted)
    try:
        code, out, err = cli("solve", "nonary", NONARY_02, "--out", cli.tmp_path / "runs")
    except KeyboardInterrupt:  # escaping, it would stop the whole session rather than fail this test
        pytest.fail("the Ctrl-C left main() as a KeyboardInterrupt")
    assert code == 130 and one_error_line(err) == "smtpuzzles: interrupted"
    assert not (cli.tmp_path / "runs").exists()


def test_ctrl_c_while_the_command_is_still_importing_exits_130_with_one_line(monkeypatch, capsys):
    """`python -m smtpuzzles` and the installed command both start in `__main__.entry`: a Ctrl-C that
    lands inside the import of the command line (z3, rich, the puzzles) is one line, exit 130."""
    import sys

    from smtpuzzles import __main__ as entry_module

    class InterruptedImport:
        def find_spec(self, name, path=None, target=None):
            if name == "smtpuzzles.cli":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "smtpuzzles.cli")
    monkeypatch.setattr(sys, "meta_path", [InterruptedImport()] + sys.meta_path)
    try:
        assert entry_module.entry() == 130
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C left entry() as a KeyboardInterrupt")
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "smtpuzzles: interrupted\n"


def test_the_installed_command_starts_where_python_m_does():
    """The console script must go through `command` and `entry` (Ctrl-C while importing, the prompt
    end after one), not straight to cli.main."""
    from importlib.metadata import entry_points

    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "smtpuzzles"]
    assert script.value == "smtpuzzles.__main__:command"


def test_a_model_the_referee_rejects_exits_1_and_is_never_an_answer(cli, monkeypatch):
    monkeypatch.setattr(nonary, "referee", lambda game, solution: ["forced rejection"])
    code, out, err = cli("solve", "nonary", NONARY_02, "--json", "--out", cli.tmp_path / "runs")
    assert code == 1 and out == ""
    line = one_error_line(err)
    assert "internal error" in line and "forced rejection" in line
    for run_json in (cli.tmp_path / "runs").glob("*/run.json"):
        assert read_json(run_json)["status"] not in ("optimal", "solved", "infeasible")


# ------------------------------------------------------------------------------------ count limits
BOARD = "??*\n*??\n?*?\n"  # four solutions, by the brute force of test_differential.py


@pytest.mark.parametrize("limit,count,complete", [(3, 3, False), (4, 4, False), (5, 4, True), (1, 1, False)])
def test_count_limit_at_the_boundary(cli, limit, count, complete):
    """A limit stops the search once it holds `limit` solutions, without asking for one more: at
    the true count the count is right but not known to be complete; one above, it is proved."""
    assert len(tatamibari_solutions(BOARD.split())) == COUNTED[BOARD] == 4
    result = cli.solve_json("tatamibari", "-", "--count", limit, stdin=BOARD, code=0)
    assert (result["count"], result["count_complete"]) == (count, complete)
    steps = steps_of(result["run_dir"])
    assert len(steps) == count + complete  # one check per solution, plus the refuting one
    assert (steps[-1]["result"] == "unsat") is complete


def test_count_without_a_limit_is_complete(cli):
    result = cli.solve_json("tatamibari", "-", "--count", stdin=BOARD, code=0)
    assert (result["count"], result["count_complete"]) == (4, True)
    result = cli.solve_json("tatamibari", "-", "--count", stdin="++\n++\n", code=0)
    assert (result["status"], result["count"], result["count_complete"]) == ("infeasible", 0, True)


# ------------------------------------------------------------------------------- show and convert
def test_show_exits_0_on_a_run_and_2_on_anything_else(cli, tmp_path):
    run_dir = Path(cli.solve_json("nonary", NONARY_02)["run_dir"])
    code, out, _ = cli("show", run_dir)
    assert code == 0 and "optimal" in out
    code, _, err = cli("show", tmp_path)  # a folder, but no run
    assert code == 2 and "no run.json" in one_error_line(err)
    (run_dir / "run.json").write_text('{"puzzle": ')
    code, _, err = cli("show", run_dir)
    assert code == 2 and "run.json: not valid JSON" in one_error_line(err)


def test_convert_exits_0_both_ways_and_2_on_bad_input(cli, tmp_path):
    url = "https://puzz.link/p?tatamibari/3/3/1g2h3i"
    code, grid, _ = cli("convert", url)
    assert code == 0 and grid.split() == ["|*-", "**+", "***"]
    assert cli("convert", url[:-1])[1] == grid  # puzz.link may leave trailing empty cells out
    path = tmp_path / "g.txt"
    path.write_text(grid)
    code, out, _ = cli("convert", path)
    assert (code, out.strip()) == (0, url)
    for bad, fragment in ((url + "!", "not a puzz.link tatamibari URL"), (tmp_path / "none.txt", "no such file")):
        code, out, err = cli("convert", bad)
        assert code == 2 and out == "" and fragment in one_error_line(err)
    path.write_text("|x\n**\n")
    code, _, err = cli("convert", path)
    assert code == 2 and "line 1 column 2: unknown symbol 'x'" in one_error_line(err)


def test_export_exits_0_and_writes_every_canonical_instance(cli, tmp_path):
    code, out, _ = cli("export", "--out", tmp_path / "enc")
    assert code == 0
    written = sorted(p.relative_to(tmp_path / "enc").as_posix() for p in (tmp_path / "enc").rglob("*.smt2"))
    assert "nonary/02.smt2" in written and "tatamibari/05.smt2" in written and "rogue/11.smt2" in written
    assert {"kingtour/4x4-onehot.smt2", "kingtour/6x6-posted.smt2"} <= set(written)
    for name in written:
        text = (tmp_path / "enc" / name).read_text()
        assert text.rstrip().endswith("(check-sat)") and "(assert" in text
    assert len(out.splitlines()) == len(written)


# ------------------------------------------------------------------------------------------ driver
class Scripted:
    """An engine that answers each check with the next scripted answer: (status, model or None)."""

    name, version = "scripted", "0"

    def __init__(self, script):
        self.script = list(script)
        self.params: dict = {}
        self.asked: list = []
        self.hints: list = []

    def check(self, terms, timeout):
        self.asked.append((terms, timeout))
        status, model = self.script.pop(0)
        if status == "unsat":
            return CheckResult("unsat", core=[0])
        if status == "unknown":
            return CheckResult("unknown", reason="timeout")
        return CheckResult("sat", model=model, stats={"conflicts": 1})

    def hint(self, model):
        self.hints.append(model)

    def guide(self, guess):
        pass


def run_scripted(objective, script, *, referee=lambda s: [], mode="optimise", limit=None, time_limit=None, replay=None,
                 search="descend"):
    """(outcome, recorded steps, engine) of the driver on a scripted engine. Models are the
    solutions themselves; a solution's value is its "v"."""
    formula = Formula.from_cnf(CNF())
    encoding = Encoding("scripted", 1, formula, objective, lambda model: dict(model), advice=Advice(order=search))
    engine = Scripted(script)
    steps: list[dict] = []

    def record(step):
        steps.append({"index": len(steps), **step})
        return steps[-1]

    rec = drv.Steering(encoding, lambda: engine, lambda s: s["v"], referee, record, replay=replay, time_limit=time_limit)
    return drv.run_objective(rec, mode, limit), steps, engine


def at_least(k):
    return lit(f"ge{k}")


def climb(*, descend=False, upper=None):
    return IntMax(at_least, upper=upper, descend=descend)


def sat(v, **more):
    return ("sat", {"v": v, **more})


def claims(steps):
    return [s["claim"] for s in steps]


def test_first_check_unknown_or_unsat():
    outcome, steps, _ = run_scripted(climb(), [("unknown", None)])
    assert (outcome.status, outcome.value, outcome.solution, outcome.certificate) == ("unknown", None, None, None)
    assert steps[0]["reason"] == "timeout" and "core" not in steps[0]
    outcome, steps, _ = run_scripted(climb(), [("unsat", None)])
    assert outcome.status == "infeasible" and outcome.certificate == {"claim": {"op": "first"}}
    assert steps[0]["core"] == [0]


def test_climb_to_optimal_records_each_step():
    outcome, steps, engine = run_scripted(climb(), [sat(1), sat(2), ("unsat", None)], time_limit=7.0)
    assert (outcome.status, outcome.value, outcome.solution) == ("optimal", 2, {"v": 2})
    assert outcome.certificate == {"claim": {"op": "at_least", "k": 3}}
    assert claims(steps) == [{"op": "first"}, {"op": "at_least", "k": 2}, {"op": "at_least", "k": 3}]
    assert [s["result"] for s in steps] == ["sat", "sat", "unsat"]
    first = steps[0]
    assert first["by"] == "solver" and first["engine"] == "scripted" and first["solution"] == {"v": 1}
    assert first["value"] == 1 and first["stats"] == {"conflicts": 1} and first["words"] == "there is a solution"
    assert steps[1]["assumptions"] == ["ge2"] and first["assumptions"] == []
    assert [t for _, t in engine.asked] == [7.0, 7.0, 7.0]  # the limit reaches every check
    assert engine.hints == [{"v": 1}, {"v": 2}]  # each model is handed back as a phase hint


def test_a_climb_that_jumps_goes_on_from_the_better_value():
    outcome, steps, _ = run_scripted(climb(), [sat(1), sat(3), ("unsat", None)])
    assert (outcome.status, outcome.value) == ("optimal", 3)
    assert claims(steps)[-1] == {"op": "at_least", "k": 4}


def test_unknown_in_a_climb_keeps_the_best_and_claims_nothing():
    outcome, steps, _ = run_scripted(climb(), [sat(1), sat(2), ("unknown", None)])
    assert (outcome.status, outcome.value, outcome.solution, outcome.certificate) == ("unknown", 2, {"v": 2}, None)


def test_a_model_below_the_bound_asked_is_refused():
    with pytest.raises(drv.RefereeRejected, match="worth 1, the check asked for at least 2"):
        run_scripted(climb(), [sat(1), sat(1)])


def test_a_model_the_referee_rejects_is_refused_with_its_problems():
    with pytest.raises(drv.RefereeRejected, match="breaks the rules: bad cell; bad door"):
        run_scripted(climb(), [sat(1)], referee=lambda s: ["bad cell", "bad door", "third", "fourth"])


def test_descent_from_the_ceiling():
    # 3 and 2 refuted, 1 satisfied: optimal 1, proved by the step at 2, no climb needed
    outcome, steps, _ = run_scripted(climb(descend=True, upper=3), [sat(0), ("unsat", None), ("unsat", None), sat(1)])
    assert (outcome.status, outcome.value) == ("optimal", 1)
    assert outcome.certificate == {"claim": {"op": "at_least", "k": 2}}
    assert [c.get("k") for c in claims(steps)] == [None, 3, 2, 1]


def test_descent_that_meets_the_ceiling_then_climbs():
    outcome, steps, _ = run_scripted(climb(descend=True, upper=3), [sat(0), sat(3), ("unsat", None)])
    assert (outcome.status, outcome.value) == ("optimal", 3)
    assert [c.get("k") for c in claims(steps)] == [None, 3, 4]


def test_descent_down_to_the_first_value():
    # everything above the first model refuted: its value is optimal, certified at best + 1
    outcome, steps, _ = run_scripted(climb(descend=True, upper=3), [sat(1), ("unsat", None), ("unsat", None)])
    assert (outcome.status, outcome.value, outcome.solution) == ("optimal", 1, {"v": 1})
    assert outcome.certificate == {"claim": {"op": "at_least", "k": 2}}
    assert len(steps) == 3


def test_descent_stopped_by_a_time_limit():
    outcome, _, _ = run_scripted(climb(descend=True, upper=3), [sat(1), ("unsat", None), ("unknown", None)])
    assert (outcome.status, outcome.value, outcome.certificate) == ("unknown", 1, None)


def test_descent_refuses_a_model_above_a_refuted_bound():
    with pytest.raises(drv.RefereeRejected, match="worth 3, yet at least 3 was refuted"):
        run_scripted(climb(descend=True, upper=3), [sat(0), ("unsat", None), sat(3)])


def lex(length=2, domain=(1, 2, 3), multiplicity=None):
    return LexMax(length, domain, lambda i, d: lit(f"g{i}_{d}"), lambda i, d: lit(f"e{i}_{d}"), multiplicity)


def test_lexicographic_maximum_position_by_position():
    script = [sat([1, 1]), sat([2, 1]), ("unsat", None), ("unsat", None), ("unsat", None)]
    outcome, steps, _ = run_scripted(lex(), script, search="climb")
    assert (outcome.status, outcome.value) == ("optimal", [2, 1])
    assert outcome.extra == {"proved_digits": 2}
    assert claims(steps)[1:] == [
        {"op": "exceed", "prefix": [], "pos": 0, "than": 1},
        {"op": "exceed", "prefix": [], "pos": 0, "than": 2},
        {"op": "exceed", "prefix": [2], "pos": 1, "than": 1},
        {"op": "lex_greater", "best": [2, 1]},
    ]
    assert outcome.certificate == {"claim": {"op": "lex_greater", "best": [2, 1]}}
    assert steps[3]["assumptions"] == ["e0_2", "g1_1"]


def test_lexicographic_positions_at_the_top_need_no_solver():
    """Without counts, only the domain's largest value closes a position by the bound."""
    outcome, steps, engine = run_scripted(lex(), [sat([3, 3]), ("unsat", None)])
    assert (outcome.status, outcome.value) == ("optimal", [3, 3])
    assert [s["by"] for s in steps] == ["solver", "bound", "bound", "solver"]
    assert all(s["result"] == "unsat" and "largest value" in s["reason"] for s in steps[1:3])
    assert len(engine.asked) == 2


def test_lexicographic_bound_counts_the_copies_left():
    """Each value once: after the prefix [3], 2 is the largest value left, so a 2 there is closed
    by the bound, and a 1 is not."""
    m = {1: 1, 2: 1, 3: 1}
    outcome, steps, _ = run_scripted(lex(3, multiplicity=m), [sat([3, 1, 2]), sat([3, 2, 1]), ("unsat", None)])
    assert (outcome.status, outcome.value) == ("optimal", [3, 2, 1])
    assert [(s["by"], s["claim"]["op"]) for s in steps] == [
        ("solver", "first"), ("bound", "exceed"), ("solver", "exceed"), ("bound", "exceed"), ("bound", "exceed"),
        ("solver", "lex_greater")]
    assert steps[2]["claim"] == {"op": "exceed", "prefix": [3], "pos": 1, "than": 1}


def test_a_raised_position_leaps_to_the_top_and_comes_down():
    """After a SAT answer raises position 0 from 1 to 2, leap asks for 5, 4, 3 (each "more than
    than"): the first SAT (at "more than 2") is the position's maximum, with no further question."""
    script = [sat([1, 1, 1]), sat([2, 1, 1]), ("unsat", None), ("unsat", None), sat([3, 1, 1]),
              ("unsat", None), ("unsat", None), ("unsat", None)]
    outcome, steps, _ = run_scripted(lex(3, domain=(1, 2, 3, 4, 5)), script, search="leap")
    assert (outcome.status, outcome.value) == ("optimal", [3, 1, 1])
    assert [(c["prefix"], c["than"]) for c in claims(steps) if c["op"] == "exceed"] == [
        ([], 1), ([], 4), ([], 3), ([], 2), ([3], 1), ([3, 1], 1)]


def test_descend_asks_each_position_from_the_top_down():
    """The default: at most one SAT question per position. Position 0 is refuted at 5 and 4 and
    reaches 3; positions 1 and 2 are refuted from 5 down to "more than 1", so 1 is their maximum."""
    refuted = [("unsat", None)] * 4
    script = [sat([1, 1, 1]), ("unsat", None), ("unsat", None), sat([3, 1, 1])] + refuted + refuted + [("unsat", None)]
    outcome, steps, _ = run_scripted(lex(3, domain=(1, 2, 3, 4, 5)), script)
    assert (outcome.status, outcome.value) == ("optimal", [3, 1, 1])
    assert [(c["prefix"], c["than"]) for c in claims(steps) if c["op"] == "exceed"] == [
        ([], 4), ([], 3), ([], 2), ([3], 4), ([3], 3), ([3], 2), ([3], 1), ([3, 1], 4), ([3, 1], 3), ([3, 1], 2),
        ([3, 1], 1)]
    assert claims(steps)[-1] == {"op": "lex_greater", "best": [3, 1, 1]}


def test_runs_recorded_before_the_leap_climb_one_value_at_a_time():
    script = [sat([1, 1, 1]), sat([2, 1, 1]), sat([3, 1, 1]), ("unsat", None), ("unsat", None), ("unsat", None),
              ("unsat", None)]
    outcome, steps, _ = run_scripted(lex(3, domain=(1, 2, 3, 4, 5)), script, search="climb")
    assert (outcome.status, outcome.value) == ("optimal", [3, 1, 1])
    assert [(c["prefix"], c["than"]) for c in claims(steps) if c["op"] == "exceed"] == [
        ([], 1), ([], 2), ([], 3), ([3], 1), ([3, 1], 1)]


def test_a_leap_that_lands_below_what_it_asked_is_refused():
    with pytest.raises(drv.RefereeRejected, match="does not meet the claim at position 1"):
        run_scripted(lex(3, domain=(1, 2, 3, 4, 5)), [sat([1, 1, 1]), sat([2, 1, 1]), sat([3, 1, 1])], search="leap")
    with pytest.raises(drv.RefereeRejected, match="does not meet the claim at position 1"):
        run_scripted(lex(3, domain=(1, 2, 3, 4, 5)), [sat([1, 1, 1]), sat([4, 1, 1])])  # asked for 5


def test_lexicographic_unknown_keeps_the_digits_proved():
    outcome, _, _ = run_scripted(lex(), [sat([1, 1]), ("unsat", None), ("unknown", None)], search="climb")
    assert (outcome.status, outcome.value, outcome.extra) == ("unknown", [1, 1], {"proved_digits": 1})
    assert outcome.certificate is None
    outcome, _, _ = run_scripted(lex(), [sat([2, 2]), ("unsat", None), ("unsat", None), ("unknown", None)],
                                 search="climb")
    assert (outcome.status, outcome.extra, outcome.certificate) == ("unknown", {"proved_digits": 2}, None)


def test_lexicographic_refusals():
    with pytest.raises(drv.RefereeRejected, match="does not meet the claim at position 1"):
        run_scripted(lex(), [sat([2, 1]), sat([2, 3])])  # asked for more than 2 at position 1
    with pytest.raises(drv.RefereeRejected, match="does not meet the claim at position 2"):
        run_scripted(lex(), [sat([2, 1]), ("unsat", None), sat([1, 3])])  # the prefix 2 not kept
    with pytest.raises(drv.RefereeRejected, match="closing certificate found a better vector"):
        run_scripted(lex(), [sat([2, 2]), ("unsat", None), ("unsat", None), sat([3, 3])])


def block():
    return Satisfy(lambda s: lit(f"not_{s['v']}"))


def test_satisfy_modes():
    outcome, steps, _ = run_scripted(block(), [sat(1)], mode="solve")
    assert (outcome.status, outcome.value, len(steps)) == ("solved", 1, 1)
    outcome, steps, _ = run_scripted(block(), [sat(1), ("unsat", None)], mode="unique")
    assert outcome.extra == {"unique": True} and outcome.certificate == {"claim": claims(steps)[1]}
    assert claims(steps)[1] == {"op": "block", "solutions": [{"v": 1}]} and steps[1]["assumptions"] == ["not_1"]
    outcome, steps, _ = run_scripted(block(), [sat(1), sat(2)], mode="unique")
    assert outcome.extra == {"unique": False, "other": {"v": 2}} and outcome.certificate is None
    assert (outcome.status, outcome.solution) == ("solved", {"v": 1})


def test_counting_with_and_without_a_limit():
    outcome, steps, _ = run_scripted(block(), [sat(1), sat(2), ("unsat", None)], mode="count")
    assert outcome.extra == {"count": 2, "count_complete": True}
    assert claims(steps)[-1] == {"op": "block", "solutions": [{"v": 1}, {"v": 2}]}
    outcome, steps, _ = run_scripted(block(), [sat(1), sat(2)], mode="count", limit=2)
    assert outcome.extra == {"count": 2, "count_complete": False} and len(steps) == 2
    outcome, steps, _ = run_scripted(block(), [sat(1), sat(2), sat(3), ("unsat", None)], mode="count", limit=4)
    assert outcome.extra == {"count": 3, "count_complete": True}
    outcome, _, _ = run_scripted(block(), [sat(1), ("unknown", None)], mode="count")
    assert (outcome.status, outcome.extra) == ("unknown", {"count": 1})


def test_replayed_steps_are_not_asked_again_and_must_match():
    outcome, steps, _ = run_scripted(climb(), [sat(1), sat(2), ("unsat", None)])
    # The same run replayed from its record: the engine is never built.
    formula = Formula.from_cnf(CNF())
    encoding = Encoding("scripted", 1, formula, climb(), lambda model: dict(model))

    def no_engine():
        raise AssertionError("a fully replayed run must not start a solver")

    seen = []
    rec = drv.Steering(encoding, no_engine, lambda s: s["v"], lambda s: [], lambda s: pytest.fail("recorded again"),
                       replay=steps, on_step=seen.append)
    again = drv.run_objective(rec)
    assert (again.status, again.value, again.certificate) == ("optimal", 2, outcome.certificate)
    assert seen == steps and rec.recorder.checks == 0
    # A record that asked something else is refused, naming the step.
    changed = [dict(s) for s in steps]
    changed[1] = dict(changed[1], claim={"op": "at_least", "k": 5})
    rec = drv.Steering(encoding, no_engine, lambda s: s["v"], lambda s: [], lambda s: s, replay=changed)
    with pytest.raises(drv.ResumeMismatch, match="step 1 asked"):
        drv.run_objective(rec)


def test_unknown_steps_in_a_record_are_asked_again():
    outcome, steps, _ = run_scripted(climb(), [sat(1), ("unknown", None)])
    assert outcome.status == "unknown"
    outcome, more, engine = run_scripted(climb(), [("unsat", None)], replay=steps)
    assert (outcome.status, outcome.value) == ("optimal", 1)
    assert len(engine.asked) == 1 and more[0]["claim"] == {"op": "at_least", "k": 2}


def test_a_resumed_run_tells_its_views_of_the_unknown_steps_too_in_their_place():
    """They are asked again, not replayed, but were checks: the live view of a resume counts them
    as `show` does (it had counted 141 where `show` said 146 on the 18x18 run)."""
    _, first, _ = run_scripted(climb(), [sat(1), ("unknown", None)])  # a session ends at an unknown
    _, second, _ = run_scripted(climb(), [("unknown", None)], replay=first)
    steps = [dict(s, index=i) for i, s in enumerate(first + second)]
    assert [s["result"] for s in steps] == ["sat", "unknown", "unknown"]
    formula = Formula.from_cnf(CNF())
    encoding = Encoding("scripted", 1, formula, climb(), lambda model: dict(model))
    told, recorded = [], []

    def record(step):
        recorded.append({"index": len(steps) + len(recorded), **step})
        return recorded[-1]

    rec = drv.Steering(encoding, lambda: Scripted([("unsat", None)]), lambda s: s["v"], lambda s: [], record,
                       replay=steps, on_step=told.append)
    assert drv.run_objective(rec).status == "optimal"
    assert [s["index"] for s in told] == [0, 1, 2, 3] and told[-1] is recorded[0]


# ------------------------------------------------------------------------------------------ ledger
HEADER = {"puzzle": "toy", "instance": {"n": 1}, "instance_sha256": "ab" * 32, "encoding": {"name": "toy", "version": 1},
          "engine": {"name": "z3", "params": {}}}


def read_json(path):
    return json.loads(path.read_text())


def step(claim: dict, result: str, value=None) -> dict:
    """A step as the driver records one (the run-folder reader checks the schema on resume)."""
    return {"claim": claim, "assumptions": [], "result": result,
            **({"solution": {}, "value": value} if result == "sat" else {})}


def new_ledger(tmp_path, steps=3, finish="optimal") -> Ledger:
    ledger = Ledger.create(tmp_path / "runs", dict(HEADER), "input", "(check-sat)\n")
    for i in range(steps):
        ledger.append(step({"op": "at_least", "k": i}, "sat" if i < steps - 1 else "unsat", i))
    if finish:
        ledger.finish(finish, steps - 1)
    return ledger


def test_a_new_ledger_chains_its_steps_from_the_instance_hash(tmp_path):
    ledger = new_ledger(tmp_path)
    run = read_json(ledger.dir / "run.json")
    assert run["status"] == "optimal" and run["steps"] == 3 and run["value"] == 2
    read = read_steps(ledger.dir, HEADER["instance_sha256"])
    assert not read.torn_tail and len(read.steps) == 3
    assert read.steps[0]["prev"] == HEADER["instance_sha256"] and run["last_step_sha256"] == read.last_hash
    assert ledger.refuting_step({"op": "at_least", "k": 2}) == 2
    assert (ledger.dir / "input.txt").read_text() == "input"
    assert seal_problem(run, read) is None


def test_a_second_run_of_the_same_instance_gets_its_own_folder(tmp_path):
    first, second = new_ledger(tmp_path), new_ledger(tmp_path)
    assert first.dir != second.dir and first.dir.parent == second.dir.parent
    assert len(read_steps(first.dir, HEADER["instance_sha256"]).steps) == 3


@pytest.mark.parametrize("damage,fragment", [
    (lambda lines: lines[:1] + lines[2:], "line 2: hash chain broken"),
    (lambda lines: [lines[1], lines[0]] + lines[2:], "line 1: hash chain broken"),
    (lambda lines: lines[:1] + [lines[1].replace('"k":1', '"k":7')] + lines[2:], "line 3: hash chain broken"),
    (lambda lines: lines[:1] + ["{not json"] + lines[2:], "line 2: not valid JSON"),
])
def test_read_steps_names_the_damaged_line(tmp_path, damage, fragment):
    ledger = new_ledger(tmp_path)
    path = ledger.dir / "steps.jsonl"
    path.write_text("\n".join(damage(path.read_text().splitlines())) + "\n")
    with pytest.raises(LedgerError) as caught:
        read_steps(ledger.dir, HEADER["instance_sha256"])
    assert fragment in str(caught.value)


def test_a_wrong_step_index_is_named(tmp_path):
    ledger = new_ledger(tmp_path, finish=None)
    ledger.append({"index": 7, **step({"op": "first"}, "sat", 0)})  # an index given by hand
    ledger.finish("unknown", None)
    with pytest.raises(LedgerError) as caught:
        read_steps(ledger.dir, HEADER["instance_sha256"])
    assert caught.value.message == "line 4: step index 7 where 3 was due"


def test_a_finished_ledger_seals_its_length(tmp_path):
    ledger = new_ledger(tmp_path, finish="unknown")
    path = ledger.dir / "steps.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n")  # the last step cut off: the chain itself is intact
    run = read_json(ledger.dir / "run.json")
    read = read_steps(ledger.dir, HEADER["instance_sha256"])
    assert "run.json seals 3 steps but the file holds 2" in seal_problem(run, read)
    with pytest.raises(LedgerError, match="refusing to resume a tampered ledger"):
        Ledger.resume(ledger.dir)
    assert path.read_text().splitlines() == lines[:-1]  # nothing touched


def test_a_killed_run_resumes_without_its_torn_line(tmp_path):
    ledger = new_ledger(tmp_path, finish=None)
    ledger._steps.write(b'{"index":3,"prev":"')  # a kill in the middle of writing a line
    ledger._steps.flush()
    ledger.close()
    read = read_steps(ledger.dir, HEADER["instance_sha256"])
    assert read.torn_tail and len(read.steps) == 3
    assert seal_problem(read_json(ledger.dir / "run.json"), read) is None  # `running`: nothing sealed
    again, steps = Ledger.resume(ledger.dir)
    assert len(steps) == 3 and again.previous == ("running", None)
    assert (ledger.dir / "steps.jsonl").read_bytes().endswith(b"}\n")
    added = again.append(step({"op": "first"}, "unsat"))
    assert added["index"] == 3 and added["prev"] == read.last_hash
    again.finish("optimal", 2)
    assert len(read_steps(ledger.dir, HEADER["instance_sha256"]).steps) == 4  # the chain reads whole
    assert read_json(ledger.dir / "run.json")["resumed"]


def test_a_finished_run_is_not_resumed(tmp_path):
    ledger = new_ledger(tmp_path, finish="optimal")
    with pytest.raises(LedgerError, match="already finished"):
        Ledger.resume(ledger.dir)


def test_unreadable_run_json_is_one_ledger_error(tmp_path):
    with pytest.raises(LedgerError, match="no run.json"):
        read_run_json(tmp_path)
    (tmp_path / "run.json").write_text("[1,")
    with pytest.raises(LedgerError, match="not valid JSON"):
        read_run_json(tmp_path)
    with pytest.raises(LedgerError, match="not valid JSON"):  # resume reads it through the same reader
        Ledger.resume(tmp_path)


def test_a_new_run_folder_holds_what_it_promises(tmp_path):
    import gzip

    from smtpuzzles.canonical import sha256_text
    from smtpuzzles.folders.ledger import GENESIS, header_genesis

    ledger = Ledger.create(tmp_path / "deep" / "runs", dict(HEADER, mode="count"), "the input", "(assert true)\n")
    run = read_json(ledger.dir / "run.json")
    assert ledger.dir.name.startswith("toy-abababab")
    assert (run["format"], run["status"], run["steps"], run["value"], run["ended"]) == (1, "running", 0, None, None)
    assert run["puzzle"] == "toy" and run["mode"] == "count" and run["resumed"] == []
    assert run["last_step_sha256"] == HEADER["instance_sha256"]
    assert run["base"] == {"file": "base.smt2.gz", "sha256": sha256_text("(assert true)\n")}
    with gzip.open(ledger.dir / "base.smt2.gz", "rt") as handle:
        assert handle.read() == "(assert true)\n"
    assert (ledger.dir / "steps.jsonl").read_bytes() == b""
    empty = read_steps(ledger.dir, HEADER["instance_sha256"])
    assert (empty.steps, empty.last_hash, empty.torn_tail) == ([], HEADER["instance_sha256"], False)
    assert header_genesis({}) == GENESIS == "0" * 64
    # Each line is canonical JSON (sorted keys, no spaces) carrying its index and the previous hash.
    step = ledger.append({"result": "sat", "claim": {"op": "first"}})
    line = (ledger.dir / "steps.jsonl").read_text()
    assert line == json.dumps(step, sort_keys=True, separators=(",", ":")) + "\n"
    assert (step["index"], step["prev"]) == (0, HEADER["instance_sha256"])
    ledger.save_solution({"moves": []}, 3)
    assert read_json(ledger.dir / "solution.json") == {"value": 3, "solution": {"moves": []}}
    ledger.save_certificate("(check-sat)\n", {"op": "first"}, 0)
    with gzip.open(ledger.dir / "certificate.smt2.gz", "rt") as handle:
        assert handle.read() == "(check-sat)\n"
    assert ledger.run["certificate"] == {"file": "certificate.smt2.gz", "claim": {"op": "first"}, "step": 0,
                                         "sha256": sha256_text("(check-sat)\n")}
    ledger.finish("infeasible", None)
    run = read_json(ledger.dir / "run.json")
    assert (run["status"], run["steps"], run["certificate"]["step"]) == ("infeasible", 1, 0) and run["ended"]
    assert not list(ledger.dir.glob("*.tmp")) and not list(ledger.dir.glob(".*.tmp"))


def test_a_file_where_the_run_folders_go_is_one_ledger_error(tmp_path):
    (tmp_path / "runs").write_text("")
    with pytest.raises(LedgerError, match="is a file, not a folder for run folders"):
        Ledger.create(tmp_path / "runs", dict(HEADER), "", "")


def test_a_run_folder_has_one_writer_at_a_time(tmp_path):
    ledger = new_ledger(tmp_path, finish=None)
    with pytest.raises(LedgerError, match="in use by another process"):
        Ledger.resume(ledger.dir)
    ledger.close()  # a run that dies without finishing lets the next writer in
    again, steps = Ledger.resume(ledger.dir)
    assert len(steps) == 3 and again.refuting_step({"op": "at_least", "k": 2}) == 2
    assert read_json(ledger.dir / "run.json")["status"] == "running"
    again.finish("unknown", 1)
    third, _ = Ledger.resume(ledger.dir)  # an unknown run resumes; its earlier state is kept
    assert third.previous == ("unknown", 1) and len(third.run["resumed"]) == 2
    third.close()


def test_the_writers_count_of_damaged_bytes(tmp_path):
    """What finish() seals: complete lines and the last one's hash, a torn line left out; the
    reader refuses a missing file in one line."""
    path = tmp_path / "steps.jsonl"
    with pytest.raises(LedgerError, match="file is missing"):
        read_steps(tmp_path, "g")
    with pytest.raises(LedgerError, match="file is missing"):
        chain_end(tmp_path, "g")
    path.write_bytes(b'{"index":0,"pr')  # a kill during the very first line
    assert chain_end(tmp_path, "g") == (0, "g", True)
    path.write_bytes(b'{"index":0}\nsecond\nthi')
    assert chain_end(tmp_path, "g") == (2, hashlib.sha256(b"second").hexdigest(), True)


def test_write_atomic_leaves_the_old_file_when_writing_fails(tmp_path):
    from smtpuzzles.folders.durable import write_atomic

    path = tmp_path / "run.json"
    write_atomic(path, "old")
    with pytest.raises(TypeError):
        write_atomic(path, 12)  # not text: fails inside the write
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["run.json"]


def run_watched(objective, script, **kwargs):
    """run_scripted, also collecting what on_solution and on_step were told."""
    formula = Formula.from_cnf(CNF())
    encoding = Encoding("scripted", 1, formula, objective, lambda model: dict(model),
                        advice=Advice(order=kwargs.get("search", "descend")))
    engine = Scripted(script)
    steps, solutions, told = [], [], []

    def record(step):
        steps.append({"index": len(steps), **step})
        return steps[-1]

    rec = drv.Steering(encoding, lambda: engine, lambda s: s["v"], lambda s: [], record, time_limit=None,
                       on_step=told.append, on_solution=lambda s, v: solutions.append((s, v)))
    outcome = drv.run_objective(rec, kwargs.get("mode", "optimise"), kwargs.get("limit"))
    assert told == steps  # every recorded step is shown, once, in order
    return outcome, steps, solutions, rec


def test_every_outcome_carries_the_best_solution_and_its_value():
    outcome, _, solutions, rec = run_watched(climb(), [sat(1), sat(2), ("unknown", None)])
    assert (outcome.value, outcome.solution) == (2, {"v": 2}) and solutions == [({"v": 1}, 1), ({"v": 2}, 2)]
    assert rec.recorder.checks == 3
    outcome, _, solutions, _ = run_watched(climb(descend=True, upper=3), [sat(0), ("unknown", None)])
    assert (outcome.status, outcome.value, outcome.solution) == ("unknown", 0, {"v": 0})
    outcome, _, solutions, _ = run_watched(climb(descend=True, upper=3), [sat(0), ("unsat", None), sat(2), ("unsat", None)])
    assert (outcome.value, outcome.solution) == (2, {"v": 2}) and solutions[-1] == ({"v": 2}, 2)
    outcome, _, solutions, _ = run_watched(lex(), [sat([1, 1]), sat([2, 1]), ("unsat", None), ("unknown", None)],
                                           search="climb")
    assert (outcome.value, outcome.solution) == ([2, 1], {"v": [2, 1]}) and solutions[-1] == ({"v": [2, 1]}, [2, 1])
    outcome, _, _, _ = run_watched(lex(), [sat([3, 3]), ("unknown", None)])
    assert (outcome.status, outcome.value, outcome.solution) == ("unknown", [3, 3], {"v": [3, 3]})
    outcome, _, _, _ = run_watched(lex(), [sat([3, 3]), ("unsat", None)])
    assert (outcome.status, outcome.value, outcome.solution) == ("optimal", [3, 3], {"v": [3, 3]})
    for mode, script, limit in (("solve", [sat(1)], None), ("unique", [sat(1), sat(2)], None),
                                ("count", [sat(1), sat(2)], 2), ("count", [sat(1), ("unknown", None)], None),
                                ("count", [sat(1), ("unsat", None)], None), ("unique", [sat(1), ("unsat", None)], None)):
        outcome, _, _, _ = run_watched(block(), script, mode=mode, limit=limit)
        assert (outcome.value, outcome.solution) == (1, {"v": 1}), mode


def test_interrupted_checks_stop_like_timeouts():
    class Interrupted(Scripted):
        def check(self, terms, timeout):
            status, model = self.script.pop(0)
            if status == "interrupted":
                return CheckResult("interrupted", reason="interrupted")
            return CheckResult("sat", model=model)

    formula = Formula.from_cnf(CNF())
    for objective, first in ((climb(), 1), (lex(), [1, 1]), (block(), 1)):
        encoding = Encoding("scripted", 1, formula, objective, lambda model: dict(model))
        engine = Interrupted([sat(first), ("interrupted", None)])
        rec = drv.Steering(encoding, lambda: engine, lambda s: s["v"], lambda s: [], lambda s: s)
        outcome = drv.run_objective(rec, "count" if objective.kind == "satisfy" else "optimise")
        assert (outcome.status, outcome.value, outcome.certificate) == ("interrupted", first, None)


def test_no_descent_without_the_flag():
    outcome, steps, _ = run_scripted(climb(descend=False, upper=3), [sat(0), sat(1), ("unsat", None)])
    assert [c.get("k") for c in claims(steps)] == [None, 1, 2] and outcome.value == 1


def test_guided_answers_are_remembered_and_replayed():
    class Guided(Scripted):
        def check(self, terms, timeout):
            answer = super().check(terms, timeout)
            answer.stats = {"guided": 1}
            return answer

    formula = Formula.from_cnf(CNF())
    encoding = Encoding("scripted", 1, formula, climb(descend=True, upper=3), lambda model: dict(model))
    steps = []
    rec = drv.Steering(encoding, lambda: Guided([sat(1), ("unsat", None)]), lambda s: s["v"], lambda s: [],
                       lambda s: steps.append(dict(s, index=len(steps))) or steps[-1])
    assert rec.guided is False
    outcome = drv.run_objective(rec)
    # guided first model: the driver climbs (asks 2) instead of descending from 3
    assert [s["claim"].get("k") for s in steps] == [None, 2] and outcome.value == 1
    assert steps[0]["stats"] == {"guided": 1}
    again = drv.Steering(encoding, lambda: pytest.fail("replayed"), lambda s: s["v"], lambda s: [], lambda s: s, replay=steps)
    assert drv.run_objective(again).value == 1 and again.guided is True
    unguided = [dict(s, stats={}) for s in steps]
    third = drv.Steering(encoding, lambda: Scripted([("unsat", None), ("unsat", None)]), lambda s: s["v"], lambda s: [],
                         lambda s: s, replay=unguided[:1])
    drv.run_objective(third)  # replayed unguided: the descent from 3 is asked
    assert third.guided is False and third.recorder.checks == 2


def test_a_resumed_run_is_steered_by_its_last_model_polished():
    """On resume the engine's guide is the polish of the last recorded model, with the claim it
    answered; a run that recorded no model, or a polish that finds nothing, leaves the guess."""
    class Steered(Scripted):
        def __init__(self, script):
            super().__init__(script)
            self.guides = []

        def guide(self, guess):
            self.guides.append(list(guess()))

    polished = []

    def polish(solution, claim):
        polished.append((solution, claim))
        return [lit("better")] if solution["v"] == 2 else None

    formula = Formula.from_cnf(CNF())
    encoding = Encoding("scripted", 1, formula, climb(descend=True, upper=4), lambda model: dict(model),
                        advice=Advice(first_guess=lambda: [lit("first")], polish=polish))
    steps = []
    first = drv.Steering(encoding, lambda: Scripted([sat(2), ("unknown", None)]), lambda s: s["v"], lambda s: [],
                         lambda s: steps.append(dict(s, index=len(steps))) or steps[-1])
    assert drv.run_objective(first).status == "unknown"
    polished.clear()
    engine = Steered([("unsat", None), ("unsat", None)])
    again = drv.Steering(encoding, lambda: engine, lambda s: s["v"], lambda s: [], lambda s: s,
                         replay=[s for s in steps if s["result"] == "sat"])
    assert drv.run_objective(again).status == "optimal"
    assert polished == [(steps[0]["solution"], steps[0]["claim"])]
    assert engine.guides == [[lit("better")]]  # the first guess is not even made
    fresh = Steered([sat(1), ("unsat", None), ("unsat", None), ("unsat", None)])
    drv.run_objective(drv.Steering(encoding, lambda: fresh, lambda s: s["v"], lambda s: [], lambda s: s))
    assert fresh.guides[0] == [lit("first")] and [lit("better")] not in fresh.guides
    polished.clear()  # an engine told not to be guided (--no-guide) is not polished for
    unguided = Steered([("unsat", None), ("unsat", None)])
    unguided.params = {"guide": False}
    drv.run_objective(drv.Steering(encoding, lambda: unguided, lambda s: s["v"], lambda s: [], lambda s: s,
                                   replay=[s for s in steps if s["result"] == "sat"]))
    assert polished == [] and unguided.guides == [[lit("first")]]


def test_a_polish_that_takes_seconds_is_given_the_limit_of_a_check():
    """A polish written polish(solution, claim, seconds) gets the run's limit for a check (cut to the
    budget's rest), None without one; the older two-argument polish is called as before (the resume
    test above)."""
    class Engine(Scripted):
        def guide(self, guess):
            guess()

    given = []

    def polish(solution, claim, seconds):
        given.append(seconds)
        return None

    formula = Formula.from_cnf(CNF())
    encoding = Encoding("scripted", 1, formula, climb(descend=False, upper=3), lambda model: dict(model),
                        advice=Advice(first_guess=lambda: [lit("first")], polish=polish))

    def run(**limits):
        given.clear()
        steering = drv.Steering(encoding, lambda: Engine([sat(1), ("unsat", None), ("unsat", None)]),
                                lambda s: s["v"], lambda s: [], lambda s: s, **limits)
        drv.run_objective(steering)
        return list(given)

    assert run(time_limit=1.5) == [1.5]
    assert run() == [None]
    budget = run(deadline=time.monotonic() + 60)
    assert len(budget) == 1 and 50 < budget[0] <= 60
    assert run(time_limit=1.5, deadline=time.monotonic() + 60) == [1.5]


def test_the_kingtour_polish_keeps_to_the_seconds_it_is_given(monkeypatch):
    """On a board searched by `reach` (16x16: up to 10 s a polish of its own), the seconds a run
    gives the polish bound the search's deadline; without them it keeps its own."""
    from smtpuzzles.puzzles.kingtour import encodings, reach
    from smtpuzzles.puzzles.kingtour.board import Board

    left = []

    def improve(board, answer, focus, starts, deadline):
        left.append(deadline - time.thread_time())
        return None, focus
    monkeypatch.setattr(reach, "improve", improve)
    board = Board(16, 4, 4, tuple((0,) * 16 for _ in range(16)))
    solution = encodings.snake_solution(board)
    encodings._Guides(board, None).polish(solution, {"pos": 3}, seconds=0.5)
    encodings._Guides(board, None).polish(solution, {"pos": 3})
    assert 0 < left[0] <= 0.5 and 9 < left[1] <= encodings.POLISH_SECONDS_MAX


def test_step_seconds_and_problem_list():
    _, steps, _ = run_scripted(climb(), [sat(1), ("unsat", None)])
    assert all(isinstance(s["seconds"], float) and 0 <= s["seconds"] < 1 for s in steps)
    assert all(len(repr(s["seconds"]).split(".")[-1]) <= 4 for s in steps)  # rounded to 0.1 ms
    with pytest.raises(drv.RefereeRejected) as caught:
        run_scripted(climb(), [sat(1)], referee=lambda s: ["a", "b", "c", "d"])
    assert str(caught.value) == "the solver's model breaks the rules: a; b; c"
    with pytest.raises(drv.RefereeRejected) as caught:
        run_scripted(lex(), [sat([2, 2]), ("unsat", None), ("unsat", None), sat([3, 3])])
    assert str(caught.value) == "the closing certificate found a better vector after every position was closed"


def test_lexicographic_bound_with_repeated_values():
    """Each value twice over four positions: after the prefix [3, 3] no 3 is left, so 2 is the top."""
    m = {1: 2, 2: 2, 3: 2}
    # positions 0 and 1 closed by the bound (3 is the top with copies left); position 2 holds 2,
    # the top after [3, 3]: bound; position 3 holds 1 < 2: asked (SAT [3, 3, 2, 2]), then 2 = top
    script = [sat([3, 3, 2, 1]), sat([3, 3, 2, 2]), ("unsat", None)]
    outcome, steps, _ = run_scripted(lex(4, multiplicity=m), script)
    assert outcome.value == [3, 3, 2, 2]
    assert [s["by"] for s in steps] == ["solver", "bound", "bound", "bound", "solver", "bound", "solver"]
    # a value missing from the counts has no copies: 4 never counts as left
    outcome, steps, _ = run_scripted(lex(1, domain=(1, 2, 4), multiplicity={1: 1, 2: 1}), [sat([2]), ("unsat", None)])
    assert [s["by"] for s in steps] == ["solver", "bound", "solver"]


def test_ledger_errors_name_their_file(tmp_path):
    from smtpuzzles.canonical import canonical_json
    from smtpuzzles.folders.ledger import now

    (tmp_path / "run.json").write_text("[1,")
    with pytest.raises(LedgerError) as caught:
        read_run_json(tmp_path)
    assert caught.value.where == str(tmp_path / "run.json")
    assert caught.value.message == "not valid JSON (Expecting value at line 1 column 4)"
    (tmp_path / "runs").write_text("")
    with pytest.raises(LedgerError) as caught:
        Ledger.create(tmp_path / "runs", dict(HEADER), "", "")
    assert caught.value.where == str(tmp_path / "runs")
    assert canonical_json({"b": "é", "a": 1}) == '{"a":1,"b":"é"}'  # UTF-8 as is, not \\u escapes
    import re
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}", now())


def test_a_seal_with_the_right_count_but_another_last_hash(tmp_path):
    ledger = new_ledger(tmp_path)
    run = read_json(ledger.dir / "run.json")
    read = read_steps(ledger.dir, HEADER["instance_sha256"])
    assert seal_problem(dict(run, last_step_sha256="0" * 64), read).endswith(
        "or ends differently (steps cut off, appended or edited)")
    assert seal_problem(dict(run, steps=4), read) is not None
    assert seal_problem(dict(run, status="running", steps=9), read) is None


def test_run_folder_names_and_resume_details(tmp_path):
    import re

    first, second = new_ledger(tmp_path), new_ledger(tmp_path)
    stem = re.fullmatch(r"toy-ababababab-\d{8}-\d{6}", first.dir.name)
    assert stem, first.dir.name
    # a second run in the same second gets "-2"; one in the next second, a name of its own
    assert second.dir.name == first.dir.name + "-2" or re.fullmatch(r"toy-ababababab-\d{8}-\d{6}", second.dir.name)
    assert read_json(first.dir / "run.json")["host"].keys() == {"name", "python", "platform"}
    unknown = new_ledger(tmp_path / "u", finish="unknown")
    again, _ = Ledger.resume(unknown.dir)
    assert read_json(unknown.dir / "run.json")["status"] == "running"  # on disk at once
    again._steps.write(b'{"half')  # Ctrl-C mid-line: finish cuts it, as resume would
    again._steps.flush()
    again.finish("unknown", 2)
    assert (unknown.dir / "steps.jsonl").read_bytes().endswith(b"}\n")
    read_steps(unknown.dir, HEADER["instance_sha256"])  # raises on a broken chain
    for status in ("optimal", "unknown"):
        done = new_ledger(tmp_path / status, finish=status)
        if status == "unknown":
            (done.dir / "steps.jsonl").write_bytes(b"")  # steps cut off: tampered
        with pytest.raises(LedgerError) as caught:
            Ledger.resume(done.dir)
        assert caught.value.where == str(done.dir if status == "optimal" else done.dir / "steps.jsonl")  # the file at fault


def test_first_ctrl_c_during_a_run_is_held_for_the_solver_call(monkeypatch):
    """A Ctrl-C that lands between solver calls (inside a binding's constructor, say) must not
    raise there: the first one only marks the run, the next solver call ends at once as
    interrupted without starting, and a second Ctrl-C raises so a user can always get out."""
    import os
    import signal

    from smtpuzzles.engines import ctrl_c_between_steps, run_interruptibly

    started, stopped = [], []
    before = signal.getsignal(signal.SIGINT)
    with ctrl_c_between_steps():
        os.kill(os.getpid(), signal.SIGINT)  # delivered here, between steps: nothing raises
        value, why = run_interruptibly(lambda: started.append(1), lambda: stopped.append(1), None)
        assert (value, why, started) == (None, "interrupted", [])
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before
    # Outside a run a Ctrl-C raises as it always did, and a solver call runs.
    assert run_interruptibly(lambda: 7, lambda: None, None) == (7, "")


def test_ctrl_c_stops_a_running_solver_call_while_held():
    import os
    import signal
    import threading

    from smtpuzzles.engines import ctrl_c_between_steps, run_interruptibly

    release = threading.Event()
    with ctrl_c_between_steps():
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
        value, why = run_interruptibly(lambda: release.wait(30), release.set, None)
    assert why == "interrupted"


def test_ctrl_c_at_any_moment_of_a_z3_run_leaves_no_traceback(tmp_path):
    """Ctrl-C sent at spread moments of a z3 run: every one ends 0 or 130 with a clean stderr.
    Before Ctrl-C was held for the solver call, one in about sixteen printed a z3 destructor's
    traceback (an interrupt inside a z3 object's constructor). The moments count from the run
    folder's making: before it, a loaded machine may still be in the interpreter's own start-up,
    whose Ctrl-C tracebacks are Python's (the import-time case is the test above)."""
    import signal
    import subprocess
    import sys
    import time

    for i, delay in enumerate((0.0, 0.3, 0.6, 0.9, 1.2, 1.5)):
        proc = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "solve", "kingtour", "--size", "8", "--box", "2x4",
                                 "--engine", "z3", "--out", str(tmp_path / str(i)), "--json"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None and not (tmp_path / str(i)).exists():
            time.sleep(0.005)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        if proc.returncode == -signal.SIGINT:
            # Only before the interpreter installs its own SIGINT handler (its first milliseconds,
            # longer on a loaded machine): killed by the signal as any program is, which a shell
            # reports as 130, with nothing said and nothing written.
            assert (stdout, stderr) == ("", ""), stderr
            assert not (tmp_path / str(i)).exists()
            continue
        assert proc.returncode in (0, 130), stderr
        assert "Traceback" not in stderr and "Exception" not in stderr, stderr
        if not stdout:  # stopped before the run began (still importing or reading): said in one line
            assert proc.returncode == 130 and stderr.strip() == "smtpuzzles: interrupted", stderr
            continue
        assert json.loads(stdout)["status"] in ("optimal", "interrupted")


def test_a_second_guess_is_asked_for_only_when_a_check_stays_undecided_briefly():
    """An encoding's slower search for a guess (Advice.second_guess) runs once, after a check
    stayed undecided for SECOND_GUESS_AFTER seconds under the first guess; that brief try is
    recorded as an unknown step with its reason, the engine is steered by the second guess, and the
    check runs again in the time left. Checks settled within the brief try never ask for it."""
    class Steered(Scripted):
        def guide(self, guess):
            self.guides = getattr(self, "guides", []) + [guess()]

    formula = Formula.from_cnf(CNF())
    asked = []

    given = []

    def second_guess(left, claim):
        asked.append(left)
        given.append(claim)
        time.sleep(0.2)  # a search that takes its time: the check's limit counts it
        return [lit("plan")]

    def run(script, time_limit, params=None, each_check=False):
        encoding = Encoding("scripted", 1, formula, climb(), lambda model: dict(model),
                            advice=Advice(second_guess=second_guess, second_guess_each_check=each_check))
        engine, steps = Steered(script), []
        engine.params = params or {}
        rec = drv.Steering(encoding, lambda: engine, lambda s: s["v"], lambda s: [],
                           lambda s: steps.append(dict(s, index=len(steps))) or steps[-1], time_limit=time_limit)
        return drv.run_objective(rec), steps, engine

    outcome, steps, engine = run([sat(1), ("unsat", None)], 60)
    assert (outcome.status, asked, getattr(engine, "guides", [])) == ("optimal", [], [])  # settled at once
    assert [t for _, t in engine.asked] == [drv.SECOND_GUESS_AFTER] * 2

    outcome, steps, engine = run([sat(1), ("unknown", None), sat(2), ("unsat", None)], 60)
    assert (outcome.status, outcome.value, asked) == ("optimal", 2, [60 - drv.SECOND_GUESS_AFTER])
    assert [s["result"] for s in steps] == ["sat", "unknown", "sat", "unsat"]
    assert steps[1]["claim"] == steps[2]["claim"]
    assert re.search(r"searching for a second found a second guess in 0\.[2-9] s$", steps[1]["reason"])
    assert engine.guides == [[lit("plan")]]
    # the retry has the time left after the try and the search; the search is not repeated, so
    # later checks run in full
    limits = [t for _, t in engine.asked]
    assert limits[:2] == [5.0, 5.0] and limits[3] == 60 and 60 - 5.0 - 1 < limits[2] <= 60 - 5.0 - 0.2

    asked.clear()
    outcome, steps, engine = run([sat(1), ("unsat", None)], 3)  # a limit below the brief try: never asked
    assert (outcome.status, asked) == ("optimal", [])
    assert [t for _, t in engine.asked] == [3, 3]

    # --no-guide: the engine would ignore any guess, so there is no brief try and no search
    outcome, steps, engine = run([sat(1), ("unknown", None)], 60, params={"guide": False})
    assert (outcome.status, asked, [s["result"] for s in steps]) == ("unknown", [], ["sat", "unknown"])
    assert [t for _, t in engine.asked] == [60, 60]

    # an encoding that searches for each check's answer (kingtour's `reach`) is asked again by
    # each check that stays undecided, and given that check's claim
    asked.clear()
    outcome, steps, engine = run([sat(1), ("unknown", None), sat(2), ("unknown", None), sat(3), ("unsat", None)], 60,
                                 each_check=True)
    assert (outcome.status, outcome.value, len(asked)) == ("optimal", 3, 2)
    assert [s["result"] for s in steps] == ["sat", "unknown", "sat", "unknown", "sat", "unsat"]
    assert engine.guides == [[lit("plan")]] * 2
    assert given[-2:] == [steps[1]["claim"], steps[3]["claim"]] and steps[1]["claim"] != steps[3]["claim"]


def test_a_solver_child_dies_with_its_parent():
    """A proof or re-solve child whose parent is killed (kill -9, a CI timeout) is killed too, on
    Linux, rather than running on: one was found still solving 14 minutes after its audit died."""
    import os
    import signal
    import subprocess
    import sys
    import time

    parent = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time\n"
        "from smtpuzzles.children import die_with_parent\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], preexec_fn=die_with_parent)\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(120)\n")], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait(timeout=10)
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    os.kill(child, signal.SIGKILL)
    raise AssertionError("the child outlived its killed parent by 5 s")


def test_a_ctrl_c_caught_inside_code_run_from_a_string_still_exits_130(tmp_path):
    """CPython remembers a KeyboardInterrupt that ended code run from a string (dataclasses writes
    methods so while the tool imports) and kills itself with SIGINT at exit even when the interrupt
    was caught: the tool said "interrupted" and exited -2, about one Ctrl-C in fifteen during the
    imports. `entry` clears that memory before it returns."""
    import subprocess
    import sys

    script = tmp_path / "interrupted_import.py"
    script.write_text(
        "import sys\n"
        "sys.modules.pop('smtpuzzles.cli', None)\n"
        "class InterruptedImport:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'smtpuzzles.cli':\n"
        "            exec('raise KeyboardInterrupt')\n"
        "sys.meta_path.insert(0, InterruptedImport())\n"
        "from smtpuzzles.__main__ import entry\n"
        "raise SystemExit(entry())\n")
    # Run with -m, as the tool is: a script's SystemExit takes another way out of the interpreter.
    done = subprocess.run([sys.executable, "-m", script.stem], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert (done.returncode, done.stderr) == (130, "smtpuzzles: interrupted\n")


def test_a_stop_the_solver_call_missed_is_sent_again():
    """A native call that clears the first stop (a guided try, then the check itself, each clearing
    the solver's interrupt flag) still ends soon after its time limit: the stop is sent again."""
    import time

    from smtpuzzles.engines import run_interruptibly

    stops = []

    def work():
        ends = time.monotonic() + 10  # without a second stop it would run this long
        while len(stops) < 2 and time.monotonic() < ends:
            time.sleep(0.01)
        return "done"

    started = time.monotonic()
    value, why = run_interruptibly(work, lambda: stops.append(1), 0.1)
    assert why == "timeout" and value == "done" and len(stops) >= 2
    assert time.monotonic() - started < 3


@pytest.mark.parametrize("command", ["audit", "proofs"])
def test_a_sigterm_ends_an_audit_making_a_proof_as_a_ctrl_c_does(tmp_path, command):
    """`kill` of a long `audit --proof` ended the process by SIGTERM's default (exit -15): the
    prover's child killed with it, but its temporary folder, gigabytes of raw proof on large
    boards, left behind. Now it is a Ctrl-C: exit 130, one line, nothing left in TMPDIR; `proofs`
    says its folder is incomplete."""
    import os
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    record = root / "results" / "kingtour-b0f14a9274-20261201-085847"  # 10x10: its reference proof takes seconds
    asked = ["audit", str(record), "--proof"] if command == "audit" else ["proofs", str(record), "--out", "written"]
    audit = subprocess.Popen([sys.executable, "-m", "smtpuzzles", *asked, "--progress-every", "0"],
                             cwd=tmp_path, env={**os.environ, "TMPDIR": str(temporary)}, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not list(temporary.glob("smtpuzzles-proof-*/proof.txt")) and audit.poll() is None:
            assert time.monotonic() < deadline, "no proof was started"
            time.sleep(0.05)
        audit.send_signal(signal.SIGTERM)
        out, err = audit.communicate(timeout=60)
    finally:
        if audit.poll() is None:
            audit.kill()
    assert audit.returncode == 130, (audit.returncode, err)
    assert err.strip().splitlines()[-1] == "smtpuzzles: interrupted" and "Traceback" not in err
    assert list(temporary.iterdir()) == []
    if command == "proofs":
        assert err.strip().splitlines()[-3:-1] == ["written is incomplete: no README.txt or check.sh;",
                                                   "remove it to ask again"]
        assert not (tmp_path / "written" / "check.sh").exists()


def test_a_sigterm_ends_an_audit_re_solving_at_once_not_when_its_solvers_finish(tmp_path):
    """`audit --resolve` on the 12x12 record asks z3 and cvc5 its closing query (20 and 40 minutes
    of solving): a SIGTERM or Ctrl-C waited for both solvers, and then asked every query still
    queued, since the pool's exit waits for its work. Now the solvers are killed: exit 130 at once."""
    import os
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    record = root / "results" / "kingtour-2b3b523e65-20261201-081325"
    audit = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "audit", str(record), "--resolve", "--progress-every", "0"],
                             cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path)}, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        said = ""
        while "re-solving" not in said:
            line = audit.stderr.readline()
            assert line, "the audit ended before it re-solved anything"
            said += line
        time.sleep(1.0)  # the solvers' children are running
        asked = time.monotonic()
        audit.send_signal(signal.SIGTERM)
        out, err = audit.communicate(timeout=60)
        took = time.monotonic() - asked
    finally:
        if audit.poll() is None:
            audit.kill()
    assert audit.returncode == 130, (audit.returncode, said + err)
    assert err.strip().splitlines()[-1] == "smtpuzzles: interrupted" and "Traceback" not in err
    assert "was error" not in err  # a solver killed to stop the audit answered nothing
    assert took < 15, took


def test_a_sigterm_lost_in_a_finaliser_is_raised_again_outside_it(monkeypatch):
    """A KeyboardInterrupt raised inside a finaliser is dropped by Python (the unraisable hook): a
    SIGTERM to `proofs` that landed in one let the command run to its end, exit 0. Now the
    interrupt is raised again a moment later, outside the finaliser; a burst's later SIGTERMs are
    still ignored, and another lost interrupt (a Ctrl-C's) changes nothing."""
    import signal
    import time

    from smtpuzzles import __main__ as entry_point
    from smtpuzzles import stops

    class Finalised:
        def __del__(self):
            signal.raise_signal(signal.SIGTERM)  # the interrupt is raised here, and Python drops it

    monkeypatch.setattr(sys, "unraisablehook", entry_point._quiet_about_ctrl_c)
    previous, alarm = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGALRM)
    reached = []
    try:
        stops.take_sigterm()
        entry_point._quiet_about_ctrl_c(lost(KeyboardInterrupt()))  # not the SIGTERM's: nothing changes
        with pytest.raises(KeyboardInterrupt):
            thing = Finalised()
            del thing
            reached.append("after the finaliser")
            time.sleep(5)
        assert reached == ["after the finaliser"]
        signal.raise_signal(signal.SIGTERM)  # a burst's next: ignored
        assert signal.getsignal(signal.SIGALRM) is alarm  # the one alarm used, SIGALRM given back
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.setitimer(signal.ITIMER_REAL, 0)


def lost(exc):
    import types

    return types.SimpleNamespace(exc_value=exc, exc_type=type(exc), exc_traceback=None, err_msg=None, object=None)


def test_a_sigterm_during_a_held_cleanup_waits_for_its_end():
    """A temporary folder's removal is held: the SIGTERM that comes during it is raised after it,
    so the folder is gone whole (an interrupt sent again once landed there and left it behind)."""
    import signal

    from smtpuzzles import stops
    from smtpuzzles.proofs.prover import scratch_folder

    previous = signal.getsignal(signal.SIGTERM)
    done = []
    try:
        stops.take_sigterm()
        with pytest.raises(KeyboardInterrupt):
            with stops.held():
                signal.raise_signal(signal.SIGTERM)
                done.append("the cleanup went on")
        assert done == ["the cleanup went on"]
        stops.take_sigterm()
        real = shutil.rmtree

        def removed_under_a_sigterm(path, **kw):
            signal.raise_signal(signal.SIGTERM)  # comes in the middle of the removal
            real(path, **kw)

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(shutil, "rmtree", removed_under_a_sigterm)
            with pytest.raises(KeyboardInterrupt):
                with scratch_folder("smtpuzzles-test-") as folder:
                    (folder / "proof.txt").write_bytes(b"x" * 1000)
        assert not folder.exists()
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_an_audit_run_in_process_leaves_sigterm_as_it_found_it(capsys):
    """main() is also called in a caller's own process: the SIGTERM handler the proving commands
    install is theirs while they run, not the caller's after."""
    import signal

    from smtpuzzles.cli import main

    root = Path(__file__).resolve().parents[1]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert main(["audit", str(root / "results" / "kingtour-e407aacd91-20261201-025753"), "--progress-every", "0"]) == 0
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert main(["audit", "no-such-folder", "--progress-every", "0"]) == 2
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_an_in_process_caller_gets_sigterm_and_its_timer_back_after_a_stopped_audit():
    """main() called twice in one process: the first audit stopped by a SIGTERM must not leave the
    handler behind (the second audit ran to its end through a SIGTERM, and the caller ignored
    one); an interrupt lost in a finaliser is sent again only where no timer of the caller's runs,
    and never after the command is over."""
    import signal

    from smtpuzzles import stops

    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    stops.take_sigterm()
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGTERM)
    stops.give_back()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and not stops.taken()
    # A caller's own timer is left running: the lost interrupt is not sent again over it.
    fired = []
    before = signal.signal(signal.SIGALRM, lambda *_: fired.append("the caller's alarm"))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        stops.take_sigterm()
        try:
            signal.raise_signal(signal.SIGTERM)
        except KeyboardInterrupt as exc:
            stops.lost(exc)  # as if dropped in a finaliser
        time.sleep(0.6)
        assert fired == ["the caller's alarm"]
        # Sent again by the alarm, but the command ended first: nothing is raised after it.
        try:
            signal.raise_signal(signal.SIGTERM)
        except KeyboardInterrupt as exc:
            stops.lost(exc)
        stops.give_back()
        time.sleep(0.2)
        assert signal.getsignal(signal.SIGALRM) is not stops._as_ctrl_c
    finally:
        stops.give_back()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def test_the_function_a_forked_child_runs_before_exec_imports_nothing(monkeypatch):
    """`die_with_parent` runs in a forked child as subprocess's preexec_fn: an import there waits
    for ever if another thread of the parent held that module's import lock as it forked (a hostile
    review hung a run so, past SIGTERM and its time limit). So it imports nothing."""
    import builtins
    import signal

    from smtpuzzles import children
    from smtpuzzles.engines import child

    def no_import(*args, **kwargs):
        raise AssertionError(f"imported {args[0]} before exec")

    imported: list[str] = []
    try:
        monkeypatch.setattr(builtins, "__import__", no_import)
        try:
            children.die_with_parent()
            child._child_start()
        except AssertionError as exc:
            imported.append(str(exc))
    finally:
        monkeypatch.undo()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # _child_start ignored it in this process
    assert not imported


def test_a_fresh_check_s_interrupt_does_not_wait_for_its_child_to_start(monkeypatch):
    """A child that is slow to start (a fork that stalls) must not hold up the interrupt, which the
    time limit and Ctrl-C send: the child is killed once it is there."""
    import threading

    from smtpuzzles.engines import child as engine_child

    real = engine_child.subprocess.Popen
    started: list = []

    def slow_popen(*args, **kwargs):
        time.sleep(2.0)
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(engine_child.subprocess, "Popen", slow_popen)
    solving = engine_child.ChildSolve("glucose4", [[1, 2], [-1, 2]], [], [])
    answers: list = []
    runner = threading.Thread(target=lambda: answers.append(solving.run()))
    runner.start()
    time.sleep(0.5)
    began = time.monotonic()
    solving.interrupt()
    assert time.monotonic() - began < 0.5
    runner.join(20)
    assert answers == [None] and started and started[0].poll() is not None


def test_a_stop_kills_the_children_adopted_before_it_and_any_adopted_after():
    """smtpuzzles.children.Stoppable, behind a fresh check's interrupt, a proof stopped beside
    another and an audit's re-solves stopped by Ctrl-C: whichever comes first, the stop or the
    child, no child is left running, and one that has ended is left alone."""
    import subprocess
    import sys

    from smtpuzzles.children import Stoppable

    def sleeper():
        return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])

    stops = Stoppable()
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    running = [sleeper(), sleeper()]
    assert all(stops.adopt(c) for c in [ended, *running]) and not stops.stopped
    stops.stop()
    assert stops.stopped and [c.wait(10) for c in running] == [-9, -9] and ended.returncode == 0
    late = sleeper()
    assert stops.adopt(late) is False and late.wait(10) == -9
    stops.stop()  # again: nothing left to kill, no error


def test_a_stop_cut_short_by_a_second_ctrl_c_kills_on_the_next_one():
    """A key held down: the run's interrupt is sent again after each Ctrl-C (engines._stopped), and
    one may land inside the kills of the one before. The next must still find the child."""
    from smtpuzzles.children import Stoppable

    class Child:
        killed, cut = 0, True

        def poll(self):
            if self.cut:
                self.cut = False
                raise KeyboardInterrupt
            return None if not self.killed else -9

        def kill(self):
            self.killed += 1

    child, stops = Child(), Stoppable()
    stops.adopt(child)
    with pytest.raises(KeyboardInterrupt):
        stops.stop()
    assert child.killed == 0
    stops.stop()
    assert child.killed == 1
