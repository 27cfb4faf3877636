"""Checks split into cubes: coverage checked by syntax, every cube its own step, the answer the brute
force's, the audit refusing a split that leaves a case out, resume mid-split, and Dask workers."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import distributed
import pytest

from brute_kingtour import best_overall
from conftest import one_error_line
from ledger_forge import forge_chain, read_ledger
from smtpuzzles import run as runner
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.cubes import coverage_problem
from smtpuzzles.puzzles import kingtour

BRUTE_4x4 = "".join(map(str, best_overall(4, 2, 2)))

# Their splits are of the closing claim asked whole (conftest.closing_asked_whole).
pytestmark = pytest.mark.usefixtures("closing_asked_whole")


@pytest.mark.parametrize("encoding,depth,count", [("onehot", 1, 16), ("onehot-sym", 1, 3), ("onehot", 2, 84),
                                                  ("onehot-sym", 2, 3 + 5 + 8)])
def test_the_tour_s_first_cells_cover_every_case(encoding, depth, count):
    # Counted by hand on 4x4: 16 cells; with symmetry the starts (0,0), (0,1), (1,1); their king
    # moves 3, 5 and 8; over all 16 cells 4 corners x 3 + 8 edges x 5 + 4 inner x 8 = 84.
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), encoding)
    cubes = enc.advice.cubes(depth)
    assert len(cubes) == count
    assert coverage_problem(enc.formula.cnf, cubes) is None


def test_a_split_that_leaves_a_case_out_is_named():
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    cubes = enc.advice.cubes(2)
    gap = [c for c in cubes if c != ["v0_1_1", "v1_2_2"]]
    assert "leave out a case" in coverage_problem(enc.formula.cnf, gap)
    assert "(v0_1_1)" in coverage_problem(enc.formula.cnf, gap)
    assert "leave out a case" in coverage_problem(enc.formula.cnf, enc.advice.cubes(1)[1:])
    assert coverage_problem(enc.formula.cnf, [["v9_9_9"]]).endswith("or is too long")
    assert coverage_problem(None, cubes).startswith("the formula has no clausal view")


def split_run(tmp_path, **options):
    board = kingtour.parse(4, "2x2", None)
    return runner.solve(kingtour, board, "", out_dir=tmp_path, cubes=options.pop("cubes", 1), split_after=0, **options)


def test_a_run_split_into_cubes_records_each_and_audits_clean(tmp_path):
    outcome, ledger = split_run(tmp_path)
    assert outcome.status == "optimal" and kingtour.value_text(outcome.value) == BRUTE_4x4
    run, steps = read_ledger(ledger.dir)
    assert run["cubes"] == 1
    closing = steps[run["certificate"]["step"]]
    assert closing["by"] == "cubes" and closing["claim"]["op"] == "lex_greater"
    listed = [steps[i] for i in closing["cubes"]]
    assert sorted(s["claim"]["cube"] for s in listed) == [["v0_0_0"], ["v0_0_1"], ["v0_1_1"]]
    assert all(s["result"] == "unsat" and s["claim"]["best"] == closing["claim"]["best"] for s in listed)
    report = audit(ledger.dir, resolve="certificate")
    assert report.exit_code == 0 and report.verdict == "clean"
    assert sorted(r["query"] for r in report.resolved if r["solver"] == "z3") == \
        ["cube v0_0_0", "cube v0_0_1", "cube v0_1_1"]


def test_the_audit_refuses_a_split_with_a_cube_left_out(tmp_path):
    _, ledger = split_run(tmp_path)
    run, steps = read_ledger(ledger.dir)
    closing = steps[run["certificate"]["step"]]
    closing["cubes"] = closing["cubes"][1:]  # the forger drops the start cell whose cube was hard
    forge_chain(ledger.dir, run, steps)
    report = audit(ledger.dir)
    assert report.exit_code == 1
    assert any(f.section == "claims" and f.ok is False and "leave out a case" in f.text for f in report.findings)


def test_the_audit_refuses_a_split_listing_a_step_of_another_claim(tmp_path):
    _, ledger = split_run(tmp_path)
    run, steps = read_ledger(ledger.dir)
    closing = steps[run["certificate"]["step"]]
    other = next(s["index"] for s in steps if s["result"] == "unsat" and "cube" in s["claim"]
                 and s["claim"]["op"] == "exceed")
    closing["cubes"][0] = other
    forge_chain(ledger.dir, run, steps)
    report = audit(ledger.dir)
    assert report.exit_code == 1
    assert any("no UNSAT answer to one of its cubes" in f.text for f in report.findings if f.ok is False)


def test_a_run_killed_inside_a_split_resumes_without_asking_refuted_cubes_again(tmp_path):
    _, ledger = split_run(tmp_path)
    run, steps = read_ledger(ledger.dir)
    closing_index = run["certificate"]["step"]
    keep = steps[: sorted(steps[closing_index]["cubes"])[1]]  # killed after the closing claim's first cube asked
    for key in ("certificate", "extra"):
        run.pop(key, None)
    run["status"] = "interrupted"
    (ledger.dir / "certificate.smt2.gz").unlink()
    forge_chain(ledger.dir, run, keep)
    outcome, resumed = runner.resume(ledger.dir)
    assert outcome.status == "optimal" and kingtour.value_text(outcome.value) == BRUTE_4x4
    _, after = read_ledger(resumed.dir)
    closing_cubes = [s for s in after if "cube" in s["claim"] and s["claim"]["op"] == "lex_greater"]
    assert len(closing_cubes) == 3  # one kept, two asked now: none twice
    assert audit(resumed.dir, resolve="certificate").verdict == "clean"


def test_split_runs_need_a_clausal_encoding_and_a_known_depth(cli):
    code, _, err = cli("solve", "kingtour", "--size", 4, "--encoding", "posted", "--engine", "z3", "--cubes", 1)
    assert code == 2 and "the posted encoding of kingtour cannot split its checks into cubes" in one_error_line(err)
    code, _, err = cli("solve", "kingtour", "--size", 4, "--cubes", 3)
    assert code == 2 and "--cubes" in one_error_line(err)
    code, _, err = cli("solve", "kingtour", "--size", 4, "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and "give --cubes or --share too" in one_error_line(err)
    code, _, err = cli("solve", "kingtour", "--size", 4, "--cubes", 1, "--split-after", "-1")
    assert code == 2 and "--split-after" in one_error_line(err)


def test_cubes_on_a_local_dask_cluster_give_the_same_number_and_an_auditing_ledger(cli, tmp_path):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        result = cli.solve_json("kingtour", "--size", 4, "--cubes", 2, "--split-after", 0,
                                "--scheduler", cluster.scheduler_address)
    assert (result["status"], result["value"]) == ("optimal", BRUTE_4x4)
    run, steps = read_ledger(Path(result["run_dir"]))
    by = Counter((s["result"], "cube" in s["claim"]) for s in steps)
    assert by[("unsat", True)] >= 16 and by[("sat", True)] >= 1
    # The first check ("there is a solution") ends at its first SAT cube; the rest were stopped.
    first = [s for s in steps if s["claim"]["op"] == "first"]
    assert first[-1]["result"] == "sat" and sum(s["result"] == "sat" for s in first) == 1
    code, out, _ = cli("audit", result["run_dir"], "--resolve", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean"


def test_a_batch_job_split_into_cubes_runs_them_on_the_batch_s_cluster(cli, tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[defaults]\nout = "out"\n\n[[job]]\nname = "king"\npuzzle = "kingtour"\nsize = 4\n'
                    'cubes = 1\nsplit_after = 0\n')
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        code, out, err = cli("batch", jobs, "--scheduler", cluster.scheduler_address)
    assert code == 0, err
    run_dir = next((tmp_path / "out" / "jobs" / "king").glob("*/run.json")).parent
    run, steps = read_ledger(run_dir)
    assert (run["status"], run["value"], run["cubes"]) == ("optimal", BRUTE_4x4, 1)
    assert any(s.get("by") == "cubes" for s in steps)
    assert audit(run_dir).exit_code == 0


@pytest.mark.parametrize("body,fragment", [
    ("cubes = 3", "cubes must be a depth of 1 or 2, not 3"),
    ("split_after = -1", "job king split_after: -1 is not 0 or a finite positive number of seconds"),
    ('cubes = "1"', "cubes must be")])
def test_bad_cube_keys_in_a_job_file_are_one_line(cli, tmp_path, body, fragment):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text(f'[[job]]\nname = "king"\npuzzle = "kingtour"\nsize = 4\n{body}\n')
    code, _, err = cli("batch", jobs, "--out", tmp_path / "out")
    assert code == 2 and fragment in one_error_line(err)


def test_a_long_run_can_be_split_from_its_resume_on(tmp_path):
    board = kingtour.parse(4, "2x2", None)
    _, ledger = runner.solve(kingtour, board, "", out_dir=tmp_path)
    run, steps = read_ledger(ledger.dir)
    assert "cubes" not in run
    for key in ("certificate", "extra"):
        run.pop(key, None)
    run["status"] = "interrupted"
    (ledger.dir / "certificate.smt2.gz").unlink()
    forge_chain(ledger.dir, run, steps[: len(steps) // 2])  # killed half-way, never split
    outcome, resumed = runner.resume(ledger.dir, cubes=1, split_after=0)
    assert outcome.status == "optimal" and kingtour.value_text(outcome.value) == BRUTE_4x4
    run, after = read_ledger(resumed.dir)
    assert run["cubes"] == 1 and after[: len(steps) // 2] == steps[: len(steps) // 2]
    assert any(s.get("by") == "cubes" for s in after)
    assert audit(resumed.dir, resolve="certificate").verdict == "clean"


def test_ctrl_c_while_cubes_run_on_dask_stops_the_run_interrupted_and_resumable(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "runs"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        child = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "solve", "kingtour", "--size", "8", "--cubes", "2",
                                  "--split-after", "0", "--scheduler", cluster.scheduler_address, "--out", str(out)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # some cubes answered: the split is under way
            steps = list(out.glob("*/steps.jsonl"))
            if steps and len(steps[0].read_text().splitlines()) >= 5:
                break
            time.sleep(0.2)
        child.send_signal(signal.SIGINT)
        try:
            _, err = child.communicate(timeout=60)
        finally:
            child.kill()
    assert child.returncode == 130, err
    assert "Traceback" not in err
    run_dir = next(out.iterdir())
    run, _ = read_ledger(run_dir)
    assert run["status"] == "interrupted" and run["cubes"] == 2
    assert audit(run_dir).exit_code == 0
    assert os.path.exists(run_dir / "solution.json")


def test_cube_refusals_are_whole_sentences_and_the_length_limit_is_exact():
    from smtpuzzles.cubes import MAX_CUBE

    enc = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    cnf = enc.formula.cnf
    assert coverage_problem(cnf, []) == "no cubes"
    assert coverage_problem(cnf, [["v9_9_9", "v0_0_0"]]) == \
        "cube 'v9_9_9 v0_0_0' names a variable the formula lacks or is too long"
    # A cube of MAX_CUBE literals is read (and found not to cover); one literal more is refused unread.
    walk = [f"v{t}_0_{t}" if t < 4 else f"v{t}_1_{7 - t}" for t in range(MAX_CUBE)]
    assert coverage_problem(cnf, [walk]).startswith("the cubes leave out a case")
    assert coverage_problem(cnf, [walk + ["v8_2_0"]]).endswith("names a variable the formula lacks or is too long")


def test_a_split_check_reports_exactly_what_it_recorded():
    """The steering on its own: every cube refuted gives ("unsat", None, None), a closing step by
    cubes listing them that on_step is told of, and each cube asked under the run's time limit."""
    from smtpuzzles.driver import Steering
    from smtpuzzles.formula import CNF, Formula
    from smtpuzzles.objective import Encoding, Satisfy

    class Refuting:
        def __init__(self):
            self.timeouts = []

        def run(self, claims, timeout):
            self.timeouts.append(timeout)
            for i, _ in enumerate(claims):
                yield i, {"status": "unsat", "stats": {}, "seconds": 0.5, "engine": "fake", "core": None}

    steps, told = [], []

    def record(step):
        steps.append({"index": len(steps), **step})
        return steps[-1]

    runner_ = Refuting()
    enc = Encoding("fake", 1, Formula.from_cnf(CNF()), Satisfy(lambda s: None), lambda model: {})
    rec = Steering(enc, lambda: None, lambda s: 0, lambda s: [], record, time_limit=7.5, on_step=told.append,
                   cubes=[["a"], ["b"]], cube_runner=runner_, split_after=0)
    assert rec.check({"op": "first"}) == ("unsat", None, None)
    assert runner_.timeouts == [7.5]
    assert [s["claim"] for s in steps] == [{"op": "first", "cube": ["a"]}, {"op": "first", "cube": ["b"]}, {"op": "first"}]
    closing = steps[-1]
    assert (closing["by"], closing["cubes"], closing["result"], closing["seconds"]) == ("cubes", [0, 1], "unsat", 0.0)
    assert told == steps


def test_a_split_check_asks_first_the_cube_its_guide_lies_in():
    """The engine's guide sets c true: of the cubes a, b, c the runner is handed c first (its answer
    would come by propagation), the others in their order; the split closes as before."""
    from smtpuzzles.driver import Steering
    from smtpuzzles.formula import CNF, Formula, lit
    from smtpuzzles.objective import Advice, Encoding, Satisfy

    class Guided:
        params = {"guide": True}

        def guide(self, guess):
            self.terms = list(guess())

    class Recording:
        def run(self, claims, timeout):
            self.asked = [c["cube"] for c in claims]
            for i, _ in enumerate(claims):
                yield i, {"status": "unsat", "stats": {}, "seconds": 0.1, "engine": "fake", "core": None}

    steps, runner_ = [], Recording()
    enc = Encoding("fake", 1, Formula.from_cnf(CNF()), Satisfy(lambda s: None), lambda model: {},
                   advice=Advice(first_guess=lambda: [lit("a", False), lit("c")]))
    rec = Steering(enc, Guided, lambda s: 0, lambda s: [], lambda step: steps.append({"index": len(steps), **step})
                   or steps[-1], cubes=[["a"], ["b"], ["c"]], cube_runner=runner_, split_after=0)
    assert rec.engine.terms == [lit("a", False), lit("c")]
    assert rec.check({"op": "first"}) == ("unsat", None, None)
    assert runner_.asked == [["c"], ["a"], ["b"]]
    assert steps[-1]["by"] == "cubes" and steps[-1]["cubes"] == [1, 2, 0]  # their steps, in cube order
    # A runner on the recorder's own engine has it built (and guided) before the order is taken,
    # as a resumed split does; a runner elsewhere (a cluster) keeps the order of the cubes.
    for uses_engine, first in ((True, ["c"]), (False, ["a"])):
        runner_ = Recording()
        runner_.uses_engine = uses_engine
        rec = Steering(enc, Guided, lambda s: 0, lambda s: [], lambda step: dict(step, index=0),
                       cubes=[["a"], ["b"], ["c"]], cube_runner=runner_, split_after=0)
        rec.check({"op": "first"})
        assert runner_.asked[0] == first


def test_a_job_that_no_longer_asks_for_cubes_resumes_its_split_run_as_it_was_split(cli, tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[defaults]\nout = "out"\n\n[[job]]\nname = "king"\npuzzle = "kingtour"\nsize = 4\n'
                    'cubes = 1\nsplit_after = 0\n')
    code, _, err = cli("batch", jobs)
    assert code == 0, err
    run_dir = next((tmp_path / "out" / "jobs" / "king").glob("*/run.json")).parent
    run, steps = read_ledger(run_dir)
    for key in ("certificate", "extra"):
        run.pop(key, None)
    run["status"] = "interrupted"
    (run_dir / "certificate.smt2.gz").unlink()
    forge_chain(run_dir, run, steps[:20])  # killed part-way, after some cubes
    jobs.write_text('[defaults]\nout = "out"\n\n[[job]]\nname = "king"\npuzzle = "kingtour"\nsize = 4\n')
    code, out, err = cli("batch", jobs)
    assert code == 0, err
    run, after = read_ledger(run_dir)
    assert (run["status"], run["value"], run["cubes"]) == ("optimal", BRUTE_4x4, 1)
    assert after[:20] == steps[:20]
