"""Portable SMT-LIB2: re-solving saved queries with z3 or cvc5, each in a fresh process.

`python -m smtpuzzles.smtlib --solver cvc5 < query.smt2` prints sat, unsat or unknown. The audit runs
saved queries this way so that neither solver shares memory, state or code with the run that wrote
them (the cvc5 wheel ships no binary, so its Python API is driven here).
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import time
from pathlib import Path

SOLVERS = ("z3", "cvc5")


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
    if solver == "z3":
        return solve_with_z3(text)
    if solver == "cvc5":
        return solve_with_cvc5(text)
    raise ValueError(f"unknown solver {solver!r}")


def solve_in_subprocess(text: str, solver: str, timeout: float | None = None) -> tuple[str, float]:
    """(answer, seconds) from a fresh Python process; errors come back as `error: ...`."""
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "smtpuzzles.smtlib", "--solver", solver],
                              input=text.encode(), capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "unknown (timeout)", time.perf_counter() - started
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
        return f"error: {last}", seconds
    return done.stdout.decode().strip(), seconds


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
    print(solve_text(text, args.solver))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
