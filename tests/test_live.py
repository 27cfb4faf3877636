"""The live picture of a long job: a run's progress summed up from its steps, shown by `show` on a
folder that is still being written (or was stopped part-way), and by solve's live view."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from conftest import copy_of_run, one_error_line, solved_once
from ledger_forge import forge_chain, read_ledger
from smtpuzzles import live
from smtpuzzles.errors import LedgerError



def step(index, op, result, seconds, value=None, by="solver", **claim):
    s = {"index": index, "claim": {"op": op, **claim}, "result": result, "by": by, "seconds": seconds}
    if value is not None:
        s["value"] = value
    return s


# A lexicographic run over 4 positions, stopped while deciding the last one.
LEX_STEPS = [
    step(0, "first", "sat", 2.0, [1, 2, 3, 4]),
    step(1, "exceed", "sat", 4.0, [3, 1, 2, 4], prefix=[], pos=0, than=1),
    step(2, "exceed", "unsat", 1.0, prefix=[], pos=0, than=3),  # position 1 proved
    step(3, "exceed", "unsat", 0.0, by="bound", prefix=[3], pos=1, than=1),  # position 2, no solver
    step(4, "exceed", "sat", 6.0, [3, 1, 4, 2], prefix=[3, 1], pos=2, than=2),
    step(5, "exceed", "unsat", 3.0, prefix=[3, 1], pos=2, than=4),  # position 3 proved
    step(6, "exceed", "interrupted", 60.0, prefix=[3, 1, 4], pos=3, than=2),
]


def test_lex_summary_counted_by_hand():
    p = live.summarise(LEX_STEPS, "lex")
    assert (p.steps, p.checks) == (7, 6)  # step 3 was settled by a bound
    assert p.solver_seconds == pytest.approx(2 + 4 + 1 + 6 + 3 + 60)
    assert (p.best, p.best_step, p.length) == ([3, 1, 4, 2], 4, 4)
    assert (p.proved, p.position, p.closed) == (3, 4, False)
    assert p.current_seconds == pytest.approx(60)  # all of it on position 4
    # Seconds per closed position: 4 + 1 on the first, 0 on the second, 6 + 3 on the third.
    assert p.per_position == pytest.approx((5 + 0 + 9) / 3) and p.positions_averaged == 3
    # 1 left x 14/3 s, but the open question has taken 60 s already: the pace says nothing of it.
    assert p.remaining is None and p.open_seconds == 60.0 and "position 4 can exceed 2" in p.open_question
    assert p.slowest == [(6, 60.0), (4, 6.0), (1, 4.0)]
    assert p.rate_overall == pytest.approx(6 / 76 * 60)
    # Ten minutes reach back over every check: the recent rate is the overall one.
    assert (p.recent_checks, p.rate_recent) == (6, pytest.approx(6 / 76 * 60))
    # A one-minute window is passed by the last check alone (60 s), but a rate takes at least five
    # checks: 60 + 3 + 6 + 1 + 4 = 74 s for those five.
    short = live.summarise(LEX_STEPS, "lex", window_minutes=1)
    assert (short.recent_checks, short.rate_recent) == (5, pytest.approx(5 / 74 * 60))
    assert live.where_text(p) == "position 4 of 4 (3 proved, 1m 00s on it)"
    assert live.estimate_text(p) == ("unknown: the open question has taken 1m 00s, more than the ~4.67s the last "
                                     "positions' pace gives for all that is left")
    before = live.summarise(LEX_STEPS[:6], "lex")  # before that question: the estimate stands
    assert live.estimate_text(before) == "rough: ~4.67s solver time = 1 left x 4.67s (mean of last 3)"


def test_steps_that_ran_no_solver_are_neither_checks_nor_bounds():
    """A check closed by its refuted cubes and a closing claim refuted by its cases ran no solver:
    they are no checks (nor in the rate), and no position was settled by a bound in them."""
    split = step(6, "exceed", "unsat", 0.0, by="cubes", prefix=[3, 1, 4], pos=3, than=2)
    closing = step(7, "lex_greater", "unsat", 0.0, by="cases", best=[3, 1, 4, 2])
    p = live.summarise(LEX_STEPS[:6] + [split, closing], "lex")
    assert (p.steps, p.checks, p.bounds) == (8, 5, 1)  # the solver's: steps 0, 1, 2, 4, 5
    assert dict(live.fields(p))["checks"].startswith("5 by the solver, 1 settled by a bound, ")
    assert live.summary_line(p).startswith("progress: all 4 positions proved; 5 checks, ")


def test_lex_objective_is_read_off_the_claims_and_a_refuted_closing_claim_ends_it():
    closing = step(7, "lex_greater", "unsat", 0.5, best=[3, 1, 4, 2])
    last = step(6, "exceed", "unsat", 2.0, prefix=[3, 1, 4], pos=3, than=2)
    p = live.summarise(LEX_STEPS[:6] + [last, closing])
    assert (p.objective, p.proved, p.position, p.closed, p.remaining) == ("lex", 4, None, True, 0.0)
    assert live.where_text(p) == "all 4 positions proved, the closing check refuted"
    before = live.summarise(LEX_STEPS[:6] + [last])
    assert live.where_text(before) == "all 4 positions proved; the closing check is next"


def test_a_refuted_cube_proves_no_position_until_the_whole_split_does():
    """A check split into cubes (smtpuzzles.cubes): each cube is a solver step of its own; the
    position is proved by the step `by: cubes` that follows the last refuted cube."""
    split = dict(prefix=[3, 1, 4], pos=3, than=2)
    steps = LEX_STEPS[:6] + [
        step(6, "exceed", "unknown", 5.0, **split),  # undecided: split
        step(7, "exceed", "unsat", 2.0, cube=["t_1_1"], **split),
        step(8, "exceed", "unsat", 3.0, cube=["t_1_2"], **split),
    ]
    p = live.summarise(steps, "lex")
    assert (p.proved, p.position, p.checks) == (3, 4, 8)  # 5 solver checks before, 3 on position 4
    assert p.current_seconds == pytest.approx(10)
    done = live.summarise(steps + [step(9, "exceed", "unsat", 0.0, by="cubes", **split)], "lex")
    assert (done.proved, done.position, done.checks) == (4, None, 8)


def test_max_summary_gives_the_bound_range():
    steps = [step(0, "first", "sat", 1.0, 3), step(1, "at_least", "unsat", 3.0, k=9),
             step(2, "at_least", "sat", 2.0, 5, k=4)]
    p = live.summarise(steps, "max")
    assert (p.lower, p.upper, p.closed, p.best_step) == (5, 8, False, 2)
    assert live.where_text(p) == "the optimum lies in 5..8"
    # Three bounds left (6, 7, 8) at the recent 6 s / 3 checks each.
    assert p.remaining == pytest.approx(3 * 2.0)
    done = live.summarise(steps + [step(3, "at_least", "unsat", 1.0, k=6)], "max")
    assert (done.upper, done.closed, live.where_text(done)) == (5, True, "the optimum is 5")
    unbounded = live.summarise(steps[:1], "max")
    assert live.where_text(unbounded) == "the optimum lies in 3..not yet bounded"
    assert unbounded.remaining is None


def test_count_summary_counts_solutions():
    found = [{"grid": 1}, {"grid": 2}]
    steps = [step(0, "first", "sat", 1.0, 0), step(1, "block", "sat", 1.0, 0, solutions=found[:1]),
             step(2, "block", "unsat", 1.0, solutions=found)]
    assert live.where_text(live.summarise(steps[:2])) == "2 solutions found"
    assert live.where_text(live.summarise(steps)) == "2 solutions found, no more"


@pytest.mark.parametrize("bad,message", [
    ({"value": "9999"}, "line 2: a sat step's value is not a vector of integers"),
    ({"value": [3, 1, 2]}, "line 2: a sat step's vector has 3 positions, the first had 4"),
    ({"value": [3, 1, True, 4]}, "line 2: a sat step's value is not a vector of integers"),
    ({"claim": {"op": "exceed", "prefix": [], "pos": 4, "than": 1}}, "line 2: the claim's position 4 is outside"),
])
def test_a_value_of_the_wrong_shape_is_refused_naming_its_line(bad, message):
    steps = [dict(s) for s in LEX_STEPS]
    steps[1].update(bad)
    with pytest.raises(LedgerError) as caught:
        live.summarise(steps, "lex", where="run/steps.jsonl")
    assert message in str(caught.value) and str(caught.value).startswith("run/steps.jsonl line 2")


def test_durations_read_at_a_glance():
    assert [live.duration(s) for s in (0.04, 12.34, 245, 7620, 3 * 86400 + 4 * 3600)] == \
        ["0.04s", "12.3s", "4m 05s", "2h 07m", "3d 04h"]


# ----------------------------------------------------------------------------- a real short run
@pytest.fixture(scope="module")
def solved_sat_6x6(tmp_path_factory) -> Path:
    """`smtpuzzles solve kingtour --size 6 --box 2x3 --engine sat`, solved once for this file."""
    return Path(solved_once(tmp_path_factory.mktemp("sat-6x6"), "kingtour", "--size", 6, "--box", "2x3",
                            "--engine", "sat")["run_dir"])


@pytest.fixture
def run_6x6(solved_sat_6x6, tmp_path) -> Path:
    """A finished 6x6 run: this test's own copy, at TMP_PATH/runs/NAME, of the one solved for this
    file (the tests below unseal or forge it)."""
    return copy_of_run(solved_sat_6x6, tmp_path)


def unseal(run_dir: Path, keep: int, torn: bytes = b"") -> None:
    """Make a finished run look as it did after `keep` steps while it ran: run.json as Ledger.create
    writes it, steps.jsonl cut there, and `torn` (half a line) after it."""
    run = json.loads((run_dir / "run.json").read_text())
    for key in ("certificate", "extra", "proof"):
        run.pop(key, None)
    run.update(status="running", ended=None, value=None, steps=0, last_step_sha256=run["instance_sha256"])
    (run_dir / "run.json").write_text(json.dumps(run))
    lines = (run_dir / "steps.jsonl").read_bytes().splitlines(keepends=True)
    (run_dir / "steps.jsonl").write_bytes(b"".join(lines[:keep]) + torn)


def hand_count(lines: list[dict], whole: list[dict]) -> tuple[int, list[int], int]:
    """(positions proved, best vector, solver checks) after `lines`, the first steps of the finished
    run `whole`: a position is proved once the last question the whole run asked about it is
    answered (positions close in order), and every SAT answer beats the one before it."""
    last = {}
    for s in whole:
        if s["claim"]["op"] == "exceed":
            last[s["claim"]["pos"]] = s["index"]
    proved = sum(1 for index in last.values() if index < len(lines))
    best = [s for s in lines if s["result"] == "sat"][-1]["value"]
    return proved, best, sum(1 for s in lines if s["by"] == "solver")


def test_show_reads_a_run_while_its_writer_holds_the_lock(cli, capsys, tmp_path):
    """`show` called from inside a real run, after its 20th step is on disk: the writer holds the
    folder's lock and run.json is not sealed; show reads it without the lock, and the run goes on
    to its optimum undisturbed."""
    from smtpuzzles import puzzles
    from smtpuzzles import run as runner
    from smtpuzzles.cli import main
    from smtpuzzles.folders.locking import FolderBusy, FolderLock

    module = puzzles.get("kingtour")
    instance = module.load(None, "-", {"size": 6, "box": "2x3"})
    out_dir, seen, shown = tmp_path / "runs", [], {}

    def on_step(s):
        seen.append(s)
        if len(seen) != 20:
            return
        run_dir = next(out_dir.iterdir())
        with pytest.raises(FolderBusy):
            FolderLock(run_dir).acquire()  # the writer has it
        assert json.loads((run_dir / "run.json").read_text())["status"] == "running"
        capsys.readouterr()
        shown["code"] = main(["show", str(run_dir)])
        shown["out"], shown["err"] = capsys.readouterr()
        shown["seen"] = list(seen)

    outcome, ledger = runner.solve(module, instance, "", out_dir=out_dir, engine="sat", on_step=on_step)
    assert outcome.status == "optimal"
    assert shown["code"] == 0, shown["err"]
    proved, best, checks = hand_count(shown["seen"], read_ledger(ledger.dir)[1])
    out = shown["out"]
    assert f"position {proved + 1} of 36 ({proved} proved" in out
    assert module.value_json(best) in out.replace(" ", "").replace("│", "")
    assert f"{checks} by the solver" in out and "last step written" in out and "running" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_show_on_an_unsealed_run_with_a_half_written_last_line(cli, run_6x6):
    run_dir = run_6x6
    _, full = read_ledger(run_dir)
    unseal(run_dir, 30, torn=b'{"assumptions":[],"by":"sol')
    progress = live.read_live(run_dir).progress
    assert progress.steps == 30  # the half line is left out
    proved, best, checks = hand_count(full[:30], full)
    assert (progress.proved, progress.best, progress.checks) == (proved, best, checks)
    code, out, err = cli("show", run_dir)
    assert code == 0, err
    assert f"position {proved + 1} of 36 ({proved} proved" in out and "estimate" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_show_follow_waits_until_the_run_is_sealed(cli, monkeypatch, run_6x6):
    """`show --follow RUN_DIR` (not on a terminal): a progress line while the run goes, then, once
    the writer seals it, the whole picture."""
    run_dir = run_6x6
    sealed_run, sealed_steps = ((run_dir / name).read_bytes() for name in ("run.json", "steps.jsonl"))
    _, full = read_ledger(run_dir)
    unseal(run_dir, 30)
    _, partial = read_ledger(run_dir)
    pauses = []

    def writer_finishes(seconds):
        pauses.append(seconds)
        (run_dir / "steps.jsonl").write_bytes(sealed_steps)
        (run_dir / "run.json").write_bytes(sealed_run)

    monkeypatch.setattr(live, "pause", writer_finishes)
    svg = run_dir.parent / "final.svg"
    code, out, err = cli("show", "--follow", run_dir, "--svg", svg)
    assert code == 0, err
    saved = svg.read_text()  # the final picture only, not the frames before it
    assert "optimal" in saved and "running" not in saved
    assert pauses == [live.FOLLOW_SECONDS]  # read twice: running, then sealed
    proved, _, _ = hand_count(partial, full)
    lines = out.splitlines()
    assert lines[0].startswith(f"progress: position {proved + 1} of 36, {proved} proved;")
    assert "optimal" in out and "progress: all 36 positions proved;" in out
    assert max(len(line) for line in lines) <= 80


def test_show_on_a_running_run_before_its_first_step(cli, run_6x6):
    run_dir = run_6x6
    unseal(run_dir, 0)
    code, out, err = cli("show", run_dir)
    assert code == 0, err
    assert "running (no step written yet)" in out and "before the first answer" in out
    assert "0 by the solver" in out and "none: nothing" in out


def test_show_on_a_finished_run_adds_one_progress_line(cli, run_6x6):
    run_dir = run_6x6
    _, steps = read_ledger(run_dir)
    checks = sum(1 for s in steps if s["by"] == "solver")
    code, out, err = cli("show", run_dir)
    assert code == 0, err
    assert "optimal" in out and f"progress: all 36 positions proved; {checks} checks," in out


def test_show_on_a_real_interrupted_12x12_run(cli, interrupted_12x12):
    """`smtpuzzles show RUN_DIR` on a 12x12 ledger stopped after 138 solver-minutes (conftest):
    where it stopped, in 80 columns."""
    code, out, err = cli("show", interrupted_12x12)
    assert code == 0, err
    assert "position 55 of 144 (54 proved" in out and "interrupted" in out  # counted: prefixes up to 54 long
    assert "rough: ~" in out and "slowest" in out and "checks/min" in out
    assert max(len(line) for line in out.splitlines()) <= 80


# ----------------------------------------------------------------------------------- bad folders
def test_a_forged_value_in_a_running_folder_is_one_line_exit_2(cli, run_6x6):
    run_dir = run_6x6
    run, steps = read_ledger(run_dir)
    steps = steps[:12]
    sat = next(s for s in steps[1:] if s["result"] == "sat")
    sat["value"] = "not a vector"
    run.update(status="running", ended=None, value=None)
    for key in ("certificate", "extra"):
        run.pop(key, None)
    forge_chain(run_dir, run, steps)
    code, out, err = cli("show", run_dir)
    assert code == 2 and out == ""
    line = one_error_line(err)
    assert f"steps.jsonl line {sat['index'] + 1}: a sat step's value is not a vector of integers" in line


def test_a_cut_line_in_a_sealed_run_is_one_line_exit_2(cli, run_6x6):
    run_dir = run_6x6
    with (run_dir / "steps.jsonl").open("ab") as handle:
        handle.write(b'{"index":')
    code, _, err = cli("show", run_dir)
    assert code == 2 and "steps.jsonl" in one_error_line(err) and "seals" in err


def test_a_symlinked_steps_file_is_one_line_exit_2(cli, tmp_path, run_6x6):
    run_dir = run_6x6
    unseal(run_dir, 10)
    target = tmp_path / "elsewhere.jsonl"
    (run_dir / "steps.jsonl").rename(target)
    (run_dir / "steps.jsonl").symlink_to(target)
    for args in (["show", run_dir], ["show", "--follow", run_dir]):
        code, _, err = cli(*args)
        assert code == 2 and "steps.jsonl: is a symbolic link" in one_error_line(err)


# ---------------------------------------------------------------------------- solve's live view
def test_the_solve_view_shows_the_same_fields_within_80_columns(interrupted_12x12):
    from smtpuzzles import puzzles
    from smtpuzzles.cli import ProgressView

    clock = [0.0]
    view = ProgressView(puzzles.get("kingtour"), clock=lambda: clock[0])
    for line in (interrupted_12x12 / "steps.jsonl").read_text().splitlines():
        s = json.loads(line)
        clock[0] += s.get("seconds", 0)
        view.step(s)
        if s["result"] == "sat":
            view.solution(s["solution"], s["value"])
    clock[0] += 42  # the check after the last step has been running 42 s
    console = Console(file=io.StringIO(), width=80, color_system=None)
    console.print(view)
    out = console.file.getvalue()
    assert "position 55 of 144 (54 proved" in out and "this check 42.0s" in out
    assert "checks/min" in out and "slowest" in out and "estimate rough: ~" in out
    assert "number (144 digits, 54 proved)" in out
    assert all(len(line) <= 80 for line in view.lines()) and len(view.lines()) == 4


def test_no_estimate_from_positions_that_cost_nothing():
    """A long board whose only closed position was settled by the bound (no solver time): there is
    nothing to reckon the rest from, and the picture says so instead of "255 left x 0.00s"."""
    steps = [
        {"index": 0, "claim": {"op": "first"}, "result": "sat", "by": "solver", "seconds": 3.1, "value": [4, 3, 2, 1]},
        {"index": 1, "claim": {"op": "exceed", "prefix": [], "pos": 0, "than": 4}, "result": "unsat", "by": "bound",
         "seconds": 0.0},
    ]
    progress = live.summarise(steps, "lex", where="steps.jsonl")
    assert (progress.proved, progress.remaining) == (1, None)
    assert progress.remaining_why == "only positions closed by the bound so far, which cost nothing"


def test_show_follow_keeps_waiting_while_a_writer_holds_a_sealed_run(cli, tmp_path):
    """`show --follow` started just as a resume takes the lock: the run is still sealed (the resume
    has not unsealed it yet), but a writer holds it, so the follower waits for the writer."""
    import subprocess
    import sys
    import time

    from smtpuzzles.folders.locking import FolderLock, writer_active

    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    assert not writer_active(run_dir)
    lock = FolderLock(run_dir).acquire()
    try:
        assert writer_active(run_dir)
        follower = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "show", "--follow", str(run_dir)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)
        assert follower.poll() is None  # still following: the lock is held
    finally:
        lock.release()
    out, err = follower.communicate(timeout=20)
    assert follower.returncode == 0 and "optimal" in out, err


def test_show_on_a_resumed_run_does_not_give_the_last_sessions_end(cli, run_6x6):
    """A resumed run is `running` with its last session's `ended` still in run.json until it is
    sealed again: show says it has not ended (it said "status running" beside that old end)."""
    run_dir = run_6x6
    unseal(run_dir, 3)
    run = json.loads((run_dir / "run.json").read_text())
    run["ended"] = "2026-12-01T07:08:26+0000"  # as a resume leaves it
    (run_dir / "run.json").write_text(json.dumps(run))
    code, out, err = cli("show", run_dir)
    assert code == 0, err
    assert "2026-12-01T07:08:26" not in out and re.search(r"ended\s+—", out), out
