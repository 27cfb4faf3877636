"""What a checked proof costs beside a plain solve, on the King's-tour records' closing queries.

For each board (8x8 2x4, 9x9 3x3, 10x10 2x5) the closing query is built as `certify` builds it (the
record's instance, its recorded encoding and certificate claim; its sha-256 is the stored proof's),
then, in the same run: a plain solve of it with no proof (CaDiCaL 1.9.5, the solver the new path
uses, and Glucose 4.2, the fastest here), certify_query on the CaDiCaL-LRAT path, and certify_query
on the old Glucose/DRUP path. Printed: wall and CPU seconds (CPU of this process and its children:
the machine may be shared, and wall time then says more about the neighbours), certify / plain on
CPU, the lemmas stored and their size as stored (gzip -6 of the LRAT text).

With --whole, what the issue asks of `solve --certify`: the whole `smtpuzzles solve kingtour --size N
--box RxC` against the same with `--certify` (the encoder's proof and the reference formula's), each
a fresh process, in turn (plain, certify, plain, ...) --runs times; printed: each one's CPU seconds
(the process and the solver children it waited for), wall seconds and peak memory, and certify /
plain on both.

    python scripts/bench_proof.py [--boards 8 9 10] [--no-old] [--timeout S]
    python scripts/bench_proof.py --whole [--boards 8 9 10] [--runs 3]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
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


def whole_run(board: str, certify: bool, out: Path) -> tuple[float, float, float, int]:
    """(CPU seconds, wall seconds, peak MB, exit status) of one `smtpuzzles solve kingtour` process
    (--certify or not), the children it waited for (the proof solvers) included, as the kernel
    accounts them (wait4)."""
    size, box = BOARDS[board]
    command = [sys.executable, "-m", "smtpuzzles", "solve", "kingtour", "--size", str(size), "--box", box,
               "--out", str(out), "--json", *(["--certify"] if certify else [])]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, child.returncode


def bench_whole(boards: list[str], runs: int) -> None:
    """certify makes its two proofs side by side (two solver children at once), so it is quicker on
    the wall than on the CPU when a core is free: both are printed."""
    print(f"{'board':<7} {'solve':>14} {'--certify':>14} {'ratio':>13} {'peak MB':>11}  (medians, CPU / wall s;")
    print(f"{'':<7} {'cpu / wall':>14} {'cpu / wall':>14} {'cpu / wall':>13} {'':>11}   each pair's CPU ratio)")
    for board in boards:
        size, box = BOARDS[board]
        plain, certified, ratios, peaks = ([], []), ([], []), ([], []), ([], [])
        with tempfile.TemporaryDirectory(prefix="bench-proof-") as out:
            for _ in range(runs):
                for certify, seconds, peak in ((False, plain, peaks[0]), (True, certified, peaks[1])):
                    used, wall, mb, code = whole_run(board, certify, Path(out))
                    if code != 0:
                        sys.exit(f"{size}x{size}: solve{' --certify' if certify else ''} exited {code}")
                    seconds[0].append(used)
                    seconds[1].append(wall)
                    peak.append(mb)
                ratios[0].append(certified[0][-1] / plain[0][-1])
                ratios[1].append(certified[1][-1] / plain[1][-1])
        m = statistics.median
        print(f"{size}x{size:<4} {m(plain[0]):6.1f} / {m(plain[1]):5.1f} {m(certified[0]):6.1f} / {m(certified[1]):5.1f} "
              f"{m(ratios[0]):5.2f} / {m(ratios[1]):4.2f}x {max(peaks[0]):5.0f}/{max(peaks[1]):<5.0f}  "
              f"({', '.join(f'{r:.2f}' for r in ratios[0])})", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["8", "9", "10"], choices=BOARDS)
    parser.add_argument("--no-old", action="store_true", help="skip the old Glucose/DRUP path (the slow one)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per certify_query (default 900)")
    parser.add_argument("--whole", action="store_true", help="whole solve against solve --certify, as processes")
    parser.add_argument("--runs", type=int, default=1, help="with --whole: pairs per board (default 1)")
    args = parser.parse_args()
    if args.whole:
        bench_whole(args.boards, args.runs)
        return 0

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
