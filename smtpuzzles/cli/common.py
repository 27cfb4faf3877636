"""What every command shares: exit codes, one-line messages, a quiet exit after a broken pipe."""

from __future__ import annotations

import os
import sys


from smtpuzzles.shown import escaped


EXIT = {"optimal": 0, "solved": 0, "infeasible": 0, "unknown": 3, "interrupted": 130}


def one_line(text: str) -> str:
    """A message as one line: newlines and other control characters shown escaped."""
    return escaped(text)


def quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush raises nothing either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture stdout)
        pass
