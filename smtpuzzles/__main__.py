"""`python -m smtpuzzles` and the `smtpuzzles` command.

A Ctrl-C that comes while the tool is still importing (z3, rich, the installed puzzles) ends it as a
Ctrl-C does later, one line and exit 130, not with a traceback from inside an import; one that comes
after the command is done (its run sealed) is ignored while the solvers' objects are torn down.
"""

import signal
import sys


def entry() -> int:
    try:
        from smtpuzzles.cli import main
    except KeyboardInterrupt:
        print("smtpuzzles: interrupted", file=sys.stderr)
        return _handled(130)
    status = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return _handled(status)


def _handled(status: int) -> int:
    """The status, as the exit status. CPython remembers a KeyboardInterrupt that ended code run
    from a string (the methods dataclasses write while a module imports) and, at exit, kills
    itself with SIGINT even when the interrupt was caught: a Ctrl-C then said its line and exited
    -2 instead of 130, about one in fifteen during the imports. Running code from a string clears it."""
    exec("pass")
    return status


if __name__ == "__main__":
    raise SystemExit(entry())
