"""Files written whole and put on disk: the ledger's writes, and anything else this package writes
that a reader must never see half-made (batch summaries, bundled examples, unpacked copies).

A file is written under a temporary name of the writer's own and renamed onto its path, so a reader
sees the old file or the new one. Syncing is the caller's choice: at once per file, or many files
together (`disk_sync`: one syncfs of the file system on Linux, else `at_once`, each on a thread).
"""

from __future__ import annotations

import gzip
import os
import re
import sys
import threading
from pathlib import Path

from smtpuzzles.errors import LedgerError

# syncfs is used only while this little is waiting to be written back machine-wide (/proc/meminfo's
# Dirty and Writeback, kB): it writes back every file of the file system, another job's included.
DISK_SYNC_DIRTY_KB = 16 * 1024  # at 100 MB/s, what it would wait for is about 0.16 s
_syncfs = None  # Linux's syncfs(2) from the C library, looked up on first use; False: none here


def write_atomic(path: Path, text: str | bytes, sync: bool = True, before_rename=None) -> None:
    data = text if isinstance(text, bytes) else str.encode(text, "utf-8")
    _replace_with(path, lambda handle: handle.write(data), sync, before_rename)


def write_gz(path: Path, text: str, sync: bool = True) -> None:
    # Level 1: a 50x50 grid-partition base (1.2M clauses) took 12 s to compress at level 9, under 2 s
    # here, for files about a third larger. The text's sha-256 is what is checked, not the bytes.
    def write(handle):
        with gzip.GzipFile(filename="", mode="wb", fileobj=handle, compresslevel=1, mtime=0) as packed:
            # Encoded a slice at a time: a large base is not held twice over, text and bytes.
            for start in range(0, len(text), 1 << 20):
                packed.write(str.encode(text[start:start + (1 << 20)], "utf-8"))
    _replace_with(path, write, sync)


def _replace_with(path: Path, write, sync: bool = True, before_rename=None) -> None:
    """Write a file whole under a temporary name (synced to disk unless `sync` is False), then
    rename it onto `path`; `before_rename(temporary path)`, if given, is called between the two (the
    seal syncs its files there, the temporary one with them).

    The temporary name is the writer's own (pid and random) and is created exclusively without
    following symlinks, so that two writers never share one and nothing planted in a folder is
    written through; the rename replaces whatever entry `path` is (a symlink included) instead of
    writing to what it points at. A reader only ever sees the old file or the new one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")  # _TEMPORARY's form
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(tmp, flags, 0o644)
    except OSError as exc:
        raise LedgerError(f"cannot write ({exc.strerror})", str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        if before_rename is not None:
            before_rename(tmp)
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise LedgerError(f"cannot write ({exc.strerror or exc})", str(path)) from None
        raise


def at_once(jobs: list) -> None:
    """Run `jobs` side by side, each but the first on a thread of its own, and return when all have
    ended; the first one's failure, or else the first failure of the others, raised. Plain threads:
    concurrent.futures (and logging under it) cost 4 ms of every run's start-up."""
    failures: list[BaseException] = []

    def run(job) -> None:
        try:
            job()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(job,), name="ledger-sync", daemon=True) for job in jobs[1:]]
    for thread in threads:
        thread.start()
    try:
        jobs[0]()
    finally:
        for thread in threads:
            thread.join()
    if failures:
        raise failures[0]


def sync_files(paths: list[Path]) -> None:
    """Put `paths` on disk file by file, at once (`at_once`); a disk error names its file."""
    at_once([lambda path=path: sync_file(path) for path in paths])


# The temporary names `_replace_with` writes under: .NAME.PID.RANDOM.tmp
_TEMPORARY = re.compile(r"\.(.+)\.\d+\.[0-9a-f]{8}\.tmp")


def drop_temporary_files(folder: Path, names) -> None:
    """Remove what a killed writer left in `folder` under the temporary names of the files `names`
    (never a folder): the caller holds the folder's lock, so no writer is writing one now."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        found = _TEMPORARY.fullmatch(entry.name)
        if found and found.group(1) in names and not entry.is_dir(follow_symlinks=False):
            try:
                os.unlink(Path(folder) / entry.name)
            except OSError:
                pass


def open_folder(folder: Path) -> int | None:
    """A descriptor of `folder` for `disk_sync`, to be opened before the writes it is to vouch for
    (None where it cannot be opened: a symlinked folder, say; the caller then syncs file by file)."""
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None


def disk_sync(folder_fd: int | None) -> bool:
    """Put every file of the folder's file system on disk in one call (Linux's syncfs): a young
    run's five to seven files cost 1.6 ms of CPU and 9 ms of wall time synced on threads, 0.35 ms
    and 3 ms so (ext4). True only if every write-back since `folder_fd` was opened succeeded:
    syncfs reports an error to each descriptor opened before it (Linux 5.8 on), and to no
    descriptor opened after another process saw it, so the caller opens the folder before its
    writes (`open_folder`). False, and nothing promised, where there is no syncfs or it cannot
    report errors (an older kernel), where it reports one (the caller then syncs file by file,
    which names the file a disk error is on), or while the machine has more than
    DISK_SYNC_DIRTY_KB waiting to be written back, which syncfs would wait for."""
    global _syncfs
    if _syncfs is None:
        _syncfs = _find_syncfs()
    if folder_fd is None or not _syncfs or _dirty_kb() > DISK_SYNC_DIRTY_KB:
        return False
    return _syncfs(folder_fd) == 0


def _find_syncfs():
    if sys.platform != "linux" or _kernel_version(os.uname().release) < (5, 8):
        return False
    try:
        import ctypes  # 2 ms once, where it is used: no other path of a small run imports it

        return getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None) or False
    except (ImportError, OSError):
        return False


def _kernel_version(release: str) -> tuple[int, int]:
    """(major, minor) of a Linux release string such as "6.18.44-fc"; (0, 0) if it has none."""
    found = re.match(r"(\d+)\.(\d+)", release)
    return (int(found[1]), int(found[2])) if found else (0, 0)


def _dirty_kb() -> int:
    """What /proc/meminfo says is waiting to be written back, in kB (unreadable: as if too much)."""
    try:
        with open("/proc/meminfo", "rb") as handle:
            text = handle.read(1 << 16)
    except OSError:
        return sys.maxsize
    fields = dict(line.split()[:2] for line in text.splitlines() if len(line.split()) > 1)
    waiting = [fields.get(key, b"") for key in (b"Dirty:", b"Writeback:")]
    return sum(map(int, waiting)) if all(map(bytes.isdigit, waiting)) else sys.maxsize


def sync_file(path: Path) -> None:
    """Sync a file written before without it (a write the run left to the operating system)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise LedgerError(f"cannot sync ({exc.strerror})", str(path)) from None
    try:
        os.fsync(fd)
    except OSError as exc:
        raise LedgerError(f"cannot sync ({exc.strerror})", str(path)) from None
    finally:
        os.close(fd)
