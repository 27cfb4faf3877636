"""`solve --share WORKERS`, end to end: a King's tour whose every check is shared out (--split-after 0)
on local processes gets the brute force's optimum, records `share` in run.json and its refutations
as steps by tree, audits clean (and --resolve clean); a Ctrl-C during a shared check ends the run
interrupted, and a resume shares as the run was started and finishes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brute_kingtour import best_overall
from ledger_forge import read_ledger
from smtpuzzles.engines import press_ctrl_c
from smtpuzzles.sharing.runner import Sharing

BRUTE_4x4 = "".join(map(str, best_overall(4, 2, 2)))


def test_a_shared_run_gets_the_optimum_and_audits_clean(cli):
    result = cli.solve_json("kingtour", "--size", 4, "--share", 2, "--split-after", 0)
    assert (result["status"], result["value"]) == ("optimal", BRUTE_4x4)
    run, steps = read_ledger(Path(result["run_dir"]))
    assert run["share"] == 2 and "cubes" not in run
    assert any(s.get("by") == "tree" for s in steps) and not any("cube" in s["claim"] for s in steps)
    code, out, _ = cli("audit", result["run_dir"], "--resolve", "--solver", "z3", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean", report["findings"]
    assert any(r["query"].endswith("cube 0") for r in report["resolved"])  # trees re-solved cube by cube


def test_ctrl_c_during_a_shared_check_ends_the_run_interrupted_and_a_resume_finishes_it(cli, monkeypatch):
    ask, asked = Sharing.ask, []

    def pressing_on_the_fourth(self, formula, terms, time_limit):
        asked.append(1)
        if len(asked) == 4:
            press_ctrl_c()  # the run's first Ctrl-C, as the terminal's would set it
        return ask(self, formula, terms, time_limit)

    monkeypatch.setattr(Sharing, "ask", pressing_on_the_fourth)
    result = cli.solve_json("kingtour", "--size", 4, "--share", 2, "--split-after", 0, code=130)
    assert result["status"] == "interrupted"
    run_dir = Path(result["run_dir"])
    run, steps = read_ledger(run_dir)
    assert run["status"] == "interrupted" and run["share"] == 2 and steps[-1]["result"] == "interrupted"
    monkeypatch.setattr(Sharing, "ask", ask)
    code, out, err = cli("solve", "kingtour", "--resume", run_dir, "--split-after", 0, "--json")
    assert code == 0, err
    assert json.loads(out)["value"] == BRUTE_4x4
    run, after = read_ledger(run_dir)
    assert run["share"] == 2 and after[:len(steps)] == steps
    assert any(s.get("by") == "tree" for s in after[len(steps):])  # shared after the resume too
    code, out, _ = cli("audit", run_dir, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "consistent"


def test_a_resume_with_share_0_solves_its_checks_here(cli, monkeypatch):
    """A shared run resumed with `--share 0` asks no worker (its long checks go to the run's own
    solver, which moves a long one to a fresh solver), says so in run.json, and audits."""
    ask, asked = Sharing.ask, []

    def pressing_on_the_fourth(self, formula, terms, time_limit):
        asked.append(1)
        if len(asked) == 4:
            press_ctrl_c()
        return ask(self, formula, terms, time_limit)

    monkeypatch.setattr(Sharing, "ask", pressing_on_the_fourth)
    run_dir = Path(cli.solve_json("kingtour", "--size", 4, "--share", 2, "--split-after", 0, code=130)["run_dir"])
    _, steps = read_ledger(run_dir)
    monkeypatch.setattr(Sharing, "ask", lambda *args: pytest.fail("a check was shared after --share 0"))
    code, out, err = cli("solve", "kingtour", "--resume", run_dir, "--share", 0, "--split-after", 0, "--json")
    assert code == 0 and json.loads(out)["value"] == BRUTE_4x4, err
    run, after = read_ledger(run_dir)
    assert "share" not in run and not any(s.get("by") == "tree" for s in after[len(steps):])
    code, out, _ = cli("audit", run_dir, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "consistent"


def test_share_needs_a_clausal_encoding_and_the_scheduler_needs_work_to_spread(cli):
    code, _, err = cli("solve", "kingtour", "--size", 4, "--encoding", "posted", "--engine", "z3", "--share", 2)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--share: the posted encoding has no clausal formula to share a check of" in err
    code, _, err = cli("solve", "kingtour", "--size", 4, "--share", "two")
    assert code == 2 and "--share: 'two' is not a whole number" in err


def test_a_batch_job_with_share_shares_its_checks(cli, tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "k4"\npuzzle = "kingtour"\nsize = 4\nshare = 2\nsplit_after = 0\n')
    code, _, err = cli("batch", jobs, "--out", tmp_path / "runs")
    assert code == 0, err
    run_dir = next((tmp_path / "runs").rglob("run.json")).parent
    run, steps = read_ledger(run_dir)
    assert (run["status"], run["value"], run["share"]) == ("optimal", BRUTE_4x4, 2)
    assert any(s.get("by") == "tree" for s in steps)
