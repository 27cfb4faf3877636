"""Two writers never corrupt a ledger (issue 14): a lock per run folder and per batch job, run folders
claimed by mkdir, atomic writes with temporary names of their own. Real processes where it matters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import one_error_line
from smtpuzzles import puzzles
from smtpuzzles import run as runner
from smtpuzzles.folders.durable import write_atomic
from smtpuzzles.folders.ledger import Ledger
from smtpuzzles.folders.locking import FolderBusy, FolderLock


def smtpuzzles(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "smtpuzzles", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def interrupted_run(out: Path) -> Path:
    """A 4x4 King's tour stopped after its first check, as Ctrl-C would leave it."""
    module = puzzles.get("kingtour")
    instance = module.load(None, "options", {"size": 4, "box": "2x2"})

    def stop(step):
        raise KeyboardInterrupt

    outcome, ledger = runner.solve(module, instance, "", out_dir=out, on_step=stop)
    assert outcome.status == "interrupted" and ledger.run["steps"] >= 1
    return ledger.dir


# ------------------------------------------------------------------------------------- run folders
def test_two_resumes_at_once_one_proceeds_the_other_stops_in_one_line(cli, tmp_path):
    run_dir = interrupted_run(tmp_path / "runs")
    first, second = smtpuzzles("solve", "kingtour", "--resume", run_dir, "--json"), \
        smtpuzzles("solve", "kingtour", "--resume", run_dir, "--json")
    results = [(p.wait(60), *p.communicate()) for p in (first, second)]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 2], results
    winner = next(r for r in results if r[0] == 0)
    loser = next(r for r in results if r[0] == 2)
    assert json.loads(winner[1])["value"] == "4443342132113221"
    line = one_error_line(loser[2])
    # Either it found the folder locked, or it came after the winner had finished.
    assert str(run_dir) in line and ("in use by another process (pid" in line or "already finished" in line)
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "optimal" and len(run["resumed"]) == 1
    assert not list(run_dir.glob("*.tmp"))
    code, out, err = cli("audit", run_dir)
    assert code == 0, out + err


def test_a_held_run_folder_refuses_a_second_writer_naming_the_holder(tmp_path):
    run_dir = interrupted_run(tmp_path / "runs")
    before = (run_dir / "run.json").read_bytes(), (run_dir / "steps.jsonl").read_bytes()
    with FolderLock(run_dir):
        proc = smtpuzzles("solve", "kingtour", "--resume", run_dir)
        code = proc.wait(60)
        _, err = proc.communicate()
    assert code == 2
    line = one_error_line(err)
    assert f"run folder is in use by another process (pid {os.getpid()})" in line and str(run_dir) in line
    assert ((run_dir / "run.json").read_bytes(), (run_dir / "steps.jsonl").read_bytes()) == before
    # Let go, and the same resume goes through.
    proc = smtpuzzles("solve", "kingtour", "--resume", run_dir, "--json")
    assert proc.wait(60) == 0 and json.loads(proc.communicate()[0])["status"] == "optimal"


def test_the_lock_lives_as_long_as_the_ledger(tmp_path):
    header = {"puzzle": "p", "instance": {}, "instance_sha256": "a" * 64, "encoding": {"name": "p", "version": 1},
              "engine": {"name": "z3", "params": {}}}
    ledger = Ledger.create(tmp_path, header, "", "")
    with pytest.raises(FolderBusy, match=rf"in use by another process \(pid {os.getpid()}\)"):
        FolderLock(ledger.dir).acquire()
    with pytest.raises(FolderBusy):
        Ledger.resume(ledger.dir)
    ledger.finish("unknown", None)
    FolderLock(ledger.dir).acquire().release()  # free once finished
    again, _ = Ledger.resume(ledger.dir)
    del again  # dropped without finish (a crash): the next writer is let in
    FolderLock(ledger.dir).acquire().release()


def test_runs_started_together_get_folders_of_their_own(tmp_path):
    header = {"puzzle": "p", "instance_sha256": "b" * 64, "engine": {"name": "z3", "params": {}}}
    barrier, made, errors = threading.Barrier(8), [], []

    def create():
        barrier.wait()
        try:
            ledger = Ledger.create(tmp_path / "out", header, "", "")
            ledger.finish("unknown", None)
            made.append(ledger.dir)
        except Exception as exc:  # noqa: BLE001 - any failure is the finding
            errors.append(exc)

    threads = [threading.Thread(target=create) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(made)) == 8


def test_solves_racing_for_one_out_folder_all_finish(cli, tmp_path):
    procs = [subprocess.Popen([sys.executable, "-m", "smtpuzzles", "solve", "rogue", "-", "--out", str(tmp_path / "runs"),
                               "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(4)]
    answers = [p.communicate("@$$\n", timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], answers
    dirs = {json.loads(out)["run_dir"] for out, _ in answers}
    assert len(dirs) == 4
    for run_dir in dirs:
        assert cli("audit", run_dir)[0] == 0


def test_concurrent_atomic_writes_never_collide(tmp_path):
    target = tmp_path / "run.json"
    texts = [json.dumps({"writer": n, "pad": "x" * 5000}) for n in range(2)]
    errors = []

    def write(text):
        try:
            for _ in range(200):
                write_atomic(target, text)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and target.read_text() in texts
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left behind


# ------------------------------------------------------------------------------------------ batches
def many_jobs(tmp_path: Path) -> Path:
    jobs = "".join(f'[[job]]\nname = "gold{n}"\npuzzle = "rogue"\nmap = "@{"$" * n}"\n' for n in range(1, 7))
    jobs += '[[job]]\nname = "king"\npuzzle = "kingtour"\nsize = 4\nbox = "2x2"\n'
    jobs += '[[job]]\nname = "doors"\npuzzle = "nonary"\ndoors = [[8, 0, 1], [9, 1, -1]]\n'
    jobs += '[[job]]\nname = "tatami"\npuzzle = "tatamibari"\ngrid = "+***\\n**|*\\n*+**\\n***-\\n"\nunique = true\n'
    path = tmp_path / "jobs.toml"
    path.write_text('[defaults]\nout = "out"\ntime_limit = 60\n' + jobs)
    return path


def test_two_batches_on_one_out_folder_leave_one_clean_ledger_per_job(cli, tmp_path):
    path = many_jobs(tmp_path)
    procs = [smtpuzzles("batch", path, "--jobs", 2) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs):
        assert proc.returncode in (0, 1), err  # 1: a job was busy in the other batch
        assert "Traceback" not in out + err
    jobs = sorted((tmp_path / "out" / "jobs").iterdir())
    assert [j.name for j in jobs] == sorted([f"gold{n}" for n in range(1, 7)] + ["king", "doors", "tatami"])
    for job in jobs:
        runs = list(job.glob("*/run.json"))
        assert len(runs) == 1, job  # never started twice
        run = json.loads(runs[0].read_text())
        assert run["status"] in ("optimal", "solved"), job
        code, out, err = cli("audit", runs[0].parent)
        assert code == 0, out + err
    values = {j.name: json.loads(next(j.glob("*/run.json")).read_text())["value"] for j in jobs}
    assert all(values[f"gold{n}"] == n for n in range(1, 7))
    # A third run of the batch finds every job done, from intact ledgers.
    code, out, err = cli("batch", path)
    rows = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert code == 0 and all(r["skipped"] for r in rows)


def test_a_job_held_by_another_process_is_reported_busy(cli, tmp_path):
    path = many_jobs(tmp_path)
    held = tmp_path / "out" / "jobs" / "king"
    held.mkdir(parents=True)
    with FolderLock(held, "batch job folder"):
        code, out, err = cli("batch", path, "--jobs", 1)
    rows = {r["job"]: r for r in json.loads((tmp_path / "out" / "summary.json").read_text())}
    assert code == 1
    assert rows["king"]["status"] == "busy" and "in use by another process" in rows["king"]["error"]
    assert "busy" in out and "job king:" in out
    assert not list(held.glob("*/run.json"))  # not started while someone else holds it
    assert all(r["status"] in ("optimal", "solved") for name, r in rows.items() if name != "king")
    code, out, err = cli("batch", path, "--jobs", 1)  # let go: the next batch runs it
    rows = {r["job"]: r for r in json.loads((tmp_path / "out" / "summary.json").read_text())}
    assert code == 0 and rows["king"]["status"] == "optimal" and not rows["king"].get("skipped")
