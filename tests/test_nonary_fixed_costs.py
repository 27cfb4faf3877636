"""What a small Nonary run costs besides its answer, cut without giving up what the ledger
promises: runs started in the same second take distinct folders without trying every name taken
before, and a seal syncs its files at once and still writes the sealed run.json after them all."""

from __future__ import annotations

import json
import os
import pathlib
import time
from pathlib import Path

import pytest

from smtpuzzles import run as runner
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
    """The files are synced at once on threads; the seal waits for all of them."""
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
    assert json.loads((ledger.dir / "run.json").read_text())["status"] == "optimal"


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
        ledger_module._at_once([slow("first"), failing, slow("third")])
    assert sorted(ended) == ["first", "third"]  # both waited for before the failure was raised
    ended.clear()
    ledger_module._at_once([slow("a"), slow("b"), slow("c")])
    assert sorted(ended) == ["a", "b", "c"]
