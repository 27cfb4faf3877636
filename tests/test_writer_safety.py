"""Writers in a run folder: nothing planted in the folder is ever written through, odd files are
refused in one line, z3's own time limit is never taken for a Ctrl-C, and a run that fails part-way
is sealed and unlocked rather than left `running`.

Expected values come from the seeds (tests/data/seed_cases.json: the Nonary map [[9,0,-1]] lets 5
escape) or from reading the files back, never from the code under test.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from conftest import SEED_CASES, one_error_line, fails_instead_of_hanging
from smtpuzzles.folders import locking
from smtpuzzles.engines.z3engine import Z3Engine
from smtpuzzles.errors import LedgerError
from smtpuzzles.formula import SmtBuilder, lit
from smtpuzzles.folders.durable import write_atomic, write_gz
from smtpuzzles.folders.ledger import Ledger
from smtpuzzles.folders.locking import FolderLock
from smtpuzzles.puzzles import nonary

HEADER = {"puzzle": "toy", "instance": {"n": 1}, "instance_sha256": "cd" * 32,
          "encoding": {"name": "toy", "version": 1}, "engine": {"name": "z3", "params": {}}}
ONE_DOOR = [[9, 0, -1]]
ONE_DOOR_OPTIMUM = next(c["answer"] for c in SEED_CASES["nonary"] if c["doors"] == ONE_DOOR)
PRECIOUS = b"precious\n"


@pytest.fixture
def no_hang():
    """Fail, never hang, if an open blocks (a FIFO opened without O_NONBLOCK would)."""
    with fails_instead_of_hanging(10):
        yield


def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_bytes(PRECIOUS)
    return path


def only_names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ------------------------------------------------------------------------------------------ .lock
def test_a_lock_symlink_is_refused_and_never_written_through(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    target = victim(tmp_path)
    (folder / ".lock").symlink_to(target)
    with pytest.raises(LedgerError, match="symbolic link") as caught:
        FolderLock(folder).acquire()
    assert caught.value.where == str(folder / ".lock")
    assert target.read_bytes() == PRECIOUS


def test_a_dangling_lock_symlink_creates_nothing_outside(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / ".lock").symlink_to(tmp_path / "made-by-the-lock")
    with pytest.raises(LedgerError, match="symbolic link"):
        FolderLock(folder).acquire()
    assert not (tmp_path / "made-by-the-lock").exists()


def test_a_fifo_lock_is_refused_at_once(tmp_path, no_hang):
    folder = tmp_path / "run"
    folder.mkdir()
    os.mkfifo(folder / ".lock")
    started = time.monotonic()
    with pytest.raises(LedgerError, match="named pipe") as caught:
        FolderLock(folder).acquire()
    assert time.monotonic() - started < 5
    assert caught.value.where == str(folder / ".lock")


def test_a_folder_as_lock_is_refused(tmp_path):
    folder = tmp_path / "run"
    (folder / ".lock").mkdir(parents=True)
    with pytest.raises(LedgerError, match="folder"):
        FolderLock(folder).acquire()


def test_a_failing_pid_write_is_one_line_and_leaves_the_folder_unlocked(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    folder.mkdir()

    def full(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(locking.os, "pwrite", full)
    with pytest.raises(LedgerError, match="No space left") as caught:
        FolderLock(folder).acquire()
    assert caught.value.where == str(folder / ".lock")
    monkeypatch.undo()
    FolderLock(folder).acquire().release()  # not left locked by the failed attempt


def test_a_regular_lock_file_still_works_and_keeps_the_pid(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / ".lock").write_text("12345678901234567890\n")  # longer than a pid record
    with FolderLock(folder):
        assert (folder / ".lock").read_text().strip() == str(os.getpid())
        with pytest.raises(locking.FolderBusy, match=str(os.getpid())):
            FolderLock(folder).acquire()


# --------------------------------------------------------------------------- whole-file writers
@pytest.mark.parametrize("writer", ["write_atomic", "write_gz"])
def test_whole_file_writers_replace_a_symlink_instead_of_writing_through(tmp_path, writer):
    folder = tmp_path / "run"
    folder.mkdir()
    target = victim(tmp_path)
    path = folder / "certificate.smt2.gz"
    path.symlink_to(target)
    text = "(check-sat)\n" * 1000
    (write_atomic if writer == "write_atomic" else write_gz)(path, text)
    assert target.read_bytes() == PRECIOUS
    assert not path.is_symlink() and path.is_file()
    written = gzip.decompress(path.read_bytes()).decode() if writer == "write_gz" else path.read_text()
    assert written == text
    assert only_names(folder) == ["certificate.smt2.gz"]  # no temporary file left behind


def test_write_gz_replaces_a_fifo_without_blocking(tmp_path, no_hang):
    path = tmp_path / "base.smt2.gz"
    os.mkfifo(path)
    write_gz(path, "(set-logic QF_UF)\n")
    assert gzip.decompress(path.read_bytes()) == b"(set-logic QF_UF)\n"


def test_write_gz_round_trips_text_larger_than_one_slice(tmp_path):
    text = "".join(f"(assert (or x{i} y{i} \u00e9))\n" for i in range(60_000))  # > 1 MiB of characters
    write_gz(tmp_path / "base.smt2.gz", text)
    assert gzip.decompress((tmp_path / "base.smt2.gz").read_bytes()).decode("utf-8") == text


def test_a_writer_that_cannot_write_says_so_in_one_line(tmp_path):
    path = tmp_path / "run.json"
    path.mkdir()  # a folder where the file belongs: the rename onto it fails
    with pytest.raises(LedgerError, match="cannot write") as caught:
        write_atomic(path, "{}")
    assert caught.value.where == str(path)
    assert only_names(tmp_path) == ["run.json"]


# ---------------------------------------------------------------------------------- steps.jsonl
def killed_run(tmp_path: Path) -> Path:
    """A run folder left `running` with two steps, as a kill leaves it."""
    ledger = Ledger.create(tmp_path / "runs", dict(HEADER), "input", "(check-sat)\n")
    for k in range(2):
        ledger.append({"claim": {"op": "at_least", "k": k}, "assumptions": [], "result": "sat", "solution": {}, "value": 0})
    ledger.close()
    return ledger.dir


@pytest.mark.parametrize("torn", [False, True])
def test_resume_never_appends_or_cuts_through_a_steps_symlink(tmp_path, torn):
    run_dir = killed_run(tmp_path)
    steps = run_dir / "steps.jsonl"
    outside = tmp_path / "outside.jsonl"
    content = steps.read_bytes() + (b'{"index": 2, "cut off' if torn else b"")
    outside.write_bytes(content)  # a valid chain, so only the writer can refuse it
    steps.unlink()
    steps.symlink_to(outside)
    with pytest.raises(LedgerError, match="symbolic link") as caught:
        Ledger.resume(run_dir)
    assert caught.value.where == str(steps)
    assert outside.read_bytes() == content
    FolderLock(run_dir).acquire().release()  # the refused resume let the lock go


def test_resume_cuts_a_torn_tail_of_a_regular_steps_file(tmp_path):
    run_dir = killed_run(tmp_path)
    steps = run_dir / "steps.jsonl"
    whole = steps.read_bytes()
    steps.write_bytes(whole + b'{"index": 2, "cut off')
    ledger, read = Ledger.resume(run_dir)
    ledger.close()
    assert steps.read_bytes() == whole and len(read) == 2


def test_a_new_run_writes_input_and_base_as_regular_files(tmp_path):
    ledger = Ledger.create(tmp_path / "runs", dict(HEADER), "the input \u00e9", "(set-logic QF_UF)\n")
    ledger.close()
    assert (ledger.dir / "input.txt").read_text(encoding="utf-8") == "the input \u00e9"
    assert gzip.decompress((ledger.dir / "base.smt2.gz").read_bytes()) == b"(set-logic QF_UF)\n"
    assert only_names(ledger.dir) == [".lock", "base.smt2.gz", "input.txt", "run.json", "steps.jsonl"]


# ------------------------------------------------------------------------------- z3 time limits
def pigeons(holes: int):
    """holes+1 pigeons in `holes` holes, in integer arithmetic: unsatisfiable and hard for z3's
    default solver, which reports a timeout as "canceled"."""
    smt = SmtBuilder("QF_LIA")
    smt.bool("go")
    where = [smt.int(f"p{i}", 0, holes - 1) for i in range(holes + 1)]
    for i in range(len(where)):
        for j in range(i + 1, len(where)):
            smt.assert_(f"(not (= {where[i]} {where[j]}))")
    return smt.formula()  # no z3_solver: z3's default solver


def test_z3s_own_timeout_is_unknown_not_interrupted():
    engine = Z3Engine(pigeons(11), {"guide": False})
    for _ in range(3):
        answer = engine.check([lit("go")], 0.01)
        assert (answer.status, answer.reason) == ("unknown", "timeout")


def test_a_time_limit_below_a_millisecond_still_limits():
    """Rounded down to 0 ms, z3 would take the limit for "none" and prove 8 pigeons in 7 holes
    unsat (about 1 s unlimited); limited, it gives up at once."""
    answer = Z3Engine(pigeons(7), {"guide": False}).check([lit("go")], 0.0004)
    assert (answer.status, answer.reason) == ("unknown", "timeout")


@pytest.mark.parametrize("limit", ["0.01", "0.5", "1"])
def test_a_z3_time_limit_exits_3_never_130(cli, limit):
    """The posted King's-tour encoding runs on z3's default solver; 0.5 s lets the first model
    through and cancels a later check, the case that used to end `interrupted`."""
    code, out, err = cli("solve", "kingtour", "--size", 6, "--encoding", "posted", "--engine", "z3",
                         "--time-limit", limit, "--json", "--out", cli.tmp_path / "runs")
    assert code == 3, (code, err)
    result = json.loads(out)
    assert result["status"] == "unknown"
    run = json.loads((Path(result["run_dir"]) / "run.json").read_text())
    assert run["status"] == "unknown"


# ----------------------------------------------------------------------- runs that fail part-way
def one_door_map(cli) -> Path:
    path = cli.tmp_path / "map.json"
    path.write_text(json.dumps(ONE_DOOR))
    return path


def the_run(cli) -> Path:
    (run_dir,) = (cli.tmp_path / "runs").iterdir()
    return run_dir


def assert_sealed_and_unlocked(run_dir: Path) -> dict:
    run = json.loads((run_dir / "run.json").read_text())
    lines = (run_dir / "steps.jsonl").read_bytes().splitlines()
    assert run["status"] == "interrupted" and run["ended"]
    assert run["steps"] == len(lines)
    last = hashlib.sha256(lines[-1]).hexdigest() if lines else run["instance_sha256"]  # the chain's start
    assert run["last_step_sha256"] == last
    assert "certificate" not in run
    FolderLock(run_dir).acquire().release()
    return run


def test_a_rejected_model_leaves_the_run_sealed_unlocked_and_resumable(cli, monkeypatch):
    real = nonary.referee
    calls = []

    def reject_once(game, solution):
        calls.append(solution)
        return ["forced rejection"] if len(calls) == 1 else real(game, solution)

    monkeypatch.setattr(nonary, "referee", reject_once)
    code, out, err = cli("solve", "nonary", one_door_map(cli), "--json", "--out", cli.tmp_path / "runs")
    assert code == 1 and out == "" and "forced rejection" in one_error_line(err)
    run_dir = the_run(cli)
    run = assert_sealed_and_unlocked(run_dir)
    assert run["value"] is None and not (run_dir / "solution.json").exists()  # nothing refereed yet
    monkeypatch.undo()
    code, out, err = cli("solve", "nonary", "--resume", run_dir, "--json")
    assert code == 0, err
    assert (json.loads(out)["status"], json.loads(out)["value"]) == ("optimal", ONE_DOOR_OPTIMUM)


def test_a_failure_after_the_search_keeps_the_best_solution(cli, monkeypatch):
    def disk_full(self, *args):
        raise LedgerError("cannot write (No space left on device)", str(self.dir / "certificate.smt2.gz"))

    monkeypatch.setattr(Ledger, "save_certificate", disk_full)
    code, out, err = cli("solve", "nonary", one_door_map(cli), "--json", "--out", cli.tmp_path / "runs")
    assert code == 2 and "No space left" in one_error_line(err)
    run_dir = the_run(cli)
    run = assert_sealed_and_unlocked(run_dir)
    saved = json.loads((run_dir / "solution.json").read_text())
    game = nonary.from_canonical(run["instance"])
    assert nonary.referee(game, saved["solution"]) == []
    assert run["value"] == saved["value"] == nonary.value(game, saved["solution"]) == ONE_DOOR_OPTIMUM
