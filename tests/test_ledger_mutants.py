"""The ledger's writers and readers, held to what they promise byte for byte: file modes, exact
messages and places, the gzip bytes, torn tails cut at chunk edges, folder names at their limit,
locks held for as long as a writer lives. Written against the mutants mutmut left alive in
smtpuzzles/folders/ledger.py (scripts/mutation.py); each test fails on at least one of them.

Expected values are literals, the standard library (zlib, hashlib, json), or a frozen clock the
test picks: never the ledger's own output.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from conftest import fails_instead_of_hanging

from smtpuzzles.folders import ledger as ledger_module
from smtpuzzles.errors import LedgerError
from smtpuzzles.folders.durable import write_atomic, write_gz
from smtpuzzles.folders.ledger import GENESIS, Ledger, cut_torn_tail, store_proof
from smtpuzzles.folders.runfolder import read_run_json
from smtpuzzles.folders.locking import FolderBusy, FolderLock

SHA = "cd" * 32
HEADER = {"puzzle": "toy", "instance": {"n": 1}, "instance_sha256": SHA,
          "encoding": {"name": "toy", "version": 1}, "engine": {"name": "z3", "params": {}}}
# 2024-02-29 23:59:58 UTC, a moment chosen here: run folder names and timestamps follow from it.
MOMENT = time.gmtime(1709251198)
STEM = "toy-cdcdcdcdcd-20240229-235958"
STAMP = "2024-02-29T23:59:58+0000"


class FrozenClock:
    """Stands in for the `time` module inside smtpuzzles.folders.ledger: every reading is MOMENT."""

    @staticmethod
    def strftime(fmt: str) -> str:
        return time.strftime(fmt, MOMENT)


@pytest.fixture
def frozen(monkeypatch):
    monkeypatch.setattr(ledger_module, "time", FrozenClock)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def no_hang():
    """Fail, never hang, if an open blocks (a FIFO opened without O_NONBLOCK would)."""
    with fails_instead_of_hanging(5):
        yield


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def killed_run(out: Path, steps: int = 2) -> Path:
    ledger = Ledger.create(out, dict(HEADER), "input", "(check-sat)\n")
    for k in range(steps):
        ledger.append({"claim": {"op": "at_least", "k": k}, "assumptions": [], "result": "sat", "solution": {}, "value": 0})
    ledger.close()
    return ledger.dir


# --------------------------------------------------------------------------------- file modes
def test_every_file_a_run_writes_is_rw_r__r__(tmp_path, umask_022):
    """0o644 under the usual umask: readable by the audit of another user, writable by the owner
    only (not executable, not group-writable)."""
    ledger = Ledger.create(tmp_path / "runs", dict(HEADER), "input", "(check-sat)\n")
    ledger.append({"claim": {"op": "first"}, "assumptions": [], "result": "unsat"})
    ledger.save_solution({"moves": []}, 1)
    ledger.save_certificate("(check-sat)\n", {"op": "first"}, 0)
    ledger.finish("infeasible", None)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in ledger.dir.iterdir() if p.name != ".lock"}
    assert modes == {name: 0o644 for name in ("input.txt", "base.smt2.gz", "run.json", "steps.jsonl",
                                              "solution.json", "certificate.smt2.gz")}


# ------------------------------------------------------------------------------ steps.jsonl
def test_a_steps_symlink_is_refused_in_exact_words(tmp_path):
    run_dir = killed_run(tmp_path / "runs")
    steps = run_dir / "steps.jsonl"
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(steps.read_bytes())
    steps.unlink()
    steps.symlink_to(outside)
    with pytest.raises(LedgerError) as caught:
        Ledger(run_dir, {}, GENESIS, 0)
    assert (caught.value.message, caught.value.where) == (
        "is a symbolic link; refusing to write through it", str(steps))


def test_a_steps_folder_cannot_be_opened_and_says_why(tmp_path):
    (tmp_path / "steps.jsonl").mkdir()
    with pytest.raises(LedgerError) as caught:
        Ledger(tmp_path, {}, GENESIS, 0)
    assert (caught.value.message, caught.value.where) == (
        "cannot open for writing (Is a directory)", str(tmp_path / "steps.jsonl"))


def test_a_steps_fifo_without_a_reader_is_refused_without_blocking(tmp_path, no_hang):
    os.mkfifo(tmp_path / "steps.jsonl")
    with pytest.raises(LedgerError) as caught:
        Ledger(tmp_path, {}, GENESIS, 0)
    assert (caught.value.message, caught.value.where) == (
        "cannot open for writing (No such device or address)", str(tmp_path / "steps.jsonl"))


def test_a_steps_fifo_with_a_reader_is_refused_and_its_fd_closed(tmp_path, no_hang):
    """With a reader on the other end the open succeeds; fstat on the fd then refuses it, and the
    fd is not leaked."""
    path = tmp_path / "steps.jsonl"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        before = open_fds()
        with pytest.raises(LedgerError) as caught:
            Ledger(tmp_path, {}, GENESIS, 0)
        assert (caught.value.message, caught.value.where) == (
            "is not a regular file; refusing to write to it", str(path))
        assert open_fds() == before
    finally:
        os.close(reader)


def test_a_ledger_made_without_a_lock_closes_cleanly_and_lets_its_fd_go(tmp_path):
    before = open_fds()
    ledger = Ledger(tmp_path, {}, GENESIS, 0)
    assert ledger.previous is None  # nothing resumed
    assert open_fds() == before + 1  # steps.jsonl
    ledger.close()
    ledger.close()  # twice is harmless
    assert open_fds() == before


def test_close_lets_go_of_the_steps_file_and_the_lock(tmp_path):
    before = open_fds()
    with Ledger.create(tmp_path / "runs", dict(HEADER), "input", "(check-sat)\n") as ledger:
        assert ledger.previous is None
        with pytest.raises(FolderBusy):
            FolderLock(ledger.dir).acquire()
    assert open_fds() == before
    FolderLock(ledger.dir).acquire().release()


# ------------------------------------------------------------------------- whole-file writers
@pytest.mark.parametrize("planted", ["symlink", "file"])
def test_an_entry_planted_at_the_temporary_name_is_never_written_through(tmp_path, monkeypatch, planted):
    """The temporary name is created exclusively: a symlink or a file already there (a guess by
    whoever controls the folder) makes the write fail, and its target keeps its bytes."""
    monkeypatch.setattr(ledger_module.os, "urandom", lambda n: bytes.fromhex("feedbeef"))
    path = tmp_path / "run.json"
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    tmp = tmp_path / f".run.json.{os.getpid()}.feedbeef.tmp"
    if planted == "symlink":
        tmp.symlink_to(victim)
    else:
        tmp.write_bytes(b"precious\n")
    with pytest.raises(LedgerError) as caught:
        write_atomic(path, "{}\n")
    assert (caught.value.message, caught.value.where) == ("cannot write (File exists)", str(path))
    assert victim.read_bytes() == b"precious\n" and not path.exists()


def test_a_writer_into_a_missing_folder_names_the_file(tmp_path):
    path = tmp_path / "gone" / "run.json"
    for writer in (write_atomic, write_gz):
        with pytest.raises(LedgerError) as caught:
            writer(path, "{}")
        assert (caught.value.message, caught.value.where) == ("cannot write (No such file or directory)", str(path))


@pytest.mark.parametrize("error,words", [
    (OSError(errno.EIO, "Input/output error"), "cannot write (Input/output error)"),
    (OSError("the disk went away"), "cannot write (the disk went away)"),  # no strerror
])
def test_a_failing_flush_to_disk_is_one_error_and_keeps_the_old_file(tmp_path, monkeypatch, error, words):
    path = tmp_path / "run.json"
    path.write_text("old\n")

    def failing(fd):
        raise error

    monkeypatch.setattr(ledger_module.os, "fsync", failing)
    with pytest.raises(LedgerError) as caught:
        write_atomic(path, "new\n")
    assert (caught.value.message, caught.value.where) == (words, str(path))
    assert names(tmp_path) == ["run.json"] and path.read_text() == "old\n"


def test_a_ctrl_c_just_after_the_rename_stays_a_ctrl_c(tmp_path, monkeypatch):
    """The rename happened, so the temporary file is gone: cleaning up must not turn the Ctrl-C
    into a FileNotFoundError."""
    real = os.replace

    def then_ctrl_c(src, dst):
        real(src, dst)
        raise KeyboardInterrupt

    monkeypatch.setattr(ledger_module.os, "replace", then_ctrl_c)
    path = tmp_path / "run.json"
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "new\n")
    monkeypatch.undo()
    assert names(tmp_path) == ["run.json"] and path.read_text() == "new\n"


def gzip_level_1(data: bytes) -> bytes:
    """RFC 1952 by hand: no name, mtime 0, XFL 4 (fastest), OS 255, raw deflate at level 1."""
    header = b"\x1f\x8b\x08\x00" + b"\x00\x00\x00\x00" + b"\x04\xff"
    return header + zlib.compress(data, 1, wbits=-15) + struct.pack("<LL", zlib.crc32(data), len(data) & 0xFFFFFFFF)


@pytest.mark.parametrize("text", ["", "(check-sat)\n", "".join(f"(assert (or x{i} y{i} \u00e9))\n" for i in range(60_000))],
                         ids=["empty", "short", "over-1-MiB"])
def test_write_gz_bytes_are_reproducible_fast_gzip(tmp_path, text):
    """The same text always gives the same bytes (no name, no time stamp in the header), at the
    fast level the base formula is written with."""
    path = tmp_path / "base.smt2.gz"
    write_gz(path, text)
    assert path.read_bytes() == gzip_level_1(text.encode("utf-8"))


# --------------------------------------------------------------------------------- torn tails
@pytest.mark.parametrize("content,kept", [
    (b'{"index":0,"prev":"', b""),  # a kill during the very first line
    (b"\n" + b"y" * (1 << 16), b"\n"),  # the only newline is byte 0, one chunk back
    (b'{"index":0}\n' + b"t" * ((1 << 16) - 1), b'{"index":0}\n'),  # newline first in its chunk
    (b'{"index":0}\n' + b"t" * 200_000, b'{"index":0}\n'),  # a torn line spanning chunks
    (b'{"index":0}\n{"index":1}\n{"ind', b'{"index":0}\n{"index":1}\n'),
], ids=["no-newline", "newline-at-0", "newline-at-chunk-start", "long-tail", "short-tail"])
def test_cut_torn_tail_keeps_every_complete_line(tmp_path, content, kept):
    path = tmp_path / "steps.jsonl"
    path.write_bytes(content)
    cut_torn_tail(path)
    assert path.read_bytes() == kept


# --------------------------------------------------------------------------- creating a folder
def test_a_file_where_the_run_folders_go_is_named_exactly(tmp_path):
    (tmp_path / "runs").write_text("")
    with pytest.raises(LedgerError) as caught:
        Ledger.create(tmp_path / "runs", dict(HEADER), "", "")
    assert (caught.value.message, caught.value.where) == ("is a file, not a folder for run folders", str(tmp_path / "runs"))


def test_a_folder_under_a_file_cannot_be_made_and_says_why(tmp_path):
    (tmp_path / "plain").write_text("")
    out = tmp_path / "plain" / "runs"
    with pytest.raises(LedgerError) as caught:
        Ledger.create(out, dict(HEADER), "", "")
    assert (caught.value.message, caught.value.where) == ("cannot make the folder (Not a directory)", str(out))


def test_a_folder_replaced_by_a_file_right_after_mkdir_is_refused(tmp_path, monkeypatch):
    """The race the second check exists for: made, then swapped for a file before the run folder
    goes in. Simulated by the folder no longer looking like one."""
    out = tmp_path / "runs"
    real = Path.is_dir
    monkeypatch.setattr(Path, "is_dir", lambda self: False if self == out else real(self))
    with pytest.raises(LedgerError) as caught:
        Ledger.create(out, dict(HEADER), "", "")
    assert (caught.value.message, caught.value.where) == ("is a file, not a folder for run folders", str(out))


def test_run_folder_names_run_out_after_9999_in_one_second(tmp_path, frozen):
    out = tmp_path / "runs"
    out.mkdir()
    (out / STEM).mkdir()
    for suffix in range(2, 9999):
        (out / f"{STEM}-{suffix}").mkdir()
    last = Ledger.create(out, dict(HEADER), "", "")
    last.close()
    assert last.dir == out / f"{STEM}-9999"
    with pytest.raises(LedgerError) as caught:
        Ledger.create(out, dict(HEADER), "", "")
    assert (caught.value.message, caught.value.where) == ("no free run folder name left for this second", str(out / STEM))
    assert len(list(out.iterdir())) == 9999


def pretty(text: str) -> str:
    return json.dumps(json.loads(text), indent=2) + "\n"


def test_run_json_is_two_space_indented_from_start_to_finish(tmp_path, frozen):
    """run.json is meant to be read by people: one key a line, two spaces, a final newline."""
    ledger = Ledger.create(tmp_path / "runs", dict(HEADER), "input", "(check-sat)\n")
    text = (ledger.dir / "run.json").read_text()
    assert text.startswith('{\n  "format": 1,\n  "puzzle": "toy",\n') and text == pretty(text)
    assert json.loads(text)["started"] == STAMP
    ledger.append({"claim": {"op": "first"}, "assumptions": [], "result": "sat", "solution": {}, "value": 0})
    ledger.save_run()
    text = (ledger.dir / "run.json").read_text()
    assert '\n  "steps": 1,\n' in text and text == pretty(text)
    ledger.finish("unknown", None)
    text = (ledger.dir / "run.json").read_text()
    assert '\n  "status": "unknown",\n' in text and text == pretty(text)


# --------------------------------------------------------------------------------------- resume
def test_a_resume_holds_the_lock_until_it_closes(tmp_path):
    run_dir = killed_run(tmp_path / "runs")
    first, _ = Ledger.resume(run_dir)
    with pytest.raises(FolderBusy):
        Ledger.resume(run_dir)
    first.close()
    second, steps = Ledger.resume(run_dir)
    second.close()
    assert len(steps) == 2


def test_a_run_json_without_a_resumed_list_gets_one(tmp_path, frozen):
    run_dir = killed_run(tmp_path / "runs")
    run = json.loads((run_dir / "run.json").read_text())
    del run["resumed"]
    (run_dir / "run.json").write_text(json.dumps(run))
    again, _ = Ledger.resume(run_dir)
    again.close()
    assert json.loads((run_dir / "run.json").read_text())["resumed"] == [STAMP]


def test_a_tampered_ledger_is_refused_in_exact_words(tmp_path):
    ledger = Ledger.create(tmp_path / "runs", dict(HEADER), "input", "(check-sat)\n")
    for k in range(3):
        ledger.append({"claim": {"op": "at_least", "k": k}, "assumptions": [], "result": "sat", "solution": {}, "value": 0})
    ledger.finish("unknown", 2)
    steps = ledger.dir / "steps.jsonl"
    steps.write_bytes(b"".join(steps.read_bytes().splitlines(keepends=True)[:2]))
    with pytest.raises(LedgerError) as caught:
        Ledger.resume(ledger.dir)
    assert caught.value.message == ("run.json seals 3 steps but the file holds 2 or ends differently "
                                    "(steps cut off, appended or edited); refusing to resume a tampered ledger")
    assert caught.value.where == str(ledger.dir / "steps.jsonl")


# ---------------------------------------------------------------------------------- any locale
def test_folders_read_the_same_under_the_c_locale(tmp_path):
    """Files are UTF-8 whatever the reader's locale: a user with LC_ALL=C reads the same text."""
    header = dict(HEADER, instance={"note": "caf\u00e9 \u2192 \u00fcber"})
    ledger = Ledger.create(tmp_path / "runs", header, "caf\u00e9\n", "; caf\u00e9\n(check-sat)\n")
    ledger.finish("unknown", None)
    expected = read_run_json(ledger.dir)["instance"]
    assert expected == header["instance"]
    script = ("import json, sys; from smtpuzzles.folders.runfolder import read_run_json; "
              "print(json.dumps(read_run_json(sys.argv[1])['instance']))")
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = subprocess.run([sys.executable, "-c", script, str(ledger.dir)], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected


# ---------------------------------------------------------------------------------- store_proof
PROOF_FILES = {"certificate.cnf.gz": b"p cnf 1 1\n1 0\n", "proof.lrat.gz": b"2 -1 0 1 0\n"}
RECORD = {"format": "lrat", "file": "proof.lrat.gz"}


def finished_run(out: Path, status: str = "optimal") -> tuple[Path, str]:
    """A run sealed with `status`, and the last-step hash run.json seals it with."""
    ledger = Ledger.create(out, dict(HEADER), "input", "(check-sat)\n")
    ledger.append({"claim": {"op": "first"}, "assumptions": [], "result": "unsat"})
    ledger.finish(status, None)
    return ledger.dir, json.loads((ledger.dir / "run.json").read_text())["last_step_sha256"]


def test_a_stored_proof_writes_its_files_then_names_them_in_run_json(tmp_path, umask_022):
    run_dir, sealed = finished_run(tmp_path / "runs")
    before = json.loads((run_dir / "run.json").read_text())
    run = store_proof(run_dir, sealed, dict(PROOF_FILES), dict(RECORD))
    text = (run_dir / "run.json").read_text()
    assert json.loads(text) == run == {**before, "proof": RECORD} and text == pretty(text)
    for name, data in PROOF_FILES.items():
        assert (run_dir / name).read_bytes() == data and stat.S_IMODE((run_dir / name).stat().st_mode) == 0o644
    assert names(run_dir) == sorted([".lock", "base.smt2.gz", "input.txt", "run.json", "steps.jsonl", *PROOF_FILES])
    FolderLock(run_dir).acquire().release()  # let go


@pytest.mark.parametrize("status,stale", [("optimal", True), ("unknown", False), ("interrupted", False)])
def test_a_proof_is_not_stored_for_a_run_that_changed_or_answers_nothing(tmp_path, status, stale):
    run_dir, sealed = finished_run(tmp_path / "runs", status)
    before = (run_dir / "run.json").read_bytes()
    with pytest.raises(LedgerError) as caught:
        store_proof(run_dir, "0" * 64 if stale else sealed, dict(PROOF_FILES), dict(RECORD))
    assert (caught.value.message, caught.value.where) == (
        "the run changed while its proof was being made; certify it again", str(run_dir))
    assert (run_dir / "run.json").read_bytes() == before and not (run_dir / "proof.lrat.gz").exists()
    FolderLock(run_dir).acquire().release()


def test_a_proof_waits_for_no_writer(tmp_path):
    run_dir, sealed = finished_run(tmp_path / "runs")
    with FolderLock(run_dir):
        with pytest.raises(FolderBusy):
            store_proof(run_dir, sealed, dict(PROOF_FILES), dict(RECORD))
    assert not (run_dir / "proof.lrat.gz").exists()
