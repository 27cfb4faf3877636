"""The bundled examples: every seed case of the built-in puzzles and the model job file, shipped
inside the package (smtpuzzles/examples/, package data) so that an installed copy has them too.

The puzzles read them in place (`export` writes their formulas); `smtpuzzles examples` writes them
out as files a user can open, edit and hand to `solve` or `batch`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from smtpuzzles.errors import InputError

if TYPE_CHECKING:  # importlib.abc's before 3.11, importlib.resources.abc's after
    from importlib.resources.abc import Traversable

JOB_FILE = "examples.toml"  # the model job file, at the top of the folder; its inputs are beside it
DEFAULT_OUT = "smtpuzzles-examples"


def examples_folder() -> Traversable:
    """EXAMPLES: a Traversable, not a Path: read through importlib.resources, it is found wherever the
    package is (a checkout, an installed wheel, a zip)."""
    from importlib import resources

    return resources.files("smtpuzzles") / "examples"


def __getattr__(name: str):
    # EXAMPLES is made when first asked for: importlib.resources is not needed to solve (start-up).
    if name == "EXAMPLES":
        globals()["EXAMPLES"] = examples = examples_folder()
        return examples
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def bundled_files(folder: Traversable | None = None, prefix: str = "") -> Iterator[tuple[str, Traversable]]:
    """(path relative to the examples folder, the file) for every bundled file, in name order."""
    folder = examples_folder() if folder is None else folder
    if not folder.is_dir():
        raise InputError("the bundled examples are missing from this installation (reinstall smtpuzzles)",
                         str(folder))
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith((".", "__")):  # __pycache__ and editors' files are not examples
            continue
        if entry.is_dir():
            yield from bundled_files(entry, f"{prefix}{entry.name}/")
        else:
            yield prefix + entry.name, entry


def write_examples(out: Path) -> list[Path]:
    """Write every bundled file below `out`, keeping the layout (the job file's globs are relative to
    it). A file already there with other content (a user's edit) is never overwritten: that is one
    line before anything is written. Files already equal are left as they are."""
    planned = [(relative, source.read_bytes()) for relative, source in bundled_files()]
    there = {relative: holds(out, relative, data) for relative, data in planned}
    for relative, data in planned:
        if there[relative] is False:
            raise InputError("is there already and is not the bundled file; choose another --out or move it away",
                             str(out / relative))
    for relative, data in planned:
        if there[relative] is None:
            write_below(out, relative, data)
    return [out / relative for relative, _ in planned]


# Writing below a folder the user named, where anyone may have planted something: only regular
# files, made anew or replaced whole (smtpuzzles.folders.durable.write_atomic: a temporary file of
# the writer's own, then renamed), never through a symbolic link at a file or at a folder on the way
# (which would lead the write elsewhere), never opening a FIFO (it would block) or a device, and
# never reading more than the file should hold (smtpuzzles.folders.bounded.open_regular).
def holds(out: Path, relative: str, data: bytes) -> bool | None:
    """Whether `out/relative` holds `data` (None: nothing there yet), read no further than that."""
    from smtpuzzles.folders.bounded import open_regular

    target = regular_below(out, relative)
    if target is None:
        return None
    with open_regular(target.parent, target.name, "a file") as handle:
        return os.fstat(handle.fileno()).st_size == len(data) and handle.read(len(data) + 1) == data


def write_below(out: Path, relative: str, data: bytes | str) -> Path:
    """`data` as the regular file `out/relative` (a path with `/`), its folders made as needed."""
    from smtpuzzles.folders.durable import write_atomic

    folder = out
    for number, part in enumerate(["", *relative.split("/")[:-1]]):
        folder = folder / part
        try:
            folder.mkdir(parents=number == 0)  # `out` as the user named it, then each folder below it
        except FileExistsError:
            pass  # checked below: a folder, and no link
        except OSError as exc:
            raise InputError(f"cannot make the folder ({exc.strerror or exc.__class__.__name__})", str(folder)) from None
    regular_below(out, relative)  # just before writing: nothing planted since
    write_atomic(out / relative, data)
    return out / relative


def regular_below(out: Path, relative: str) -> Path | None:
    """`out/relative` when a regular file is there, None when nothing is (or a folder on the way is
    missing); refused in one line when a folder on the way or the file is a symbolic link, or
    something other than a folder or a regular file is in the way."""
    path = out
    parts = relative.split("/")
    for number, part in enumerate(parts, 1):
        path = path / part
        try:
            kind = stat.S_IFMT(os.lstat(path).st_mode)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InputError(f"cannot look at it ({exc.strerror or exc.__class__.__name__})", str(path)) from None
        if kind == stat.S_IFLNK:
            raise InputError("is a symbolic link; refusing to write through it", str(path))
        wanted = stat.S_IFREG if number == len(parts) else stat.S_IFDIR
        if kind != wanted:
            words = "a regular file" if wanted == stat.S_IFREG else "a folder"
            raise InputError(f"is not {words}; refusing to write {'to' if wanted == stat.S_IFREG else 'below'} it",
                             str(path))
    return path
