"""Work sharing (smtpuzzles.sharing): a question split by look-ahead into cubes, each run within a
conflict budget and split again while open, on local processes or Dask; the first SAT cube answers
and stops the rest; Ctrl-C and the time limit stop a question even on a solver that takes no
interrupt. Expected answers come from the brute force (4x4 King's tour) or from the pigeonhole
principle, never from the runner; every refuted cube of a summary is re-solved by another solver."""

from __future__ import annotations

import functools
import io
import json
import os
import random
import re
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from pysat.solvers import Solver

from brute_kingtour import best_overall
from smtpuzzles.engines import _ctrl_c, press_ctrl_c
from smtpuzzles.engines.satengine import SatModel
from smtpuzzles.formula import CNF, lit
from smtpuzzles.objectives import claim_terms
from smtpuzzles.puzzles import kingtour
from smtpuzzles.sharing.pools import DaskPool, LocalPool
from smtpuzzles.sharing.runner import question_of, share
from smtpuzzles.sharing.tree import leaf_cubes, summary_problem
from smtpuzzles.sharing.worker import Base

ROOT = Path(__file__).resolve().parents[1]
BRUTE_4x4 = best_overall(4, 2, 2)  # [4, 4, 4, 3, 3, 4, 2, 1, 3, 2, 1, 1, 3, 2, 2, 1]
# Claims on the 4x4 board and whether some tour beats them (a claim "beats X" holds iff X < the
# brute force's best): the best itself, a digit lowered (and all after it 4), a digit raised.
LOWERED, RAISED = BRUTE_4x4[:9] + [1] + [4] * 6, BRUTE_4x4[:6] + [3] + [1] * 9
CLAIMS_4x4 = [({"op": "lex_greater", "best": BRUTE_4x4}, "unsat"), ({"op": "lex_greater", "best": LOWERED}, "sat"),
              ({"op": "lex_greater", "best": RAISED}, "unsat"), ({"op": "first"}, "sat")]


@functools.lru_cache(maxsize=None)
def board_4x4():
    return kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")


def base_of(cnf: CNF, key: str) -> Base:
    return Base(key, lambda: (cnf.clauses, cnf.names))


def pigeons(holes: int, switch: bool = False) -> CNF:
    """holes + 1 pigeons in `holes` holes: unsatisfiable, and hard for resolution past 9 or so. With
    `switch`, each clause is guarded by a variable `s`: s true satisfies everything at once."""
    cnf = CNF()
    guard = [cnf.var("s")] if switch else []
    p = [[cnf.var(f"p{i}_{j}") for j in range(holes)] for i in range(holes + 1)]
    for row in p:
        cnf.add(guard + row)
    for j in range(holes):
        for a in range(holes + 1):
            for b in range(a + 1, holes + 1):
                cnf.add(guard + [-p[a][j], -p[b][j]])
    return cnf


def refuted_by_another_solver(cnf: CNF, question, cube: list[tuple[str, bool]]) -> bool:
    with Solver(name="minisat22", bootstrap_with=cnf.clauses) as other:
        fresh = {}
        top = len(cnf.names) - 1

        def mapped(x):  # the question's fresh variables, renumbered as a worker does
            nonlocal top
            if abs(x) < len(cnf.names):
                return x
            if abs(x) not in fresh:
                top += 1
                fresh[abs(x)] = top
            return fresh[abs(x)] if x > 0 else -fresh[abs(x)]

        for clause in question.clauses:
            other.add_clause([mapped(x) for x in clause])
        literals = [mapped(x) for x in question.assumptions] + \
            [cnf.index[n] if value else -cnf.index[n] for n, value in cube]
        return other.solve(assumptions=literals) is False


# ----------------------------------------------------------------------------- the split-again runner
def test_a_small_budget_splits_again_and_every_cube_is_in_the_summary():
    enc = board_4x4()
    cnf, claim = enc.formula.cnf, CLAIMS_4x4[0][0]
    question = question_of(cnf, claim_terms(enc.objective, claim))
    with LocalPool(1, base_of(cnf, enc.formula.sha256)) as pool:  # one worker: the same tree each time
        shared = share(pool, question, budget=2)
    assert shared.status == "unsat"  # the brute force's best is not beaten
    assert sum(r["status"] == "open" for r in shared.runs) >= 2  # split, and a cube split again
    assert max(len(c) for c in shared.leaves) >= 3
    summary = shared.summary(claim, enc.formula.sha256, cnf.names)
    assert summary_problem(summary, claim, enc.formula.sha256, cnf.index) is None
    json.dumps(summary)
    cubes = list(leaf_cubes(summary))
    solved = {r["cube"] for r in shared.runs if r["status"] == "unsat"}
    assert len(cubes) == len(shared.leaves) == summary["results"].count("u") + summary["results"].count("p")
    assert {tuple(cnf.index[n] if v else -cnf.index[n] for n, v in c) for c in cubes} == set(shared.leaves)
    assert {c for c, (how, _) in shared.leaves.items() if how == "u"} == solved
    assert all(refuted_by_another_solver(cnf, question, cube) for cube in cubes)


@pytest.mark.parametrize("claim,expected", CLAIMS_4x4, ids=["best", "lowered", "raised", "first"])
def test_one_and_two_workers_give_the_brute_force_s_answers(claim, expected):
    enc = board_4x4()
    cnf = enc.formula.cnf
    question = question_of(cnf, claim_terms(enc.objective, claim))
    answers = []
    for workers in (1, 2):
        with LocalPool(workers, base_of(cnf, enc.formula.sha256)) as pool:
            shared = share(pool, question, budget=25)
        answers.append(shared.status)
        if shared.status == "sat":  # the model is a tour that beats the claim, by the referee
            solution = enc.decode(SatModel({x for x in shared.model if x > 0}, cnf.index, shared.model))
            assert kingtour.referee(kingtour.parse(4, "2x2", None), solution) == []
            if claim["op"] == "lex_greater":
                assert kingtour.value(kingtour.parse(4, "2x2", None), solution) > claim["best"]
    assert answers == [expected, expected]


def test_the_dask_runner_gives_the_same_answer_and_summary_check():
    import distributed

    enc = board_4x4()
    cnf, claim = enc.formula.cnf, CLAIMS_4x4[2][0]
    question = question_of(cnf, claim_terms(enc.objective, claim))
    base = Base(enc.formula.sha256, functools.partial(_board_clauses))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client, DaskPool(client, base) as pool:
        shared = share(pool, question, budget=20)
    assert shared.status == "unsat"
    assert len({r["worker"] for r in shared.runs}) == 2
    summary = shared.summary(claim, enc.formula.sha256, cnf.names)
    assert summary_problem(summary, claim, enc.formula.sha256, cnf.index) is None


def _board_clauses():
    cnf = board_4x4().formula.cnf
    return cnf.clauses, cnf.names


# -------------------------------------------------------------------------------------------- the race
def test_a_sat_cube_answers_and_stops_the_cube_still_running():
    # Split on `s` (the one variable look-ahead may pick): s false is 12 pigeons in 11 holes, which
    # no solver settles in minutes; s true a random 3-SAT formula with a planted model, solved in
    # some hundreds of conflicts.
    cnf = pigeons(11, switch=True)
    for name in list(cnf.index):
        if name != "s":
            cnf.names[cnf.index[name]] = "_" + name  # auxiliaries to look-ahead
    chance = random.Random(7)
    planted = {cnf.var(f"_r{i}"): chance.random() < 0.5 for i in range(250)}
    wanted = len(cnf.clauses) + 1050
    while len(cnf.clauses) < wanted:
        clause = [v if chance.random() < 0.5 else -v for v in chance.sample(sorted(planted), 3)]
        if any(planted[abs(x)] == (x > 0) for x in clause):
            cnf.add([-cnf.index["s"]] + clause)
    question = question_of(cnf, [])
    with LocalPool(2, base_of(cnf, "pigeons-11-switch")) as pool:
        started = time.monotonic()
        shared = share(pool, question, budget=10**9, first_budget=1)
        answered = time.monotonic() - started
        assert shared.status == "sat" and answered < 20
        assert all(any(x in shared.model for x in clause) for clause in cnf.clauses)
        assert [r["cube"] for r in shared.runs[:1]] == [()] and shared.runs[0]["status"] == "open"
        # The s-false cube was still running: its worker was interrupted, so both are free at once.
        started = time.monotonic()
        both = [pool.submit(question, 10**6, (cnf.index["s"],), 10, 0) for _ in range(2)]
        assert [f.result(timeout=10)["status"] for f in both] == ["sat", "sat"]
        assert time.monotonic() - started < 5


# ------------------------------------------------------------------- Ctrl-C and the time limit, budgeted
def test_the_time_limit_holds_on_a_solver_that_takes_no_interrupt():
    cnf = pigeons(11)
    with LocalPool(2, base_of(cnf, "pigeons-11"), solver="cadical195") as pool:
        started = time.monotonic()
        shared = share(pool, question_of(cnf, []), budget=3000, time_limit=2.0)
        assert shared.status == "unknown" and shared.reason == "timeout"
        assert time.monotonic() - started < 3.0
    assert time.monotonic() - started < 15  # the workers' last budgeted cubes ended too


def test_the_run_s_ctrl_c_stops_a_question():
    cnf = pigeons(11)
    with LocalPool(2, base_of(cnf, "pigeons-11")) as pool:
        threading.Timer(1.5, press_ctrl_c).start()
        started = time.monotonic()
        try:
            shared = share(pool, question_of(cnf, []))
        finally:
            _ctrl_c.clear()
        assert shared.status == "interrupted" and time.monotonic() - started < 3.0


CTRL_C_SCRIPT = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    from test_sharing import pigeons, base_of
    from smtpuzzles.engines import ctrl_c_between_steps
    from smtpuzzles.sharing.pools import LocalPool
    from smtpuzzles.sharing.runner import question_of, share
    cnf = pigeons(11)
    with ctrl_c_between_steps(), LocalPool(2, base_of(cnf, "p"), solver="cadical195") as pool:
        pool.submit(question_of(cnf, []), 0, (), 1, 0).result()  # the workers are up
        print(*pool._executor._processes, flush=True)
        shared = share(pool, question_of(cnf, []), budget=2000)
    print(shared.status, flush=True)
""")


def test_a_ctrl_c_from_the_terminal_stops_the_question_and_its_workers():
    script = CTRL_C_SCRIPT.format(tests=str(ROOT / "tests"))
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    workers = [int(p) for p in child.stdout.readline().split()]
    assert len(workers) == 2
    time.sleep(1.0)
    child.send_signal(2)  # SIGINT, as a terminal's Ctrl-C
    out, _ = child.communicate(timeout=20)
    assert out.strip() == "interrupted"
    time.sleep(0.5)
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_workers_end_with_their_parent():
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT / "tests")!r})
        from test_sharing import pigeons, base_of
        from smtpuzzles.sharing.pools import LocalPool
        from smtpuzzles.sharing.runner import question_of
        pool = LocalPool(1, base_of(pigeons(4), "p"))
        pool.submit(question_of(pigeons(4), []), 0, (), 1, 0).result()
        print(*pool._executor._processes, flush=True)
        os._exit(0)  # killed: no pool closed
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT).stdout
    (pid,) = map(int, out.split())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    pytest.fail(f"worker {pid} outlived its parent")


def test_a_question_s_clauses_never_meet_another_s_on_one_worker():
    # Two questions whose fresh variables share numbers, asked of the same worker one after
    # the other: each is answered as a fresh solver answers it.
    enc = board_4x4()
    cnf = enc.formula.cnf
    with LocalPool(1, base_of(cnf, enc.formula.sha256)) as pool:
        for claim, expected in CLAIMS_4x4 * 2:
            assert share(pool, question_of(cnf, claim_terms(enc.objective, claim)), budget=10**6).status == expected
    assert question_of(cnf, [lit("v0_0_0")]).assumptions == (cnf.index["v0_0_0"],)


def test_a_cube_past_its_cpu_cap_comes_back_split():
    cnf = pigeons(11)
    with LocalPool(1, base_of(cnf, "pigeons-11")) as pool:
        out = pool.submit(question_of(cnf, []), 10**6, (), 10**9, 1, 0.5).result(timeout=60)
    assert out["status"] == "open" and 0.5 <= out["cpu"] < 5
    # By one clause (a pigeon's 11 holes): a hole each, the last with every hole false refuted.
    assert len(out["children"]) >= 2
    assert [refuted for _, refuted in out["children"]] == [False] * (len(out["children"]) - 1) + [True]


def test_a_first_split_widens_until_every_worker_has_a_cube_and_stays_one_complete_tree():
    from smtpuzzles.sharing.runner import Shared, _grow
    from smtpuzzles.sharing.tree import summary_of
    from smtpuzzles.sharing.worker import split

    cnf = pigeons(11)
    groups = [c for c in cnf.clauses if len(c) >= 3]
    candidates = list(range(1, len(cnf.names)))
    with Solver(name="glucose4", bootstrap_with=cnf.clauses) as solver:
        narrow = split(solver, candidates, [], (), 1, groups)
        wide = split(solver, candidates, [], (), 7, groups)
    assert len(narrow) == 12 and len(wide) >= 2 ** 7  # a pigeon's 11 holes and none; then wider
    shared, stack = Shared("unsat"), []
    _grow(shared, stack, {(): 1}, (), wide, 1)
    shared.leaves.update({c: ("u", 0) for c in stack})  # as if each queued cube were refuted
    summary = summary_of({"op": "first"}, "b", shared.splits, shared.leaves, cnf.names)
    assert summary_problem(summary, {"op": "first"}, "b", cnf.index) is None
    assert summary["tree"].count(0) == len(wide)


@pytest.mark.parametrize("ending", ["unsat", "sat", "time limit", "ctrl-c", "a failed cube"])
def test_a_shared_question_s_cubes_are_counted_for_the_live_views_until_it_ends(ending):
    # Its one step comes at its end, hours later on a hard question: meanwhile the views show how
    # many cubes ran, were refuted and split, and how many run and wait; nothing once it ends,
    # however it ends.
    from smtpuzzles import activity

    seen = []
    cnf = pigeons(11 if ending in ("time limit", "ctrl-c") else 7, switch=ending == "sat")

    class Watched(LocalPool):  # what a live view reads, as each wait for a cube ends
        def wait(self, pending, seconds):
            done = super().wait(pending, seconds)
            seen.append(activity.facts())
            if ending == "a failed cube" and len(seen) == 3:
                raise RuntimeError("a worker's cube failed")
            return done

    with Watched(2, base_of(cnf, f"pigeons-{ending}")) as pool:
        if ending == "ctrl-c":
            threading.Timer(1.0, press_ctrl_c).start()
        try:
            shared = share(pool, question_of(cnf, []), budget=2, time_limit=1.0 if ending == "time limit" else None)
        except RuntimeError:
            shared = None
        finally:
            _ctrl_c.clear()
    assert activity.facts() is None
    assert shared is None if ending == "a failed cube" else \
        shared.status == {"time limit": "unknown", "ctrl-c": "interrupted"}.get(ending, ending)
    assert seen and all(seen)
    for facts in seen:
        cubes = facts["cubes"]
        assert cubes["run"] == cubes["refuted"] + cubes["split"] and 1 <= cubes["running"] <= 2
        took, counts = facts["words"].split("): ", 1)
        assert re.fullmatch(r"cubes \(\d+\.\d+s", took) and 0 <= facts["seconds"] < 60
        assert counts == (f"{cubes['run']:,} run ({cubes['refuted']:,} refuted, {cubes['split']:,} split), "
                          f"{cubes['running']} running, {cubes['queued']:,} queued")
    runs = [facts["cubes"]["run"] for facts in seen]
    assert runs == sorted(runs)  # counts only grow
    if shared is not None and ending == "unsat":
        assert runs[-1] < len(shared.runs)  # each read before the cubes that ended were taken in
        assert runs[-1] + 2 >= len(shared.runs) - 1


def test_the_progress_line_json_and_view_show_the_work_under_way_between_steps():
    from rich.console import Console

    from smtpuzzles import activity, puzzles
    from smtpuzzles.cli.solving import ProgressView

    view = ProgressView(puzzles.get("kingtour"))
    words = "cubes (1d 04h): 12,345,678 run (1,234,567 refuted, 11,111,111 split), 2 running, 10,200 queued"
    facts = {"cubes": {"run": 12345678}, "words": words}
    told = activity.report(lambda: facts)
    try:
        assert view.record() == {"stage": "starting", "puzzle": "kingtour", "checks": 0, "doing": facts}
        view.step({"index": 0, "claim": {"op": "first"}, "result": "sat", "by": "solver", "seconds": 1.0,
                   "value": [4, 3, 2, 1], "words": "a first answer"})
        line = view.plain_line()
        assert line.endswith(f"; {words}") and view.record()["doing"] == facts  # a log's line is whole
        console = Console(file=io.StringIO(), width=80, color_system=None)
        console.print(view)
        shown = console.file.getvalue().splitlines()
        assert any(x.startswith("cubes (1d 04h): 12,345,678 run") for x in shown) and max(map(len, shown)) <= 80
        activity.ended(lambda: facts)  # another's end leaves it
        assert activity.words() == words
    finally:
        activity.ended(told)
    assert view.plain_line() == line[:-len(f"; {words}")] and view.record()["doing"] is None
    told = activity.report(lambda: 1 / 0)  # a report that fails to say is no report, not a dead view
    try:
        assert activity.facts() is None and view.plain_line() == line[:-len(f"; {words}")]
    finally:
        activity.ended(told)
