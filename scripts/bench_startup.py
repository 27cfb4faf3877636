"""Start-up cost of the command line: `smtpuzzles --help` and a 4x4 king's-tour solve.

    python scripts/bench_startup.py [--runs 5] [--baseline REV]

For each command: the import time of smtpuzzles (median over --runs runs of the sum of the cumulative times of the top-level
lines of `python -X importtime` from the first `smtpuzzles*` one on: every import the command makes after the interpreter's
own start-up; a module loaded by importlib.import_module, such as a command's or a puzzle's, is not on those lines itself,
and what it imports shows as top-level lines of its own; the least of the runs too, which a loaded machine's
preemptions, counted in these wall-clock times, inflate least), the median of the CPU time spent importing (measured
inside the process, CPU_IMPORTS: what a loaded machine leaves alone), the ten heaviest modules, and the median of the
whole process's CPU time (user + system) over --runs runs. With --baseline, the same for a checkout
of REV (a temporary `git worktree`, put first on PYTHONPATH), side by side. Every command runs in a
temporary folder (the current folder comes first on sys.path). Byte code is written (.pyc files are
made by a first, untimed run of each): PYTHONDONTWRITEBYTECODE is removed from the environment.
A measurement, never a test.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")
# `python -m smtpuzzles ARGS` with the CPU time (not the wall-clock time importtime gives, which a loaded
# machine's preemptions inflate) of every import made outside another one counted, and written last on
# stderr. Both `import` and importlib.import_module go through importlib._bootstrap._find_and_load.
CPU_IMPORTS = """
import atexit, runpy, sys, time, importlib._bootstrap as bootstrap
load, spent, depth = bootstrap._find_and_load, [0.0], [0]
def timed(name, import_):
    if depth[0]:
        return load(name, import_)
    depth[0] += 1
    started = time.process_time()
    try:
        return load(name, import_)
    finally:
        spent[0] += time.process_time() - started
        depth[0] -= 1
bootstrap._find_and_load = timed
atexit.register(lambda: print(f"imports-cpu {spent[0]:.6f}", file=sys.stderr))
sys.argv = ["smtpuzzles", *sys.argv[1:]]
runpy.run_module("smtpuzzles", run_name="__main__", alter_sys=True)
"""
COMMANDS = {"--help": ["--help"],
            "solve 4x4": ["solve", "kingtour", "--size", "4", "--box", "2x2", "--out", "{tmp}/runs"]}


def environment(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run(tree: Path, argv: list[str], importtime: bool, cpu_imports: bool = False) -> tuple[str, float]:
    """(stderr, CPU seconds of the child) of `python [-X importtime] -m smtpuzzles argv` (with
    cpu_imports, of CPU_IMPORTS, which runs it so)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.replace("{tmp}", tmp) for a in argv]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        how = ["-c", CPU_IMPORTS] if cpu_imports else [*(["-X", "importtime"] if importtime else []), "-m", "smtpuzzles"]
        done = subprocess.run([sys.executable, *how, *args],
                              cwd=tmp, env=environment(tree), capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"smtpuzzles {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stderr, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def imports(stderr: str) -> tuple[float, list[tuple[float, str]]]:
    """(smtpuzzles's import seconds, [(self seconds, module)] heaviest first)."""
    total, own, started = 0.0, [], False
    for line in stderr.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        self_us, cumulative_us, indent, name = match.groups()
        own.append((int(self_us) / 1e6, name))
        started = started or name.split(".")[0] == "smtpuzzles"
        if not indent and started:
            total += int(cumulative_us) / 1e6
    return total, sorted(own, reverse=True)


def measure(tree: Path, argv: list[str], runs: int) -> dict:
    run(tree, argv, importtime=False)  # writes the .pyc files
    timed = sorted((imports(run(tree, argv, importtime=True)[0]) for _ in range(runs)), key=lambda t: t[0])
    total, heaviest = timed[len(timed) // 2]  # the median run's
    cpu = statistics.median(run(tree, argv, importtime=False)[1] for _ in range(runs))
    import_cpu = statistics.median(float(run(tree, argv, False, cpu_imports=True)[0].split()[-1]) for _ in range(runs))
    loaded = {name.split(".")[0] for _, name in heaviest}
    return {"imports": total, "least": timed[0][0], "import_cpu": import_cpu, "heaviest": heaviest[:10], "cpu": cpu,
            "solvers": sorted(loaded & {"z3", "pysat", "cvc5", "dask", "distributed", "flask", "pygal"})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs for the CPU median")
    parser.add_argument("--baseline", metavar="REV", help="a git revision to measure side by side")
    args = parser.parse_args()
    trees = {"this tree": ROOT}
    worktree = None
    try:
        if args.baseline:
            worktree = Path(tempfile.mkdtemp(prefix="bench-startup-")) / "tree"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(worktree), args.baseline],
                           check=True)
            trees[args.baseline] = worktree
        for label, argv in COMMANDS.items():
            results = {name: measure(tree, argv, args.runs) for name, tree in trees.items()}
            print(f"== smtpuzzles {' '.join(argv).replace('{tmp}/', '')}")
            for name, r in results.items():
                print(f"  {name:<12} imports {r['imports']:.3f} s (least {r['least']:.3f})   process CPU {r['cpu']:.3f} s "
                      f"(median of {args.runs})   loads {', '.join(r['solvers']) or 'no solver, Dask or web page'}")
            for name, r in results.items():
                print(f"  {name:<12} imports' CPU {r['import_cpu']:.3f} s (median of {args.runs}; CPU_IMPORTS)")
            if len(results) == 2:
                (_, new), (_, old) = results.items()
                print(f"  ratio        imports {old['imports'] / new['imports']:.2f}x   CPU {old['cpu'] / new['cpu']:.2f}x")
            for name, r in results.items():
                print(f"  heaviest modules ({name}, self time):")
                for seconds, module in r["heaviest"]:
                    print(f"    {seconds * 1000:7.1f} ms  {module}")
    finally:
        if worktree is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False)


if __name__ == "__main__":
    main()
