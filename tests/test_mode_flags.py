"""`solve --unique --count N` asks for two answers at once: refused in one line, exit 2, for every
puzzle (as a job file and the Python API refuse it), before any run folder is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import one_error_line

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"
INPUTS = {"tatamibari": [EXAMPLES / "tatamibari" / "05.txt"], "nonary": [EXAMPLES / "nonary" / "01.json"],
          "rogue": [EXAMPLES / "rogue" / "08.txt"], "kingtour": ["--size", "4"]}


@pytest.mark.parametrize("puzzle", sorted(INPUTS))
@pytest.mark.parametrize("order", [("--count", "3", "--unique"), ("--unique", "--count")])
def test_unique_and_count_together_are_refused_in_one_line(cli, tmp_path, puzzle, order):
    code, out, err = cli("solve", puzzle, *INPUTS[puzzle], *order, "--out", tmp_path / "runs")
    assert code == 2 and out == ""
    assert one_error_line(err) == "smtpuzzles: error: --count: ask for unique or count, not both"
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
