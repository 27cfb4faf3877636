"""Tatamibari benchmark: the 150 published puzzles (solved and proved unique) and generated large
ones, this tool side by side with an OR-Tools CP-SAT model of the same puzzle (puzzlekit's), when
puzzlekit is installed (`pip install puzzlekit`).

  python scripts/bench_tatamibari.py [--data ../shared/data/tatamibari_janko.json] [--sizes 30 50]
"""

from __future__ import annotations

import argparse
import json
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


def ours(board: T.Board, mode: str, out: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    outcome, _ = runner.solve(T, board, "", out_dir=out, mode=mode)
    seconds = time.perf_counter() - started
    assert T.referee(board, outcome.solution) == []
    return seconds, outcome.extra


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "tatamibari_janko.json"))
    parser.add_argument("--sizes", nargs="*", type=int, default=[30, 50])
    args = parser.parse_args()
    puzzles = load_published(args.data)
    if puzzles is None:
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        times, theirs, unique = [], [], 0
        for entry in puzzles:
            board = T.from_text("\n".join(entry["puzzle"]))
            seconds, extra = ours(board, "unique", out)
            unique += extra.get("unique") is True
            times.append((seconds, entry["name"]))
            other = cpsat(board)
            if other is not None:
                theirs.append(other)
        times.sort()
        total = sum(t for t, _ in times)
        print(f"published puzzles: {len(times)}, proved unique: {unique}")
        print(f"  smtpuzzles solve + uniqueness proof (whole run, ledger included): mean {total / len(times):.3f} s, "
              f"max {times[-1][0]:.3f} s ({times[-1][1]}), total {total:.1f} s")
        if theirs:
            print(f"  CP-SAT (puzzlekit) one solve, no uniqueness: mean {sum(theirs) / len(theirs):.3f} s, "
              f"max {max(theirs):.3f} s, "
                  f"total {sum(theirs):.1f} s; ratio CP-SAT / smtpuzzles (total) {sum(theirs) / total:.2f}x")
        else:
            print("  CP-SAT comparison skipped: pip install puzzlekit")
        print(f"{'generated':10} {'smtpuzzles solve s':>19} {'CP-SAT solve s':>15} {'ratio':>7}")
        for size in args.sizes:
            board = T.from_text(random_puzzle(size, size, seed=size))
            seconds, _ = ours(board, "solve", out)
            other = cpsat(board)
            ratio = f"{other / seconds:.2f}x" if other else "-"
            print(f"{size}x{size:<7} {seconds:19.2f} {other if other is not None else float('nan'):15.2f} {ratio:>7}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
