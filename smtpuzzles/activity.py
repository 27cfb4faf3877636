"""What a run is doing between its steps that the steps cannot show, for the live views: a question
shared out as cubes can take hours and record one step at its end, so its cubes are counted here
as they end (smtpuzzles.sharing.runner) and the progress line and live display show the count.

One piece of work at a time in a process, as one run is (the run's Ctrl-C flag is kept the same
way, in smtpuzzles.engines). Words only: nothing here is recorded, and `show` on a folder another
process writes cannot see them.
"""

from __future__ import annotations

import threading
from typing import Callable

_lock = threading.Lock()
_describe: Callable[[], str] | None = None


def report(describe: Callable[[], str] | None) -> None:
    """The work under way: a call giving it in a few words as it stands when asked (None: nothing
    beyond what the steps show)."""
    global _describe
    with _lock:
        _describe = describe


def words() -> str | None:
    with _lock:
        describe = _describe
    return describe() if describe is not None else None
