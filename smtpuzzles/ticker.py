"""Progress at a steady pace for output that is not a terminal (a log, `nohup`, a pipe), as plain
lines or, with `--progress json`, as one JSON object a line for tools that watch logs.

A terminal gets rich's live display instead; a log would get nothing for minutes, so long work
prints one line every `--progress-every` seconds (10 by default): the elapsed time and where the
work stands, with nothing a terminal would read as a control sequence. A log has no width: each
line is written whole, however long (the 80 columns are a terminal's, and the live display keeps
to them). JSON lines carry the same facts as fields, with `elapsed` in seconds; they are asked for
explicitly, so they are written on a terminal too.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Callable

from smtpuzzles.shown import escaped

EVERY = 10.0  # seconds between lines, unless --progress-every says otherwise
WIDTH = 80  # what a progress line's own words aim at (a terminal's); a log's line is never cut to it
FORMS = ("plain", "json")
# The form the command line asked for (`--progress`), for tickers their caller did not give one.
FORM = "plain"


def pace(every: float, on_terminal: bool, form: str | None = None) -> float:
    """Seconds between lines: none on a terminal (the live display is there) unless JSON was asked for."""
    form = form or FORM
    return every if (form == "json" or not on_terminal) else 0


class Ticker:
    """`with Ticker(line, every):` prints `line()` every `every` seconds until the block ends (0: never).

    `record()`, if given, is what a JSON line holds (a dict, or a list of dicts for one line each);
    without it a JSON line is `{"stage": stage, "text": line()}`. Both get `elapsed` (seconds)."""

    def __init__(self, line: Callable[[], str], every: float = EVERY, stream=None,
                 record: Callable[[], dict | list[dict]] | None = None, form: str | None = None, stage: str = ""):
        self.line, self.every, self.record, self.stage = line, every, record, stage
        self.form = form or FORM
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Ticker:
        if self.every and self.every > 0:
            self._thread = threading.Thread(target=self._run, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                lines = self.lines()
            except Exception as exc:  # noqa: BLE001 - a progress line never stops the work it describes
                lines = [f"(progress unavailable: {exc.__class__.__name__})"]
            try:
                for line in lines:
                    say_line(line, self.stream)
            except (OSError, ValueError):  # the log went away (a closed pipe): stop saying anything
                return

    def lines(self) -> list[str]:
        """What one tick writes: one plain line, whole, or one JSON line per record."""
        elapsed = time.monotonic() - self.started
        if self.form == "json":
            got = self.record() if self.record else {"stage": self.stage, "text": self.line()}
            records = got if isinstance(got, list) else [got]
            return [json.dumps({**r, "elapsed": round(elapsed, 1)}) for r in records]  # ASCII: no control characters
        return [escaped(f"[{clock(elapsed)}] {self.line()}")]


def say_line(line: str, stream) -> None:
    """One line, written in one call: the ticker's thread and a command's own lines (the audit's
    `audit: ...`) go to the same stream, and print's two writes (text, then newline) let the other
    thread's line land in the middle of one."""
    stream.write(line + "\n")
    stream.flush()


def clock(seconds: float) -> str:
    """Elapsed time as H:MM:SS."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
