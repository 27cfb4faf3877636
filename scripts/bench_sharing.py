"""Recorded hard King's-tour questions shared out as cubes (smtpuzzles.sharing) on a Dask
LocalCluster, 1 worker against 2, side by side, with one solver on the whole question as a baseline.

Each question is a step of a published run (results/kingtour-*/steps.jsonl): its structured claim
is read and the question rebuilt through the project's own API (today's encoder, the claim's
assumptions made by `claim_terms`, checked equal to the recorded ones); nothing of the folder but
the claim reaches a solver. Workers load the encoding before the clock starts (a run loads it once,
not per question).

Reported per question and worker count: wall seconds, the workers' CPU seconds on cubes (the sum and
each worker's: their balance), cube runs, refuted leaves, re-splits, the tree's depth, and the
makespan the measured cube times would give on 64 workers (list scheduling: a cube starts once its
parent's run ended and a worker is free).

  python scripts/bench_sharing.py                       # the built-in questions
  python scripts/bench_sharing.py --question ba6859c429:398 --workers 1 2 --no-whole
"""

from __future__ import annotations

import argparse
import functools
import gzip
import heapq
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from smtpuzzles.engines import make_engine  # noqa: E402
from smtpuzzles.objectives import claim_terms  # noqa: E402
from smtpuzzles.formula import smt2  # noqa: E402
from smtpuzzles.puzzles import kingtour  # noqa: E402
from smtpuzzles.sharing.pools import DaskPool  # noqa: E402
from smtpuzzles.sharing.runner import question_of, share  # noqa: E402
from smtpuzzles.sharing.tree import summary_problem  # noqa: E402
from smtpuzzles.sharing.worker import Base  # noqa: E402

# run folder (by instance hash) : step; chosen for one fresh solver taking roughly 20-200 s here
QUESTIONS = ("ba6859c429:398", "6d9c40fcc7:672", "88585deb89:481", "ba6859c429:106")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", nargs="+", default=list(QUESTIONS), help="RUN:STEP, RUN a run folder's hash")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--limit", type=float, default=900.0, help="seconds each answer may take")
    parser.add_argument("--cube-seconds", type=float, default=4.0, help="what a cube should take before a re-split")
    parser.add_argument("--no-whole", action="store_true", help="skip the whole question on one solver")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()
    import distributed

    figures = []
    for spec in args.question:
        run_dir, run, claim = recorded(spec)
        enc, solver = load(run), run["engine"]["params"].get("solver", "glucose4")
        terms = claim_terms(enc.objective, claim)
        question = question_of(enc.formula.cnf, terms)
        base = Base(enc.formula.sha256, functools.partial(base_clauses, run["instance"], run["encoding"]["name"]))
        row = {"question": spec, "words": kingtour.describe(kingtour.from_canonical(run["instance"])), "runs": {}}
        print(f"{spec} ({row['words']}): {run_dir.name}", flush=True)
        if not args.no_whole:
            engine = make_engine("sat", enc.formula, {"solver": solver, "guide": False})
            wall, cpu = time.perf_counter(), time.process_time()
            answer = engine.check(terms, args.limit)
            row["whole"] = {"status": answer.status, "wall": time.perf_counter() - wall,
                            "cpu": time.process_time() - cpu, "conflicts": answer.stats.get("conflicts")}
            print(f"  one solver, whole   {answer.status:7} {row['whole']['wall']:7.1f} s wall "
                  f"{row['whole']['cpu']:7.1f} s cpu", flush=True)
            del engine
        for workers in args.workers:
            with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                          dashboard_address=None) as cluster, distributed.Client(cluster) as client:
                client.run(warm, base, solver)  # each worker loads the base before the clock starts
                with DaskPool(client, base, solver) as pool:
                    shared = share(pool, question, time_limit=args.limit, cube_seconds=args.cube_seconds)
            row["runs"][workers] = report(shared, claim, enc, workers)
        figures.append(row)
        side_by_side(row)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


def recorded(spec: str):
    """(folder, run.json, the step's claim) of RUN:STEP; the claim's recorded assumptions must be
    what today's encoder asks, or the question would be another."""
    key, _, index = spec.partition(":")
    found = sorted((ROOT / "results").glob(f"kingtour-{key}-*"))
    if len(found) != 1 or not index.isdigit():
        sys.exit(f"{spec}: expected RUN:STEP naming one results/kingtour-RUN-* folder")
    run = json.loads((found[0] / "run.json").read_text())
    path = next(found[0].glob("steps.jsonl*"))
    with (gzip.open if path.suffix == ".gz" else open)(path, "rt") as lines:
        step = next((s for s in map(json.loads, lines) if s["index"] == int(index)), None)
    if step is None:
        sys.exit(f"{spec}: the run has no step {index}")
    enc = load(run)
    if [smt2(t) for t in claim_terms(enc.objective, step["claim"])] != step["assumptions"]:
        sys.exit(f"{spec}: today's encoder asks other assumptions than the step recorded")
    return found[0], run, step["claim"]


@functools.lru_cache(maxsize=2)
def _encoded(instance_json: str, encoding: str):
    return kingtour.encode(kingtour.from_canonical(json.loads(instance_json)), encoding)


def load(run: dict):
    return _encoded(json.dumps(run["instance"], sort_keys=True), run["encoding"]["name"])


def base_clauses(instance: dict, encoding: str):
    """On a worker: the base formula's clauses and names, from the puzzle's own encoder."""
    cnf = kingtour.encode(kingtour.from_canonical(instance), encoding).formula.cnf
    return cnf.clauses, cnf.names


def warm(base: Base, solver: str) -> None:
    from smtpuzzles.sharing import worker

    worker._loaded(base, solver)


def report(shared, claim: dict, enc, workers: int) -> dict:
    cpu = [r["cpu"] for r in shared.runs]
    out = {"status": shared.status, "wall": shared.seconds, "cube_cpu": sum(cpu), "busy": shared.balance()["busy"],
           "even": shared.balance()["even"], "runs": len(shared.runs), "leaves": len(shared.leaves),
           "resplits": sum(r["status"] == "open" for r in shared.runs),
           "depth": max((len(c) for c in shared.leaves), default=0),
           "cube_cpu_median": statistics.median(cpu) if cpu else 0.0, "cube_cpu_max": max(cpu, default=0.0),
           "makespan_64": makespan(shared.runs, 64), "makespan_2": makespan(shared.runs, 2)}
    if shared.status == "unsat":
        summary = shared.summary(claim, enc.formula.sha256, enc.formula.cnf.names)
        out["summary_problem"] = summary_problem(summary, claim, enc.formula.sha256, enc.formula.cnf.index)
        out["summary_bytes"] = len(json.dumps(summary))
    print(f"  {workers} worker(s), cubes {shared.status:7} {out['wall']:7.1f} s wall {out['cube_cpu']:7.1f} s cpu "
          f"on cubes (workers {' / '.join(f'{b:.1f}' for b in out['busy'])}, even {out['even']}); "
          f"{out['runs']} runs, {out['leaves']} leaves, {out['resplits']} re-splits, depth {out['depth']}, "
          f"cube cpu median {out['cube_cpu_median']:.2f} s max {out['cube_cpu_max']:.2f} s; "
          f"64 workers would take {out['makespan_64']:.1f} s", flush=True)
    if "summary_problem" in out:
        print(f"    summary {out['summary_bytes']:,} bytes, check: {out['summary_problem'] or 'passes'}", flush=True)
    return out


def makespan(runs: list[dict], workers: int) -> float:
    """Seconds (of CPU per cube, as measured) the cube runs would take on `workers`: each starts when
    the run that split it off has ended and a worker is free, earliest ready first."""
    ends: list[float] = [0.0] * len(runs)
    free = [0.0] * workers
    ready = [(0.0, i) for i, r in enumerate(runs) if r["after"] is None]
    children: dict = {}
    for i, r in enumerate(runs):
        if r["after"] is not None:
            children.setdefault(r["after"], []).append(i)
    heapq.heapify(ready)
    heapq.heapify(free)
    while ready:
        at, i = heapq.heappop(ready)
        start = max(at, heapq.heappop(free))
        ends[i] = start + runs[i]["cpu"]
        heapq.heappush(free, ends[i])
        for child in children.get(i, ()):
            heapq.heappush(ready, (ends[i], child))
    return max(ends, default=0.0)


def side_by_side(row: dict) -> None:
    runs = row["runs"]
    if 1 in runs and 2 in runs and runs[1]["status"] == runs[2]["status"]:
        print(f"  2 workers against 1: {runs[1]['wall'] / runs[2]['wall']:.2f}x wall, "
              f"{runs[1]['cube_cpu'] / max(runs[2]['busy']):.2f}x by CPU (1 worker's cube CPU over the busier "
              "of 2)", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
