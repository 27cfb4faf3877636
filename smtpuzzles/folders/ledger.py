"""Run folders: what was asked, what the solver answered, chained so that tampering shows.

A run folder holds
  run.json          the run's identity and outcome (rewritten atomically, never appended to)
  input.txt         the input exactly as given
  base.smt2.gz      the base formula, once, compressed; every step's query is this plus assumptions
  steps.jsonl       one line per check, each carrying the sha-256 of the line before it
  solution.json     the best solution found (written whenever it improves)
  certificate.smt2.gz  the closing query: base plus "strictly better than the claim", standalone
  certificate.cnf.gz, proof.lrat.gz  (after `certify`) that query as DIMACS and a checked LRAT proof

Every write reaches the operating system at once (steps are flushed line by line), so `kill -9` loses
at most the step being solved; a torn last line is the only damage such a kill can do, and resume
drops it. What a crash of the machine itself can lose is what was not synced to disk: a run syncs its
files when it seals (every claim it makes is on disk before run.json says so), and once it has
lasted SYNC_AFTER seconds every write is synced as it is made, as before. A run younger than that
is not: syncing cost the smallest runs half of their time, and a power cut then loses at most
that second of work, never a sealed claim. Where several files wait to be synced at once, Linux's
syncfs puts the whole file system on disk in one call (`disk_sync`), else each file is synced on a
thread of its own. Nothing here knows any puzzle.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import platform
import stat
import sys
import time
from pathlib import Path
from time import monotonic  # a name of its own: tests stand in for `time` to fix the folder's name

from smtpuzzles.folders import runfolder
from smtpuzzles.canonical import canonical_json, sha256_text
from smtpuzzles.errors import LedgerError
from smtpuzzles.folders import durable
from smtpuzzles.folders.durable import write_atomic, write_gz
from smtpuzzles.folders.locking import FolderLock, require_locks
from smtpuzzles.folders.statuses import ANSWERED

FORMAT = 1
GENESIS = "0" * 64
RUN_FILES = ("input.txt", "base.smt2.gz", "run.json", "steps.jsonl", "solution.json", "certificate.smt2.gz")
# Seconds a run writes without syncing each file to disk (see the module's docstring).
SYNC_AFTER = 1.0
# The last run folder name this process took (its folder of runs, stem and suffix): a run started
# in the same second as others there tries the names after theirs first, not every name from the
# first on (a benchmark's 50 runs of one map in a second: 50 refused mkdir calls for the last).
_LAST_NAME: tuple[str, str, int] = ("", "", 0)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def host_name() -> str:
    """socket.gethostname(), which is uname's node name on POSIX, without importing socket (2 ms)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


def host_platform() -> str:
    """platform.platform(), on Linux without the `uname -p` child process it starts for a processor
    name it then drops (the same as the machine's, or unknown): a quarter of a small run's start-up."""
    if sys.platform != "linux":
        return platform.platform()
    name = os.uname()
    libc, version = platform.libc_ver()
    return "-".join(filter(None, (name.sysname, name.release, name.machine))) + (f"-with-{libc}{version}" if libc else "")


def _open_steps_for_append(path: Path):
    """steps.jsonl opened for appending, refused unless it is the folder's own regular file."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = _open_regular_for_writing(path, flags)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "ab")


def _open_regular_for_writing(path: Path, flags: int) -> int:
    # O_NOFOLLOW refuses a symlink, O_NONBLOCK keeps a FIFO from blocking the open, and fstat on
    # the open fd (no race with the path) refuses a FIFO, device or socket.
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LedgerError("is a symbolic link; refusing to write through it", str(path)) from None
        raise LedgerError(f"cannot open for writing ({exc.strerror})", str(path)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LedgerError("is not a regular file; refusing to write to it", str(path))
    return fd


def _own_files(run_dir: Path) -> list[Path]:
    """The run's files present as regular files of its own (a symlink planted in their place is no
    file this package wrote, and is neither synced nor followed)."""
    found = []
    for name in RUN_FILES:
        try:
            if stat.S_ISREG(os.lstat(run_dir / name).st_mode):
                found.append(run_dir / name)
        except OSError:
            pass
    return found


def _close(fd: int | None) -> None:
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def _unmake(run_dir: Path) -> None:
    """Take away a folder `Ledger.create` made and was stopped in (a Ctrl-C, a full disk) before its
    run.json was written: nothing is recorded in it, and no reader takes it for a run."""
    try:
        for entry in os.scandir(run_dir):
            os.unlink(entry.path)  # create makes files only
        os.rmdir(run_dir)
    except OSError:
        pass


class Ledger:
    """Writes one run folder as the run goes."""

    def __init__(self, run_dir: Path, run: dict, last_hash: str, next_index: int, folder_fd: int | None = None):
        self.dir = run_dir
        self.run = run
        self.last_hash = last_hash
        self.next_index = next_index
        self._steps = _open_steps_for_append(run_dir / "steps.jsonl")
        self.previous: tuple | None = None  # (status, value) before a resume
        self._refuted: dict[str, int] = {}  # claim (canonical JSON) -> index of its UNSAT step
        self._lock: FolderLock | None = None  # set by create/resume, released by finish/close
        self._started = monotonic()
        # Files written and not yet synced while the run is young (SYNC_AFTER); None once syncing.
        self._unsynced: set[str] | None = set()
        # Opened before this run's writes, so that one syncfs on it answers for all of them.
        self._folder_fd = folder_fd

    def _syncing(self) -> bool:
        """Whether the next write is synced as it is made: once the run has lasted SYNC_AFTER
        seconds, after syncing what was written before without it."""
        if self._unsynced is not None and monotonic() - self._started >= SYNC_AFTER:
            self.sync()
        return self._unsynced is None

    def _written(self, name: str) -> None:
        if self._unsynced is not None:
            self._unsynced.add(name)

    def sync(self) -> None:
        """Sync every file written without it; from then on each write is synced as it is made
        (not before all are on disk: a sync that fails leaves them to the next one, or the seal's)."""
        self._sync_files(self._unsynced or set())
        self._unsynced = None

    def _sync_files(self, names: set[str], temporary: Path | None = None) -> None:
        """Put the folder's files `names` (and a `temporary` one about to be renamed) on disk, and
        return once all are: in one call where the file system can (disk_sync), else each file on a
        thread of its own (one after another, each waited for the disk alone: five small files, 27
        ms of wall time against 3.5 ms at once, and a third less CPU; measured on ext4)."""
        paths = [self.dir / name for name in sorted(names)] + ([temporary] if temporary else [])
        if not paths or (len(paths) > 1 and durable.disk_sync(self._folder_fd)):
            return
        durable.sync_files(paths)

    def _note(self, step: dict) -> None:
        if step.get("result") == "unsat":
            self._refuted[canonical_json(step["claim"])] = step["index"]

    def refuting_step(self, claim: dict) -> int:
        """The index of the recorded UNSAT step for `claim` (a certificate points at it)."""
        return self._refuted[canonical_json(claim)]

    # ---------------------------------------------------------------------------------- creation
    @classmethod
    def create(cls, out_dir: Path, header: dict, input_text: str, base_document: str) -> "Ledger":
        out_dir = Path(out_dir)
        require_locks()  # a platform without fcntl makes no folder it could not lock
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise LedgerError("is a file, not a folder for run folders", str(out_dir)) from None
        except OSError as exc:
            raise LedgerError(f"cannot make the folder ({exc.strerror})", str(out_dir)) from None
        if not out_dir.is_dir():
            raise LedgerError("is a file, not a folder for run folders", str(out_dir))
        instance_sha = header["instance_sha256"]
        stem = f"{header['puzzle']}-{instance_sha[:10]}-{time.strftime('%Y%m%d-%H%M%S')}"
        # mkdir itself decides who owns a name: testing exists() first let two runs started in the
        # same second both pick it. An earlier run is never overwritten.
        global _LAST_NAME
        last_dir, last_stem, last_suffix = _LAST_NAME
        for suffix in range(last_suffix + 1 if (last_dir, last_stem) == (str(out_dir), stem) else 1, 10_000):
            run_dir = out_dir / (stem if suffix == 1 else f"{stem}-{suffix}")
            try:
                run_dir.mkdir()
                break
            except FileExistsError:
                continue
        else:
            raise LedgerError("no free run folder name left for this second", str(out_dir / stem))
        _LAST_NAME = (str(out_dir), stem, suffix)
        # Locked before anything is written, so that no resume can start on a half-made folder.
        lock = FolderLock(run_dir).acquire()
        folder_fd = durable.open_folder(run_dir)
        try:
            # Not synced yet: the run syncs them when it seals or once it has lasted SYNC_AFTER.
            write_atomic(run_dir / "input.txt", input_text, sync=False)
            write_gz(run_dir / "base.smt2.gz", base_document, sync=False)
            run = {
                "format": FORMAT,
                **header,
                "base": {"file": "base.smt2.gz", "sha256": sha256_text(base_document)},
                "host": {"name": host_name(), "python": platform.python_version(), "platform": host_platform()},
                "started": now(),
                "ended": None,
                "status": "running",
                "value": None,
                "steps": 0,
                "last_step_sha256": header_genesis(header),
                "resumed": [],
            }
            write_atomic(run_dir / "run.json", json.dumps(run, indent=2) + "\n", sync=False)
            ledger = cls(run_dir, run, header_genesis(header), 0, folder_fd)
            ledger._unsynced = {"input.txt", "base.smt2.gz", "run.json"}
        except BaseException:
            _close(folder_fd)
            try:
                if not (run_dir / "run.json").exists():
                    _unmake(run_dir)
            finally:
                lock.release()
            raise
        ledger._lock = lock
        return ledger

    @staticmethod
    def refuse_published(run_dir: Path) -> None:
        """Raise if `run_dir`'s ledger is a published (compressed) one, which is never written to:
        a resume asks this first, before it spends seconds building today's encoding (16x16: 8 s)."""
        if runfolder.steps_name(Path(run_dir)) == runfolder.STEPS_GZ:
            raise LedgerError(f"its ledger is published compressed ({runfolder.STEPS_GZ}) and is never written "
                              "to; resume a working copy (smtpuzzles unpack)", str(run_dir))

    @classmethod
    def resume(cls, run_dir: Path) -> tuple["Ledger", list[dict]]:
        run_dir = Path(run_dir)
        cls.refuse_published(run_dir)  # before a lock file is made in it
        # Held from before the first read to finish(): a second resume stops here, in one line.
        lock = FolderLock(run_dir).acquire()
        folder_fd = durable.open_folder(run_dir)
        try:
            # The one reader of run folders, as the audit reads them: schema, caps and hash chain.
            run = runfolder.read_run_json(run_dir)
            if run["status"] in ANSWERED:
                # Another writer may have finished it between the caller's look and our lock.
                raise LedgerError(f"the run is already finished ({run['status']}); nothing to resume", str(run_dir))
            try:
                read = runfolder.read_steps(run_dir, header_genesis(run))
                problem = runfolder.seal_problem(run, read)
                if problem:
                    raise LedgerError(problem, str(run_dir / "steps.jsonl"))
            except LedgerError as exc:
                raise LedgerError(exc.message + "; refusing to resume a tampered ledger", exc.where) from None
            if read.torn_tail:
                cut_torn_tail(run_dir / "steps.jsonl")
            previous = (run["status"], run.get("value"))
            run["resumed"] = run.get("resumed", []) + [now()]
            run["status"] = "running"
            # What the run before wrote may not be on disk yet (it died young), and an error in
            # writing it back would not reach this run's descriptor: synced now, file by file, so
            # that no seal rests on a step the disk has not got. Its temporary files (a writer
            # killed mid-write; the lock says none is writing now) go.
            durable.drop_temporary_files(run_dir, RUN_FILES)
            durable.sync_files(_own_files(run_dir))
            ledger = cls(run_dir, run, read.last_hash, len(read.steps), folder_fd)
            ledger.previous = previous
            for step in read.steps:
                ledger._note(step)
            ledger.save_run()
        except BaseException:
            _close(folder_fd)
            lock.release()
            raise
        ledger._lock = lock
        return ledger, read.steps

    # ----------------------------------------------------------------------------------- writing
    def append(self, step: dict) -> dict:
        step = {"index": self.next_index, "prev": self.last_hash, **step}
        line = canonical_json(step).encode()
        self._steps.write(line + b"\n")
        self._steps.flush()
        if self._syncing():
            os.fsync(self._steps.fileno())
        else:
            self._written("steps.jsonl")
        self.last_hash = hashlib.sha256(line).hexdigest()
        self.next_index += 1
        self._note(step)
        return step

    def _save(self, name: str, text: str, gz: bool = False) -> None:
        syncing = self._syncing()
        (write_gz if gz else write_atomic)(self.dir / name, text, sync=syncing)
        if not syncing:
            self._written(name)

    def save_solution(self, solution: dict, value) -> None:
        self._save("solution.json", json.dumps({"value": value, "solution": solution}) + "\n")

    def save_certificate(self, query: str, claim: dict, step_index: int) -> None:
        self._save("certificate.smt2.gz", query, gz=True)
        self.run["certificate"] = {"file": "certificate.smt2.gz", "claim": claim, "step": step_index,
                                   "sha256": sha256_text(query)}

    def note_run(self) -> None:
        """run.json rewritten for what it records beside the outcome (the engine's version): at once
        once the run has lasted SYNC_AFTER, else left to the seal, which writes it anyway (a young
        run killed before then keeps its first run.json, which resume reads as it reads any)."""
        if self._syncing():
            self.save_run()

    def save_run(self) -> None:
        self.run["steps"] = self.next_index
        self.run["last_step_sha256"] = self.last_hash
        self._save("run.json", json.dumps(self.run, indent=2) + "\n")

    def finish(self, status: str, value) -> None:
        # Seal what is on disk, not what this process believes: a Ctrl-C can land between writing a
        # line and counting it, or in the middle of a line (cut here, as resume would).
        try:
            pending, self._unsynced = self._unsynced, None  # None: every write so far is on disk
            self._steps.close()
            lines, last_hash, torn = runfolder.chain_end(self.dir, header_genesis(self.run))
            if torn:
                cut_torn_tail(self.dir / "steps.jsonl")
            pending = (pending or set()) | ({"steps.jsonl"} if torn else set())
            self.next_index, self.last_hash = lines, last_hash
            self.run.update(status=status, value=value, ended=now(), steps=lines, last_step_sha256=last_hash)
            # Everything the seal speaks of is on disk before run.json says so: the sealed run.json
            # is written under a temporary name, synced with them, and only then renamed in.
            write_atomic(self.dir / "run.json", json.dumps(self.run, indent=2) + "\n", sync=False,
                         before_rename=lambda temporary: self._sync_files(pending - {"run.json"}, temporary))
        finally:
            self.close()

    def close(self) -> None:
        """Let the next writer in. finish() calls it; a run that dies without finishing stays
        `running` on disk, which resume and the audit already treat as a killed run."""
        if not self._steps.closed:
            self._steps.close()
        _close(self._folder_fd)
        self._folder_fd = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def store_proof(run_dir: Path, sealed_hash: str, files: dict[str, bytes], record: dict, key: str = "proof") -> dict:
    """Add a checked proof to a finished run: the files first, then run.json naming them (a kill in
    between leaves run.json as it was), all under the folder's lock. Refused when the run changed
    since the proof was made (another writer resumed or re-sealed it)."""
    run_dir = Path(run_dir)
    lock = FolderLock(run_dir).acquire()
    try:
        run = runfolder.read_run_json(run_dir)
        if run["last_step_sha256"] != sealed_hash or run["status"] not in ANSWERED:
            raise LedgerError("the run changed while its proof was being made; certify it again", str(run_dir))
        for name, data in files.items():
            write_atomic(run_dir / name, data)
        run[key] = record
        write_atomic(run_dir / "run.json", json.dumps(run, indent=2) + "\n")
    finally:
        lock.release()
    return run


def cut_torn_tail(path: Path) -> None:
    """Drop a half-written last line (a kill or Ctrl-C mid-write); every complete line stays."""
    fd = _open_regular_for_writing(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        # Only the tail is needed: the last newline is at most one (torn) step away from the end.
        keep, chunk_end = 0, size
        while chunk_end > 0:
            start = max(0, chunk_end - (1 << 16))
            chunk = os.pread(fd, chunk_end - start, start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                keep = start + cut + 1
                break
            chunk_end = start
        os.ftruncate(fd, keep)
    finally:
        os.close(fd)


def header_genesis(run: dict) -> str:
    """The first step's `prev`: the instance hash, so steps cannot be moved to another run."""
    return run.get("instance_sha256", GENESIS)
