"""The tool's argparse: help laid out with defaults, its error style (one line naming the argument,
exit 2, the nearest flag or choice), flags added on first use, and the trial parser that prints
nothing (smtpuzzles.cli.parser builds the commands' flags with these)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, the width argparse lays help out for, without importing
    shutil (and the compression modules it loads) at every start-up: argparse makes a formatter
    even to build a parser. COLUMNS when a positive number, else the terminal's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())
    except (AttributeError, ValueError, OSError):
        return 80
    return size.columns or 80


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that shows each option's default where it has a real one (not None or False)."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None, **more):
        if width is None:  # as argparse takes it, from shutil
            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width, **more)

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in text \
                and "default:" not in text and (action.option_strings or action.nargs == "?"):
            text += " (default: %(default)s)"
        return text

    def _fill_text(self, text, width, indent):
        """Text laid out in lines already (the list of puzzles) is kept as it is."""
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class Parser(argparse.ArgumentParser):
    """argparse with the tool's error style: one line naming the argument, exit 2; a mistyped flag
    also shows the subcommand's usage and the nearest valid flag."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)
        self.commands: dict[str, "Parser"] = {}
        self.fill: Callable[["Parser"], None] | None = None  # adds the rest of the flags on first use
        # Parses the arguments with fewer flags first: the namespace and extras, or None to parse in full.
        self.narrow: Callable[["Parser", list, object], tuple | None] | None = None
        self.late_help: list[Callable[[], None]] = []  # each sets a help text before help is shown

    def filled(self) -> "Parser":
        if self.fill is not None:
            fill, self.fill = self.fill, None
            fill(self)
        return self

    def parse_known_args(self, args=None, namespace=None):
        if self.fill is not None and self.narrow is not None and args is not None:
            parsed = self.narrow(self, list(args), namespace)
            if parsed is not None:
                return parsed
        self.filled()
        return super().parse_known_args(args, namespace)

    def format_usage(self):
        return self.filled()._format(super().format_usage)

    def format_help(self):
        return self.filled()._format(super().format_help)

    def _format(self, formatted: Callable[[], str]) -> str:
        for late in self.late_help:
            late()
        self.late_help = []
        return formatted()

    def parse_args(self, args=None, namespace=None):
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            target = self.commands.get(getattr(namespace, "command", None) or "", self)
            target.unrecognized(extras)
        return namespace

    def unrecognized(self, extras: list[str]) -> None:
        import difflib  # only for a mistake: the nearest flag

        word = extras[0]
        flags = [flag for action in self._actions for flag in action.option_strings if flag.startswith("--")]
        near = difflib.get_close_matches(word.split("=", 1)[0], flags, n=1, cutoff=0.5) if word.startswith("-") else []
        hint = f"; did you mean {near[0]}?" if near else f"; see {self.prog} --help"
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: unrecognized argument {word!r}{hint}\n")

    def error(self, message: str):
        if "invalid choice" in message:  # argparse 3.11 lists the choices but does not guess
            import difflib

            bad = message.split("invalid choice: ", 1)[-1].split(" (", 1)[0].strip("'")
            # The named argument's own choices: `--cubes 3` is no misspelt engine.
            named = message.split(":", 1)[0].removeprefix("argument ").split("/")
            own = [a for a in self._actions if a.choices and (set(named) & set(a.option_strings)
                                                             or named[0] in (a.metavar, a.dest))]
            choices = [c for action in own or self._actions for c in (action.choices or ())]
            near = difflib.get_close_matches(bad, [str(c) for c in choices], n=1, cutoff=0.5)
            if near:
                message += f"; did you mean {near[0]}?"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class Retry(Exception):
    """A trial parse met something only the full parser may answer."""


class TrialParser(Parser):
    """A parser that prints nothing and takes no abbreviated flag: anything it would print or
    refuse raises Retry instead, for the full parser to parse again."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def _print_message(self, message, file=None):
        raise Retry

    def exit(self, status=0, message=None):
        raise Retry

    def error(self, message):
        raise Retry


class Commands(dict):
    """The subcommands' parsers, each with all its flags when it is looked up (a test reading
    `commands["solve"]._actions` sees the puzzles' flags, as `solve` does when it parses)."""

    def __getitem__(self, name):
        return super().__getitem__(name).filled()

    def get(self, name, default=None):
        return self[name] if name in self else default

    def values(self):
        return [self[name] for name in self]

    def items(self):
        return [(name, self[name]) for name in self]
