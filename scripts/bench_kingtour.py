"""King's-tour Sudoku benchmark: the posted answer's encoding against the default, side by side.

Each configuration runs the full proof (every position closed by UNSAT, then the closing certificate)
through the same driver and ledger as `smtpuzzles solve`, in this one process, one after another.
Prints wall and CPU seconds per configuration and the ratio to the baseline of the same board.

  python scripts/bench_kingtour.py                 # 4x4, 6x6, 9x9: default vs posted (9x9 posted: ~45 min)
  python scripts/bench_kingtour.py --boards 6 --configs onehot/sat/glucose4 onehot/sat/cadical153 onehot/z3
  python scripts/bench_kingtour.py --boards 9 --configs onehot-sym/sat/glucose42 onehot/sat/glucose4/climb
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smtpuzzles import run as runner  # noqa: E402
from smtpuzzles.puzzles import kingtour  # noqa: E402

BOARDS = {"4": (4, "2x2"), "6": (6, "2x3"), "8": (8, "2x4"), "9": (9, "3x3"), "10": (10, "2x5")}
BASELINE = "posted/z3"
DEFAULT = "onehot-sym/sat/glucose42"
# The default when the records issue was filed: no symmetry breaking, one value at a time.
BEFORE = "onehot/sat/glucose4/climb"


@contextlib.contextmanager
def advising(order: str):
    """King's-tour encodings whose advice raises a position in `order` (smtpuzzles.advice.ORDERS)."""
    real = kingtour.encode

    def encode(board, name="onehot-sym"):
        enc = real(board, name)
        return dataclasses.replace(enc, advice=enc.advice.replace(order=order))

    kingtour.encode = encode
    try:
        yield
    finally:
        kingtour.encode = real


def run_config(board, config: str, out: Path) -> tuple[float, float, str, str, int]:
    parts = config.split("/")
    encoding, engine = parts[0], parts[1]
    params = {"solver": parts[2]} if len(parts) > 2 else {}
    if "nophases" in parts[3:]:
        params["phases"] = False  # no phase hints towards the current best
    # climb: the driver when the records issue was filed; leap: its first change
    order = next((p for p in parts[3:] if p in ("climb", "leap")), "descend")
    wall, cpu = time.perf_counter(), time.process_time()
    with advising(order):
        outcome, ledger = runner.solve(kingtour, board, "", out_dir=out, engine=engine, encoding=encoding,
                                       params=params)
    return (time.perf_counter() - wall, time.process_time() - cpu, outcome.status,
            kingtour.value_text(outcome.value) if outcome.value else "-", ledger.run["steps"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", nargs="+", default=["4", "6", "9"], choices=sorted(BOARDS))
    parser.add_argument("--configs", nargs="+", default=[DEFAULT, BASELINE],
                        help="encoding/engine[/sat solver[/nophases][/climb|/leap]]; the first is compared with the "
                             f"last (the default before symmetry breaking and the leap: {BEFORE})")
    args = parser.parse_args()
    print(f"{'board':6} {'configuration':24} {'status':8} {'steps':>6} {'wall s':>9} {'cpu s':>9}  number")
    with tempfile.TemporaryDirectory() as tmp:
        for key in args.boards:
            size, box = BOARDS[key]
            board = kingtour.parse(size, box, None)
            results = {}
            for config in args.configs:
                wall, cpu, status, number, steps = run_config(board, config, Path(tmp))
                results[config] = (wall, cpu, number)
                print(f"{size}x{size:<4} {config:24} {status:8} {steps:6d} {wall:9.2f} {cpu:9.2f}  {number}", flush=True)
            first, last = args.configs[0], args.configs[-1]
            if first != last:
                agree = "agree" if results[first][2] == results[last][2] else "DISAGREE"
                print(f"{size}x{size:<4} ratio {last} / {first}: wall {results[last][0] / results[first][0]:.1f}x, "
                      f"cpu {results[last][1] / results[first][1]:.1f}x; numbers {agree}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
