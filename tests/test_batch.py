"""Batch jobs: a mixed batch against the seeds, kill and resume, bad job files, a Dask cluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import one_error_line

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"


def job_file(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "jobs.toml"
    path.write_text(f"""
[defaults]
time_limit = 60
out = "out"

[[job]]
name = "king"
puzzle = "kingtour"
size = 4
box = "2x2"

[[job]]
name = "doors"
puzzle = "nonary"
input = "{EXAMPLES}/nonary/0[1-4].json"

[[job]]
name = "inline-doors"
puzzle = "nonary"
doors = [[8, 0, 1], [9, 1, -1]]

[[job]]
name = "tatami"
puzzle = "tatamibari"
input = "{EXAMPLES}/tatamibari/03.txt"
count = true

[[job]]
name = "inline-grid"
puzzle = "tatamibari"
grid = "+***\\n**|*\\n*+**\\n***-\\n"
unique = true

[[job]]
name = "dungeon"
puzzle = "rogue"
input = "{EXAMPLES}/rogue/0[7-9].txt"
{extra}""")
    return path


def expected_values() -> dict:
    nonary = json.loads((EXAMPLES / "nonary" / "expected.json").read_text())
    rogue = json.loads((EXAMPLES / "rogue" / "expected.json").read_text())
    out = {f"doors-{n[:2]}": nonary[n] for n in ("01.json", "02.json", "03.json", "04.json")}
    out.update({f"dungeon-{n[:2]}": rogue[n] for n in ("07.txt", "08.txt", "09.txt")})
    out["inline-doors"] = nonary["02.json"]  # the same map as seed case 2, given inline
    return out


def check_summary(out: Path) -> list[dict]:
    rows = json.loads((out / "summary.json").read_text())
    by_job = {r["job"]: r for r in rows}
    for job, value in expected_values().items():
        assert by_job[job]["status"] == "optimal" and by_job[job]["value"] == value, job
    assert by_job["king"]["value"] == "4443342132113221"
    assert by_job["tatami"]["status"] == "solved"
    assert json.loads(Path(by_job["tatami"]["run_dir"], "run.json").read_text())["extra"]["count"] == 2
    assert json.loads(Path(by_job["inline-grid"]["run_dir"], "run.json").read_text())["extra"]["unique"] is True
    assert (out / "summary.csv").read_text().count("\n") == len(rows) + 1
    return rows


def test_mixed_batch_matches_the_seeds(cli, tmp_path):
    code, out, err = cli("batch", job_file(tmp_path), "--jobs", 2)
    assert code == 0, err
    rows = check_summary(tmp_path / "out")
    assert len(rows) == 11
    code, out, err = cli("results", tmp_path / "out", "--json", "--audit")
    found = json.loads(out)
    assert code == 0 and len(found) == 11 and {r["audit"] for r in found} <= {"clean", "consistent"}
    code, out, err = cli("results", tmp_path / "out", "--audit")
    assert code == 0 and out.count("clean") + out.count("consistent") == 11


def test_killed_batch_finishes_only_the_rest(tmp_path):
    # A slow job first so that the kill lands while the batch is still going.
    path = job_file(tmp_path, extra='\n[[job]]\nname = "slow"\npuzzle = "kingtour"\nsize = 6\nbox = "2x3"\nengine = "z3"\n')
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "batch", str(path), "--jobs", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 90
    while time.time() < deadline:
        finished = [p for p in out.glob("jobs/*/*/run.json") if json.loads(p.read_text())["status"] == "optimal"]
        if len(finished) >= 3:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # The workers die a moment after the main process: read the ledgers only once all are gone.
    for _ in range(500):
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.01)
    done_before = {p.parents[1].name for p in out.glob("jobs/*/*/run.json")
                   if json.loads(p.read_text())["status"] in ("optimal", "solved")}
    assert 3 <= len(done_before) < 12
    runs_before = {p.parent for p in out.glob("jobs/*/*/run.json")}
    done = subprocess.run([sys.executable, "-m", "smtpuzzles", "batch", str(path), "--jobs", "2"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = check_summary(out)
    skipped = {r["job"] for r in rows if r.get("skipped")}
    assert skipped == done_before
    # Each job still has exactly one ledger: the interrupted one was resumed, not started over.
    for job in out.glob("jobs/*"):
        assert len(list(job.glob("*/run.json"))) == 1
    assert runs_before <= {p.parent for p in out.glob("jobs/*/*/run.json")}


@pytest.mark.parametrize("body,fragment", [
    ('[[job]]\nname = "a"\npuzzle = "rogue"\nmap = "@$"\nspeed = 3\n', "job a: unknown key 'speed'"),
    ('[[job]]\nname = "b"\npuzzle = "kingtour"\nsize = "nine"\n', "job b: size must be an integer"),
    ('[[job]]\nname = "c"\npuzzle = "sokoban"\n', "job c: puzzle 'sokoban'"),
    ('[[job]]\nname = "d"\npuzzle = "rogue"\nmap = "@.\\n.@"\n', "job d: "),
    ('[defaults]\ntime_limit = "long"\n[[job]]\npuzzle = "rogue"\nmap = "@"\n', "[defaults]: time_limit must be"),
    ('[[job]\npuzzle = "rogue"\n', "not valid TOML"),
    ('[[job]]\nname = "e"\npuzzle = "nonary"\ninput = "nothing-*.json"\n', "job e: input 'nothing-*.json' matches no file"),
])
def test_bad_job_files_exit_2_naming_job_and_key(cli, tmp_path, body, fragment):
    path = tmp_path / "bad.toml"
    path.write_text(body)
    code, out, err = cli("batch", path, "--out", tmp_path / "out")
    assert code == 2
    assert fragment in one_error_line(err)
    assert not (tmp_path / "out").exists()  # nothing ran


def test_same_batch_on_a_dask_local_cluster(cli, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        code, out, err = cli("batch", job_file(tmp_path), "--scheduler", cluster.scheduler_address)
        assert code == 0, err
        check_summary(tmp_path / "out")
        run_dir = next((tmp_path / "out" / "jobs" / "king").glob("*/run.json")).parent
        code, out, err = cli("audit", run_dir, "--resolve", "all", "--solver", "z3", "--scheduler", cluster.scheduler_address,
                             "--json")
        report = json.loads(out)
        assert code == 0 and report["ok"] and report["resolved"]
    finally:
        cluster.close()


def test_scheduler_that_cannot_be_reached_is_one_line(cli, tmp_path, monkeypatch):
    """Dask's own Client, told to give up after 1 s instead of the tool's 10 (smtpuzzles.cluster):
    the same refusal, which the test waited 10 s for, with nothing running."""
    import dask.distributed

    real, asked = dask.distributed.Client, []

    def client(address, timeout=None, **kwargs):
        asked.append(address)
        return real(address, timeout=1, **kwargs)

    monkeypatch.setattr(dask.distributed, "Client", client)
    code, out, err = cli("batch", job_file(tmp_path), "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and "Dask scheduler" in one_error_line(err)
    assert asked == ["tcp://127.0.0.1:9"]  # refused by a connection tried, not before one


def ctrl_c_inside_a_long_batch(tmp_path: Path, started_ignoring_ctrl_c: bool = False) -> tuple[int, str, str]:
    """(exit code, stderr, the job's status) of a one-job batch sent SIGINT inside its search."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    from gen_nonary import random_game

    if started_ignoring_ctrl_c:  # it runs to its end: an 8x8 King's tour, about 3 s, 2 s of it after the signal
        job = 'puzzle = "kingtour"\nsize = 8\nbox = "2x4"'
    else:  # about 20 s: 5 s under the quick plan, then a search
        job = f'puzzle = "nonary"\ndoors = {json.dumps(random_game(6, rooms=7, doors=40))}'
    path = tmp_path / "jobs.toml"
    path.write_text(f'[defaults]\nout = "out"\n[[job]]\nname = "long"\n{job}\ntime_limit = 120\n')
    # As a shell starts a job in the background (`cmd &` in a script): Ctrl-C ignored from the start.
    ignoring = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if started_ignoring_ctrl_c else None
    proc = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "batch", str(path), "--jobs", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=ignoring)
    deadline = time.time() + 60
    while time.time() < deadline and not any(p.stat().st_size for p in (tmp_path / "out").glob("jobs/*/*/steps.jsonl")):
        time.sleep(0.05)
    time.sleep(1)  # inside the search: the 5 s try of "at least 8", or the King's tour's checks
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    (run,) = (tmp_path / "out").glob("jobs/long/*/run.json")
    return proc.returncode, err, json.loads(run.read_text())["status"]


def test_ctrl_c_during_a_batch_seals_the_running_job_as_interrupted_without_a_traceback(tmp_path):
    """A terminal's Ctrl-C reaches the batch and its pool workers at once: the running job ends
    `interrupted` (resumable, not left `running`), the idle worker stays quiet, the batch says one
    line and exits 130."""
    code, err, status = ctrl_c_inside_a_long_batch(tmp_path)
    assert code == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("smtpuzzles: interrupted"), err
    assert status == "interrupted"


def test_a_batch_started_with_ctrl_c_ignored_ignores_it_in_its_jobs_too(tmp_path):
    """Started in the background, the batch ignores SIGINT as Python does, and so do its jobs. They
    used to take it: the job stopped `interrupted` while the batch ended exit 1 without a word."""
    code, err, status = ctrl_c_inside_a_long_batch(tmp_path, started_ignoring_ctrl_c=True)
    assert (code, status) == (0, "optimal"), err
    assert "interrupted" not in err and "Traceback" not in err, err
