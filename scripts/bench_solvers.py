"""One recorded King's-tour check asked of several SAT solvers, one after the other, each in a fresh
engine with the same time limit: which answers, how fast, and how many conflicts a second it makes.

A run's hard question is asked again from scratch (today's encoding, the recorded claim and cube):

  python scripts/bench_solvers.py runs/kingtour-88585deb89-20261201-063046 --step 888 \\
      --solvers glucose4 cadical195 --limit 600
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from smtpuzzles.engines.satengine import SatEngine  # noqa: E402
from smtpuzzles.objective import claim_terms  # noqa: E402
from smtpuzzles.puzzles import kingtour  # noqa: E402
from bench_cubes import recorded_claim  # noqa: E402  (this folder: the same reading of a ledger)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a King's-tour run folder")
    parser.add_argument("--step", type=int, required=True, help="the index of the recorded check to ask again")
    parser.add_argument("--solvers", nargs="+", default=["glucose4", "cadical195"], help="python-sat solver names")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds each solver may take")
    parser.add_argument("--encoding", default="onehot-sym")
    args = parser.parse_args()

    run = json.loads((args.run_dir / "run.json").read_text())
    claim = recorded_claim(args.run_dir, args.step)
    started = time.perf_counter()
    board = kingtour.from_canonical(run["instance"])
    enc = kingtour.encode(board, args.encoding)
    terms = claim_terms(enc.objective, claim)
    print(f"{kingtour.describe(board)}, step {args.step} ({claim['op']} at position {claim.get('pos', '?') + 1}"
          f"{', cube ' + ' '.join(claim['cube']) if 'cube' in claim else ''}): encoded in "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    for name in args.solvers:
        started = time.perf_counter()
        # The engine itself, not make_engine: a solver a run may not name yet (cadical195) is measured too.
        engine = SatEngine(enc.formula, {"solver": name, "guide": False})
        loaded = time.perf_counter() - started
        cpu = time.process_time()  # CPU seconds: the rate holds on a machine shared with other work
        answer = engine.check(terms, args.limit)
        seconds, cpu = time.perf_counter() - started - loaded, time.process_time() - cpu
        conflicts = answer.stats.get("conflicts", 0)
        print(f"  {name:12} {answer.status:8} {seconds:7.1f} s wall, {cpu:7.1f} s CPU (+{loaded:.0f} s loading)  "
              f"{conflicts:>9,} conflicts, {conflicts / max(cpu, 1e-9):,.0f} per CPU second", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
