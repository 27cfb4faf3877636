"""Solver child processes that die with the process that started them.

A proof or a re-solve runs in a child process (a fresh solver, a hard time limit). If the parent is
killed (`kill -9`, a CI timeout, a closed terminal), an orphaned child would go on using a core for
as long as its solver runs; on Linux the kernel is asked to kill it when its parent dies.
"""

from __future__ import annotations

import signal
import sys

PR_SET_PDEATHSIG = 1  # prctl(2)


def die_with_parent() -> None:
    """For subprocess's `preexec_fn`: on Linux, SIGKILL this child when its parent exits; elsewhere
    nothing (the parent's own timeout and interrupt handling still end it)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: the parent's handling is what remains
        pass
