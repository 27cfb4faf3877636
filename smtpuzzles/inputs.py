"""Reading what a user hands the tool: input files, stdin, URLs and time limits.

Everything here fails with one `InputError` naming the place, never a traceback, and reads at most
MAX_INPUT_BYTES so that `/dev/zero`, a huge file or an endless pipe costs bounded memory and time.
"""

from __future__ import annotations

import math
import os
import re
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from smtpuzzles.errors import InputError

# Where a user's runs go unless told otherwise. results/ holds the project's published records,
# which the tests and the README name one by one: a run of yours never lands among them.
RUNS = "runs"

# The largest accepted instance of any puzzle is far smaller (a 300x300 grid is 90 kB); 4 MiB leaves
# room for comments and padding while still refusing /dev/zero after reading 4 MiB + 1 byte.
MAX_INPUT_BYTES = 4 * 1024 * 1024

URL_PATTERN = re.compile(r"^\s*https?://", re.IGNORECASE)


def is_url(text: str | None) -> bool:
    """True for text that is an http(s) address (puzz.link, pzv.jp) rather than a file name."""
    return bool(text) and bool(URL_PATTERN.match(text))


# The longest time limit a solver can be given: z3 takes its timeout in milliseconds as 32 bits and
# wraps a longer one around to a short one (2^32 + 200 ms times out after 0.2 s), and the timers'
# waits overflow past threading.TIMEOUT_MAX (9.2e9 s). 4,294,967 s is 49.7 days.
MAX_SECONDS = (2 ** 32 - 1) // 1000


def positive_seconds(value, where: str = "--time-limit", text: bool = True) -> float:
    """A time limit in seconds: a finite number greater than zero and at most MAX_SECONDS (a number,
    not a bool; or its text, where `text`: the command line's words, not a program's values)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str) if text else (int, float)):
        raise InputError(f"a time limit is a number of seconds, not {_shown(value)}", where)
    seconds = _number(value)
    if seconds is None:
        raise InputError(f"{_shown(value)} is not a number of seconds", where)
    if not math.isfinite(seconds) or seconds <= 0:
        raise InputError(f"{_shown(value)} is not a finite positive number of seconds", where)
    if seconds > MAX_SECONDS:
        raise InputError(f"{_shown(value)} seconds is longer than a solver can be given ({MAX_SECONDS:,} s, 49 "
                         "days); leave the time limit out for none", where)
    return seconds


def _shown(value) -> str:
    """A value in a one-line message: its repr, cut (a 4 MB string is no message)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def whole_number(value, minimum: int, where: str, text: bool = True) -> int:
    """A whole number no smaller than `minimum`: an int (not a bool), or its digits as text where
    `text`."""
    if isinstance(value, bool) or not isinstance(value, (int, str) if text else int):
        raise InputError(f"{_shown(value)} is not a whole number", where)
    try:
        number = int(value)
    except ValueError:
        raise InputError(f"{_shown(value)} is not a whole number", where) from None
    if number < minimum:
        raise InputError(f"{number} is below the smallest allowed, {minimum}", where)
    return number


def one_of(value, choices: tuple[str, ...], where: str, what: str = "") -> str:
    """One of `choices` (`what` they are, for the message), with the nearest named when one is near."""
    if not isinstance(value, str) or value not in choices:
        import difflib

        near = difflib.get_close_matches(value, choices, n=1, cutoff=0.5) if isinstance(value, str) else []
        hint = f"; did you mean {near[0]}?" if near else ""
        raise InputError(f"{what + ' ' if what else ''}{_shown(value)} is not one of {', '.join(choices)}{hint}", where)
    return value


def true_or_false(value, where: str) -> bool:
    """A flag: True or False only (the string 'no' is truthy, and would be taken as yes)."""
    if not isinstance(value, bool):
        raise InputError(f"{_shown(value)} is not true or false", where)
    return value


def argument(check, name: str):
    """A check for argparse's `type=`: its InputError becomes the parser's one-line message, so the
    command line and the Python API say the same words."""
    import argparse

    def convert(text: str):
        try:
            return check(text)
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.message) from None

    convert.__name__ = name  # what argparse names in its own messages
    return convert


def time_limit_argument(text: str) -> float:
    """`positive_seconds` for argparse's `type=`."""
    return argument(positive_seconds, "time limit")(text)


def seconds_or_zero(value, where: str) -> float:
    """0 or a finite positive number of seconds (`--split-after`, a job's `split_after`: 0 splits
    every check at once)."""
    number = _number(value)
    if number == 0:
        return 0.0
    try:
        return positive_seconds(value, where)
    except InputError:
        if number is not None and number > MAX_SECONDS:  # its own words: too long, not "not a number"
            raise
        raise InputError(f"{_shown(value)} is not 0 or a finite positive number of seconds", where) from None


def _number(value) -> float | None:
    """A number or its text as a float, else None (a bool is no number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return float(value)
    except OverflowError:  # an int past a float's range: a number, and far too large
        return math.inf
    except ValueError:
        return None


def split_after_argument(text: str, flag: str = "--split-after") -> float:
    """`seconds_or_zero` for argparse's `type=`."""
    return argument(lambda value: seconds_or_zero(value, flag), "seconds")(text)


def progress_every_argument(text: str) -> float:
    return split_after_argument(text, "--progress-every")


def read_capped(stream: BinaryIO, where: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """At most `limit` bytes from a binary stream; more is refused without reading it."""
    chunks, total = [], 0
    while total <= limit:
        chunk = stream.read(min(1 << 16, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise InputError(f"input is larger than {limit // (1024 * 1024)} MiB; refused", where)
    return b"".join(chunks)


def decode_text(data: bytes, where: str) -> str:
    """UTF-8 text (an optional byte-order mark dropped); NUL bytes mean this is not a text file."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not UTF-8 text (byte {exc.start + 1}, line {line})", where) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(f"a NUL character on line {line}: this is not a text file", where)
    return text.removeprefix("\ufeff")


def read_text_file(path: str, limit: int = MAX_INPUT_BYTES) -> str:
    """A text file (or `-` for stdin) read with the byte cap; folders and unreadable paths refused."""
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a test's StringIO: already text
            return read_text_string(sys.stdin.read(limit + 1), "stdin", limit)
        return decode_text(read_capped(stream, "stdin", limit), "stdin")
    try:
        # Opened without blocking, so a FIFO with no writer cannot hang the open; read as a stream
        # after, so a pipe with a writer (`<(command)`) is read to its end.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except OSError as exc:
        raise InputError(f"cannot read ({_reason(exc)})", path) from None
    except ValueError:  # a NUL byte, or a character the system cannot name (a lone surrogate)
        raise InputError("cannot read (a character in the path no file name can hold)", _shown(path)) from None
    if stat.S_ISDIR(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise InputError("is a folder, not an input file", path)
    os.set_blocking(descriptor, True)
    with os.fdopen(descriptor, "rb") as stream:
        try:
            data = read_capped(stream, path, limit)
        except OSError as exc:
            raise InputError(f"cannot read ({_reason(exc)})", path) from None
    return decode_text(data, path)


def read_text_string(text: str, where: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The same cap for text that arrived already decoded."""
    if len(text) > limit:
        raise InputError(f"input is larger than {limit // (1024 * 1024)} MiB; refused", where)
    return text


def read_input(path: str | None) -> tuple[str | None, str]:
    """(text, place name) for a solve/convert INPUT: None (no input), `-`, a URL, or a file."""
    if path is None:
        return None, "input"
    if is_url(path):
        return read_text_string(path.strip(), "URL"), "URL"
    if path == "-":
        return read_text_file("-"), "stdin"
    return read_text_file(path), path


def check_writable_folder(path: str, where: str) -> Path:
    """A folder that exists or can be made: refuses a path that names a file (or is below one)."""
    if "\x00" in path:  # no file system takes it (the API can be handed one; a command line cannot)
        raise InputError("a folder's name cannot hold a NUL character", where)
    try:
        os.fsencode(path)
    except UnicodeError:  # a lone surrogate: no file name can hold it
        raise InputError(f"a folder's name cannot hold {_shown(path)}", where) from None
    folder = Path(path)
    for part in (folder, *folder.parents):
        if part.exists():
            if not part.is_dir():
                if part == folder:
                    raise InputError("names a file, not a folder", where + " " + path)
                raise InputError(f"{part} is a file, so no folder can be made below it", where + " " + path)
            if not os.access(part, os.W_OK | os.X_OK):
                raise InputError(f"{part} is not writable", where + " " + path)
            break
    return folder


def parts_folder(name: str, where: str = "--keep-parts") -> Path:
    """--keep-parts DIR, made and written to once now, so that a folder it cannot keep parts in is
    refused before hours of proving, not after the first part."""
    import tempfile

    if not name:
        raise InputError("names no folder", where)
    folder = check_writable_folder(name, where)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise InputError(f"cannot keep parts there: {exc.strerror or exc}", f"{where} {name}") from None
    return folder


def new_folder(name: str, where: str = "--out") -> Path:
    """The folder the files go to: created here, so nothing in it predates this run (an existing
    name, even an empty folder or a link, is refused: files are never written through a link)."""
    if not isinstance(name, str) or not name or "\0" in name:
        raise InputError("takes the name of a new folder", where)
    try:
        os.mkdir(name, 0o755)
    except FileExistsError:
        raise InputError("already exists: name a new folder, so no file there is overwritten", f"{where} {name}") from None
    except OSError as exc:
        raise InputError(f"cannot make the folder ({_reason(exc)})", f"{where} {name}") from None
    return Path(name)


def check_new_file(path: str, where: str) -> Path:
    """A file that can be written: its folder exists and it is not itself a folder."""
    target = Path(path)
    if target.is_dir():
        raise InputError("names a folder, not a file", f"{where} {path}")
    parent = target.parent
    if not parent.is_dir():
        raise InputError(f"the folder {parent} does not exist", f"{where} {path}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"the folder {parent} is not writable", f"{where} {path}")
    return target


def _reason(exc: OSError) -> str:
    return exc.strerror or exc.__class__.__name__


def choice_argument(choices: tuple[str, ...], what: str = ""):
    """An argparse `type=` for one of `choices` (`one_of`: the API's words, and the nearest named)."""
    return argument(lambda text: one_of(text, choices, "", what), "choice")


def whole_number_argument(minimum: int):
    """An argparse `type=` for whole numbers no smaller than `minimum` (--count 0, --jobs 1)."""
    return argument(lambda text: whole_number(text, minimum, ""), "whole number")
