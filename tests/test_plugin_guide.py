"""docs/plugins.md's whole puzzle runs as written: its code block, saved as a module and registered,
keeps the contract, agrees with its brute force in every mode on random boards, solves and audits
clean with its proof through the commands the guide gives."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

from smtpuzzles import puzzles
from smtpuzzles.contract import Puzzle, problems
from smtpuzzles.auditing.crosscheck import cross_check

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "plugins.md"


@pytest.fixture
def rooks(tmp_path, monkeypatch):
    code = GUIDE.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "smtpuzzles_rooks" / "__init__.py"
    path.parent.mkdir()
    path.write_text(code)
    spec = importlib.util.spec_from_file_location("smtpuzzles_rooks", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "smtpuzzles_rooks", module)
    spec.loader.exec_module(module)
    monkeypatch.setitem(puzzles.registry().puzzles, "rooks", Puzzle(module))
    return module


def test_the_guides_puzzle_keeps_the_contract(rooks):
    assert problems(rooks) == []


def test_its_answers_agree_with_its_brute_force_in_every_mode(rooks, tmp_path):
    rng = random.Random(4)
    seen = set()
    for _ in range(12):
        n = rng.randint(2, 4)
        board = rooks.load("\n".join("".join(rng.choice("..#") for _ in range(n)) for _ in range(n)), "board", {})
        check = cross_check(rooks, board, workdir=tmp_path)
        assert check.checked and check.ok, (board, check.problems)
        seen.add(min(check.solutions, 2))
    assert seen == {0, 1, 2}


def test_its_referee_names_each_broken_rule(rooks):
    board = rooks.load("..\n.#", "board", {})
    assert rooks.referee(board, {"rooks": [[0, 1], [1, 0]]}) == []
    assert rooks.referee(board, {"rooks": [[0, 0], [1, 1]]}) == ["a rook stands on the hole at r2c2"]
    assert rooks.referee(board, {"rooks": [[0, 1]]}) == ["row 2 holds 0 rooks, not 1", "column 1 holds 0 rooks, not 1"]
    assert rooks.referee(board, {"rooks": [[0, 1.0], [1, 0]]}) == ["rooks must be a list of [row, column] pairs"]


def test_the_guides_commands_count_and_audit_clean(rooks, cli, tmp_path):
    board = tmp_path / "board.txt"
    board.write_text("...\n.#.\n...\n")  # 3! = 6 placements, less the 2 with a rook on the centre hole
    counted = cli.solve_json("rooks", board, "--count", code=0)
    assert counted["count"] == 4 and counted["count_complete"] is True
    code, out, err = cli("audit", counted["run_dir"], "--proof", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["verdict"] == "clean" and any(f["section"] == "proof" and f["ok"] for f in report["findings"])
