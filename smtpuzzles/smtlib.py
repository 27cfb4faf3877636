"""Portable SMT-LIB2: solving one query with z3 or cvc5, each in a fresh process.

`python -m smtpuzzles.smtlib --solver cvc5 < query.smt2` prints sat, unsat or unknown. The audit runs
the queries it rebuilds this way so that neither solver shares memory, state or code with the run it
checks (the cvc5 wheel ships no binary, so its Python API is driven here).

Only a script of plain problem commands is solved (`STRICT_COMMANDS`): an option such as
`:regular-output-channel` or a command such as `echo` makes a solver write files, so a script holding
anything else is refused before any solver sees it, naming the line.
"""

from __future__ import annotations

import argparse
import gzip
import re
import subprocess
import sys
import time
from pathlib import Path
from smtpuzzles.children import die_with_parent, python_child

SOLVERS = ("z3", "cvc5")
STRICT_COMMANDS = frozenset(("set-logic", "set-info", "declare-fun", "declare-const", "define-fun", "assert",
                             "check-sat", "exit"))
# One token of SMT-LIB2: white space, a comment, a string, a quoted symbol, a bracket, or a plain
# symbol/numeral/keyword. Every character of a script must belong to one of them.
_TOKEN = re.compile(r'\s+|;[^\n]*|"(?:[^"]|"")*"|\|[^|\\]*\||\(|\)|[^\s()";|]+')


class ScriptRefused(ValueError):
    """A script holds a command outside `STRICT_COMMANDS`, or is not well formed."""


def check_script(text: str) -> None:
    """Refuse anything but plain problem commands, naming the line of the first offender."""
    depth, at_head, pos = 0, False, 0

    def refuse(why: str, where: int) -> ScriptRefused:
        return ScriptRefused(f"line {text.count(chr(10), 0, where) + 1}: {why}")

    for match in _TOKEN.finditer(text):
        if match.start() != pos:
            raise refuse("unterminated string or quoted symbol", pos)
        pos = match.end()
        token = match.group()
        first = token[0]
        if first.isspace() or first == ";":
            continue
        if at_head:
            if token not in STRICT_COMMANDS:
                raise refuse(f"command {token[:40]!r} is not allowed (only {', '.join(sorted(STRICT_COMMANDS))})", match.start())
            at_head = False
        if token == "(":
            at_head = depth == 0
            depth += 1
        elif token == ")":
            depth -= 1
            if depth < 0:
                raise refuse("unbalanced ')'", match.start())
        elif depth == 0:
            raise refuse(f"{token[:40]!r} outside a command", match.start())
    if pos != len(text):
        raise refuse("unterminated string or quoted symbol", pos)
    if depth or at_head:
        raise refuse("the script ends inside a command", len(text))


def solve_with_z3(text: str) -> str:
    import z3

    pure_boolean = "(set-logic QF_UF)" in text[:200]
    solver = z3.SolverFor("QF_FD") if pure_boolean else z3.Solver()
    solver.from_string(text)
    return str(solver.check())


def solve_with_cvc5(text: str) -> str:
    import cvc5

    manager = cvc5.TermManager()
    solver = cvc5.Solver(manager)
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    symbols = parser.getSymbolManager()
    answers = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        out = command.invoke(solver, symbols)
        if out and out.strip():
            answers.append(out.strip())
    return answers[-1] if answers else "unknown"


def solve_text(text: str, solver: str) -> str:
    check_script(text)
    if solver == "z3":
        return solve_with_z3(text)
    if solver == "cvc5":
        return solve_with_cvc5(text)
    raise ValueError(f"unknown solver {solver!r}")


def solve_in_subprocess(text: str, solver: str, timeout: float | None = None, watch=None) -> tuple[str, float]:
    """(answer, seconds) from a fresh Python process; errors come back as `error: ...`. `watch`,
    when given, is handed the child as it starts (a Ctrl-C of the audit kills it from there)."""
    started = time.perf_counter()
    child = subprocess.Popen(python_child("smtpuzzles.smtlib", "--solver", solver), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=die_with_parent)
    try:
        if watch is not None:
            watch(child)
        out, err = child.communicate(text.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        return "unknown (timeout)", time.perf_counter() - started
    finally:  # a timeout, an interrupt: never leave the solver running
        if child.poll() is None:
            child.kill()
            child.communicate()
    seconds = time.perf_counter() - started
    if child.returncode != 0:
        last = (err.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
        return f"error: {last}", seconds
    return out.decode().strip(), seconds


def read_query(path: Path) -> str:
    from smtpuzzles.errors import LedgerError

    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                return handle.read()
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LedgerError("query file is missing", str(path)) from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise LedgerError(f"query file is unreadable ({exc})", str(path)) from None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m smtpuzzles.smtlib", description=__doc__.splitlines()[0])
    parser.add_argument("--solver", choices=SOLVERS, default="z3")
    parser.add_argument("file", nargs="?", help="query file (.smt2 or .smt2.gz); stdin when absent")
    args = parser.parse_args(argv)
    text = read_query(Path(args.file)) if args.file else sys.stdin.read()
    try:
        print(solve_text(text, args.solver))
    except ScriptRefused as exc:
        print(f"smtpuzzles.smtlib: refused: {args.file or 'stdin'}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
