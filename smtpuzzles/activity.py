"""What a run is doing between its steps that the steps cannot show, for the live views: a question
shared out as cubes, or a check gone on to fresh solvers, can take hours and records its one step
at its end, so the code doing the work reports it here and the progress line, the live display and
`--progress json` show it as it stands.

One piece of work at a time in a process, as one run is (the run's Ctrl-C flag is kept the same
way, in smtpuzzles.engines); a report is ended only by whoever made it, so another run's end in
the same process does not wipe it. Nothing here is recorded, and `show` on a folder another
process writes cannot see it.
"""

from __future__ import annotations

import threading
from typing import Callable

_lock = threading.Lock()
_describe: Callable[[], dict] | None = None


def report(describe: Callable[[], dict]) -> Callable[[], dict]:
    """The work under way: `describe()` gives it as it stands when asked, a dict of plain JSON
    values with its `words` (a line of under 80 columns). Returns what `ended` takes."""
    global _describe
    with _lock:
        _describe = describe
    return describe


def ended(describe: Callable[[], dict]) -> None:
    """The work `report` was told of is over (a later report stays)."""
    global _describe
    with _lock:
        if _describe is describe:
            _describe = None


def facts() -> dict | None:
    """What the work under way reports, None when there is none (or it fails to say: a live view's
    thread must not die of it)."""
    with _lock:
        describe = _describe
    if describe is None:
        return None
    try:
        return describe()
    except Exception:
        return None


def words() -> str | None:
    said = facts()
    return None if said is None else str(said.get("words", ""))
