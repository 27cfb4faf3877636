"""A check the sat engine's own solver leaves open goes on in a fresh solver holding the claim's
literals as unit clauses (`satengine.FRESH_AFTER`). Its answers are the formula's (a brute force
over every assignment says which), its models fit the formula and the claim, and the time limit,
an interrupt and `fresh = false` hold on it."""

from __future__ import annotations

import itertools
from pathlib import Path
import re
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


def formula_of(n: int, clauses) -> Formula:
    """Variables x1..xn and `clauses` over their numbers."""
    cnf = CNF()
    for v in range(1, n + 1):
        cnf.var(f"x{v}")
    for clause in clauses:
        cnf.add(clause)
    return Formula.from_cnf(cnf)


def models_of(n: int, clauses, fixed) -> list[tuple[bool, ...]]:
    """Every assignment of x1..xn, by brute force, that satisfies `clauses` and the signed literals
    `fixed`."""
    return [bits for bits in itertools.product([False, True], repeat=n)
            if all(any((x > 0) == bits[abs(x) - 1] for x in c) for c in clauses)
            and all((x > 0) == bits[abs(x) - 1] for x in fixed)]


small_cases = st.integers(3, 7).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.lists(st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=3),
             max_size=14),
    st.lists(st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])), max_size=3)))


@given(small_cases)
@settings(max_examples=60, deadline=None)
def test_the_fresh_solver_answers_as_a_brute_force_does(case):
    n, clauses, assumed = case
    engine = make_engine("sat", formula_of(n, clauses))
    models = models_of(n, clauses, assumed)
    lits = [engine.cnf.term_literal(("lit", f"x{abs(x)}", x > 0), [], engine._cache) for x in assumed]
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


def test_a_fresh_check_runs_in_a_child_and_its_interrupt_is_a_kill():
    """Glucose sees an interrupt only between restarts (an 18x18 run's Ctrl-C waited 92 s): the
    fresh check runs in a child process, which the interrupt kills, and none is left behind."""
    before = children()
    engine = make_engine("sat", pigeon_formula(12))  # hours for Glucose
    engine.fresh_after = 0.2
    seen: list = []

    def stop():
        seen.extend(line for line in children() if line not in before)
        engine.interrupt()
    timer = threading.Timer(2.0, stop)
    timer.start()
    started = time.monotonic()
    answer = engine.check([], None)
    timer.join()
    assert seen and "glucose4" in seen[0]
    assert answer.status == "unknown" and time.monotonic() - started < 10
    assert answer.stats.get("fresh") == 1  # stopped, it still says it went fresh
    assert children() == before


@pytest.mark.parametrize("sent", ["SIGTERM", "SIGINT"])
def test_a_stop_sent_to_the_whole_group_is_no_failure_to_ask_again(sent):
    """A SIGTERM or SIGINT to the group reaches the child too: that is the run's stop, not a child
    that failed, so the check is not built again in the run's process on the way out."""
    import os
    import signal

    from smtpuzzles.engines.child import ChildSolve

    before = children()
    engine = make_engine("sat", pigeon_formula(12))
    solving = ChildSolve("glucose4", engine._base, engine._added, [])
    answers: list = []
    racing = threading.Thread(target=lambda: answers.append(solving.run()))
    racing.start()
    deadline = time.monotonic() + 20
    while len(children()) == len(before) and time.monotonic() < deadline:
        time.sleep(0.01)
    child = next(line for line in children() if line not in before)
    time.sleep(0.05 if sent == "SIGINT" else 1.0)  # SIGINT: as the child starts, before its main runs
    os.kill(int(child.split()[0]), getattr(signal, sent))
    racing.join(5 if sent == "SIGTERM" else 2)
    if sent == "SIGINT":  # ignored from the fork on: still solving, until its parent stops it
        assert racing.is_alive()
        solving.interrupt()
        racing.join(20)
    assert answers == [None] and solving.failure is None
    assert children() == before


def test_the_child_takes_the_run_s_phases_and_gives_its_statistics():
    from smtpuzzles.engines.child import ChildSolve

    phases = [1, -2, 3, 4, -5, -6]
    free = [[v, -v] for v in range(1, 7)]  # nothing decides a value but the phases
    solving = ChildSolve("glucose4", free, [], [], phases)
    assert solving.run() is True and solving.model == phases
    assert solving.stats.get("decisions", 0) >= 6
    engine = make_engine("sat", formula_of(6, free))
    engine.hint(engine.check([], None).model)
    engine._phases = [engine.cnf.index[f"x{abs(x)}"] * (1 if x > 0 else -1) for x in phases]
    fresh: dict = {}
    assert engine._solve_fresh([], fresh) is True
    assert [x for x in fresh["model"] if abs(x) in {abs(y) for y in engine._phases}] == \
        sorted(engine._phases, key=abs)


def test_fresh_after_is_longer_than_a_small_board_s_checks():
    assert satengine.FRESH_AFTER >= 10


# ------------------------------------------------------------------ a fresh solver in a child process
@given(small_cases)
@settings(max_examples=12, deadline=None)
def test_kissat_in_a_child_answers_as_a_brute_force_does(case):
    from smtpuzzles.engines.child import ChildSolve

    n, clauses, assumed = case
    engine = make_engine("sat", formula_of(n, clauses), {"fresh_solver": "kissat404"})
    models = models_of(n, clauses, assumed)
    lits = [engine.cnf.term_literal(("lit", f"x{abs(x)}", x > 0), [], engine._cache) for x in assumed]
    solving = ChildSolve("kissat404", engine._base, engine._added, lits)
    assert solving.run() is bool(models)
    if models:
        true = {x for x in solving.model if x > 0}
        assert tuple(engine.cnf.index[f"x{v}"] in true for v in range(1, n + 1)) in models
    fresh: dict = {}  # and the race of the two
    assert engine._solve_fresh(lits, fresh) is bool(models)


def children(parent: int | None = None) -> list[str]:
    """The fresh-solver children of `parent` (this process) running now, as pid and command line:
    another test's, under xdist, is none of this one's business."""
    import os
    import subprocess

    parent = os.getpid() if parent is None else parent
    listed = subprocess.run(["ps", "-ww", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    return [line for line in listed.splitlines()[1:]
            if line.split()[1] == str(parent) and "smtpuzzles.engines.child" in line]


def test_a_check_goes_on_in_kissat_s_child_and_is_answered():
    engine = make_engine("sat", pigeon_formula(7), {"fresh_solver": "kissat404"})
    engine.fresh_after = 0.0  # at once, whatever Glucose would do
    answer = engine.check([], None)
    assert answer.status == "unsat" and answer.stats.get("fresh") == 1 and answer.core is None


@pytest.mark.parametrize("stop", ["time limit", "interrupt"])
def test_the_time_limit_and_an_interrupt_kill_kissat_s_child(stop):
    before = children()
    engine = make_engine("sat", pigeon_formula(12), {"fresh_solver": "kissat404"})  # minutes for Kissat
    engine.fresh_after = 0.2
    started = time.monotonic()
    if stop == "interrupt":
        timer = threading.Timer(1.5, engine.interrupt)
        timer.start()
        answer = engine.check([], None)
        timer.join()
    else:
        answer = engine.check([], 1.5)
    assert answer.status == "unknown" and time.monotonic() - started < 20
    assert children() == before  # killed and reaped, not left running


def test_a_sigint_to_kissat_s_child_leaves_it_to_its_parent():
    """A SIGINT to the whole group (kill -INT -PGID) reached the child too, whose pysat handler
    ended it: the race went on without it though the run ignored SIGINT. The child ignores it now;
    the parent alone stops it."""
    import os
    import signal

    from smtpuzzles.engines.child import ChildSolve

    before = children()
    engine = make_engine("sat", pigeon_formula(12), {"fresh_solver": "kissat404"})  # minutes for Kissat
    solving = ChildSolve("kissat404", engine._base, engine._added, [])
    answers: list = []
    racing = threading.Thread(target=lambda: answers.append(solving.run()))
    racing.start()
    try:
        deadline = time.monotonic() + 20
        while len(children()) == len(before) and time.monotonic() < deadline:
            time.sleep(0.05)
        child = next(line for line in children() if line not in before)
        time.sleep(1.0)  # past the child's start-up, into the solve
        os.kill(int(child.split()[0]), signal.SIGINT)
        time.sleep(1.5)
        assert child in children() and not answers  # still solving
    finally:
        solving.interrupt()
        racing.join(20)
    assert answers == [None] and solving.failure is None  # stopped by its parent, no failure
    assert children() == before


def test_fresh_solver_takes_only_the_listed_solvers():
    with pytest.raises(InputError, match="fresh_solver must be one of"):
        make_engine("sat", pigeon_formula(2), {"fresh_solver": "lingeling"})
    from smtpuzzles.engines.child import ChildSolve

    with pytest.raises(ValueError):
        ChildSolve("lingeling", [], [], [])


def test_fresh_solver_on_the_command_line_new_and_resumed(cli):
    """`--fresh-solver` is recorded as the engine parameter on a new run and may be changed on a
    resume (how checks are asked, not what is claimed); a solver not listed, or a z3 run, is
    refused in one line before anything is touched."""
    import json
    from pathlib import Path

    from conftest import one_error_line

    code, out, err = cli("solve", "kingtour", "--size", 9, "--time-limit", "0.05", "--json", "--fresh-solver",
                         "glucose3", "--out", cli.tmp_path / "runs")
    assert code == 3, err
    run_dir = Path(json.loads(out)["run_dir"])
    assert json.loads((run_dir / "run.json").read_text())["engine"]["params"]["fresh_solver"] == "glucose3"
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.name != ".lock"}
    code, _, err = cli("solve", "kingtour", "--resume", run_dir, "--fresh-solver", "lingeling")
    assert code == 2 and "fresh_solver must be one of" in one_error_line(err) and "--fresh-solver" in err
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.name != ".lock"} == before
    code, out, err = cli("solve", "kingtour", "--resume", run_dir, "--fresh-solver", "kissat404", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "optimal"
    assert json.loads((run_dir / "run.json").read_text())["engine"]["params"]["fresh_solver"] == "kissat404"
    code, out, err = cli("solve", "kingtour", "--size", 9, "--engine", "z3", "--time-limit", "0.01", "--json",
                         "--out", cli.tmp_path / "z3")
    assert code == 3, err  # unfinished: its resume may not name a sat engine's solver
    code, _, err = cli("solve", "kingtour", "--resume", Path(json.loads(out)["run_dir"]), "--fresh-solver", "kissat404")
    assert code == 2 and "--fresh-solver: it is for runs on the sat engine" in one_error_line(err)
    code, _, err = cli("solve", "kingtour", "--size", 4, "--fresh-solver", "lingeling", "--out", cli.tmp_path / "no")
    assert code == 2 and one_error_line(err).count("--fresh-solver") == 1 and "must be one of" in err
    assert not (cli.tmp_path / "no").exists()


def test_kissat_s_child_dies_with_a_run_killed_outright(tmp_path):
    """kill -9 gives the run no chance to stop its child: the child must not go on for hours
    alone, nor leave its clauses in the temporary folder."""
    import os
    import signal
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_fresh_solver import pigeon_formula\n"
        "from smtpuzzles.engines import make_engine\n"
        "engine = make_engine('sat', pigeon_formula(12), {'fresh_solver': 'kissat404'})\n"
        "engine.fresh_after = 0.0\n"
        "engine.check([], None)\n")
    run = subprocess.Popen([sys.executable, str(script)], env={**os.environ, "TMPDIR": str(tmp_path)})

    def its_children() -> list[int]:
        return [int(line.split()[0]) for line in children(run.pid)]

    def alive(pid: int) -> bool:  # a zombie nobody reaped yet has ended
        try:
            return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return False
    try:
        for _ in range(300):
            found = its_children()
            if found:
                break
            time.sleep(0.1)
        assert found, "the child never started"
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    for _ in range(100):
        if not any(map(alive, found)):
            break
        time.sleep(0.1)
    assert not any(map(alive, found))
    assert list(tmp_path.iterdir()) == [script]


class Stuck:
    """A solver that answers nothing until it is interrupted (then None), and says what it was told."""

    def __init__(self):
        self.stopped = threading.Event()
        self.deleted = False

    def set_phases(self, phases):
        pass

    def solve_limited(self, expect_interrupt=False):
        self.stopped.wait(60)
        return None

    def accum_stats(self):
        return {}

    def interrupt(self):
        self.stopped.set()

    def delete(self):
        self.deleted = True


def stuck_for(solver: str, monkeypatch) -> threading.Event:
    """Children of `solver` answer nothing until interrupted (then None, as a killed child does);
    the others run as they do. The event: one was interrupted."""
    from smtpuzzles.engines import child

    stopped = threading.Event()
    run, interrupt = child.ChildSolve.run, child.ChildSolve.interrupt

    def stuck_run(self):
        if self.solver != solver:
            return run(self)
        stopped.wait(60)
        return None

    def stuck_interrupt(self):
        if self.solver == solver:
            self._stopped = True
            stopped.set()
        interrupt(self)
    monkeypatch.setattr(child.ChildSolve, "run", stuck_run)
    monkeypatch.setattr(child.ChildSolve, "interrupt", stuck_interrupt)
    return stopped


def test_kissat_s_answer_ends_the_race_and_stops_the_run_s_solver(monkeypatch):
    engine = make_engine("sat", pigeon_formula(5), {"fresh_solver": "kissat404"})
    stopped = stuck_for("glucose4", monkeypatch)
    fresh: dict = {}
    started = time.monotonic()
    assert engine._solve_fresh([], fresh) is False
    assert fresh["stats"] == {"outside": 1} and stopped.is_set()
    assert time.monotonic() - started < 30


def test_the_run_s_solver_in_its_own_process_is_stopped_as_an_in_process_one_was(monkeypatch):
    """Where its child cannot answer, the check goes on in this process: a Stuck solver there is
    stopped by the race's end as the child would be."""
    engine = make_engine("sat", pigeon_formula(5), {"fresh_solver": "kissat404"})
    from smtpuzzles.engines import child

    run = child.ChildSolve.run

    def failing(self):
        if self.solver == "kissat404":
            return run(self)
        self.failure = "no room"
        return None
    monkeypatch.setattr(child.ChildSolve, "run", failing)
    stuck = Stuck()
    monkeypatch.setattr(satengine, "solver_with_units", lambda *args: stuck)
    fresh: dict = {}
    assert engine._solve_fresh([], fresh) is False
    assert fresh["stats"] == {"outside": 1} and stuck.stopped.is_set() and stuck.deleted


def test_the_run_s_solver_ends_the_race_and_kills_kissat(monkeypatch):
    stopped = stuck_for("kissat404", monkeypatch)
    engine = make_engine("sat", pigeon_formula(5), {"fresh_solver": "kissat404"})
    fresh: dict = {}
    assert engine._solve_fresh([], fresh) is False
    assert stopped.is_set() and "outside" not in fresh["stats"] and fresh["stats"].get("conflicts", 0) > 0


def test_children_never_import_a_smtpuzzles_of_the_working_directory(tmp_path, monkeypatch):
    """`python -m` puts the working directory first on the path: a folder holding a fake
    smtpuzzles/ would answer for Kissat's child (unsat to every check: a wrong "optimal") and for
    the audit's re-solving child. Both run this very package, isolated."""
    from smtpuzzles.engines.child import ChildSolve
    from smtpuzzles.smtlib import solve_in_subprocess

    fake = tmp_path / "smtpuzzles"
    (fake / "engines").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "engines" / "__init__.py").write_text("")
    lie = "import sys\nsys.stdin.buffer.read()\nprint('unsat')\n"
    (fake / "engines" / "child.py").write_text(lie)
    (fake / "smtlib.py").write_text(lie)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    solving = ChildSolve("kissat404", [[1, 2], [-1]], [], [])
    assert solving.run() is True and solving.model == [-1, 2]
    assert solve_in_subprocess("(declare-const x Bool)\n(assert x)\n(check-sat)\n", "z3")[0] == "sat"


def test_a_child_that_cannot_start_or_answer_leaves_the_race_to_the_run_s_solver(monkeypatch):
    """No room for the clauses (a full temporary folder), or a child of another version: the check
    is answered by the run's own solver, the step's statistics say the other failed, and no thread
    dies with a traceback."""
    import tempfile

    from smtpuzzles.engines import child

    died = []
    monkeypatch.setattr(threading, "excepthook", lambda args: died.append(args))
    engine = make_engine("sat", pigeon_formula(5), {"fresh_solver": "kissat404"})

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as patched:
        patched.setattr(tempfile, "TemporaryFile", full)
        fresh: dict = {}
        assert engine._solve_fresh([], fresh) is False
    assert fresh["stats"].get("outside_failed") == 1 and died == []
    solving = child.ChildSolve("kissat404", [[1]], [], [])
    monkeypatch.setattr(child, "PROTOCOL", "another version")
    assert solving.run() is None and "ended with status 2" in solving.failure


@pytest.mark.parametrize("fresh_solver,named", [(None, "glucose4"), ("kissat404", "glucose4 and kissat404 racing"),
                                                 ("failed", "glucose4 (kissat404 failed)")])
def test_a_check_gone_fresh_is_told_to_the_live_views_while_it_runs(monkeypatch, fresh_solver, named):
    # Its step comes at its end, which can be hours away: meanwhile the progress line says which
    # solvers have it and for how long; nothing once it is answered.
    from smtpuzzles import activity
    from smtpuzzles.engines import child

    seen = []
    engine = make_engine("sat", pigeon_formula(8), {"fresh_solver": "kissat404"} if fresh_solver else {})
    engine.fresh_after = 0.05
    own = engine._solve_own

    def watched(*args, **kwargs):
        if fresh_solver == "failed":  # Kissat's child has failed by the time the run's solver is asked
            race = engine._running
            while race.outside.failure is None:
                time.sleep(0.01)
        seen.append(activity.facts())
        return own(*args, **kwargs)

    monkeypatch.setattr(engine, "_solve_own", watched)
    if fresh_solver == "failed":
        monkeypatch.setattr(child, "PROTOCOL", "another version")
    assert engine.check([], None).status == "unsat"
    assert activity.facts() is None and len(seen) == 1
    assert re.fullmatch(rf"fresh solver \([0-9.]+s\): {re.escape(named)}, the claim as units", seen[0]["words"])
    assert seen[0]["fresh"]["solvers"] == (["glucose4"] if fresh_solver is None else ["glucose4", "kissat404"])
