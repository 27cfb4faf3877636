"""`python -m smtpuzzles` and the `smtpuzzles` command.

A Ctrl-C that comes while the tool is still importing (z3, rich, the installed puzzles) ends it as a
Ctrl-C does later, one line and exit 130, not with a traceback from inside an import; one that comes
after the command is done (its run sealed) is ignored while the solvers' objects are torn down.
The process `command` starts (the installed command, `python -m`) then ends at once after a
Ctrl-C: a burst of them (a key held down) had left worker processes stuck on a lock, and the
interpreter's exit waited on them for ever.

Start-up (the imports, the parser, the puzzle) runs with the cyclic garbage collector paused: what
it makes lives as long as the process. When the command's work begins (`cli.common.start_up_over`)
those objects are frozen out of the collector's way and collection resumes: a short run's whole
process took about 0.01 s less CPU (docs/benchmarks.md).
"""

import gc
import os
import signal
import sys


def entry() -> int:
    sys.unraisablehook = _quiet_about_ctrl_c
    paused = gc.isenabled()
    gc.disable()
    try:
        try:
            from smtpuzzles.cli import common, main
        except KeyboardInterrupt:
            print("smtpuzzles: interrupted", file=sys.stderr)
            return _handled(130)
        common.STARTING, common.THE_COMMAND = paused, True
        try:
            status = main()
        except KeyboardInterrupt:  # one more Ctrl-C after main's own line: still an interrupted command
            status = 130
    finally:
        # Whatever way out (entry is also called in-process, by tests), collection as it was. What
        # start-up froze stays frozen: the interpreter's last collection, at exit, then passes it
        # by (unfrozen, that collection took about 0.007 s).
        common = sys.modules.get("smtpuzzles.cli.common")
        if common is not None:
            common.STARTING = common.THE_COMMAND = False
        if paused:
            gc.enable()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return _handled(status)


def _quiet_about_ctrl_c(unraisable) -> None:
    """A Ctrl-C that lands in a finaliser or a weak reference's callback (a burst of them during
    start-up) is no error worth a traceback: Python would print "Exception ignored in ..." for it;
    one a SIGTERM raised is raised again outside it (smtpuzzles.stops.lost). Anything else is shown
    as Python shows it."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)
        return
    stops = sys.modules.get("smtpuzzles.stops")
    if stops is not None:
        stops.lost(unraisable.exc_value)


def command() -> int:
    """The installed command and `python -m smtpuzzles`: `entry`, then, after a Ctrl-C (exit 130:
    the run is sealed, its files synced, its workers tied to this process), the process ends at
    once, without the interpreter's exit (which joins worker processes and frees solvers)."""
    try:
        try:
            status = entry()
        finally:
            _ignore_stops()  # the command is done: only its end is left
    except KeyboardInterrupt:  # one more Ctrl-C (or SIGTERM, which audit takes as one) as entry ended
        _ignore_stops()
        status = 130
    if status == 130:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(130)
    return status


def _ignore_stops() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _handled(status: int) -> int:
    """The status, as the exit status. CPython remembers a KeyboardInterrupt that ended code run
    from a string (the methods dataclasses write while a module imports) and, at exit, kills
    itself with SIGINT even when the interrupt was caught: a Ctrl-C then said its line and exited
    -2 instead of 130, about one in fifteen during the imports. Running code from a string clears it."""
    exec("pass")
    return status


if __name__ == "__main__":
    raise SystemExit(command())
