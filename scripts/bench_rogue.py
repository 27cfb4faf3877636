"""Roguelike benchmark: whole runs with their proof, the regions encoding (the default) and the old
flow encoding side by side with the plain BFS reference from the tests, on seeded random maps.

  python scripts/bench_rogue.py [--sizes 20 100 300 1000] [--seeds 1] [--flow-max 300]

Each solve is `smtpuzzles solve rogue MAP --encoding E --json` in a fresh process (status optimal,
closed-set certificate, UNSAT step at best + 1 recorded); regions runs are then audited with
`audit --resolve` (z3 and cvc5 re-solve that step). Seconds are wall time, MB the peak resident
memory of that process alone; BFS seconds are its search alone (`bfs_gold` from tests/test_rogue.py,
without the interpreter's start). The flow runs only up to --flow-max (284 to 382 s at 300x300).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from gen_rogue import random_map  # noqa: E402


def measured(*args: str) -> tuple[float, float, str]:
    """(wall seconds, peak MB, stdout) of one command in a fresh process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *args], stdout=out, stderr=err, text=True)
        # Reaped here, not by Popen: wait4 gives this child's own peak memory.
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if code:
            raise SystemExit(f"{' '.join(args[:4])} failed ({code}): {err.read().strip()[-300:]}")
        return seconds, usage.ru_maxrss / 1024, out.read()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[20, 100, 300, 1000])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--flow-max", type=int, default=300, help="largest side the flow encoding is run on")
    parser.add_argument("--bfs", help=argparse.SUPPRESS)  # internal: print the BFS answer for this map
    args = parser.parse_args()
    if args.bfs:
        from test_rogue import bfs_gold

        text = Path(args.bfs).read_text()
        started = time.perf_counter()
        gold = bfs_gold(text)
        print(gold, time.perf_counter() - started)
        return 0
    print(f"{'map':>9} {'seed':>4} {'gold':>6} {'regions':>8} {'MB':>5} {'audit':>6} "
          f"{'flow':>7} {'MB':>5} {'BFS':>6} {'MB':>5} agree")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            for seed in range(args.seeds):
                path = Path(tmp) / f"{size}-{seed}.txt"
                path.write_text(random_map(size, size, seed))
                runs = Path(tmp) / "runs"
                results = {}
                for encoding in ("regions", "flow"):
                    if encoding == "flow" and size > args.flow_max:
                        continue
                    seconds, mb, out = measured("-m", "smtpuzzles", "solve", "rogue", str(path), "--encoding",
                                                encoding, "--json", "--out", str(runs))
                    answer = json.loads(out)
                    results[encoding] = (seconds, mb, answer)
                    if encoding == "regions":
                        audit_s, _, report = measured("-m", "smtpuzzles", "audit", answer["run_dir"], "--resolve")
                        if "audit clean" not in report:
                            raise SystemExit(f"audit of {answer['run_dir']} is not clean:\n{report}")
                _, bfs_mb, out = measured(str(Path(__file__).resolve()), "--bfs", str(path))
                reference, bfs_s = int(out.split()[0]), float(out.split()[1])
                agree = all(r[2]["status"] == "optimal" and r[2]["value"] == reference for r in results.values())
                regions_s, regions_mb, _ = results["regions"]
                flow = f"{results['flow'][0]:7.1f} {results['flow'][1]:5.0f}" if "flow" in results else f"{'-':>7} {'-':>5}"
                print(f"{size:>4}x{size:<4} {seed:4d} {reference:6d} {regions_s:8.1f} {regions_mb:5.0f} {audit_s:6.1f} "
                      f"{flow} {bfs_s:6.1f} {bfs_mb:5.0f} {'yes' if agree else 'NO'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
