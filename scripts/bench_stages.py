"""Proofs in stages shared by audits (smtpuzzles.proofs.stages): one process against N processes
sharing one journal, side by side, on one query refuted in parts.

  python scripts/bench_stages.py [--holes 9] [--audits 1 2] [--pairs 3]

The query is the pigeonhole formula (holes + 1 pigeons, `holes` holes) split on the first
pigeon's clause: `holes` parts of equal weight, each proved by CaDiCaL in a child, checked by
smtpuzzles.trusted.lrat and written to the journal, as an audit's `--checked-parts` proof makes
them. For each pair, every count of --audits is run in turn (a fresh journal each), its processes
started together; reported: the wall seconds until the last one ended, the parts each made, and
the ratio of the one-process time to each count's. The journals are checked: each part once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKER = """
import sys
from smtpuzzles.proofs import proof as proofs, stages
from smtpuzzles.trusted.dimacs import Dimacs

holes = int(sys.argv[2])
var = lambda p, h: p * holes + h + 1
clauses = [[var(p, h) for h in range(holes)] for p in range(holes + 1)]
clauses += [[-var(p, h), -var(q, h)] for h in range(holes) for p in range(holes + 1) for q in range(p)]
text = f"p cnf {(holes + 1) * holes} {len(clauses)}\\n" + "".join(" ".join(map(str, c)) + " 0\\n" for c in clauses)
made = proofs.certify_query(Dimacs(text, (holes + 1) * holes, len(clauses)), split=1,
                            journal=stages.Journal(sys.argv[1]))
print(made.staged.parts - made.staged.taken)
"""


def shared(holes: int, audits: int) -> tuple[float, list[int]]:
    """(wall seconds until the last ended, parts each made) of `audits` processes on one new journal."""
    with tempfile.TemporaryDirectory() as tmp:
        journal = Path(tmp) / "checked.jsonl"
        started = time.perf_counter()
        processes = [subprocess.Popen([sys.executable, "-c", WORKER, str(journal), str(holes)], cwd=ROOT,
                                      stdout=subprocess.PIPE, text=True) for _ in range(audits)]
        made = [int(p.communicate()[0]) for p in processes]
        seconds = time.perf_counter() - started
        if any(p.returncode for p in processes):
            raise SystemExit(f"an audit failed: {[p.returncode for p in processes]}")
        cases = [json.loads(line)["case"][0] for line in journal.read_text().splitlines() if '"lemmas"' in line]
        if sorted(cases) != list(range(1, holes + 1)) or sum(made) != holes:
            raise SystemExit(f"the journal does not hold each part once: {sorted(cases)}, made {made}")
    return seconds, made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--holes", type=int, default=9)
    parser.add_argument("--audits", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    times: dict[int, list[float]] = {n: [] for n in args.audits}
    for pair in range(args.pairs):
        for n in args.audits:
            seconds, made = shared(args.holes, n)
            times[n].append(seconds)
            print(f"pair {pair + 1}: {n} audit(s) {seconds:6.1f} s, parts made {made}", flush=True)
    one = statistics.median(times[args.audits[0]])
    for n in args.audits:
        ratios = [a / b for a, b in zip(times[args.audits[0]], times[n])]
        print(f"{n} audit(s): median {statistics.median(times[n]):.1f} s, {args.audits[0]} against it "
              f"{min(ratios):.2f}-{statistics.median(ratios):.2f}-{max(ratios):.2f}x (per pair), "
              f"{one / statistics.median(times[n]):.2f}x (medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
