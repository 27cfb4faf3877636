"""Honest numbers and whole logs: one count of checks in every view, an estimate that says unknown
once the open question outlives it (the published 16x16 run), batch seconds that count solving
only, progress lines never cut, `--progress json` one object a line, and `--budget`."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from smtpuzzles.ticker import Ticker

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


# The 16x16 (4x4) run as it was published while interrupted, position 166 open for hours (its ledger
# compressed, its base left out; the record itself was finished on 2026-12-06).
SIXTEEN = ROOT / "tests" / "data" / "kingtour-16x16-interrupted"


def test_the_16x16_ledger_counts_its_checks_once_and_its_estimate_is_unknown():
    from smtpuzzles import puzzles
    from smtpuzzles.cli.showing import show_pictures
    from smtpuzzles.cli.solving import ProgressView
    from smtpuzzles.live import checks_text, read_live, record, summary_line

    live = read_live(SIXTEEN)
    p = live.progress
    # 894 steps: 864 asked a solver, 26 settled by a bound, the rest closed by their cubes
    assert (p.steps, p.checks, p.bounds) == (894, 864, 26)
    assert checks_text(p) == "864 checks, 26 settled by a bound"
    # The last five positions' pace gave ~42.8 s for all 91 left, while position 166 had been open
    # for 1 h 58 min: no estimate is honest there.
    assert p.remaining is None and p.remaining_why.startswith("unknown: the open question has taken 1h 58m")
    assert p.open_question.endswith("position 166 can exceed 5") and p.open_seconds > 7000
    # Every view says the same numbers: show's panel, its progress line, the solve view fed the
    # same steps (as a resumed run replays them), and the JSON record.
    _, _, shown = show_pictures(SIXTEEN)
    from rich.console import Console

    printed = io.StringIO()
    Console(file=printed, width=80, color_system=None).print(*shown)
    text = printed.getvalue()
    assert "864 by the solver, 26 settled by a bound" in text and "unknown: the open question" in text
    assert "~42.8s solver time =" not in text
    assert "864 checks" in summary_line(p)
    view = ProgressView(puzzles.get("kingtour"))
    for step in live.folder.steps:
        view.step(step)
    assert view.plain_line().startswith("kingtour: 864 checks, 26 settled by a bound; position 166 of 256, 165 proved")
    got = record(p)
    assert (got["checks"], got["bounds"], got["position"], got["proved"], got["estimate_seconds"]) == (864, 26, 166, 165,
                                                                                                          None)


def test_a_piped_line_longer_than_80_columns_is_kept_whole():
    long = "audit kingtour 081325: certificate with cvc5 6s, certificate with z3 41s, reference: part 3/36 done " * 2
    out = io.StringIO()
    with Ticker(lambda: long, 0.05, stream=out, form="plain"):
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert lines and all(line.endswith(long) and len(line) > 160 for line in lines)


def test_json_progress_is_one_object_a_line(tmp_path):
    done = cli("solve", "kingtour", "--size", 8, "--box", "2x4", "--progress", "json", "--progress-every", 0.1,
               "--out", tmp_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines()]  # every line parses alone
    assert records, "no progress"
    for r in records:
        assert {"stage", "elapsed"} <= set(r) and isinstance(r["elapsed"], (int, float))
    searching = [r for r in records if r["stage"] in ("searching", "closing")]
    assert searching, records
    r = searching[-1]
    assert {"position", "proved", "best", "open_question", "open_seconds", "checks", "bounds"} <= set(r)
    assert r["length"] == 64 and re.fullmatch(r"[1-8]{64}", r["best"]) and r["open_seconds"] >= 0
    assert [r["proved"] for r in searching] == sorted(r["proved"] for r in searching)


def test_a_batch_counts_solving_time_only(tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "six"\npuzzle = "kingtour"\nsize = 6\n')
    run = lambda: cli("batch", jobs, "--progress-every", 0, cwd=tmp_path)  # noqa: E731
    first = run()
    assert first.returncode == 0, first.stderr
    row = json.loads((tmp_path / "runs" / "summary.json").read_text())[0]
    assert row["seconds"] > 0 and row["solver_seconds"] > 0
    again = run()
    assert again.returncode == 0
    reread = json.loads((tmp_path / "runs" / "summary.json").read_text())[0]
    # Done before: re-reading it is no solving; its run's own solver time is kept beside.
    assert (reread["note"], reread["seconds"], reread["solver_seconds"]) == ("done before", 0.0, row["solver_seconds"])
    assert "solving in this batch: 0.00s" in again.stdout


def test_a_budget_that_runs_out_seals_unknown_and_the_run_resumes(tmp_path):
    import smtpuzzles
    from smtpuzzles.auditing.auditor import audit

    result = smtpuzzles.solve("kingtour", {"size": 10, "box": "2x5"}, budget=2, out=tmp_path)
    assert result.status == "unknown"  # never optimal
    run = json.loads((result.run_dir / "run.json").read_text())
    assert run["status"] == "unknown"
    assert audit(result.run_dir).verdict in ("clean", "consistent")
    resumed = cli("solve", "kingtour", "--resume", result.run_dir, "--budget", 1, "--json", cwd=tmp_path)
    assert resumed.returncode == 3, resumed.stderr  # unknown again, resumed from its ledger
    assert json.loads(resumed.stdout)["status"] == "unknown"
    again = json.loads((result.run_dir / "run.json").read_text())
    assert again["steps"] >= run["steps"] and again["status"] == "unknown"


@pytest.mark.parametrize("bad", ["0", "-1", "inf", "nan", "soon"])
def test_a_bad_budget_is_one_line(bad, tmp_path):
    done = cli("solve", "kingtour", "--size", 4, "--budget", bad, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") <= 2 and "Traceback" not in done.stderr
    with pytest.raises(smtpuzzles_input_error()):
        import smtpuzzles

        smtpuzzles.solve("kingtour", {"size": 4}, budget=float(bad) if bad != "soon" else bad)


def smtpuzzles_input_error():
    from smtpuzzles.errors import InputError

    return InputError


def test_cubes_3_names_the_depths_not_an_engine(tmp_path):
    done = cli("solve", "kingtour", "--size", 4, "--cubes", "3", cwd=tmp_path)
    assert done.returncode == 2 and "z3" not in done.stderr and "invalid choice: 3" in done.stderr, done.stderr


def test_the_kings_tour_legend_has_a_clue_key_only_on_a_board_with_clues():
    from smtpuzzles import puzzles

    kingtour = puzzles.get("kingtour")
    clues = (ROOT / "smtpuzzles" / "examples" / "kingtour" / "6x6-clues.txt").read_text()
    bare = kingtour.load(None, "options", {"size": 6, "box": "2x3", "clues": None})
    clued = kingtour.load(clues, "6x6-clues.txt", {"size": 6, "box": "2x3", "clues": None})
    assert "a given digit" not in kingtour.draw(bare, None)
    assert "a given digit" in kingtour.draw(clued, None)
