"""One hard King's-tour check split into cubes on a Dask LocalCluster: 1 worker against 2, and the
whole check on one engine as the baseline, side by side in one process.

The check is a recorded run's closing claim ("nothing beats the best"), or with --step one check the
run recorded (an unfinished run's: 16x16), asked of today's default encoding (the number is the
same). A recorded check already in a cube of depth 1 (the tour's first cell) is split into the
cubes of depth 2 inside it (the first two cells). Each configuration answers it from scratch: the cluster's
workers build the encoding and their engine once, inside the timing, as a user's would.

  python scripts/bench_cubes.py results/kingtour-b0f14a9274-20261201-085847 --depth 1 --workers 1 2
  python scripts/bench_cubes.py results/kingtour-88585deb89-20261201-063046 --step 57 --workers 1 2
  python scripts/bench_cubes.py results/kingtour-88585deb89-20261201-063046 --step 98 --workers 2 \
      --limit 300 --no-whole
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from smtpuzzles.cluster import DaskCubes  # noqa: E402
from smtpuzzles.cubes import with_cube  # noqa: E402
from smtpuzzles.engines import make_engine  # noqa: E402
from smtpuzzles.objective import claim_terms  # noqa: E402
from smtpuzzles.puzzles import kingtour  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a finished King's-tour run whose closing claim is re-asked")
    parser.add_argument("--depth", type=int, default=1, choices=(1, 2))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--encoding", default="onehot-sym")
    parser.add_argument("--step", type=int, help="the recorded check of this index instead of the closing claim")
    parser.add_argument("--limit", type=float, help="seconds each check and each cube may take (default: none)")
    parser.add_argument("--no-whole", action="store_true", help="skip the whole check on one engine")
    args = parser.parse_args()
    import distributed

    run = json.loads((args.run_dir / "run.json").read_text())
    board = kingtour.from_canonical(run["instance"])
    enc = kingtour.encode(board, args.encoding)
    if args.step is None:
        claim = run["certificate"]["claim"]
        cubes = enc.advice.cubes(args.depth)
    else:
        claim = recorded_claim(args.run_dir, args.step)
        inside = claim.pop("cube", None)
        cubes = [c for c in enc.advice.cubes(2 if inside else args.depth) if not inside or c[:len(inside)] == inside]
        if inside:
            claim["cube"] = inside  # the whole check is the recorded one, in its own cube
    print(f"{kingtour.describe(board)}: {claim['op']} of the record, {len(cubes)} cubes of depth {len(cubes[0])}")

    baseline = None
    if not args.no_whole:
        started = time.perf_counter()
        whole = make_engine("sat", enc.formula).check(claim_terms(enc.objective, claim), args.limit)
        baseline = time.perf_counter() - started
        print(f"{'whole check, one engine':28} {whole.status:6} {baseline:8.1f} s", flush=True)

    job = {"puzzle": "kingtour", "instance": run["instance"], "encoding": args.encoding, "engine": "sat", "params": {},
           "base_sha256": enc.formula.sha256}
    for workers in args.workers:
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, distributed.Client(cluster) as client:
            started = time.perf_counter()
            answers = []
            for index, answer in DaskCubes(client, job).run([with_cube(claim, c) for c in cubes], args.limit):
                answers.append(answer)
                print(f"  cube {' '.join(cubes[index])}: {answer['status']} {answer['seconds']:.1f} s", flush=True)
                if answer["status"] == "sat":  # as a run does: one SAT cube answers the check
                    break
            wall = time.perf_counter() - started
        statuses = {a["status"] for a in answers}
        busiest = max(a["seconds"] for a in answers)
        print(f"{f'cubes on {workers} worker(s)':28} {'/'.join(sorted(statuses)):6} {wall:8.1f} s "
              f"(slowest cube {busiest:.1f} s, sum {sum(a['seconds'] for a in answers):.1f} s); "
              + (f"{baseline / wall:.2f}x the whole check" if baseline else f"{len(answers)} of {len(cubes)} cubes answered"),
              flush=True)
    return 0


def recorded_claim(run_dir: Path, index: int) -> dict:
    """The claim of the run's recorded check `index` (the audit checks the ledger; this only reads it)."""
    for line in (run_dir / "steps.jsonl").read_text().splitlines():
        step = json.loads(line)
        if step["index"] == index:
            return dict(step["claim"])
    sys.exit(f"{run_dir}: no recorded check {index}")


if __name__ == "__main__":
    raise SystemExit(main())
