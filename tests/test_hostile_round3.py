"""The third round of hostile inputs (issue 44), items 2 to 5: each attack that still got through,
made again here. Every refusal is one line naming the problem and its place, exit 2, no traceback.

2. `audit --proof` on Tatamibari built the reference formula before any deadline, in ~n^6 work
   (22 s at 40x40, 139 s at 56x56 with --time-limit 5);
3. `examples --out` and `export --out` wrote through links (a dangling one, a linked subfolder),
   blocked on a FIFO, read /dev/zero whole;
4. the Python API skipped the command line's checks (KeyError, TypeError, a negative time limit
   that ran), and `--time-limit 1e10` printed the timer's OverflowError tracebacks;
5. an encoder that crashes printed a raw traceback from `solve`, and `batch` said only
   "job crash: IndexError: ...".
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import pytest

import smtpuzzles

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))  # gen_tatamibari, the benchmark's generator


# ------------------------------------------------------------------------------ 2. reference builds
def brick_wall(n: int, seed: int) -> str:
    """An n x n Tatamibari (n even, at least 6) with one solution: rows of 1x2 bricks, every other
    row shifted by a 1x3 brick at each end (so no four bricks meet at a corner), a `-` in each brick.
    Every region must be a domino or a 1x3 holding one clue, and only the wall's own bricks fit."""
    rng = random.Random(seed)
    rows = []
    for r in range(n):
        widths = [2] * (n // 2) if r % 2 == 0 else [3] + [2] * ((n - 6) // 2) + [3]
        row = ""
        for width in widths:
            spot = rng.randrange(width)
            row += "*" * spot + "-" + "*" * (width - spot - 1)
        rows.append(row)
    return "\n".join(rows) + "\n"


def one_clue_rectangles(rows: list[str]) -> set[tuple[int, int, int, int]]:
    """Every (top, left, bottom, right) holding exactly one clue of a shape it accepts, by looking at
    every rectangle's every cell (the rules, slowly)."""
    h, w = len(rows), len(rows[0])
    found = set()
    for top in range(h):
        for bottom in range(top, h):
            for left in range(w):
                for right in range(left, w):
                    inside = [rows[r][c] for r in range(top, bottom + 1) for c in range(left, right + 1)
                              if rows[r][c] in "+-|?"]
                    tall, wide = bottom - top + 1, right - left + 1
                    if len(inside) == 1 and {"+": tall == wide, "|": tall > wide, "-": wide > tall, "?": True}[inside[0]]:
                        found.add((top, left, bottom, right))
    return found


def test_2_the_reference_formula_has_a_variable_for_each_rectangle_the_rules_allow_and_no_other():
    from smtpuzzles.puzzles.rules import tatamibari as rules
    from smtpuzzles.puzzles.tatamibari import from_text

    rng = random.Random(44)
    for _ in range(60):
        h, w = rng.randint(1, 7), rng.randint(1, 7)
        density = rng.choice((0.1, 0.3, 0.7))
        rows = ["".join(rng.choice("+-|?") if rng.random() < density else "*" for _ in range(w)) for _ in range(h)]
        names = rules.reference(from_text("\n".join(rows) + "\n"), {"op": "first"}).names
        regions = {tuple(int(x[1:]) for x in name.split()[1:] if x[0] in "rc") for name in names if name.startswith("region")}
        assert regions == one_clue_rectangles(rows), rows


@pytest.fixture(scope="module")
def unique_48(tmp_path_factory) -> Path:
    """A unique 48x48 brick wall, solved with --unique: its reference formula took ~37 s to build
    before, twice over (the claim's and the witness's), for an audit of 70 s or more."""
    result = smtpuzzles.solve("tatamibari", brick_wall(48, 3), unique=True, out=tmp_path_factory.mktemp("wall"))
    assert result.status == "solved" and result.unique is True
    return result.run_dir


LIMIT = 2.0
FACTOR = 4  # the proofs each get the limit, and reading and rebuilding the encoder's formula take ~1 s


def test_2_audit_proof_on_a_large_tatamibari_keeps_within_its_time_limit(cli, unique_48):
    started = time.monotonic()
    code, out, err = cli("audit", unique_48, "--proof", "--time-limit", LIMIT)
    took = time.monotonic() - started
    assert code in (0, 3) and "Traceback" not in err, (code, out[-800:], err[-800:])
    assert took < FACTOR * LIMIT, f"audit --proof --time-limit {LIMIT} took {took:.1f} s"


def test_2_a_reference_past_the_time_limit_is_undecided_in_one_finding(unique_48):
    report = smtpuzzles.audit(unique_48, proof=True, time_limit=0.005)
    reference = [f for f in report.findings if f.section == "reference"]
    assert report.verdict == "undecided" and report.exit_code == 3
    assert [f.ok for f in reference] == [None] and "time limit" in reference[0].text, reference


def test_2_building_the_reference_stops_at_its_deadline():
    """The benchmark's 56x56 board (420,000 allowed rectangles, seconds to build) asked for within 0.2 s."""
    from gen_tatamibari import random_puzzle
    from smtpuzzles.folders.readback import reference_query
    from smtpuzzles.proofs.dimacs import ProofError
    from smtpuzzles.puzzles import tatamibari

    board = tatamibari.from_text(random_puzzle(56, 56, seed=56))
    started = time.monotonic()
    with pytest.raises(ProofError, match=r"not built within the time limit \(0.2 s\)"):
        reference_query(tatamibari, board, {"op": "first"}, "here", timeout=0.2)
    assert time.monotonic() - started < 1.5
