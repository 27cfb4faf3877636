"""Nonary Game benchmark: the SMT default against the brute-force reference from the tests, side by
side on seeded random maps (2..8 rooms, 4..40 doors) and on the seed cases.

  python scripts/bench_nonary.py [--count 40] [--brute-limit 60]
  python scripts/bench_nonary.py --hard 12   # the class of issue 17, below

--hard N: the class where the answer needs a refutation of best + 1 on a map with many doors (issue
17): the known stall (the mixed set's map 5: 7 rooms, 39 doors, optimum 7), then the first N maps
of 5..8 rooms and 30..45 doors (seed i: 5 + i % 4 rooms, 30 + 7i % 16 doors) whose quick plan leaves
somebody inside. Maps where the quick plan gets all nine out are passed over: their answer needs no
refutation, and the first line says how many were.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from brute_nonary import most_escapees  # noqa: E402
from gen_nonary import random_game  # noqa: E402
from smtpuzzles import run as runner  # noqa: E402
from smtpuzzles.puzzles import nonary  # noqa: E402


class TooLong(Exception):
    pass


def brute(doors, limit: float):
    def alarm(*_):
        raise TooLong()

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    started = time.perf_counter()
    try:
        return most_escapees(doors), time.perf_counter() - started
    except (TooLong, RecursionError):
        return None, time.perf_counter() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def hard_class(count: int) -> tuple[list, int]:
    """The known stall first, then `count` maps of the class; and how many were passed over."""
    cases = [("mixed 5", random_game(5, rooms=7, doors=39))]
    seed = passed_over = 0
    while len(cases) <= count:
        doors = random_game(seed, rooms=5 + seed % 4, doors=30 + (seed * 7) % 16)
        game = nonary.from_doors(doors)
        if nonary.value(game, nonary.quick_plan(game)) < len(nonary.PLAYERS):
            cases.append((f"hard {seed}", doors))
        else:
            passed_over += 1
        seed += 1
    return cases, passed_over


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="random maps")
    parser.add_argument("--brute-limit", type=float, default=60.0, help="seconds before the brute force is given up")
    parser.add_argument("--check-limit", type=float, default=120.0, help="seconds allowed per solver check")
    parser.add_argument("--doors", type=int, help="only random maps with this many doors (seeds 1000 + i, 2..8 rooms)")
    parser.add_argument("--engine", help="solver engine for the SMT side (default: the puzzle's)")
    parser.add_argument("--encoding", help="nonary encoding for the SMT side (default: auto, positions on small "
                        "games and chains on large ones; the `enc` column says which)")
    parser.add_argument("--no-guide", action="store_true", help="do not let the quick plan steer the solver")
    parser.add_argument("--sat-solver", help="python-sat solver for the sat engine (its `solver` parameter)")
    parser.add_argument("--hard", type=int, metavar="N",
                        help="the known stall and N maps of 5..8 rooms, 30..45 doors, where somebody stays in")
    args = parser.parse_args()
    cases = []
    if args.hard is not None:
        cases, passed_over = hard_class(args.hard)
        print(f"hard class: {len(cases) - 1} maps where the quick plan leaves somebody inside "
              f"({passed_over} passed over, all nine out by the quick plan)")
    elif args.doors is None:
        cases = [(f"seed {p.stem}", json.loads(p.read_text()))
                 for p in sorted((ROOT / "smtpuzzles" / "examples" / "nonary").glob("[01]*.json"))]
    for i in range(args.count if args.hard is None else 0):
        if args.doors is None:
            cases.append((f"random {i}", random_game(i, rooms=2 + i % 7, doors=4 + (i * 7) % 37)))
        else:
            cases.append((f"random {1000 + i}", random_game(1000 + i, rooms=2 + i % 7, doors=args.doors)))
    totals = {"smt": 0.0, "smt_cpu": 0.0, "brute": 0.0, "gave_up": 0, "not_optimal": 0}
    ratios = []
    print(f"{'case  (enc)':13} {'rooms':>5} {'doors':>5} {'escape':>6} {'SMT s':>8} {'brute s':>9} {'SMT/brute':>10}  agree")
    with tempfile.TemporaryDirectory() as tmp:
        for label, doors in cases:
            game = nonary.from_doors(doors)
            started, cpu = time.perf_counter(), time.process_time()
            outcome, _ = runner.solve(nonary, game, json.dumps(doors), out_dir=Path(tmp), time_limit=args.check_limit,
                                      engine=args.engine, encoding=args.encoding, params={"guide": not args.no_guide,
                                                      **({"solver": args.sat_solver} if args.sat_solver else {})})
            smt = time.perf_counter() - started
            totals["smt"] += smt
            totals["smt_cpu"] += time.process_time() - cpu
            reference, seconds = brute(doors, args.brute_limit)
            totals["brute"] += seconds
            totals["gave_up"] += reference is None
            totals["not_optimal"] += outcome.status != "optimal"
            if reference is not None and outcome.status == "optimal":
                ratios.append(smt / max(seconds, 1e-4))
            rooms = len({d[1] for d in doors} | {d[2] for d in doors}) - 1
            # P: the positions listed (auto below its limit, or asked), C: the rules as chains
            form = "P" if args.encoding == "positions" or (args.encoding in (None, "auto") and
                                                          nonary.explore(game, nonary.LIMITS["positions"])) else "C"
            label = f"{label} {form}"
            if outcome.status != "optimal":
                print(f"{label:13} {rooms:5d} {len(doors):5d} {'?':>6} {smt:8.2f} {seconds:9.3f} {'':>10}  "
                      f"SMT {outcome.status}", flush=True)
            elif reference is None:
                print(f"{label:13} {rooms:5d} {len(doors):5d} {outcome.value:6d} {smt:8.2f} "
                      f"{'>' + format(args.brute_limit, '.0f'):>9} {'<' + format(smt / args.brute_limit, '.3f'):>10}  "
                      "(brute force gave up)", flush=True)
            else:
                agree = "yes" if reference == outcome.value and outcome.status == "optimal" else "NO"
                ratio = smt / max(seconds, 1e-4)
                print(f"{label:13} {rooms:5d} {len(doors):5d} {outcome.value:6d} {smt:8.2f} {seconds:9.3f} "
                      f"{ratio:9.{1 if ratio >= 10 else 3}f}x  {agree}", flush=True)
    ratios.sort()
    given_up = f" (brute force gave up on {totals['gave_up']}, counted at its limit)" if totals["gave_up"] else ""
    print(f"\ntotal: SMT {totals['smt']:.1f} s wall ({totals['smt_cpu']:.1f} s CPU), "
          f"brute force {totals['brute']:.1f} s{given_up}; "
          f"SMT/brute {totals['smt'] / max(totals['brute'], 1e-4):.2f}x over the set")
    if ratios:
        print(f"per map SMT/brute: median {ratios[len(ratios) // 2]:.2f}x, best {ratios[0]:.3f}x, worst {ratios[-1]:.1f}x; "
              f"SMT not optimal on {totals['not_optimal']} of {len(cases)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
