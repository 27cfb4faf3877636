"""What a small Nonary run costs besides its answer, cut without giving up what the ledger
promises: runs started in the same second take distinct folders without trying every name taken
before, and a seal syncs its files at once (one syncfs where it can) and still writes the sealed
run.json after them all."""

from __future__ import annotations

import json
import os
import pathlib
import time
from pathlib import Path

import pytest

from smtpuzzles import run as runner
from smtpuzzles.folders import durable
from smtpuzzles.folders import ledger as ledger_module
from smtpuzzles.puzzles import nonary

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples" / "nonary"


class OneSecond:
    """`time` as the ledger sees it, stopped in one second (the folder's name)."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def strftime(form, *args):
        return time.strftime(form, time.gmtime(0))


def test_runs_in_one_second_take_distinct_folders_trying_few_names(tmp_path, monkeypatch):
    doors = json.loads((EXAMPLES / "02.json").read_text())
    monkeypatch.setattr(ledger_module, "time", OneSecond())
    tried = []
    real = pathlib.Path.mkdir

    def mkdir(self, *args, **kwargs):
        tried.append(self.name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    folders = []
    for _ in range(12):
        tried.clear()
        _, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
        folders.append(ledger.dir.name)
        assert len([name for name in tried if name.startswith("nonary-")]) == 1, tried  # the next free name at once
    assert len(set(folders)) == 12 and folders[1] == folders[0] + "-2" and folders[-1] == folders[0] + "-12"
    # a name taken by another process meanwhile is passed over, never overwritten
    (tmp_path / f"{folders[0]}-13").mkdir()
    _, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
    assert ledger.dir.name == f"{folders[0]}-14"
    assert list((tmp_path / f"{folders[0]}-13").iterdir()) == []


def test_a_seal_syncs_every_file_before_the_sealed_run_json(tmp_path, monkeypatch):
    """Without syncfs the files are synced at once on threads; the seal waits for all of them."""
    monkeypatch.setattr(durable, "disk_sync", lambda folder: False)
    doors = json.loads((EXAMPLES / "07.json").read_text())
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        time.sleep(0.02)  # a slow disk: a seal that did not wait would write run.json first
        real_fsync(fd)
        events.append(("synced", os.readlink(f"/proc/self/fd/{fd}")))

    def replace(src, dst):
        real_replace(src, dst)
        events.append(("renamed", str(dst)))

    monkeypatch.setattr(ledger_module.os, "fsync", fsync)
    monkeypatch.setattr(ledger_module.os, "replace", replace)
    _, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
    last = max(i for i, (what, path) in enumerate(events) if what == "renamed" and path.endswith("run.json"))
    synced = {Path(path).name for what, path in events[:last] if what == "synced"}
    assert {"input.txt", "base.smt2.gz", "steps.jsonl", "solution.json", "certificate.smt2.gz"} <= synced
    assert any(name.startswith(".run.json.") for name in synced)  # the sealed one, before its rename
    assert json.loads((ledger.dir / "run.json").read_text())["status"] == "optimal"


@pytest.mark.skipif(durable._find_syncfs() is False, reason="no syncfs on this system")
def test_a_young_run_s_seal_is_one_syncfs_made_before_the_sealed_run_json_is_renamed_in(tmp_path, monkeypatch):
    """One call puts the file system on disk; at that moment the sealed run.json exists only
    under its temporary name, so it is renamed in after everything it speaks of is on disk."""
    doors = json.loads((EXAMPLES / "07.json").read_text())
    seen, real = [], durable.disk_sync

    def disk_sync(folder_fd):
        folder = Path(os.readlink(f"/proc/self/fd/{folder_fd}"))
        on_disk = json.loads((folder / "run.json").read_text())["status"]
        temporary = [json.loads(p.read_text())["status"] for p in folder.glob(".run.json.*.tmp")]
        seen.append((on_disk, temporary, (folder / "steps.jsonl").read_bytes().count(b"\n")))
        return real(folder_fd)

    def fsync(fd):
        raise AssertionError("no file is synced alone where syncfs did it")

    monkeypatch.setattr(durable, "disk_sync", disk_sync)
    monkeypatch.setattr(ledger_module.os, "fsync", fsync)
    # What other jobs leave waiting to be written back (the suite's other workers, a pip install)
    # would send the seal file by file: that guard is tested on its own, below.
    monkeypatch.setattr(durable, "_dirty_kb", lambda: 0)
    outcome, ledger = runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
    steps = (ledger.dir / "steps.jsonl").read_bytes().count(b"\n")
    assert seen == [("running", ["optimal"], steps)] and steps >= 1
    assert json.loads((ledger.dir / "run.json").read_text())["status"] == "optimal" == outcome.status


def test_the_folder_syncfs_answers_for_is_opened_before_the_run_writes_anything(tmp_path, monkeypatch):
    """syncfs reports a write-back error only to descriptors opened before another process saw it:
    one opened at the seal could be told "all written" of files the disk refused."""
    doors = json.loads((EXAMPLES / "07.json").read_text())
    events, real_open, real_replace = [], durable.open_folder, os.replace

    def open_folder(folder):
        events.append("folder opened")
        return real_open(folder)

    def replace(src, dst):
        events.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(durable, "open_folder", open_folder)
    monkeypatch.setattr(ledger_module.os, "replace", replace)
    runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path)
    assert events[0] == "folder opened" and events.count("folder opened") == 1 and "input.txt" in events


@pytest.mark.parametrize("release,usable", [("6.18.44-fc-v1272", True), ("5.8.0", True), ("5.10rc1", True),
                                            ("5.7.19", False), ("4.19.0-25-amd64", False), ("weird", False)])
def test_syncfs_is_used_only_where_it_reports_write_back_errors(monkeypatch, release, usable):
    """Before Linux 5.8 syncfs returns 0 whatever the disk did: no promise can rest on it."""
    import sys

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(durable.os, "uname", lambda: os.uname_result(("Linux", "h", release, "#1", "x86_64")))
    assert (durable._find_syncfs() is not False) is usable


@pytest.mark.parametrize("meminfo,expected", [
    (b"MemTotal: 100 kB\nDirty:  12 kB\nWriteback:  3 kB\n", 15),
    (b"Dirty: 12 kB\n", None),  # no Writeback line: unknown, as if too much
    (b"Dirty: x kB\nWriteback: 1 kB\n", None),
])
def test_what_waits_to_be_written_back_is_read_from_meminfo_or_taken_as_too_much(tmp_path, monkeypatch,
                                                                                    meminfo, expected):
    import builtins
    import sys

    fake = tmp_path / "meminfo"
    fake.write_bytes(meminfo)
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda path, *a, **k: real_open(fake if path == "/proc/meminfo" else path,
                                                                          *a, **k))
    assert durable._dirty_kb() == (sys.maxsize if expected is None else expected)


def test_a_busy_disk_or_a_failing_syncfs_means_each_file_synced_alone(tmp_path, monkeypatch):
    """syncfs would wait for every other job's writes: past DISK_SYNC_DIRTY_KB, or where the call
    fails, the seal syncs its own files one by one instead (and a disk error names its file)."""
    doors = json.loads((EXAMPLES / "07.json").read_text())
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real_fsync(fd)

    monkeypatch.setattr(ledger_module.os, "fsync", fsync)
    monkeypatch.setattr(durable, "_dirty_kb", lambda: durable.DISK_SYNC_DIRTY_KB + 1)
    runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path / "busy")
    assert {"input.txt", "base.smt2.gz", "steps.jsonl", "solution.json"} <= set(synced)
    synced.clear()
    monkeypatch.setattr(durable, "_dirty_kb", lambda: 0)
    monkeypatch.setattr(durable, "_syncfs", lambda fd: -1)
    runner.solve(nonary, nonary.from_doors(doors), json.dumps(doors), out_dir=tmp_path / "failing")
    assert {"input.txt", "base.smt2.gz", "steps.jsonl", "solution.json"} <= set(synced)


def test_syncing_at_once_waits_for_every_job_and_raises_a_failure_of_any():
    """A seal's syncs run side by side: none is left running when it returns, and a disk error on
    any of them (not only the first, which runs in the caller's thread) reaches the caller."""
    from smtpuzzles.errors import LedgerError

    ended = []

    def slow(name):
        def job():
            time.sleep(0.05)
            ended.append(name)
        return job

    def failing():
        raise LedgerError("cannot sync (Input/output error)", "steps.jsonl")

    with pytest.raises(LedgerError, match="cannot sync"):
        durable.at_once([slow("first"), failing, slow("third")])
    assert sorted(ended) == ["first", "third"]  # both waited for before the failure was raised
    ended.clear()
    durable.at_once([slow("a"), slow("b"), slow("c")])
    assert sorted(ended) == ["a", "b", "c"]
