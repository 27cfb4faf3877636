"""`python -m smtpuzzles` and the `smtpuzzles` command.

A Ctrl-C that comes while the tool is still importing (z3, rich, the installed puzzles) ends it as a
Ctrl-C does later, one line and exit 130, not with a traceback from inside an import; one that comes
after the command is done (its run sealed) is ignored while the solvers' objects are torn down.

Start-up (the imports, the parser, the puzzle) runs with the cyclic garbage collector paused: what
it makes lives as long as the process. When the command's work begins (`cli.common.start_up_over`)
those objects are frozen out of the collector's way and collection resumes: a short run's whole
process took about 0.01 s less CPU (docs/benchmarks.md).
"""

import gc
import signal
import sys


def entry() -> int:
    paused = gc.isenabled()
    gc.disable()
    try:
        try:
            from smtpuzzles.cli import common, main
        except KeyboardInterrupt:
            print("smtpuzzles: interrupted", file=sys.stderr)
            return _handled(130)
        common.STARTING = paused
        status = main()
    finally:
        # Whatever way out (entry is also called in-process, by tests), collection as it was. What
        # start-up froze stays frozen: the interpreter's last collection, at exit, then passes it
        # by (unfrozen, that collection took about 0.007 s).
        common = sys.modules.get("smtpuzzles.cli.common")
        if common is not None:
            common.STARTING = False
        if paused:
            gc.enable()
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
