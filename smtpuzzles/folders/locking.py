"""One writer per folder: an advisory lock file held for as long as a run (or a batch job) writes.

The lock is `fcntl.flock` on a file named `.lock` inside the folder. The kernel drops it when the
holder's file is closed or the process dies (kill -9 included), so a crashed writer never leaves a
folder locked for ever, and there is no stale-lock guessing. The holder writes its pid into the
file only so that the second writer can say who it is waiting for.

flock is advisory and per open file: it keeps out other processes and other opens in the same
process that also ask for it. On NFS, Linux maps flock to POSIX byte-range locks (NFSv4), so
folders shared by a Dask cluster are covered when the mount supports locking.

fcntl exists on Linux and macOS only, so it is imported where a lock is taken, not with this module:
elsewhere (Windows) `--help`, `export`, `examples` and the commands that only read still work, and a
command that would write a run folder stops with one line (`require_locks`).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

from smtpuzzles.errors import LedgerError

LOCK_NAME = ".lock"
NO_LOCKS = "smtpuzzles writes run folders on Linux and macOS (it locks them with fcntl)"


def require_locks():
    """The fcntl module, or the one-line error (exit 2) where this platform has none."""
    try:
        import fcntl
    except ImportError:
        raise LedgerError(NO_LOCKS) from None
    return fcntl


class FolderBusy(LedgerError):
    """Another process holds the folder's lock."""


class FolderLock:
    """Hold `folder/.lock` exclusively; `FolderBusy` at once if another writer has it."""

    def __init__(self, folder: Path, what: str = "run folder"):
        self.folder = Path(folder)
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> "FolderLock":
        fcntl = require_locks()  # before the lock file is made
        path = self.folder / LOCK_NAME
        fd = _open_lock_file(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            who = f"pid {holder}" if holder else "pid unknown"
            raise FolderBusy(f"{self.what} is in use by another process ({who})", str(self.folder)) from None
        except OSError as exc:
            os.close(fd)
            raise LedgerError(f"cannot lock ({exc.strerror})", str(path)) from None
        # Written in place at a fixed width, never truncated to empty first, so that a second
        # writer reading it at any moment sees the old pid or the new one.
        record = f"{os.getpid():<10}\n".encode()
        try:
            os.pwrite(fd, record, 0)
            os.ftruncate(fd, len(record))
        except OSError as exc:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise LedgerError(f"cannot write the lock file ({exc.strerror})", str(path)) from None
        # Kept for release, which may run from __del__ at interpreter exit, when imports fail.
        self._fcntl = fcntl
        self._fd = fd
        return self

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        # The pid is left in the file: removing the file would let a third process lock a new
        # inode while a second still waits on the old one.
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                self._fcntl.flock(fd, self._fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self) -> None:  # a writer dropped without finish(): let the next one in
        self.release()


def writer_active(folder: Path) -> bool:
    """Whether a writer holds `folder`'s lock now (a resume that has just started, say). Only asks:
    the lock file is opened to read, never made or written, and the lock never taken. Without fcntl
    no writer on this machine can hold one: no."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(Path(folder) / LOCK_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:  # no lock file (no writer ever), or not one to trust
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    """The pid the holder wrote; a holder that has only just taken the lock gets a moment."""
    for _ in range(20):
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if text.isdigit():
            return text
        time.sleep(0.005)
    return ""


def _open_lock_file(path: Path) -> int:
    """An fd on `path` that is certainly a regular file inside the folder.

    A run folder may come from anyone: a `.lock` planted as a symlink would have the pid written
    (and the file truncated) wherever it points, and a FIFO or device would block or fail without
    a name. O_NOFOLLOW refuses a symlink as the last component, O_NONBLOCK keeps a FIFO from
    blocking the open, and fstat on the opened fd (not the path: no race) refuses the rest.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
    try:
        # Opened without truncating: the holder's pid must stay readable until we own the lock.
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LedgerError("the lock file is a symbolic link; refusing to write through it", str(path)) from None
        if exc.errno == errno.EISDIR:
            raise LedgerError("the lock file is a folder, not a regular file", str(path)) from None
        raise LedgerError(f"cannot open the lock file ({exc.strerror})", str(path)) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise LedgerError(f"cannot inspect the lock file ({exc.strerror})", str(path)) from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise LedgerError(f"the lock file is {_kind(mode)}, not a regular file", str(path))
    return fd


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a plain file"
