"""When a run's files reach the disk: a young run leaves its writes to the operating system and
syncs them all when it seals, before the sealed run.json; a run that has lasted SYNC_AFTER seconds
syncs each write as it is made. Where several files wait at once, one syncfs of the file system
does it (`disk_sync`); else each file is synced (the fixture `synced` takes that path)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smtpuzzles.folders import durable
from smtpuzzles.folders import ledger as ledger_module
from smtpuzzles.folders.ledger import Ledger

HEADER = {"puzzle": "p", "instance": {}, "instance_sha256": "a" * 64, "encoding": {"name": "p", "version": 1},
          "engine": {"name": "z3", "params": {}}}
WRITTEN = ("input.txt", "base.smt2.gz", "run.json", "steps.jsonl", "solution.json", "certificate.smt2.gz")


@pytest.fixture
def synced(monkeypatch):
    """The files fsync was called on, in order, as (name, what the file held then): a temporary
    file is named by the file it becomes. syncfs is taken away, so every file is synced alone."""
    calls: list[tuple[str, bytes]] = []
    real = os.fsync
    monkeypatch.setattr(durable, "disk_sync", lambda folder: False)

    def recording(fd):
        target = Path(os.readlink(f"/proc/self/fd/{fd}"))
        name = target.name
        if name.startswith(".") and name.endswith(".tmp"):  # .run.json.PID.HEX.tmp
            name = next(w for w in WRITTEN if name[1:].startswith(w + "."))
        with open(f"/proc/self/fd/{fd}", "rb") as handle:
            held = handle.read()
        calls.append((name, held))
        real(fd)

    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc to name a file descriptor's file")
    monkeypatch.setattr(ledger_module.os, "fsync", recording)
    return calls


def write_a_run(out: Path) -> Ledger:
    ledger = Ledger.create(out, dict(HEADER), "input", "(check-sat)\n")
    ledger.append({"claim": {"op": "first"}, "assumptions": [], "result": "sat", "solution": {}, "value": 1})
    ledger.save_solution({}, 1)
    ledger.append({"claim": {"op": "at_least", "k": 2}, "assumptions": [], "result": "unsat"})
    ledger.save_certificate("(check-sat)\n", {"op": "at_least", "k": 2}, 1)
    ledger.save_run()
    return ledger


def test_a_young_run_syncs_nothing_until_it_seals_then_everything_before_the_seal(tmp_path, synced):
    ledger = write_a_run(tmp_path)
    assert synced == []  # all of it written within SYNC_AFTER of its start
    ledger.finish("optimal", 1)
    names = [name for name, _ in synced]
    assert sorted(names) == sorted(WRITTEN)  # each once, at once (on threads)
    # The sealed run.json is synced under its temporary name with the files it speaks of, and
    # renamed in once all are on disk.
    assert json.loads(synced[names.index("run.json")][1])["status"] == "optimal"
    assert synced[names.index("steps.jsonl")][1].count(b"\n") == 2


def test_a_run_past_sync_after_syncs_each_write_as_it_is_made(tmp_path, synced, monkeypatch):
    monkeypatch.setattr(ledger_module, "SYNC_AFTER", 0.0)
    ledger = Ledger.create(tmp_path, dict(HEADER), "input", "(check-sat)\n")
    assert synced == []  # made young: nothing synced yet
    ledger.append({"claim": {"op": "first"}, "assumptions": [], "result": "unsat"})
    # The first write after SYNC_AFTER syncs what was left before it, then itself.
    assert sorted(name for name, _ in synced) == ["base.smt2.gz", "input.txt", "run.json", "steps.jsonl"]
    synced.clear()
    ledger.save_solution({}, 0)
    assert [name for name, _ in synced] == ["solution.json"]
    synced.clear()
    ledger.append({"claim": {"op": "at_least", "k": 1}, "assumptions": [], "result": "unsat"})
    assert [name for name, _ in synced] == ["steps.jsonl"]
    ledger.finish("infeasible", None)


def test_a_run_that_dies_young_leaves_a_readable_unsealed_folder(tmp_path, synced):
    """Not synced is not lost to the process's own death: the operating system has every write."""
    ledger = write_a_run(tmp_path)
    ledger.close()  # died without sealing
    run = json.loads((ledger.dir / "run.json").read_text())
    assert run["status"] == "running" and run["steps"] == 2 and synced == []
    resumed, steps = Ledger.resume(ledger.dir)
    assert [s["result"] for s in steps] == ["sat", "unsat"]
    # what the run before left unsynced is synced as the resume starts, file by file
    assert sorted(name for name, _ in synced) == sorted(WRITTEN)
    synced.clear()
    resumed.finish("optimal", 1)
    assert [name for name, _ in synced] == ["run.json"] and json.loads(synced[0][1])["status"] == "optimal"


def test_a_sync_that_fails_leaves_its_files_to_the_next_one(tmp_path, synced, monkeypatch):
    """A young run's first sync past SYNC_AFTER fails (a passing disk error): the files it did not
    get on disk stay waiting, and the seal syncs them, instead of sealing over them."""
    from smtpuzzles.errors import LedgerError

    ledger = write_a_run(tmp_path)
    real = durable.sync_file

    def failing(path):
        raise LedgerError("cannot sync (Input/output error)", str(path))

    monkeypatch.setattr(durable, "sync_file", failing)
    with pytest.raises(LedgerError, match="cannot sync"):
        ledger.sync()
    monkeypatch.setattr(durable, "sync_file", real)
    ledger.finish("interrupted", None)
    assert sorted(name for name, _ in synced) == sorted(WRITTEN)


def test_a_resume_drops_a_killed_writer_s_temporary_files_and_follows_no_symlink(tmp_path, synced):
    ledger = write_a_run(tmp_path)
    ledger.close()
    left = ledger.dir / ".run.json.4242.0123abcd.tmp"
    left.write_text("{half")
    kept = ledger.dir / ".run.json.4242.notours.tmp"  # not the writer's pattern: not ours to remove
    kept.write_text("x")
    folder = ledger.dir / ".solution.json.1.00000000.tmp"
    folder.mkdir()  # never a folder
    outside = tmp_path / "outside.txt"
    outside.write_text("input")
    (ledger.dir / "input.txt").unlink()
    (ledger.dir / "input.txt").symlink_to(outside)
    resumed, _ = Ledger.resume(ledger.dir)
    assert not left.exists() and kept.exists() and folder.is_dir()
    assert "input.txt" not in [name for name, _ in synced]  # the symlink is no file of the run's
    resumed.finish("optimal", 1)


def test_the_host_platform_is_what_platform_platform_says():
    """The recorded platform, made without the child process platform.platform() starts on Linux."""
    import platform
    import subprocess

    if os.uname().sysname == "Linux":
        processor = subprocess.run(["uname", "-p"], capture_output=True, text=True).stdout.strip()
        if processor not in ("unknown", os.uname().machine, ""):
            pytest.skip(f"uname -p names a processor ({processor}) that platform.platform() would show")
    assert ledger_module.host_platform() == platform.platform()


@pytest.mark.parametrize("past_sync_after", [False, True])
def test_note_run_writes_run_json_at_once_only_past_sync_after(tmp_path, monkeypatch, past_sync_after):
    if past_sync_after:
        monkeypatch.setattr(ledger_module, "SYNC_AFTER", 0.0)
    ledger = Ledger.create(tmp_path, dict(HEADER), "input", "(check-sat)\n")
    ledger.run["engine"]["version"] = "z3 9.9"
    ledger.note_run()
    on_disk = json.loads((ledger.dir / "run.json").read_text())
    assert ("version" in on_disk["engine"]) is past_sync_after
    ledger.finish("unknown", None)  # the seal writes it whatever the age
    assert json.loads((ledger.dir / "run.json").read_text())["engine"]["version"] == "z3 9.9"
