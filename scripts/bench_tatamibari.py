"""Tatamibari benchmark: the 150 published puzzles (solved and proved unique) and generated large
ones (solved, and a second solution sought with --unique), with the default `spans` encoding side by
side with the `rectangles` encoding it replaced, and beside an OR-Tools CP-SAT model of the same
puzzle (puzzlekit's) when puzzlekit is installed (`pip install puzzlekit`). For each generated run
it also times `smtpuzzles certify` and `smtpuzzles audit --proof` as a user runs them.

  python scripts/bench_tatamibari.py [--data ../shared/data/tatamibari_janko.json] [--sizes 30 50 100]
                                     [--no-rectangles] [--no-published]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gen_tatamibari import random_puzzle  # noqa: E402
from smtpuzzles import run as runner  # noqa: E402
from smtpuzzles.puzzles import tatamibari as T  # noqa: E402

ENCODINGS = ("spans", "rectangles")


def ours(board: T.Board, mode: str, out: Path, encoding: str) -> tuple[float, dict, Path]:
    """One whole run in this process (formula, solver, ledger): seconds, its extra and its folder."""
    started = time.perf_counter()
    outcome, ledger = runner.solve(T, board, "", out_dir=out, mode=mode, encoding=encoding)
    seconds = time.perf_counter() - started
    assert T.referee(board, outcome.solution) == []
    return seconds, outcome.extra, ledger.dir


def command_seconds(*args) -> float | None:
    """Wall seconds of `smtpuzzles ARGS` in a fresh process, or None when it exits non-zero
    (`certify` on a run with no closing UNSAT claim has nothing to certify)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], capture_output=True, cwd=ROOT)
    return time.perf_counter() - started if done.returncode == 0 else None


def cpsat(board: T.Board) -> float | None:
    """puzzlekit's CP-SAT model: one solve (it does not prove uniqueness), single worker for fairness."""
    try:
        from puzzlekit.solvers.tatamibari import TatamibariSolver
    except ImportError:
        return None
    symbols = {"+": "s", "-": "h", "|": "v", ".": "-", "?": "-"}
    grid = [[symbols[ch] for ch in row] for row in board.rows]
    started = time.perf_counter()
    TatamibariSolver(board.height, board.width, grid).solve({"num_search_workers": 1, "time_limit_sec": 300.0})
    return time.perf_counter() - started


def load_published(path: str) -> list | None:
    """The published puzzles, or None after one line on stderr when the shared data set is absent
    or unreadable (it lives outside the repository, so a fresh clone does not have it)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        puzzles = data["puzzles"]
        if not isinstance(puzzles, list):
            raise TypeError("'puzzles' is not a list")
        return puzzles
    except FileNotFoundError:
        print(f"bench_tatamibari: {path}: no such file (the shared data set; give another with --data)", file=sys.stderr)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"bench_tatamibari: {path}: not the published puzzle set ({exc.__class__.__name__}: {exc})", file=sys.stderr)
    return None


def shown(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.2f}"


def published(puzzles: list, encodings: tuple[str, ...], out: Path) -> None:
    """Each published puzzle solved and proved unique with each encoding, the encodings in turn
    puzzle by puzzle (after one run each not counted, which pays for the imports); CP-SAT once."""
    first = T.from_text("\n".join(puzzles[0]["puzzle"]))
    for encoding in encodings:
        ours(first, "unique", out, encoding)
    times: dict = {encoding: [] for encoding in encodings}
    unique = dict.fromkeys(encodings, 0)
    for entry in puzzles:
        board = T.from_text("\n".join(entry["puzzle"]))
        for encoding in encodings:
            seconds, extra, _ = ours(board, "unique", out, encoding)
            unique[encoding] += extra.get("unique") is True
            times[encoding].append((seconds, entry["name"]))
    totals = {}
    for encoding, found in times.items():
        found.sort()
        totals[encoding] = total = sum(t for t, _ in found)
        print(f"published puzzles, {encoding}: {len(found)}, proved unique: {unique[encoding]}; solve + uniqueness proof "
              f"(whole run, ledger included): mean {total / len(found):.3f} s, max {found[-1][0]:.3f} s "
              f"({found[-1][1]}), total {total:.1f} s")
    if len(totals) == 2:
        print(f"  ratio spans / rectangles (total): {totals['spans'] / totals['rectangles']:.2f}")
    theirs = [t for t in (cpsat(T.from_text("\n".join(entry["puzzle"]))) for entry in puzzles) if t is not None]
    if theirs:
        print(f"  CP-SAT (puzzlekit) one solve, no uniqueness: mean {sum(theirs) / len(theirs):.3f} s, "
              f"max {max(theirs):.3f} s, total {sum(theirs):.1f} s; ratio CP-SAT / spans (total) "
              f"{sum(theirs) / totals['spans']:.2f}x")
    else:
        print("  CP-SAT comparison skipped: pip install puzzlekit")


def generated(sizes: list[int], encodings: tuple[str, ...], out: Path) -> None:
    print(f"{'generated':10} {'clues':>6} {'spans s':>8} {'rectangles s':>13} {'ratio':>6} {'unique':>7} "
          f"{'certify s':>10} {'audit --proof s':>16} {'CP-SAT s':>9}")
    for size in sizes:
        board = T.from_text(random_puzzle(size, size, seed=size))
        seconds = {}
        for encoding in encodings:
            seconds[encoding], extra, run_dir = ours(board, "unique", out, encoding)
            if encoding == "spans":
                unique = "yes" if extra.get("unique") else "no"
                certify = command_seconds("certify", run_dir)  # nothing to certify when a second solution was found
                audit = command_seconds("audit", run_dir, "--proof")
        before = seconds.get("rectangles")
        ratio = f"{seconds['spans'] / before:.3f}" if before else "-"
        print(f"{size}x{size:<7} {len(board.clues):6} {seconds['spans']:8.2f} {shown(before):>13} {ratio:>6} {unique:>7} "
              f"{shown(certify):>10} {shown(audit):>16} {shown(cpsat(board)):>9}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "tatamibari_janko.json"))
    parser.add_argument("--sizes", nargs="*", type=int, default=[30, 50])
    parser.add_argument("--no-rectangles", action="store_true", help="skip the rectangles encoding (100x100: ~100 s)")
    parser.add_argument("--no-published", action="store_true", help="skip the published puzzles")
    args = parser.parse_args()
    encodings = ENCODINGS[:1] if args.no_rectangles else ENCODINGS
    puzzles = None if args.no_published else load_published(args.data)
    if puzzles is None and not args.no_published:
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if puzzles:
            published(puzzles, encodings, Path(tmp))
        generated(args.sizes, encodings, Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
