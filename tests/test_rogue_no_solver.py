"""Rogue's default answer is recorded without a solver: the search's solution refereed as a model,
the closing claim settled by the formula's bound, and the audit still clean, its re-solve included."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from smtpuzzles import run as runner
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.objectives import RefereeRejected
from smtpuzzles.puzzles import rogue
from smtpuzzles.puzzles.rogue import encodings
from test_rogue import bfs_gold

MAP = "@.$#$\n..$#.\n####.\n$..M.\n"  # two gold reachable, two walled off


def steps_of(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]


def test_a_solve_loads_no_solver_and_records_the_search_and_the_bound(tmp_path):
    path = tmp_path / "map.txt"
    path.write_text(MAP)
    code = ("import sys, json; from smtpuzzles.cli import main\n"
            f"try: main(['solve', 'rogue', {str(path)!r}, '--json', '--out', {str(tmp_path / 'runs')!r}])\n"
            "except SystemExit: pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('z3', 'pysat', 'cvc5'))), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    answer = json.loads(done.stdout)
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []  # no solver module was imported
    assert answer["status"] == "optimal" and answer["value"] == bfs_gold(MAP)  # the tests' own BFS
    run_dir = Path(answer["run_dir"])
    first, closing = steps_of(run_dir)
    assert (first["claim"], first["result"], first["by"], first["value"]) == ({"op": "first"}, "sat", "search", 2)
    assert (closing["claim"], closing["result"], closing["by"]) == ({"op": "at_least", "k": 3}, "unsat", "bound")
    report = audit(run_dir, resolve="certificate", solvers=("z3",))
    assert report.ok, report.findings
    assert any("re-solved unsat by z3" in f.text for f in report.findings)


def test_an_answer_worth_other_than_it_says_is_refused_and_the_run_sealed_interrupted(tmp_path, monkeypatch):
    real = encodings.encode_reach

    def overstated(dungeon):
        enc = real(dungeon)
        answer = dict(enc.notes["answer"], value=enc.notes["answer"]["value"] + 1)
        return replace(enc, notes={"answer": answer})

    monkeypatch.setattr(encodings, "encode_reach", overstated)
    dungeon = rogue.load(MAP, "map", {})
    with pytest.raises(RefereeRejected, match="worth 2, it says 3"):
        runner.solve(rogue, dungeon, MAP, out_dir=tmp_path)
    (run_dir,) = tmp_path.iterdir()
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
    assert steps_of(run_dir) == []  # nothing the referee refused was recorded


def test_an_answer_that_breaks_the_rules_is_refused(tmp_path, monkeypatch):
    real = encodings.encode_reach

    def leaky(dungeon):
        enc = real(dungeon)
        solution = dict(enc.notes["answer"]["solution"], closed_rows=["11100", "11000", "00000", "00000"])
        return replace(enc, notes={"answer": dict(enc.notes["answer"], solution=solution)})

    monkeypatch.setattr(encodings, "encode_reach", leaky)
    with pytest.raises(RefereeRejected, match="breaks the rules"):
        runner.solve(rogue, rogue.load(MAP, "map", {}), MAP, out_dir=tmp_path)
