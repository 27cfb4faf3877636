"""Roguelike benchmark: the SMT answer (flow encoding, z3, proof of optimality included) against the
plain BFS reference from the tests, side by side on seeded random maps of growing size.

  python scripts/bench_rogue.py [--sizes 20 100 200] [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from gen_rogue import random_map  # noqa: E402
from smtpuzzles import run as runner  # noqa: E402
from smtpuzzles.puzzles import rogue  # noqa: E402
from test_rogue import bfs_gold  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[20, 100, 200])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'map':9} {'seed':>4} {'gold':>5} {'SMT s':>9} {'BFS s':>9} {'SMT/BFS':>9} {'s per 1k cells':>15}  agree")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            for seed in range(args.seeds):
                text = random_map(size, size, seed)
                started = time.perf_counter()
                dungeon = rogue.load(text, "map", {})
                outcome, _ = runner.solve(rogue, dungeon, text, out_dir=Path(tmp))
                smt = time.perf_counter() - started
                started = time.perf_counter()
                reference = bfs_gold(text)
                bfs = time.perf_counter() - started
                agree = "yes" if outcome.status == "optimal" and outcome.value == reference else "NO"
                print(f"{size}x{size:<5} {seed:4d} {outcome.value:5d} {smt:9.2f} {bfs:9.3f} {smt / bfs:8.0f}x "
                      f"{smt / (size * size) * 1000:15.3f}  {agree}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
