"""The command line: arguments, output and exit codes.

Exit codes: 0 an answer (optimal, solved, infeasible; audit clean), 1 an audit claim failed,
2 bad input (one line on stderr, nothing recorded is touched), 3 unknown (a time limit), 130 interrupted.
"""

from __future__ import annotations

import sys

from smtpuzzles.driver import RefereeRejected
from smtpuzzles.errors import InputError
from smtpuzzles.shown import escaped

from smtpuzzles import ticker
from smtpuzzles.cli.common import EXIT, one_line, quiet_stdout
from smtpuzzles.cli.other_commands import (cmd_audit, cmd_batch, cmd_convert, cmd_examples, cmd_export, cmd_proofs,
                                           cmd_results, cmd_serve)
from smtpuzzles.cli.parser import build_parser
from smtpuzzles.cli.showing import cmd_show
from smtpuzzles.cli.solving import ProgressView, cmd_certify, cmd_solve

__all__ = ["EXIT", "ProgressView", "build_parser", "main"]


def main(argv=None) -> int:
    if getattr(sys.stdout, "encoding", "utf-8").lower().replace("-", "") != "utf8" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # an ASCII terminal gets '?' for arrows, not a traceback
    try:
        # Building the parser loads the installed puzzles: a Ctrl-C during it is a Ctrl-C like any other.
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error already reported in one line
            return exc.code if isinstance(exc.code, int) else 2
        ticker.FORM = getattr(args, "progress", "plain")  # --progress json: every ticker of the command
        return COMMANDS[args.command](args)
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
        print("smtpuzzles: interrupted", file=sys.stderr)
        return 130
    except RefereeRejected as exc:  # an encoding bug: never shown as an answer
        print(f"smtpuzzles: internal error: {one_line(str(exc))}", file=sys.stderr)
        return 1


COMMANDS = {"solve": cmd_solve, "certify": cmd_certify, "audit": cmd_audit, "proofs": cmd_proofs, "show": cmd_show,
            "export": cmd_export,
            "examples": cmd_examples, "convert": cmd_convert, "results": cmd_results, "serve": cmd_serve,
            "batch": cmd_batch}
