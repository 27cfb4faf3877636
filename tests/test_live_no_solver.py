"""A run whose answer a linear search gave (Rogue's `reach`) ran no solver: its progress counts no
solver check, as the ledger's steps say (`by: search` and `by: bound`)."""

import json
from pathlib import Path

import smtpuzzles
from smtpuzzles.live import summarise

MAP = "@.$\n.#.\n$..\n"


def test_a_search_answer_counts_no_solver_check(tmp_path: Path):
    (tmp_path / "map.txt").write_text(MAP)
    result = smtpuzzles.solve("rogue", tmp_path / "map.txt", out=tmp_path / "runs")
    assert result.status == "optimal" and result.value == 2  # both gold reachable, by hand
    steps = [json.loads(line) for line in (result.run_dir / "steps.jsonl").read_text().splitlines()]
    assert {step.get("by") for step in steps} == {"search", "bound"}
    assert summarise(steps).checks == 0
