"""Nonary Game benchmark: the SMT default against the brute-force reference from the tests, side by
side on seeded random maps (2..8 rooms, 4..40 doors) and on the seed cases.

  python scripts/bench_nonary.py --classes seed tiny mixed hard [--hard 6] [--repeat 3]
  python scripts/bench_nonary.py [--count 40] [--brute-limit 60]
  python scripts/bench_nonary.py --hard 12   # the class of issue 17, below

--classes: per class of maps, whole runs (`run.solve`, ledger included, in this process after one
unmeasured run; the puzzle's contract checked once beforehand, as the command line's registry does)
and the brute force on the same map, one after the other, CPU seconds of this
process (the solver's and the ledger's threads included; the brute force given up after --brute-limit seconds of
CPU; a call under 50 ms repeated to fill 50 ms and averaged), the median of --repeat pairs a map;
then per class the
medians and the per-map ratio (min-median-max). Classes: `seed` (the ten seed maps), `tiny` (20 maps
of 1..4 rooms and 3..12 doors), `mixed` (the 40 random maps below, the benchmark set), `refutation`
(the maps of the 20- and 30-door sets of --doors whose optimum is below 9, so that best + 1 is
refuted), `hard` (the --hard class). A map whose brute force takes over a second is measured once.

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
import statistics
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
from smtpuzzles.contract import adopt  # noqa: E402
from smtpuzzles.puzzles import nonary  # noqa: E402


class TooLong(Exception):
    pass


def brute(doors, limit: float, cpu: bool = False):
    """(answer or None, seconds) of the brute force, given up after `limit` seconds: of the clock, or
    with `cpu` of CPU time (a clock's limit on a loaded machine gives up after less work than it says)."""
    def alarm(*_):
        raise TooLong()

    which, timer, clock = (signal.SIGPROF, signal.ITIMER_PROF, time.process_time) if cpu else \
        (signal.SIGALRM, signal.ITIMER_REAL, time.perf_counter)
    signal.signal(which, alarm)
    signal.setitimer(timer, limit)
    started = clock()
    try:
        return most_escapees(doors), clock() - started
    except (TooLong, RecursionError):
        return None, clock() - started
    finally:
        signal.setitimer(timer, 0)


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


def averaged(work) -> float:
    """CPU seconds of one `work()`: the mean of as many calls as fill 50 ms (at most 50). This
    machine's CPU clock moves in steps of up to a few milliseconds, so one call of a millisecond
    often reads as 0 or as 4 ms."""
    calls, started = 0, time.process_time()
    while True:
        work()
        calls += 1
        spent = time.process_time() - started
        if spent >= 0.05 or calls == 50:
            return spent / calls


def classes(names: list[str], hard: int, repeat: int, brute_limit: float, check_limit: float) -> None:
    mixed = [(f"random {i}", random_game(i, rooms=2 + i % 7, doors=4 + (i * 7) % 37)) for i in range(40)]
    sets = {
        "seed": [(f"seed {p.stem}", json.loads(p.read_text()))
                 for p in sorted((ROOT / "smtpuzzles" / "examples" / "nonary").glob("[01]*.json"))],
        "tiny": [(f"tiny {i}", random_game(3000 + i, rooms=1 + i % 4, doors=3 + i % 10)) for i in range(20)],
        "mixed": mixed,
        # the 20- and 30-door sets' maps whose optimum is below 9, picked by the brute force's answer
        "refutation": [(f"{d} doors {1000 + i}", random_game(1000 + i, rooms=2 + i % 7, doors=d))
                       for d in (20, 30) for i in range(20)],
    }
    if "hard" in names:
        sets["hard"] = hard_class(hard)[0]
    print(f"CPU seconds in this process, median of {repeat} interleaved pairs a map (hard: 1)", flush=True)
    print(f"{'case':14} {'doors':>5} {'escape':>6} {'enc':>9} {'SMT s':>8} {'brute s':>8} {'ratio':>8}", flush=True)
    summary = []
    with tempfile.TemporaryDirectory() as tmp:
        warm = sets["seed"][0][1] if "seed" in sets else [[9, 0, -1]]
        # The puzzle's contract is checked once, as the command line's registry does, not in every run.
        puzzle = adopt(nonary)
        runner.solve(puzzle, nonary.from_doors(warm), json.dumps(warm), out_dir=Path(tmp))  # tables made once
        seen: dict = {}
        for name in names:
            rows = []
            for label, doors in sets[name]:
                if label not in seen:
                    smt, ref, values, statuses = [], [], set(), set()
                    def solved():
                        outcome, _ = runner.solve(puzzle, nonary.from_doors(doors), json.dumps(doors), out_dir=Path(tmp),
                                                  time_limit=check_limit)
                        statuses.add(outcome.status)
                        values.add(outcome.value)

                    for k in range(1 if name == "hard" else repeat):
                        if k and ref[0] > 1:  # a map of seconds is measured once
                            break
                        smt.append(averaged(solved))
                        found = []
                        ref.append(averaged(lambda: found.append(brute(doors, brute_limit, cpu=True))))
                        answer = found[0][0]
                    enc = nonary.encode(nonary.from_doors(doors))
                    form = "chains" if enc.notes.get("positions") is None else \
                        "plan" if 9 in values and enc.notes["moves"] == enc.notes["positions"] - 1 else "listing"
                    seen[label] = (statistics.median(smt), statistics.median(ref), answer, statuses, values, form)
                smt_s, ref_s, answer, statuses, values, form = seen[label]
                if name == "refutation" and (answer is None or answer == 9):
                    continue
                agree = statuses == {"optimal"} and (answer is None or values == {answer})
                ratio = smt_s / max(ref_s, 1e-6) if answer is not None else smt_s / brute_limit
                rows.append((smt_s, ref_s if answer is not None else brute_limit, ratio, agree))
                shown = f"{ratio:7.2f}x" if answer is not None else f"<{ratio:6.3f}x"
                print(f"{label:14} {len(doors):5d} {min(values) if values else '?':>6} {form:>9} {smt_s:8.4f} "
                      f"{ref_s:8.4f} {shown}{'' if agree else '  DISAGREE'}{'' if answer is not None else ' (brute gave up)'}",
                      flush=True)
            ratios = [r[2] for r in rows]
            # Beside it, the maps the brute force needs 10 ms or more for: below that, a run's fixed
            # cost (its ledger's files written and synced to disk, 2 to 5 ms of CPU here as the disk's
            # load goes) is most of the ratio.
            longer = [r[2] for r in rows if r[1] >= 0.01]
            summary.append((name, len(rows), statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows),
                            min(ratios), statistics.median(ratios), max(ratios), all(r[3] for r in rows),
                            sum(r[0] for r in rows), sum(r[1] for r in rows),
                            f"{statistics.median(longer):.3f}x of {len(longer)}" if longer else "-"))
    print(f"\n{'class':11} {'maps':>4} {'SMT median':>10} {'brute median':>12} {'ratio of medians':>16} "
          f"{'per-map ratio min-median-max':>30} {'SMT total':>9} {'brute total':>11} agree  brute >= 10 ms: median",
          flush=True)
    for name, n, smt_m, ref_m, lo, mid, hi, agree, smt_t, ref_t, longer in summary:
        print(f"{name:11} {n:4d} {smt_m:10.4f} {ref_m:12.4f} {smt_m / max(ref_m, 1e-6):15.2f}x {lo:10.3f}-{mid:.3f}-{hi:.1f}x "
              f"{smt_t:9.2f} {ref_t:11.2f} {'yes' if agree else 'NO':>5}  {longer}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", nargs="+", choices=["seed", "tiny", "mixed", "refutation", "hard"],
                        help="per-class table (see above)")
    parser.add_argument("--repeat", type=int, default=3, help="pairs a map with --classes (the hard class: 1)")
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
    if args.classes:
        classes(args.classes, 6 if args.hard is None else args.hard, args.repeat, args.brute_limit, args.check_limit)
        return 0
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
