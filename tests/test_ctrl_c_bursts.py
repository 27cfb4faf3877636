"""A key held down repeats Ctrl-C every 30 ms or so; a script can send them faster. However many
come, and whenever: the command ends with exit 130 and at most its one line, no traceback and no
crash, and every run folder it made is sealed (or was never made). Before: a burst crashed the
process (a solver freed while its call still ran), left a folder without run.json or saying
`running`, printed tracebacks from finalisers, or left a batch waiting on its workers for ever."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from smtpuzzles import run as runner
from smtpuzzles.engines import run_interruptibly
from smtpuzzles.folders import ledger as ledger_module
from smtpuzzles.puzzles import kingtour

HERE = Path(__file__).resolve().parent


def burst(command: list[str], delay: float, gap: float, count: int = 400) -> subprocess.CompletedProcess:
    """`command` in a process group of its own, SIGINT to the group every `gap` seconds from `delay`."""
    proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", "smtpuzzles", *map(str, command)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(delay)
    for _ in range(count):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            break
        time.sleep(gap)
    try:
        out, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"still running 90 s after the burst: {err[-2000:]}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def statuses(out: Path) -> list[str]:
    return [json.loads(p.read_text())["status"] for p in out.rglob("run.json")]


@pytest.mark.parametrize("delay", [0.15, 0.4, 0.6, 0.8])
def test_a_held_down_ctrl_c_ends_one_solve_cleanly(tmp_path, delay):
    """A key held down: a Ctrl-C every 30 ms from `delay` seconds on (start-up, the formula, the
    first guess, the checks), to the process group as a terminal sends it."""
    out = tmp_path / "runs"
    done = burst(["solve", "kingtour", "--size", 7, "--box", "1x7", "--no-guide", "--out", str(out)], delay, 0.03)
    assert done.returncode in (0, 130), done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "Fatal" not in done.stderr and "Exception" not in done.stderr, \
        done.stderr[-3000:]
    assert len([line for line in done.stderr.splitlines() if line.startswith("smtpuzzles:")]) <= 1
    assert all(s in ("interrupted", "optimal") for s in statuses(out)), statuses(out)
    assert not [d for d in out.glob("*/*") if d.is_dir() and not (d / "run.json").exists()] if out.exists() else True


def test_a_held_down_ctrl_c_ends_a_batch_and_seals_every_job(tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "k7"\npuzzle = "kingtour"\nsize = 7\nbox = "1x7"\n'
                    '[[job]]\nname = "k8"\npuzzle = "kingtour"\nsize = 8\n')
    out = tmp_path / "runs"
    done = burst(["batch", str(jobs), "--out", str(out)], 1.0, 0.03, count=30)
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert statuses(out) and all(s in ("interrupted", "optimal") for s in statuses(out)), statuses(out)


def test_a_folder_stopped_before_its_run_json_is_taken_away(tmp_path, monkeypatch):
    """A Ctrl-C while the folder is being made (its base formula written): no folder is left that
    no reader takes for a run."""
    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ledger_module, "write_gz", stopped)
    out = tmp_path / "runs"
    with pytest.raises(KeyboardInterrupt):
        runner.solve(kingtour, kingtour.parse(4, "2x2", None), "", out_dir=out)
    assert out.is_dir() and list(out.iterdir()) == []


def test_the_wait_for_a_stopped_call_outlasts_more_ctrl_c():
    """run_interruptibly returns only once the call it stopped has returned, even when Ctrl-Cs keep
    coming while it waits (the run would otherwise free the solver under the running call)."""
    released = threading.Event()
    finished = threading.Event()
    seen = []

    def presses():
        while not finished.is_set():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.02)

    def work():  # a solver call: presses come only while it runs
        threading.Thread(target=presses).start()
        released.wait(10)
        finished.set()

    def stop():
        if not released.is_set():
            threading.Timer(0.5, released.set).start()  # the call takes a while to see it

    def on_ctrl_c(signum, frame):
        seen.append(signum)
        if not finished.is_set():
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        value, why = run_interruptibly(work, stop, None)
        time.sleep(0.1)  # a press still on its way
    finally:
        signal.signal(signal.SIGINT, previous)
    assert finished.is_set() and why == "interrupted" and len(seen) > 5


def test_a_ctrl_c_while_python_sat_frees_a_solver_waits_until_it_is_freed():
    """python-sat frees the C solver, then forgets its pointer; a Ctrl-C raised between the two left
    the pointer behind and the solver was freed twice (SIGSEGV after a burst). Its `delete` now
    holds a Ctrl-C until it returns, then handles it as it would have been handled."""
    from smtpuzzles.engines import _held_while_freeing, sat_solver_class

    class Backend:
        pointer = "solver"

        def delete(self):
            os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C after the C call, before the pointer is forgotten
            time.sleep(0.05)
            self.pointer = None

    backend = Backend()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            _held_while_freeing(Backend.delete)(backend)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert backend.pointer is None
    assert getattr(sat_solver_class().delete, "_ctrl_c_held", False)


def test_a_ctrl_c_while_the_folder_is_made_stops_the_run_at_its_first_check(tmp_path, monkeypatch):
    """Pressed after the folder is made but before the run's steps begin: kept, not raised (raised,
    it left a folder saying `running`); the run stops at its first check and is sealed."""
    create = ledger_module.Ledger.create

    def pressed_while_made(*args, **kwargs):
        made = create(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        return made

    monkeypatch.setattr(ledger_module.Ledger, "create", pressed_while_made)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        outcome, ledger = runner.solve(kingtour, kingtour.parse(4, "2x2", None), "", out_dir=tmp_path / "runs")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert outcome.status == "interrupted"
    assert json.loads((ledger.dir / "run.json").read_text())["status"] == "interrupted"
