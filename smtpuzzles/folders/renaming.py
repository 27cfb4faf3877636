"""A folder made in a scratch place takes its final name only if nothing holds that name: never
replacing or merging into a folder (os.rename would replace an empty one), a file or a symlink that
appeared meanwhile. Publishing a run and unpacking a published one both finish this way.
"""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path

_RENAME_NOREPLACE = 1
_AT_CWD = -100


def scratch_folder(parent: Path, prefix: str, suffix: str = "") -> Path:
    """A new folder of this writer's own in `parent` (a random part between `prefix` and `suffix`),
    made by mkdir with the umask's mode, as a run folder is (tempfile.mkdtemp would make it 0700)."""
    for _ in range(100):
        path = Path(parent) / f"{prefix}{os.urandom(4).hex()}{suffix}"
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free scratch folder name", str(parent))


def rename_new(scratch: Path, target: Path) -> bool:
    """Rename `scratch` to `target`; False (nothing renamed) when `target` exists or appeared."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):  # not Linux, or a C library without it
        renameat2 = None
    if renameat2 is not None:
        if renameat2(_AT_CWD, os.fsencode(scratch), _AT_CWD, os.fsencode(target), _RENAME_NOREPLACE) == 0:
            return True
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            return False
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):  # a file system without the flag: below
            raise OSError(code, os.strerror(code), str(target))
    # Asked, then renamed: in the moment between, os.rename could only replace an empty folder (a
    # non-empty one, a file or a symlink makes it fail), so nothing recorded is lost even then.
    if target.exists() or target.is_symlink():
        return False
    try:
        os.rename(scratch, target)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        return False
    except OSError as exc:
        if exc.errno == errno.ENOTEMPTY:
            return False
        raise
    return True
