"""One writer per folder: an advisory lock file held for as long as a run (or a batch job) writes.

The lock is `fcntl.flock` on a file named `.lock` inside the folder. The kernel drops it when the
holder's file is closed or the process dies (kill -9 included), so a crashed writer never leaves a
folder locked for ever, and there is no stale-lock guessing. The holder writes its pid into the
file only so that the second writer can say who it is waiting for.

flock is advisory and per open file: it keeps out other processes and other opens in the same
process that also ask for it. On NFS, Linux maps flock to POSIX byte-range locks (NFSv4), so
folders shared by a Dask cluster are covered when the mount supports locking.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from smtpuzzles.errors import LedgerError

LOCK_NAME = ".lock"


class FolderBusy(LedgerError):
    """Another process holds the folder's lock."""


class FolderLock:
    """Hold `folder/.lock` exclusively; `FolderBusy` at once if another writer has it."""

    def __init__(self, folder: Path, what: str = "run folder"):
        self.folder = Path(folder)
        self.what = what
        self._handle = None

    def acquire(self) -> "FolderLock":
        path = self.folder / LOCK_NAME
        try:
            # Opened without truncating: the holder's pid must stay readable until we own the lock.
            handle = open(path, "a+", encoding="utf-8")
        except OSError as exc:
            raise LedgerError(f"cannot open the lock file ({exc.strerror})", str(path)) from None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read(32).strip()
            handle.close()
            who = f"pid {holder}" if holder.isdigit() else "pid unknown"
            raise FolderBusy(f"{self.what} is in use by another process ({who})", str(self.folder)) from None
        except OSError as exc:
            handle.close()
            raise LedgerError(f"cannot lock ({exc.strerror})", str(path)) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle
        return self

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        # The pid is left in the file: removing the file would let a third process lock a new
        # inode while a second still waits on the old one.
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            finally:
                handle.close()

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self) -> None:  # a writer dropped without finish(): let the next one in
        self.release()
