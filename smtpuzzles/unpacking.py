"""A resumable working copy of a published run folder.

A published folder (scripts/publish_run.py) keeps its ledger compressed (steps.jsonl.gz) and may
leave its base formula out; it is never written to, so it is never resumed. Its working copy holds
the same ledger as steps.jsonl and the base formula rebuilt by today's encoder from the recorded
instance, accepted only when its sha-256 is the one run.json records. The copy is made in a scratch
folder and checked there, as a resume checks a folder (every file read again from the copy, which
nobody else writes), then takes the published folder's name under OUT, never replacing anything.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from smtpuzzles.errors import InputError
from smtpuzzles.folders.bounded import read_capped, read_gz
from smtpuzzles.folders.durable import sync_file, write_atomic, write_gz
from smtpuzzles.folders.renaming import rename_new, scratch_folder
from smtpuzzles.folders.runfolder import (BASE, INPUT, MAX_RUN_JSON, MAX_SOLUTION_JSON, MAX_STEPS_FILE, RUN,
                                          SCRATCH_PREFIX, SOLUTION, STEPS, STEPS_GZ, open_run, read_run_json,
                                          steps_name)
from smtpuzzles.folders.statuses import ANSWERED

COPIED = ((RUN, MAX_RUN_JSON), (INPUT, MAX_RUN_JSON), (SOLUTION, MAX_SOLUTION_JSON))


def working_copy(published: Path, out_dir: Path) -> Path:
    """The working copy of `published` under `out_dir`, by the same name; refused in one line
    (InputError or LedgerError, naming the place) when the folder is not a published unfinished
    run, today's encoder writes another base formula, or the name is taken."""
    published, out_dir = Path(published), Path(out_dir)
    run = read_run_json(published)
    if steps_name(published) != STEPS_GZ:
        raise InputError(f"its ledger is not compressed ({STEPS}): it is a working folder already; resume it, "
                         "or a plain copy of it", str(published))
    _require_unfinished(run, str(published))
    source = published.resolve()
    target = out_dir / source.name
    if source == out_dir.resolve() or source in out_dir.resolve().parents:
        raise InputError("is the published folder or inside it; unpack into another folder", str(out_dir))
    if target.exists() or target.is_symlink():
        if target.resolve() == source:
            raise InputError("is the published folder itself; unpack it into another folder (--out)", str(target))
        raise InputError("already exists; resume that, or unpack into another folder", str(target))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        # A short name of its own (a run's name may be near the system's limit), which listings of
        # runs pass over (runfolder.SCRATCH) should a kill leave it behind.
        scratch = scratch_folder(out_dir, SCRATCH_PREFIX)
    except OSError as exc:
        raise InputError(f"cannot make a folder there ({exc.strerror})", str(out_dir)) from None
    try:
        for name, cap in COPIED:
            data = read_capped(published, name, cap, name, required=name == RUN)
            if data is not None:
                write_atomic(scratch / name, data, sync=False)
        write_atomic(scratch / STEPS, read_gz(published, STEPS_GZ, MAX_STEPS_FILE, STEPS_GZ) or b"", sync=False)
        try:
            _rebuild_base(scratch)
        except InputError as exc:  # named as the published folder's files: the scratch copy is gone
            where = (exc.where or "").replace(str(scratch), str(published))
            raise type(exc)(exc.message, where + (".gz" if where.endswith("/" + STEPS) else "")) from None
        _sync(scratch)
        if not rename_new(scratch, target):
            raise InputError("appeared meanwhile (another unpack?); this copy is not kept", str(target))
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)  # ours: made above
        raise
    return target


def _rebuild_base(scratch: Path) -> None:
    """The copy checked as a resume checks it, and its base formula written from today's encoder."""
    from smtpuzzles.auditing.readback import recorded_instance, todays_encoding

    folder = open_run(scratch)  # schema, caps, hash chain and seal, read from our own copy
    _require_unfinished(folder.run, str(scratch / RUN))
    module, instance = recorded_instance(folder.run, str(scratch / RUN))
    # Refused unless it writes the recorded base formula (its sha-256 is run.json's).
    enc = todays_encoding(module, instance, folder.run, str(scratch / RUN), "it cannot be resumed here")
    write_gz(scratch / BASE, enc.formula.document(), sync=False)


def _require_unfinished(run: dict, where: str) -> None:
    if run["status"] in ANSWERED:
        raise InputError(f"the run is finished ({run['status']}); nothing to resume", where)


def _sync(folder: Path) -> None:
    for name in os.listdir(folder):
        sync_file(folder / name)
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
