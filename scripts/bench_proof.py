"""What a checked proof costs beside a plain solve, on the King's-tour records' closing queries.

For each board (8x8 2x4, 9x9 3x3, 10x10 2x5) the closing query is built as `certify` builds it (the
record's instance, its recorded encoding and certificate claim; its sha-256 is the stored proof's),
then, in the same run: a plain solve of it with no proof (CaDiCaL 1.9.5, the solver the new path
uses, and Glucose 4.2, the fastest here), certify_query on the CaDiCaL-LRAT path, and certify_query
on the old Glucose/DRUP path. Printed: wall and CPU seconds (CPU of this process and its children:
the machine may be shared, and wall time then says more about the neighbours), certify / plain on
CPU, the lemmas stored and their size as stored (gzip -6 of the LRAT text).

    python scripts/bench_proof.py [--boards 8 9 10] [--no-old] [--timeout S]
"""

from __future__ import annotations

import argparse
import glob
import json
import resource
import sys
import time
from pathlib import Path

from pysat.solvers import Solver

from smtpuzzles import puzzles

from smtpuzzles.proofs import proof
from smtpuzzles.objective import claim_terms

ROOT = Path(__file__).resolve().parents[1]
BOARDS = {"8": (8, "2x4"), "9": (9, "3x3"), "10": (10, "2x5"), "12": (12, "3x4")}
PLAIN = ("cadical195", "glucose42")


def closing_query(board: str) -> tuple[proof.Dimacs, bool]:
    """The record's closing query, and whether it is the query of the proof stored with it."""
    size, box = BOARDS[board]
    for path in sorted(glob.glob(str(ROOT / "results" / "kingtour-*" / "run.json"))):
        run = json.loads(Path(path).read_text())
        if (run["instance"]["size"], run["instance"]["box"]) == (size, box) and "certificate" in run:
            module = puzzles.get("kingtour")
            enc = module.encode(module.from_canonical(run["instance"]), run["encoding"]["name"])
            query = proof.dimacs(enc.formula, claim_terms(enc.objective, run["certificate"]["claim"]))
            return query, query.sha256 == run.get("proof", {}).get("dimacs_sha256")
    sys.exit(f"no results/kingtour-* record of {size}x{size} ({box}) with a closing claim")


def cpu() -> float:
    """CPU seconds (user and system) of this process and the children it waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measured(work):
    wall, used = time.perf_counter(), cpu()
    result = work()
    return result, time.perf_counter() - wall, cpu() - used


def plain_solve(clauses: list[list[int]], name: str) -> str:
    with Solver(name=name, bootstrap_with=clauses) as engine:
        return "sat" if engine.solve() else "unsat"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["8", "9", "10"], choices=BOARDS)
    parser.add_argument("--no-old", action="store_true", help="skip the old Glucose/DRUP path (the slow one)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per certify_query (default 900)")
    args = parser.parse_args()

    print(f"{'board':<7} {'what':<30} {'wall s':>7} {'cpu s':>7} {'÷' + PLAIN[0]:>12} {'÷' + PLAIN[1]:>11} "
          f"{'lemmas':>8} {'LRAT MB':>8} {'gzip MB':>8}")
    for board in args.boards:
        query, stored = closing_query(board)
        size, box = BOARDS[board]
        label = f"{size}x{size}"
        print(f"{label:<7} query: {query.variables:,} variables, {query.clauses:,} clauses, sha-256 {query.sha256[:12]}… "
              + ("(the stored proof's query)" if stored else "(NOT the stored proof's query)"))
        _, clauses = proof.read_dimacs(query.text)
        plain = {}
        for name in PLAIN:
            answer, wall, used = measured(lambda: plain_solve(clauses, name))
            plain[name] = used
            print(f"{label:<7} {'plain solve, ' + name + ' (' + answer + ')':<30} {wall:7.1f} {used:7.1f}")
        paths = [proof.LRAT_SOLVER] + ([] if args.no_old else [proof.DEFAULT_SOLVER])
        for solver in paths:
            try:
                made, wall, used = measured(lambda: proof.certify_query(query, solver=solver, timeout=args.timeout))
            except proof.ProofError as exc:
                print(f"{label:<7} {'certify, ' + solver:<30} no proof: {exc.message}")
                continue
            stored_size = len(proof.compress(made.lrat))
            print(f"{label:<7} {'certify, ' + made.solver:<30} {wall:7.1f} {used:7.1f} "
                  f"{used / plain[PLAIN[0]]:11.1f}x {used / plain[PLAIN[1]]:10.1f}x "
                  f"{made.lemmas:8,} {len(made.lrat) / 1e6:8.1f} {stored_size / 1e6:8.2f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
