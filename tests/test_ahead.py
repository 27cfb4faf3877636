"""Checks asked ahead (the sat engine's `ahead`, docs/sharing.md): while a lexicographic run's checks
are hard, the claims the descending search asks next if the current one is refuted are started,
each in a child process, and a check asked ahead is answered by its child when the search reaches
it. What must hold: the claims foreseen are exactly those the search then asks; an answer taken
from a child is the formula's; a child off the search's path is stopped; the time limit, an
interrupt and Ctrl-C stop a check waited for; a failed child leaves the check to the engine; and a
run asking ahead finds the brute force's record and passes the audit."""

from __future__ import annotations

import random
import threading
import time
from types import SimpleNamespace

import pytest

from brute_kingtour import best_overall
from test_fresh_solver import children, formula_of, models_of, pigeon_formula
from smtpuzzles.engines import _ctrl_c, child, make_engine, press_ctrl_c, satengine
from smtpuzzles.errors import InputError
from smtpuzzles.formula import lit
from smtpuzzles.objectives import lex
from smtpuzzles.objectives.lex import LexMax


class Scripted:
    """A steer whose answers are drawn at random: each claim asked is kept with what the search
    said would follow it if refuted (`later(3)`)."""

    def __init__(self, objective: LexMax, seed: int, sat_rate: float):
        self.objective, self.random, self.sat_rate = objective, random.Random(seed), sat_rate
        self.asked: list[tuple[dict, list[dict] | None, str]] = []

    def check(self, claim, later=None):
        foreseen = later(3) if later is not None else None
        if claim["op"] != "exceed" or self.random.random() >= self.sat_rate or claim["than"] >= max(self.objective.domain):
            self.asked.append((claim, foreseen, "unsat"))
            return "unsat", None, None
        i = claim["pos"]
        value = list(claim["prefix"]) + [self.random.randint(claim["than"] + 1, max(self.objective.domain))] + \
            [self.random.choice(list(self.objective.domain)) for _ in range(self.objective.length - i - 1)]
        self.asked.append((claim, foreseen, "sat"))
        return "sat", {"v": value}, value

    def on_solution(self, solution, value):
        pass

    def settled(self, terms):
        pass

    def close_by_bound(self, claim, reason):
        pass

    def close_by_cases(self, claim, cases):
        return True


def test_the_claims_foreseen_are_those_the_descending_search_asks_next():
    compared = 0
    for seed in range(300):
        rng = random.Random(seed)
        domain = range(1, rng.randint(2, 6))
        length = rng.randint(1, 9)
        # with multiplicities, positions whose value is the largest left are closed by the bound
        multiplicity = {d: rng.randint(1, 3) for d in domain} if seed % 2 else None
        objective = LexMax(length, domain, greater=lambda i, d: None, equal=lambda i, d: None,
                           multiplicity=multiplicity)
        steer = Scripted(objective, seed, sat_rate=rng.choice([0.0, 0.1, 0.4]))
        best = [rng.choice(list(domain)) for _ in range(length)]
        lex.search(steer, objective, {"v": best}, best, "optimise", None, SimpleNamespace(order="descend"))
        asked = steer.asked
        for k, (_, foreseen, _) in enumerate(asked):
            assert foreseen is not None
            for j in range(3):
                if any(result != "unsat" for _, _, result in asked[k:k + j + 1]):
                    break  # a SAT answer changes what comes next: nothing foreseen past it
                following = asked[k + j + 1][0] if k + j + 1 < len(asked) else None
                if following is None:
                    assert j >= len(foreseen), f"seed {seed}: a claim foreseen that the search never asked"
                    break
                assert j < len(foreseen) and foreseen[j] == following, f"seed {seed}, check {k}"
                compared += 1
    assert compared > 1000


def test_other_orders_foresee_nothing():
    objective = LexMax(3, range(1, 4), greater=lambda i, d: None, equal=lambda i, d: None)
    steer = Scripted(objective, 1, 0.3)
    lex.search(steer, objective, {"v": [1, 1, 1]}, [1, 1, 1], "optimise", None, SimpleNamespace(order="leap"))
    assert steer.asked and all(foreseen is None for _, foreseen, _ in steer.asked)


@pytest.fixture
def at_once(monkeypatch):
    """Checks asked ahead from the start of every check, not after AHEAD_AFTER seconds."""
    monkeypatch.setattr(satengine, "AHEAD_AFTER", 0.0)


def x(v: int):
    return lit(f"x{abs(v)}", v > 0)


CLAUSES = [[1, 2, 3], [-1, -2], [-2, -3], [-1, -3], [1, 4], [-4, 5], [-5, -3]]  # x1..x5


@pytest.mark.parametrize("first,later", [([1], [[2], [3], [-1]]), ([-1], [[3], [4, -5]]), ([5], [[-4], [2, 5]])])
def test_a_check_asked_ahead_is_answered_by_its_child_as_a_brute_force_says(at_once, first, later):
    engine = make_engine("sat", formula_of(5, CLAUSES), {"ahead": 2})
    try:
        engine.expect([[x(v) for v in claim] for claim in later])
        engine.check([x(v) for v in first], None)
        for k, claim in enumerate(later):
            engine.expect([[x(v) for v in c] for c in later[k + 1:]])
            answer = engine.check([x(v) for v in claim], None)
            models = models_of(5, CLAUSES, claim)
            assert answer.status == ("sat" if models else "unsat")
            if k < 2:  # the first two were asked ahead (ahead = 2)
                assert answer.stats.get("ahead") == 1
            if models:
                assert tuple(answer.model[f"x{v}"] for v in range(1, 6)) in models
    finally:
        engine.close()


def test_without_ahead_nothing_is_asked_ahead(at_once):
    engine = make_engine("sat", formula_of(5, CLAUSES))
    assert engine.ahead == 0
    engine.expect([[x(2)]])
    engine.check([x(1)], None)
    answer = engine.check([x(2)], None)
    assert "ahead" not in answer.stats and not engine._jobs


def test_a_check_asked_ahead_off_the_search_s_path_is_stopped(at_once):
    engine = make_engine("sat", pigeon_formula(12), {"ahead": 1})  # hours for Glucose
    try:
        engine.expect([[]])
        engine.check([lit("p0h0")], 0.5)
        job = engine._jobs[()]
        assert not job.finished.is_set()
        engine.expect([])  # a SAT answer changed the path: the job is not asked for
        engine.check([lit("p0h1")], 0.2)
        assert job.finished.wait(10) and job.answer is None
        assert not engine._jobs and children() == []
    finally:
        engine.close()


@pytest.mark.parametrize("stop", ["time limit", "interrupt", "ctrl-c"])
def test_a_check_waited_for_ahead_stops_at_once(at_once, stop):
    engine = make_engine("sat", pigeon_formula(12), {"ahead": 1})
    try:
        engine.expect([[]])
        engine.check([lit("p0h0")], 0.3)
        job = engine._jobs[()]
        engine.expect([])
        if stop == "interrupt":
            threading.Timer(1.0, engine.interrupt).start()
        elif stop == "ctrl-c":
            threading.Timer(1.0, press_ctrl_c).start()
        started = time.monotonic()
        answer = engine.check([], 1.0 if stop == "time limit" else None)
        assert answer.status == ("interrupted" if stop == "ctrl-c" else "unknown")
        assert time.monotonic() - started < 8
        assert job.finished.wait(10) and job.answer is None and children() == []
    finally:
        _ctrl_c.clear()
        engine.close()


def test_close_stops_every_check_asked_ahead(at_once):
    engine = make_engine("sat", pigeon_formula(12), {"ahead": 2})
    engine.expect([[lit("p1h1")], [lit("p1h2")]])
    engine.check([lit("p0h0")], 0.3)
    jobs = list(engine._jobs.values())
    assert len(jobs) == 2
    engine.close()
    assert all(job.finished.wait(10) and job.answer is None for job in jobs) and children() == []


def test_a_failed_child_leaves_the_check_to_the_engine(at_once, monkeypatch):
    def fails(self):
        raise MemoryError("no room for its clauses")

    monkeypatch.setattr(child.ChildSolve, "run", fails)
    engine = make_engine("sat", formula_of(5, CLAUSES), {"ahead": 1})
    try:
        engine.expect([[x(2)]])
        engine.check([x(1)], None)
        answer = engine.check([x(2)], None)
        assert answer.status == ("sat" if models_of(5, CLAUSES, [2]) else "unsat")
        assert "ahead" not in answer.stats
    finally:
        engine.close()


def test_ahead_is_a_checked_engine_parameter():
    with pytest.raises(InputError, match="ahead must be in 0..16"):
        make_engine("sat", pigeon_formula(2), {"ahead": 17})
    with pytest.raises(InputError, match="unknown z3 engine parameter 'ahead'"):
        make_engine("z3", pigeon_formula(2), {"ahead": 1})


def test_a_run_asking_ahead_finds_the_brute_force_s_record_and_passes_the_audit(cli, at_once):
    expected = "".join(map(str, best_overall(4, 2, 2)))
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--ahead", 1)
    assert (result["status"], result["value"]) == ("optimal", expected)
    from smtpuzzles.folders.runfolder import open_run
    from pathlib import Path

    steps = open_run(Path(result["run_dir"])).steps
    assert any(s.get("stats", {}).get("ahead") for s in steps)
    code, out, _ = cli("audit", result["run_dir"], "--resolve")
    assert code == 0, out


class Told:
    """A scripted engine asking ahead: it records what it is told comes next, and says every check
    was asked ahead."""

    name, version, ahead = "told", "0", 2

    def __init__(self, script):
        self.script, self.params, self.told, self.asked = list(script), {}, [], []

    def expect(self, checks):
        self.told.append([list(c) for c in checks])

    def asked_ahead(self, terms):
        return True

    def check(self, terms, timeout):
        from smtpuzzles.engines import CheckResult

        self.asked.append((list(terms), timeout))
        status, model = self.script.pop(0)
        return CheckResult("unsat") if status == "unsat" else CheckResult("sat", model=model, stats={})

    def settle(self, terms):
        pass

    def hint(self, model):
        pass

    def guide(self, guess):
        pass


def test_the_driver_tells_the_engine_what_comes_next_and_skips_the_brief_try_for_a_check_asked_ahead():
    from smtpuzzles import driver as drv
    from smtpuzzles.advice import Advice
    from smtpuzzles.encoding import Encoding
    from smtpuzzles.formula import CNF, Formula

    def no_second_guess(seconds, claim):
        raise AssertionError("a brief try under the first guess for a check asked ahead")

    objective = LexMax(2, range(3), greater=lambda i, d: lit(f"g{i}_{d}"), equal=lambda i, d: lit(f"p{i}_{d}"))
    encoding = Encoding("told", 1, Formula.from_cnf(CNF()), objective, lambda model: dict(model),
                        advice=Advice(second_guess=no_second_guess, second_guess_each_check=True))
    engine = Told([("sat", {"v": [1, 0]})] + [("unsat", None)] * 4)
    steering = drv.Steering(encoding, lambda: engine, lambda s: s["v"], lambda s: [], lambda s: s)
    assert drv.run_objective(steering).value == [1, 0]
    # position 1 from the top (2, refuted: "exceeds 1"), then position 2: "exceeds 1", "exceeds 0"
    assert [terms for terms, _ in engine.asked[1:4]] == [
        [lit("g0_1")], [lit("p0_1"), lit("g1_1")], [lit("p0_1"), lit("g1_0")]]
    assert engine.told[1] == [[lit("p0_1"), lit("g1_1")], [lit("p0_1"), lit("g1_0")]]
    assert engine.told[2] == [[lit("p0_1"), lit("g1_0")]]
    assert all(timeout is None for _, timeout in engine.asked)  # never the brief try's 5 s


def test_ahead_on_the_command_line_new_and_resumed(cli):
    """`--ahead` is recorded as the engine parameter and may be changed on a resume (how checks are
    asked, not what is claimed); a bad count, or a z3 run, is refused in one line, nothing touched."""
    import json
    from pathlib import Path

    from conftest import one_error_line

    code, out, err = cli("solve", "kingtour", "--size", 9, "--time-limit", "0.05", "--json", "--ahead", 1,
                         "--out", cli.tmp_path / "runs")
    assert code == 3, err
    run_dir = Path(json.loads(out)["run_dir"])
    assert json.loads((run_dir / "run.json").read_text())["engine"]["params"]["ahead"] == 1
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.name != ".lock"}
    for bad, said in (("-1", "ahead must be in 0..16"), ("two", "ahead must be int")):
        code, _, err = cli("solve", "kingtour", "--resume", run_dir, "--ahead", bad)
        assert code == 2 and said in one_error_line(err) and "--ahead" in err
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.name != ".lock"} == before
    code, out, err = cli("solve", "kingtour", "--resume", run_dir, "--ahead", 0, "--json")
    assert code == 0 and json.loads(out)["status"] == "optimal", err
    assert json.loads((run_dir / "run.json").read_text())["engine"]["params"]["ahead"] == 0
    code, _, err = cli("solve", "kingtour", "--size", 4, "--engine", "z3", "--ahead", 1, "--out", cli.tmp_path / "no")
    assert code == 2 and "--ahead: it is for runs on the sat engine" in one_error_line(err)
    assert not (cli.tmp_path / "no").exists()


def test_the_api_asks_ahead_and_names_a_bad_count():
    import smtpuzzles

    result = smtpuzzles.solve("kingtour", size=4, ahead=1)
    assert (result.status, result.value) == ("optimal", "".join(map(str, best_overall(4, 2, 2))))
    with pytest.raises(InputError, match=r"solve\(ahead=\.\.\.\): engine parameter ahead must be in 0..16"):
        smtpuzzles.solve("kingtour", size=4, ahead=17)




def _random_term(rng: random.Random, depth: int = 0):
    if depth > 2 or rng.random() < 0.4:
        return lit(f"x{rng.randint(1, 4)}", rng.random() < 0.5)
    return (rng.choice(["and", "or"]), tuple(_random_term(rng, depth + 1) for _ in range(rng.randint(0, 3))))


def test_a_term_is_read_on_a_model_as_its_meaning_says():
    """`_holds` against the terms' meaning, written out here, over random terms and assignments."""
    index = {f"x{v}": v for v in range(1, 5)}

    def meaning(term, bits):
        if term[0] == "lit":
            return bits[int(term[1][1:]) - 1] == term[2]
        parts = [meaning(t, bits) for t in term[1]]
        return all(parts) if term[0] == "and" else any(parts)

    rng = random.Random(7)
    for _ in range(2000):
        term = _random_term(rng)
        bits = [rng.random() < 0.5 for _ in range(4)]
        true = {v for v in range(1, 5) if bits[v - 1]}
        assert satengine._holds(term, true, index) == meaning(term, bits)


def finished_job(model):
    done = threading.Event()
    done.set()
    return SimpleNamespace(finished=done, answer=True, solving=SimpleNamespace(model=model))


def test_a_model_found_ahead_answers_the_check_only_if_it_meets_it():
    engine = make_engine("sat", formula_of(5, CLAUSES), {"ahead": 1})
    x2, x5 = engine.cnf.index["x2"], engine.cnf.index["x5"]
    misses = finished_job([-x2, x5])  # x2 false: does not meet "x2 and x5"
    engine._jobs[(1,)] = misses
    watching = satengine._Borrowing(engine, [("and", (lit("x2"), lit("x5")))])
    time.sleep(0.3)
    assert watching.model is None and not engine._stopped
    meets = finished_job([x2, x5])
    engine._jobs[(2,)] = meets
    time.sleep(0.3)
    watching.end()
    assert watching.model == [x2, x5] and engine._stopped  # the check under way is stopped for it
    engine._jobs.clear()
    engine.close()
