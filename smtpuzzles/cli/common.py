"""What every command shares: exit codes, one-line messages, a run's value in its summary, a quiet
exit after a broken pipe."""

from __future__ import annotations

import gc
import json
import os
import sys


from smtpuzzles.shown import escaped


# Set by `__main__.entry` when it paused the garbage collector for start-up (see start_up_over).
STARTING = False
# Set by __main__.entry: this process is the command itself (not a test or a program calling
# cli.main), so once a Ctrl-C has ended the command, later ones are ignored (cli.main).
THE_COMMAND = False

EXIT = {"optimal": 0, "solved": 0, "infeasible": 0, "unknown": 3, "interrupted": 130}


def one_line(text: str) -> str:
    """A message as one line: newlines and other control characters shown escaped."""
    return escaped(text)


def value_field(value) -> str:
    """A run's value (as `value_json` gives it) for the `value` row of a summary, alike in `solve`
    and `show`: rows of a picture one per line (too wide ones are drawn below instead), other JSON
    as JSON cut to one line, None as a dash."""
    if value is None:
        return "—"
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value) if max(map(len, value), default=0) <= 50 else "the regions drawn below"
    if not isinstance(value, str):
        shown = json.dumps(value)
        return shown if len(shown) <= 60 else shown[:57] + "..."
    return value


def stderr_is_terminal() -> bool:
    """Whether rich's `Console(stderr=True).is_terminal` holds (the live display, and no plain
    progress lines), without loading rich, which the JSON and plain paths do not need: stderr's
    isatty, as rich asks it. Where rich would look further (TTY_COMPATIBLE or FORCE_COLOR set,
    IPython, IDLE), rich itself is asked (tests/test_cli_startup.py holds the two to one answer)."""
    import builtins

    if hasattr(builtins, "get_ipython") or str(getattr(sys.stdin, "__module__", "")).startswith("idlelib") \
            or "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        from rich.console import Console

        return Console(stderr=True).is_terminal
    stream = getattr(sys.stderr, "rich_proxied_file", sys.stderr)
    isatty = getattr(stream, "isatty", None)
    try:
        return False if isatty is None else bool(isatty())
    except ValueError:  # a closed file
        return False


def start_up_over() -> None:
    """The command's work begins: what start-up made (modules, classes, the parser, the puzzle) lives
    as long as the process, so it is frozen out of the collector's way (no collection walks it
    again) and collection, paused by `__main__.entry`, resumes; the little start-up left behind (the
    parser once parsed) is kept, not collected. Called once the command's modules are loaded (by
    `main`, and by `solve` when its request is made); nothing when entry paused nothing."""
    global STARTING
    if STARTING:
        STARTING = False
        gc.freeze()
        gc.enable()


def quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush raises nothing either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture stdout)
        pass
