"""The command line: arguments, output and exit codes.

Exit codes: 0 an answer (optimal, solved, infeasible; audit clean), 1 an audit claim failed,
2 bad input (one line on stderr, nothing recorded is touched), 3 unknown (a time limit), 130 interrupted.
"""

from __future__ import annotations

import importlib
import signal
import sys

from smtpuzzles.errors import InputError
from smtpuzzles.shown import escaped

from smtpuzzles import stops, ticker
from smtpuzzles.cli import common
from smtpuzzles.cli.common import EXIT, one_line, quiet_stdout, start_up_over
from smtpuzzles.cli.parser import build_parser

__all__ = ["EXIT", "ProgressView", "build_parser", "main"]


def main(argv=None) -> int:
    # (A stream in memory, io.StringIO, has the encoding None: it takes any text.)
    if (getattr(sys.stdout, "encoding", None) or "utf-8").lower().replace("-", "") != "utf8" \
            and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # an ASCII terminal gets '?' for arrows, not a traceback
    try:
        # Building the parser loads the installed puzzles: a Ctrl-C during it is a Ctrl-C like any other.
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error already reported in one line
            return exc.code if isinstance(exc.code, int) else 2
        ticker.FORM = getattr(args, "progress", "plain")  # --progress json: every ticker of the command
        run = command(args.command)
        if args.command in PROVING and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            stops.take_sigterm()
        if args.command != "solve":  # solve: once its run's modules are loaded, as the run starts
            start_up_over()
        try:
            return run(args)
        finally:
            # As it was for whoever called main in its own process; the installed command keeps a
            # taken SIGTERM's handler (a burst's later ones ignored) until it ignores every stop.
            if not (common.THE_COMMAND and stops.taken()):
                stops.give_back()
    except InputError as exc:
        print(f"smtpuzzles: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `smtpuzzles ... | head`: the reader left; nothing more to say
        quiet_stdout()
        return 0
    except OSError as exc:
        if exc.filename is None:
            raise
        print(f"smtpuzzles: error: {escaped(exc.filename)}: {exc.strerror or exc.__class__.__name__}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if common.THE_COMMAND:  # the run is sealed: a burst's later Ctrl-Cs must not interrupt the way out
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("smtpuzzles: interrupted", file=sys.stderr)
        return 130
    except RuntimeError as exc:  # a RefereeRejected, an encoding bug: never shown as an answer
        # (its module is loaded by whatever raised it; the command line does not load it to start)
        objectives = sys.modules.get("smtpuzzles.objectives.base")
        if objectives is None or not isinstance(exc, objectives.RefereeRejected):
            raise
        print(f"smtpuzzles: internal error: {one_line(str(exc))}", file=sys.stderr)
        return 1


# Commands that make proofs for hours, in children and temporary folders: a SIGTERM (kill, a
# scheduler's limit) ends them as a Ctrl-C does, children killed and folders removed, where the
# default left a prover's folder of gigabytes behind. solve and batch take SIGTERM themselves.
PROVING = ("audit", "certify", "proofs")


# Each command's module is imported when that command runs (start-up: `--help` and `solve` load
# neither rich's live display nor the audit, the web page or the batch runner; docs/benchmarks.md).
COMMANDS = {"solve": "solving", "certify": "solving", "unpack": "other_commands", "audit": "other_commands",
            "proofs": "other_commands", "show": "showing", "export": "other_commands", "examples": "other_commands",
            "convert": "other_commands", "results": "other_commands", "serve": "other_commands",
            "batch": "other_commands"}


def command(name: str):
    """The function that runs the command `name` (`cmd_NAME` in its module)."""
    return getattr(importlib.import_module(f"smtpuzzles.cli.{COMMANDS[name]}"), f"cmd_{name}")


def __getattr__(name: str):
    # `from smtpuzzles.cli import ProgressView` (and the cmd_ functions) as before the lazy imports.
    if name == "ProgressView":
        from smtpuzzles.cli.solving import ProgressView

        return ProgressView
    if name.startswith("cmd_") and name[4:] in COMMANDS:
        return command(name[4:])
    raise AttributeError(f"module 'smtpuzzles.cli' has no attribute {name!r}")
