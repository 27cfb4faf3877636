"""Roguelike benchmark: `smtpuzzles solve rogue` (whole runs with their proof) side by side with a
plain-Python BFS over king steps written here, on seeded random maps.

  python scripts/bench_rogue.py [--sizes 300 1000] [--pairs 5] [--seeds 1] [--encodings reach]
                                [--flow-max 300]

Each measurement is a whole process started fresh: `python -m smtpuzzles solve rogue MAP --encoding E
--json` (status optimal, closed set and walk refereed, UNSAT step at best + 1 recorded: with `reach`
settled by the formula's bound without loading a solver, with the others asked of z3), and
`python bench_rogue.py --bfs MAP` (read the map, search, print the gold). Seconds are CPU seconds of
the process (user + system, from wait4), MB its peak resident memory. The pairs run interleaved, the
tool then the BFS, so that both see the same load; the table gives min-median-max of each and of the
per-pair ratio. Every answer is compared with the BFS's, and the first run of each map is audited
with `audit --resolve` (z3 and cvc5 re-solve the UNSAT step; the closed set is checked). Python's
compiled bytecode is kept (in a temporary folder) as an installed package keeps it; one unmeasured
run of each command comes first. The start-up floor is the tool on a two-cell map. Commands run in
a temporary folder, so `PYTHONPATH=OTHER_TREE` measures that tree's tool even when this script is
run from a checkout (`python -m` puts the current folder first on sys.path).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from gen_rogue import random_map  # noqa: E402


def bfs_gold(text: str) -> int:
    """The baseline: gold reachable from @ by king steps onto empty or gold cells, where no monster
    is next to both ends of a step. Written for this benchmark, sharing nothing with the tool."""
    rows = text.rstrip("\n").split("\n")
    width = max(map(len, rows)) + 2  # a border of walls: no bounds checks
    cells = "#" * width + "".join("#" + row.ljust(width - 2) + "#" for row in rows) + "#" * width
    steps = [dr * width + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
    monster = [ch.isalpha() or ch in "*&" for ch in cells]
    watched = [ch in ".$@ " and any(monster[i + s] for s in steps) for i, ch in enumerate(cells)]
    start = cells.index("@")
    seen, queue = {start}, deque([start])
    while queue:
        p = queue.popleft()
        for s in steps:
            q = p + s
            if q in seen or cells[q] not in ".$@ ":
                continue
            if watched[p] and watched[q]:  # a monster next to both ends sees the rogue twice running
                around_p = {p + t for t in steps}
                if any(monster[m] for m in around_p.intersection(q + t for t in steps)):
                    continue
            seen.add(q)
            queue.append(q)
    return sum(cells[i] == "$" for i in seen)


def environment(cache: str) -> dict:
    env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# Every command runs in the benchmark's temporary folder: `python -m` puts the current folder first on
# sys.path, so run from a checkout it would measure that checkout's tree whatever PYTHONPATH names.
WHERE = {"cwd": tempfile.gettempdir()}


def measured(args: list[str], env: dict) -> tuple[float, float, str]:
    """(CPU seconds, peak MB, stdout) of one command in a fresh process."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, *args], stdout=out, stderr=err, text=True, env=env, **WHERE)
        # Reaped here, not by Popen: wait4 gives this child's own CPU time and peak memory.
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if code:
            raise SystemExit(f"{' '.join(args[:5])} failed ({code}): {err.read().strip()[-300:]}")
        return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read()


def spread(values: list[float]) -> str:
    return f"{min(values):.2f}-{statistics.median(values):.2f}-{max(values):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[300, 1000])
    parser.add_argument("--pairs", type=int, default=5, help="interleaved pairs (tool, BFS) a map")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--encodings", nargs="+", default=["reach"], help="encodings to time (reach, regions, flow)")
    parser.add_argument("--flow-max", type=int, default=300, help="largest side the flow encoding is run on")
    parser.add_argument("--bfs", help=argparse.SUPPRESS)  # internal: print the BFS answer for this map
    args = parser.parse_args()
    if args.bfs:
        print(bfs_gold(Path(args.bfs).read_text()))
        return 0
    me = str(Path(__file__).resolve())
    print(f"CPU seconds of whole processes, min-median-max over {args.pairs} interleaved pairs; "
          "ratio = tool / BFS, per pair", flush=True)
    print(f"{'map':>9} {'seed':>4} {'gold':>6} {'encoding':>8} {'tool':>16} {'MB':>5} {'BFS':>16} {'MB':>5} "
          f"{'ratio':>16} {'audit':>6} agree", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        WHERE["cwd"] = tmp
        env = environment(str(Path(tmp) / "pycache"))
        runs = Path(tmp) / "runs"
        floor = Path(tmp) / "floor.txt"
        floor.write_text("@$\n")
        measured(["-m", "smtpuzzles", "solve", "rogue", str(floor), "--json", "--out", str(runs)], env)  # compiles
        start = [measured(["-m", "smtpuzzles", "solve", "rogue", str(floor), "--json", "--out", str(runs)], env)[0]
                 for _ in range(args.pairs)]
        print(f"start-up floor (the tool on a two-cell map): {spread(start)} s", flush=True)
        for size in args.sizes:
            for seed in range(args.seeds):
                path = Path(tmp) / f"{size}-{seed}.txt"
                path.write_text(random_map(size, size, seed))
                for encoding in args.encodings:
                    if encoding == "flow" and size > args.flow_max:
                        continue
                    tool = ["-m", "smtpuzzles", "solve", "rogue", str(path), "--encoding", encoding, "--json",
                            "--out", str(runs)]
                    bfs = [me, "--bfs", str(path)]
                    reference = int(measured(bfs, env)[2])  # unmeasured: the first run of each
                    answer = json.loads(measured(tool, env)[2])
                    audit_s, _, report = measured(["-m", "smtpuzzles", "audit", answer["run_dir"], "--resolve"], env)
                    if "audit clean" not in report:
                        raise SystemExit(f"audit of {answer['run_dir']} is not clean:\n{report}")
                    agree = answer["status"] == "optimal" and answer["value"] == reference
                    mine, theirs, mine_mb, theirs_mb = [], [], [], []
                    for _ in range(args.pairs):
                        seconds, mb, out = measured(tool, env)
                        agree = agree and json.loads(out)["value"] == reference
                        mine.append(seconds)
                        mine_mb.append(mb)
                        seconds, mb, out = measured(bfs, env)
                        agree = agree and int(out) == reference
                        theirs.append(seconds)
                        theirs_mb.append(mb)
                    ratios = [a / b for a, b in zip(mine, theirs)]
                    print(f"{size:>4}x{size:<4} {seed:4d} {reference:6d} {encoding:>8} {spread(mine):>16} "
                          f"{max(mine_mb):5.0f} {spread(theirs):>16} {max(theirs_mb):5.0f} {spread(ratios):>16} "
                          f"{audit_s:6.2f} {'yes' if agree else 'NO'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
