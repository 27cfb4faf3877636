"""Reading files nobody vouches for, within bounds: only a folder's own regular files by fixed names
(no symlink, device, FIFO or path), size caps checked before reading, gzip read as a stream that
stops at a cap on what it expands to, JSON counted and its nesting measured on the bytes before it
is parsed, and no control character in any string. Every refusal is a LedgerError naming the file.
The run-folder reader (smtpuzzles.folders.runfolder) reads through these; they know no run folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import zlib
from pathlib import Path

from smtpuzzles.errors import LedgerError

MiB = 1 << 20
MAX_GZ_FILE = 1024 * MiB  # a compressed file larger than this is refused unread
DEFAULT_JSON_VALUES = 1_000_000


def open_regular(folder: Path, name: str, what: str):
    """An open binary handle on `folder/name`, which must be a regular file (no symlink, device,
    FIFO or folder), or None when it does not exist."""
    if "/" in name or name in ("", ".", ".."):
        raise LedgerError(f"{what}: file name {name!r} leaves the run folder", str(folder))
    path = folder / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: a symlink; others: permissions and the like
        if os.path.islink(path):
            raise LedgerError("is a symbolic link; a run folder's files must be its own", str(path)) from None
        raise LedgerError(f"cannot open ({exc.strerror})", str(path)) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise LedgerError("is not a regular file", str(path))
    return os.fdopen(fd, "rb")


def read_capped(folder: Path, name: str, cap: int, what: str, required: bool = True) -> bytes | None:
    handle = open_regular(folder, name, what)
    if handle is None:
        if required:
            raise LedgerError(f"{what} is missing", str(folder / name))
        return None
    with handle:
        if os.fstat(handle.fileno()).st_size > cap:
            raise LedgerError(f"{what} is larger than {cap // MiB} MiB; refusing to read it", str(folder / name))
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise LedgerError(f"{what} is larger than {cap // MiB} MiB; refusing to read it", str(folder / name))
    return data


# Caps on JSON, checked on the bytes before anything is parsed: a value costs up to about 64 bytes
# of memory however few bytes of file it takes (`[],` is three), so a 57 MiB file of empty lists
# would cost 4 GB. The published runs use a thousandth of each (the 12x12 record's steps.jsonl
# holds 166,135 values, its run.json 362); a count's steps repeat every solution found so far.
MAX_JSON_DEPTH = 64  # the deepest the runs written here nest is 6
_JSON_NESTING = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')


def json_values(data: bytes) -> int:
    """An upper bound on the values a JSON text holds (commas and brackets inside strings count too)."""
    return data.count(b",") + data.count(b"[") + data.count(b"{") + 1


def _check_depth(data: bytes, where: str) -> None:
    if data.count(b"[") + data.count(b"{") <= MAX_JSON_DEPTH:
        return
    depth = 0
    for match in _JSON_NESTING.finditer(data):
        token = match.group()[:1]
        if token in b"[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise LedgerError(f"JSON nested too deeply (past {MAX_JSON_DEPTH} levels); refusing to parse it", where)
        elif token in b"]}":
            depth -= 1


def parse_json(data: bytes, where: str, max_values: int = DEFAULT_JSON_VALUES):
    """JSON from a folder, refused before parsing past `max_values` values or MAX_JSON_DEPTH levels."""
    if json_values(data) > max_values:
        raise LedgerError(f"holds more than {max_values:,} JSON values; refusing to parse it", where)
    _check_depth(data, where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LedgerError(f"not UTF-8 (byte {exc.start})", where) from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise LedgerError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})", where) from None
    except ValueError as exc:  # NaN/Infinity, or an integer too long to convert
        raise LedgerError(f"not valid JSON ({exc})", where) from None
    except RecursionError:
        raise LedgerError("JSON nested too deeply", where) from None


def check_text(data, where: str, path: str = "") -> None:
    """No string anywhere in `data` holds a control character: folder text is shown on terminals,
    and an escape sequence there could paint over a verdict or reach the clipboard."""
    stack = [(data, path)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, str):
            if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
                raise LedgerError(f"a string{' at ' + at if at else ''} holds a control character", where)
        elif isinstance(value, dict):
            for key, item in value.items():
                stack.append((key, at))
                stack.append((item, f"{at}.{key}"[:80] if at else str(key)[:40]))
        elif isinstance(value, list):
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(value))


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def gz_digest(folder: Path, name: str, max_text: int, what: str) -> tuple[str, int] | None:
    """(sha-256, length) of the text a gzip file expands to, read as a stream; None when the file
    is missing. More than `max_text` bytes of text is reported as larger than that, without reading
    on: callers pass the length of what the file should hold, plus one."""
    digest, length = hashlib.sha256(), 0
    for out in _gz_chunks(folder, name, what):
        if out is None:
            return None
        digest.update(out)
        length += len(out)
        if length > max_text:
            return "larger", length
    return digest.hexdigest(), length


def read_gz(folder: Path, name: str, max_text: int, what: str) -> bytes | None:
    """The text of a gzip file, read as a stream and refused past `max_text` bytes (a compressed
    bomb stops there); None when the file is missing."""
    parts, length = [], 0
    for out in _gz_chunks(folder, name, what):
        if out is None:
            return None
        parts.append(out)
        length += len(out)
        if length > max_text:
            raise LedgerError(f"{what} expands past {max_text:,} bytes; refusing to read it", str(folder / name))
    return b"".join(parts)


class GzLines:
    """The lines of a gzip file, read as a stream (never held whole): at most `max_text` bytes of
    text and `max_line` bytes a line, each refusal a LedgerError naming the file. The sha-256 and
    length of the whole text are known once `finish` has read to the end (a reader that stops
    early, as a proof check does at the empty clause, still hashes what follows)."""

    def __init__(self, folder: Path, name: str, max_text: int, max_line: int, what: str):
        self.where, self.what = str(folder / name), what
        self.max_text, self.max_line = max_text, max_line
        self._chunks = _gz_chunks(folder, name, what)
        self._digest, self.length = hashlib.sha256(), 0
        self.missing = False
        self.unterminated = False  # the text's last line had no newline
        first = next(self._chunks)
        if first is None:
            self.missing = True
            self._first = b""
        else:
            self._first = first

    def _take(self, chunk: bytes) -> bytes:
        self._digest.update(chunk)
        self.length += len(chunk)
        if self.length > self.max_text:
            raise LedgerError(f"{self.what} expands past {self.max_text:,} bytes; refusing to read it", self.where)
        return chunk

    def __iter__(self):
        if self.missing:
            return
        pending = b""
        chunks = [self._first]
        self._first = b""
        while True:
            for chunk in chunks:
                pending += self._take(chunk)
                start = 0
                while True:
                    end = pending.find(b"\n", start)
                    if end < 0:
                        break
                    yield pending[start:end]
                    start = end + 1
                pending = pending[start:]
                if len(pending) > self.max_line:
                    raise LedgerError(f"{self.what} has a line longer than {self.max_line:,} bytes", self.where)
            chunk = next(self._chunks, None)
            if chunk is None:
                break
            chunks = [chunk]
        if pending:
            self.unterminated = True
            yield pending

    def finish(self) -> str:
        """Read what is left unhashed and return the sha-256 of the whole text."""
        if self._first:
            self._take(self._first)
            self._first = b""
        for chunk in self._chunks:
            self._take(chunk)
        return self._digest.hexdigest()


def _gz_chunks(folder: Path, name: str, what: str):
    """The expanded text of a gzip file, a chunk at a time (a single None when it is missing)."""
    handle = open_regular(folder, name, what)
    if handle is None:
        yield None
        return
    path = str(folder / name)
    with handle:
        if os.fstat(handle.fileno()).st_size > MAX_GZ_FILE:
            raise LedgerError(f"{what} is larger than {MAX_GZ_FILE // MiB} MiB compressed", path)
        inflate = zlib.decompressobj(wbits=31)  # a gzip member
        try:
            while True:
                chunk = inflate.unconsumed_tail or handle.read(1 << 16)
                if not chunk:
                    break
                yield inflate.decompress(chunk, 1 << 20)
                if inflate.eof:
                    rest = inflate.unused_data.strip(b"\0") or handle.read(2)
                    if rest[:2] == b"\x1f\x8b":  # concatenated files: one member is what is published
                        raise LedgerError(f"{what} holds a second gzip member (one stream is read: "
                                          "recompress it whole)", path)
                    if rest:
                        raise LedgerError(f"{what} holds data after its gzip stream", path)
                    break
        except zlib.error as exc:
            raise LedgerError(f"{what} is not valid gzip ({exc})", path) from None
        if not inflate.eof:
            raise LedgerError(f"{what} is cut off (the gzip stream does not end)", path)
