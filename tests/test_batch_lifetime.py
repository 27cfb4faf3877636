"""A batch's workers die with it however it dies, a rerun resumes at once, and a running batch can
be asked where it stands (`batch --status`) and stopped (`batch --stop`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# Two jobs that take a minute each: still solving when they are killed or stopped.
JOBS = ('[[job]]\nname = "ten-a"\npuzzle = "kingtour"\nsize = 10\nbox = "2x5"\n'
        '[[job]]\nname = "ten-b"\npuzzle = "kingtour"\nsize = 10\nbox = "5x2"\n')


def smtpuzzles(*args, cwd: Path, **kwargs):
    return subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, **kwargs)


def start_batch(tmp_path: Path) -> subprocess.Popen:
    """The batch in a session of its own, so that its process group is its pid."""
    (tmp_path / "jobs.toml").write_text(JOBS)
    return subprocess.Popen([sys.executable, "-m", "smtpuzzles", "batch", "jobs.toml", "--jobs", "2",
                             "--progress-every", "0"], cwd=tmp_path, start_new_session=True,
                            stdout=open(tmp_path / "out.txt", "w"), stderr=subprocess.STDOUT)


def group_members(group: int) -> list[int]:
    """Every live process in the process group, read from /proc (zombies are dead)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def wait_until_both_solve(tmp_path: Path, batch: subprocess.Popen) -> None:
    """Both jobs have a ledger with a first step: each worker holds its job's lock and solves."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        steps = list((tmp_path / "runs" / "jobs").glob("*/*/steps.jsonl"))
        if len(steps) == 2 and all(path.stat().st_size > 0 for path in steps):
            return
        assert batch.poll() is None, (tmp_path / "out.txt").read_text()
        time.sleep(0.2)
    raise AssertionError("the jobs never started solving")


def test_kill_9_of_a_batch_takes_its_workers_with_it_and_the_rerun_resumes_at_once(tmp_path):
    batch = start_batch(tmp_path)
    try:
        wait_until_both_solve(tmp_path, batch)
        assert len(group_members(batch.pid)) >= 3  # the batch and its two workers
        os.kill(batch.pid, signal.SIGKILL)
        batch.wait(timeout=10)
        deadline = time.monotonic() + 10
        while group_members(batch.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert group_members(batch.pid) == []  # no worker left solving or holding a lock
    finally:
        for pid in group_members(batch.pid):  # never leave one behind, whatever failed
            os.kill(pid, signal.SIGKILL)
    # Run again, with a budget: the jobs are the same ones (a budget is no part of a job), so each
    # is resumed, not refused as "in use by another process", and sealed unknown when it runs out.
    assert "no batch of this job file is running" in smtpuzzles("batch", "jobs.toml", "--status", cwd=tmp_path).stdout
    started = time.monotonic()
    again = smtpuzzles("batch", "jobs.toml", "--budget", 1, "--progress-every", 0, cwd=tmp_path)
    took = time.monotonic() - started
    assert again.returncode == 1, again.stdout + again.stderr  # unknown: not answered
    rows = json.loads((tmp_path / "runs" / "summary.json").read_text())
    assert [(r["job"], r["status"], r["note"], r["error"]) for r in rows] == \
        [("ten-a", "unknown", "resumed", None), ("ten-b", "unknown", "resumed", None)], rows
    assert "in use" not in again.stdout + again.stderr and took < 60, (took, again.stdout)
    for row in rows:  # sealed unknown, with what was proved kept
        run = json.loads((tmp_path / row["run_dir"] / "run.json").read_text())
        assert run["status"] == "unknown" and run["steps"] > 0 and run["value"]


def test_a_running_batch_says_where_it_stands_and_stops_on_asking(tmp_path):
    batch = start_batch(tmp_path)
    try:
        wait_until_both_solve(tmp_path, batch)
        status = smtpuzzles("batch", "jobs.toml", "--status", cwd=tmp_path)
        assert status.returncode == 0, status.stdout + status.stderr
        assert f"running: batch pid {batch.pid}" in status.stdout and "ten-a" in status.stdout
        stop = smtpuzzles("batch", "jobs.toml", "--stop", cwd=tmp_path)
        assert stop.returncode == 0 and f"stopped: batch pid {batch.pid}" in stop.stdout, stop.stdout + stop.stderr
        assert batch.wait(timeout=30) == 1  # the jobs did not finish
    finally:
        for pid in group_members(batch.pid):
            os.kill(pid, signal.SIGKILL)
    rows = json.loads((tmp_path / "runs" / "summary.json").read_text())
    assert {r["status"] for r in rows} == {"interrupted"}, rows
    for row in rows:  # each ledger sealed by its own run, resumable
        assert json.loads((tmp_path / row["run_dir"] / "run.json").read_text())["status"] == "interrupted"
    assert not list((tmp_path / "runs" / ".batches").glob("*.json"))
    gone = smtpuzzles("batch", "jobs.toml", "--stop", cwd=tmp_path)
    assert gone.returncode == 1 and "no batch of this job file is running" in gone.stdout
