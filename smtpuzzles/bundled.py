"""The bundled examples: every seed case of the built-in puzzles and the model job file, shipped
inside the package (smtpuzzles/examples/, package data) so that an installed copy has them too.

The puzzles read them in place (`export` writes their formulas); `smtpuzzles examples` writes them
out as files a user can open, edit and hand to `solve` or `batch`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from smtpuzzles.errors import InputError

if TYPE_CHECKING:  # importlib.abc's before 3.11, importlib.resources.abc's after
    from importlib.resources.abc import Traversable

# A Traversable, not a Path: read through importlib.resources, it is found wherever the package is
# (a checkout, an installed wheel, a zip).
EXAMPLES = resources.files("smtpuzzles") / "examples"
JOB_FILE = "examples.toml"  # the model job file, at the top of the folder; its inputs are beside it
DEFAULT_OUT = "smtpuzzles-examples"


def bundled_files(folder: Traversable = EXAMPLES, prefix: str = "") -> Iterator[tuple[str, Traversable]]:
    """(path relative to the examples folder, the file) for every bundled file, in name order."""
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
    planned = [(out / relative, source.read_bytes()) for relative, source in bundled_files()]
    for target, data in planned:
        if target.is_dir() or (target.exists() and target.read_bytes() != data):
            raise InputError("is there already and is not the bundled file; choose another --out or move it away",
                             str(target))
    written = []
    for target, data in planned:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.write_bytes(data)
        except OSError as exc:  # a file where a folder goes, no space
            raise InputError(f"cannot write ({exc.strerror or exc.__class__.__name__})", str(exc.filename or target)) from None
        written.append(target)
    return written
