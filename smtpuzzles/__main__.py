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
        return 130
    status = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return status


if __name__ == "__main__":
    raise SystemExit(entry())
