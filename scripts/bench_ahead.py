"""Checks asked ahead (the sat engine's `ahead`, docs/sharing.md) on a recorded stretch of a King's-tour
record run: the run's own questions at positions FROM..TO, asked in the recorded order on one engine
with `ahead` 0 (one core) and 1 (two), side by side in interleaved pairs.

Each question is a step of a published run (results/kingtour-RUN-*/steps.jsonl), rebuilt through the
project's API (today's encoder; the claim's assumptions made by `claim_terms`, checked equal to the
recorded ones); nothing of the folder but the claims and the recorded vectors reaches the engine.
Before each question the engine is told what the search would foresee (`lex.refuted_next`, from the
claim and the best vector the run held then: after a SAT answer the recorded vector, so both sides
ask the same questions), the positions it proved are settled as the driver settles them, and a SAT
answer's model is hinted to it as the driver does. Every answer must be the recorded one.

Reported per side: wall seconds of the stretch (the engine built before the clock starts), CPU
seconds of this process and its children, and how many answers came from a check asked ahead.

  python scripts/bench_ahead.py                                  # 15x15 positions 100-112, 2 pairs
  python scripts/bench_ahead.py --run 88585deb89 --positions 100 120 --pairs 1
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from smtpuzzles.engines import make_engine  # noqa: E402
from smtpuzzles.formula import smt2  # noqa: E402
from smtpuzzles.objectives import claim_terms, lex  # noqa: E402
from smtpuzzles.puzzles import kingtour  # noqa: E402


def stretch(key: str, first: int, last: int):
    """(run.json, the encoding, the recorded questions at positions first..last-1 in order, each
    (claim, result, the best vector before it, the recorded vector of a SAT answer))."""
    found = sorted((ROOT / "results").glob(f"kingtour-{key}-*"))
    if len(found) != 1:
        sys.exit(f"{key}: expected one results/kingtour-{key}-* folder")
    run = json.loads((found[0] / "run.json").read_text())
    enc = kingtour.encode(kingtour.from_canonical(run["instance"]), run["encoding"]["name"])
    path = next(found[0].glob("steps.jsonl*"))
    with (gzip.open if path.suffix == ".gz" else open)(path, "rt") as lines:
        steps = [json.loads(line) for line in lines]
    best, asked, solution = None, [], None
    for step in steps:
        claim = step["claim"]
        value = step.get("value") if step["result"] == "sat" else None
        if claim["op"] == "exceed" and "cube" not in claim and step.get("by") == "solver" \
                and step["result"] in ("sat", "unsat") and first <= claim["pos"] < last:
            if [smt2(t) for t in claim_terms(enc.objective, claim)] != step["assumptions"]:
                sys.exit(f"step {step['index']}: today's encoder asks other assumptions than the step recorded")
            asked.append((claim, step["result"], list(best), value))
        if value is not None and (best is None or value > best):
            best = value
            if not asked:
                solution = step["solution"]
    if not asked:
        sys.exit(f"{key}: no recorded question at positions {first}..{last - 1}")
    return run, enc, asked, solution


def ask_stretch(run: dict, enc, asked: list, solution: dict, ahead: int, limit: float) -> dict:
    params = {k: v for k, v in run["engine"].get("params", {}).items() if k in ("solver", "fresh_solver", "fresh")}
    engine = make_engine("sat", enc.formula, {**params, "ahead": ahead})
    settled = 0

    def polish(solution: dict, claim: dict) -> None:
        """As the driver steers its engine: by the encoding's polish of the best solution."""
        better = enc.advice.polish(solution, claim, None)
        if better:
            engine.guide(lambda: better)

    try:
        wall = time.perf_counter()
        cpu = _cpu()
        from_ahead = 0
        polish(solution, asked[0][0])
        for claim, result, best, value in asked:
            prefix = claim["prefix"]
            if len(prefix) > settled:
                engine.settle([enc.objective.equal(i, d) for i, d in enumerate(prefix)][settled:])
                settled = len(prefix)
            if ahead:
                foreseen = lex.refuted_next(enc.objective, prefix, best, claim["than"], ahead)
                engine.expect([claim_terms(enc.objective, c) for c in foreseen])
            answer = engine.check(claim_terms(enc.objective, claim), limit)
            if answer.status != result:
                sys.exit(f"position {claim['pos'] + 1} exceeds {claim['than']}: {answer.status}, recorded {result}")
            from_ahead += bool(answer.stats.get("ahead"))
            if answer.status == "sat":
                engine.hint(answer.model)
                polish(enc.decode(answer.model), claim)
        return {"wall": time.perf_counter() - wall, "cpu": _cpu() - cpu, "from_ahead": from_ahead}
    finally:
        engine.close()


def _cpu() -> float:
    mine, children = os.times()[0:2], os.times()[2:4]
    return sum(mine) + sum(children)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default="6d9c40fcc7", help="a published run's instance hash (default: 15x15)")
    parser.add_argument("--positions", type=int, nargs=2, default=[100, 112], metavar=("FROM", "TO"),
                        help="1-based positions FROM..TO-1 of the recorded questions (default: 100 112)")
    parser.add_argument("--ahead", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--limit", type=float, default=1800.0, help="seconds each check may take")
    args = parser.parse_args()
    run, enc, asked, solution = stretch(args.run, args.positions[0] - 1, args.positions[1] - 1)
    sat = sum(1 for _, result, _, _ in asked if result == "sat")
    print(f"{args.run}: {len(asked)} recorded questions at positions {args.positions[0]}..{args.positions[1] - 1} "
          f"({sat} SAT)", flush=True)
    figures: dict[int, list[dict]] = {a: [] for a in args.ahead}
    for pair in range(args.pairs):
        for ahead in args.ahead if pair % 2 == 0 else args.ahead[::-1]:
            got = ask_stretch(run, enc, asked, solution, ahead, args.limit)
            figures[ahead].append(got)
            print(f"  pair {pair + 1} ahead {ahead}: {got['wall']:7.1f} s wall {got['cpu']:7.1f} s cpu "
                  f"{got['from_ahead']:3d} answers from a check asked ahead", flush=True)
    base = statistics.median(f["wall"] for f in figures[args.ahead[0]])
    for ahead in args.ahead:
        walls = [f["wall"] for f in figures[ahead]]
        print(f"ahead {ahead}: wall median {statistics.median(walls):.1f} s ({', '.join(f'{w:.1f}' for w in walls)}), "
              f"speed-up {base / statistics.median(walls):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
