"""Plain progress lines at a steady pace, for output that is not a terminal: a log, `nohup`, a pipe.

A terminal gets rich's live display instead; a log would get nothing for minutes, so long work
prints one line every `--progress-every` seconds (10 by default): the elapsed time and where the
work stands, within 80 columns, with nothing a terminal would read as a control sequence.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable

from smtpuzzles.shown import escaped

EVERY = 10.0  # seconds between lines, unless --progress-every says otherwise
WIDTH = 80


class Ticker:
    """`with Ticker(line, every):` prints `line()` every `every` seconds until the block ends (0: never)."""

    def __init__(self, line: Callable[[], str], every: float = EVERY, stream=None):
        self.line, self.every = line, every
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
                text = self.line()
            except Exception as exc:  # noqa: BLE001 - a progress line never stops the work it describes
                text = f"(progress unavailable: {exc.__class__.__name__})"
            stamp = f"[{clock(time.monotonic() - self.started)}] "
            line = escaped(stamp + text)
            try:
                print(line if len(line) <= WIDTH else line[:WIDTH - 3] + "...", file=self.stream, flush=True)
            except (OSError, ValueError):  # the log went away (a closed pipe): stop saying anything
                return


def clock(seconds: float) -> str:
    """Elapsed time as H:MM:SS."""
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"
