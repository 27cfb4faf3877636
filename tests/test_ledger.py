"""The ledger and the audit: kill -9 and resume, tampering, time limits, bad ledgers."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import one_error_line
from ledger_forge import forge_chain, read_ledger
from smtpuzzles.auditing.auditor import audit


def solved_run(cli, *args) -> Path:
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", *args)
    assert result["status"] == "optimal"
    return Path(result["run_dir"])


def audit_exit(cli, run_dir, *args):
    code, out, err = cli("audit", run_dir, *args)
    return code, out, err


def test_kill_minus_9_then_resume_then_audit_clean(tmp_path, cli, audited_6x6):
    out = tmp_path / "runs"
    # The z3 engine on 6x6 takes a few seconds: long enough to be killed in the middle.
    proc = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "solve", "kingtour", "--size", "6", "--box", "2x3",
                             "--engine", "z3", "--out", str(out), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    steps_file = None
    while time.time() < deadline:
        found = list(out.glob("*/steps.jsonl"))
        if found and found[0].read_bytes().count(b"\n") >= 12:
            steps_file = found[0]
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert steps_file is not None, "the run never got going"
    run_dir = steps_file.parent
    before = steps_file.read_bytes().split(b"\n")
    complete_before = before[:-1]  # the last element is "" or a torn line
    assert json.loads((run_dir / "run.json").read_text())["status"] == "running"
    # A killed run is readable, claims nothing, and audits clean as such.
    assert audit(run_dir).ok

    code, stdout, err = cli("solve", "kingtour", "--resume", run_dir, "--json")
    assert code == 0, err
    result = json.loads(stdout)
    assert result["status"] == "optimal" and result["value"].startswith("666655546")
    after = steps_file.read_bytes().split(b"\n")
    assert after[: len(complete_before)] == complete_before  # nothing recorded was lost or rewritten
    claims = [json.dumps(json.loads(line)["claim"], sort_keys=True) for line in after if line]
    assert len(claims) == len(set(claims)), "a finished step was redone after resume"
    report = audit(run_dir)
    assert report.ok, [f.text for f in report.findings if not f.ok]
    # And the closing claim re-solved (`audit --resolve`): it rests on its cases, whose queries the
    # re-solve builds with today's encoder from the instance, the encoding and each case's claim
    # alone (smtpuzzles.auditing.resolving), never from what the run recorded of them. Those are
    # the session's 6x6 run's (conftest.audited_6x6), whose re-solve by z3 and cvc5 in fresh
    # processes found every one unsat: the same queries, so they are not re-solved a second time.
    run, steps = read_ledger(run_dir)
    run_6x6, steps_6x6 = read_ledger(audited_6x6.run_dir)
    assert (run["instance_sha256"], run["encoding"]["name"], run["value"]) == \
        (run_6x6["instance_sha256"], run_6x6["encoding"]["name"], run_6x6["value"])
    assert resolved_cases(steps) == resolved_cases(steps_6x6)
    code, out, err = audited_6x6.audit
    resolved = json.loads(out)
    assert code == 0 and resolved["verdict"] == "clean" and resolved["unsat_rechecked"], err
    assert sorted((r["query"], r["solver"], r["answer"]) for r in resolved["resolved"]) == \
        sorted((f"case at step {i}", solver, "unsat") for i in steps_6x6[-1]["cases"] for solver in ("z3", "cvc5"))


def resolved_cases(steps: list[dict]) -> list[dict]:
    """The claims `audit --resolve` re-solves for a run closed by its cases, each answered on its
    own (by a solver or a bound, resting on no other step): its cases' claims, in order."""
    closing = steps[-1]
    assert closing["by"] == "cases" and all(steps[i]["by"] in ("solver", "bound") for i in closing["cases"])
    return [steps[i]["claim"] for i in closing["cases"]]


def _flip_result(line: str) -> str:
    flipped = line.replace('"result":"unsat"', '"result":"sat"') if '"result":"unsat"' in line \
        else line.replace('"result":"sat"', '"result":"unsat"')
    assert flipped != line
    return flipped


def _rewrite_steps(run_dir: Path, change) -> None:
    path = run_dir / "steps.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(change(lines)) + "\n")


@pytest.mark.parametrize("tamper,what", [
    (lambda lines: lines[:3] + [_flip_result(lines[3])] + lines[4:], "edited"),
    (lambda lines: lines[:5] + lines[6:], "deleted"),
    (lambda lines: lines[:2] + [lines[3], lines[2]] + lines[4:], "reordered"),
    (lambda lines: lines[:-1], "cut off"),
])
def test_tampered_ledgers_fail_audit_with_one_line(cli, tamper, what):
    run_dir = solved_run(cli)
    assert audit_exit(cli, run_dir)[0] == 0
    _rewrite_steps(run_dir, tamper)
    code, out, err = audit_exit(cli, run_dir)
    assert code == 2, what
    line = one_error_line(err)
    assert "steps.jsonl" in line or "run.json" in line or "steps" in line


def test_edited_model_is_caught_by_the_referee_even_with_a_fixed_up_chain(cli):
    """Someone who rewrites a model and recomputes every hash still meets the referee."""
    run_dir = solved_run(cli)
    run = json.loads((run_dir / "run.json").read_text())
    steps = [json.loads(l) for l in (run_dir / "steps.jsonl").read_text().splitlines()]
    sat = next(s for s in steps if s["result"] == "sat")
    sat["solution"]["grid"][0][0], sat["solution"]["grid"][0][1] = sat["solution"]["grid"][0][1], sat["solution"]["grid"][0][0]
    forge_chain(run_dir, run, steps)
    report = audit(run_dir)
    assert not report.ok
    assert any(f.section == "models" and not f.ok for f in report.findings)
    assert audit_exit(cli, run_dir)[0] == 1


def test_a_missing_closing_step_breaks_the_claim(cli):
    """A chain rebuilt without the UNSAT step that the claim needs: intact hashes, but the claim fails
    (exit 1). The audit derives that step from the claimed number, so run.json cannot point elsewhere."""
    run_dir = solved_run(cli)
    run = json.loads((run_dir / "run.json").read_text())
    steps = [json.loads(l) for l in (run_dir / "steps.jsonl").read_text().splitlines()]
    drop = next(i for i, s in enumerate(steps) if s["result"] == "unsat" and s["claim"]["op"] == "lex_greater")
    steps = steps[:drop] + steps[drop + 1:]
    forge_chain(run_dir, run, steps)
    report = audit(run_dir)
    failed = [f.text for f in report.findings if f.section == "claims" and f.ok is False]
    assert failed and "no recorded UNSAT step refutes" in failed[0]
    assert audit_exit(cli, run_dir)[0] == 1


def test_position_steps_are_history_not_evidence(cli, closing_asked_whole):
    """Dropping one position's UNSAT step leaves the optimum proved: refuting 'a number greater than
    the claimed one' alone shows nothing beats it, so the audit does not demand the run's path.
    (Closed by its cases, the run's position steps are its evidence: tests/test_closing_by_cases.py.)"""
    run_dir = solved_run(cli)
    run = json.loads((run_dir / "run.json").read_text())
    steps = [json.loads(l) for l in (run_dir / "steps.jsonl").read_text().splitlines()]
    drop = next(i for i, s in enumerate(steps) if s["result"] == "unsat" and s["by"] == "solver" and s["claim"]["op"] == "exceed")
    steps = steps[:drop] + steps[drop + 1:]
    run["certificate"]["step"] -= 1
    forge_chain(run_dir, run, steps)
    report = audit(run_dir, resolve="certificate", solvers=("z3",))
    assert report.exit_code == 0, [f.text for f in report.findings]


def test_a_timed_out_step_never_yields_optimal(cli):
    result = cli.solve_json("kingtour", "--size", 6, "--box", "2x3", "--engine", "z3", "--time-limit", "0.001")
    assert result["status"] == "unknown"
    run_dir = Path(result["run_dir"])
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "unknown"
    steps = [json.loads(l) for l in (run_dir / "steps.jsonl").read_text().splitlines()]
    assert steps[-1]["result"] == "unknown"
    assert "certificate" not in run
    report = audit(run_dir)
    assert report.ok and any("no optimality claimed" in f.text for f in report.findings)
    # Resumed without the limit, the same ledger reaches the proof and still audits clean.
    code, out, err = cli("solve", "kingtour", "--resume", run_dir, "--json")
    assert code == 0 and json.loads(out)["status"] == "optimal"
    assert audit(run_dir).ok


def test_the_time_limit_also_stops_the_sat_engine(cli):
    result = cli.solve_json("kingtour", "--size", 8, "--box", "2x4", "--engine", "sat", "--time-limit", "0.0001")
    assert result["status"] == "unknown"


def test_resume_refuses_a_tampered_ledger(cli):
    result = cli.solve_json("kingtour", "--size", 6, "--box", "2x3", "--engine", "z3", "--time-limit", "0.001")
    run_dir = Path(result["run_dir"])
    _rewrite_steps(run_dir, lambda lines: [lines[0].replace('"seconds":', '"seconds":1')] + lines[1:])
    before = (run_dir / "steps.jsonl").read_bytes()
    code, out, err = cli("solve", "kingtour", "--resume", run_dir)
    assert code == 2 and "tampered" in one_error_line(err)
    assert (run_dir / "steps.jsonl").read_bytes() == before


@pytest.mark.parametrize("damage,fragment", [
    (lambda d: (d / "run.json").write_text('{"puzzle": "kingtour", '), "run.json: not valid JSON"),
    (lambda d: (d / "base.smt2.gz").unlink(), "base formula is missing"),
    (lambda d: (d / "certificate.smt2.gz").write_bytes(b"junk"), "certificate"),
])
def test_unreadable_ledgers_exit_2_with_one_line(cli, damage, fragment):
    run_dir = solved_run(cli)
    damage(run_dir)
    code, out, err = audit_exit(cli, run_dir)
    assert code == 2 and fragment in one_error_line(err)


def test_audit_of_a_folder_that_is_no_run(cli, tmp_path):
    code, _, err = audit_exit(cli, tmp_path)
    assert code == 2 and "no run.json" in one_error_line(err)


def test_runs_never_overwrite_each_other(cli):
    a = solved_run(cli)
    b = solved_run(cli)
    assert a != b and a.exists() and b.exists()


def test_show_renders_a_recorded_run_and_saves_svg(cli, tmp_path):
    run_dir = solved_run(cli)
    svg = tmp_path / "run.svg"
    code, out, err = cli("show", run_dir, "--svg", svg)
    assert code == 0
    assert "4443342132113221" in out
    assert svg.read_text().startswith("<svg")


def test_exported_queries_are_portable(cli):
    """No z3-only terms; a set-logic; cvc5 parses and refutes the closing certificate (posted encoding:
    arithmetic with `ite` sums where z3 would write pbeq)."""
    from smtpuzzles.smtlib import read_query, solve_text

    run_dir = solved_run(cli, "--encoding", "posted", "--engine", "z3")
    query = read_query(run_dir / "certificate.smt2.gz")
    assert query.startswith("(set-logic QF_LIA)")
    for z3_only in ("pbeq", "pble", "pbge", "at-most", "at-least", "_ pb"):
        assert z3_only not in query
    assert solve_text(query, "cvc5") == "unsat"
    assert solve_text(query, "z3") == "unsat"


def wait_for_steps(out: Path, count: int) -> None:
    """Until the run under `out` has recorded `count` steps (at most a minute)."""
    deadline = time.time() + 60
    while time.time() < deadline:
        found = list(out.glob("*/steps.jsonl"))
        if found and found[0].read_bytes().count(b"\n") >= count:
            return
        time.sleep(0.01)


@pytest.mark.parametrize("engine", ["sat", "z3"])
def test_ctrl_c_stops_cleanly_with_a_resumable_ledger(tmp_path, cli, engine):
    out = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "solve", "kingtour", "--size", "8", "--box", "2x4",
                             "--engine", engine, "--out", str(out), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_steps(out, 3)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    result = json.loads(stdout)
    assert result["status"] == "interrupted" and "Traceback" not in stderr
    run_dir = Path(result["run_dir"])
    run = json.loads((run_dir / "run.json").read_text())
    assert run["status"] == "interrupted" and "certificate" not in run
    assert result["solution"] is not None  # the best found so far is kept
    report = audit(run_dir)
    assert report.ok
    # The interrupted ledger is sealed and resumable (resume it under a short limit: the point is
    # that it continues from the recorded steps).
    code, out_text, err = cli("solve", "kingtour", "--resume", run_dir, "--time-limit", "0.5", "--json")
    assert code in (0, 3), err
    assert audit(run_dir).ok


def solve_in_the_background(out) -> subprocess.Popen:
    """A 7x7 (1x7) solve started as `cmd &` in a script starts it: SIGINT ignored from the start."""
    return subprocess.Popen([sys.executable, "-m", "smtpuzzles", "solve", "kingtour", "--size", "7", "--box", "1x7",
                             "--out", str(out), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))


def test_a_solve_started_with_ctrl_c_ignored_runs_to_its_answer(tmp_path):
    """A solve started in the background (`cmd &` in a script: SIGINT ignored from the start) leaves
    SIGINT ignored, as Python does, instead of stopping on it between steps."""
    out = tmp_path / "runs"
    proc = solve_in_the_background(out)
    deadline = time.time() + 60
    while time.time() < deadline and not any(p.stat().st_size for p in out.glob("*/steps.jsonl")):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert json.loads(stdout)["status"] == "optimal"
    assert "interrupted" not in stderr and "Traceback" not in stderr, stderr


def test_a_solve_with_ctrl_c_ignored_stays_ignored_inside_the_sat_solvers(tmp_path):
    """python-sat, called from the main thread, put in a SIGINT handler of its own for each call,
    whatever Python's was: a Ctrl-C the shell had ignored then ended the run with 130 when it came
    during one (CI saw it once), and a few in a row crashed the process. A Ctrl-C every few
    milliseconds, from the moment the process starts to its end: the run still answers."""
    out = tmp_path / "runs"
    proc = solve_in_the_background(out)
    deadline = time.time() + 120
    while proc.poll() is None and time.time() < deadline:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        time.sleep(0.003)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr[-2000:]
    assert json.loads(stdout)["status"] == "optimal"


@pytest.mark.parametrize("sigint_ignored", [False, True])
def test_sigterm_seals_the_run_as_interrupted_even_in_the_background(tmp_path, cli, sigint_ignored):
    """`kill`, a batch scheduler's time limit and a service manager send SIGTERM, to jobs started in
    the background too (SIGINT ignored): the run stops as a Ctrl-C stops it, sealed `interrupted`
    with its best kept and resumable, where the default would leave a ledger saying `running`."""
    out = tmp_path / "runs"
    start = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    proc = subprocess.Popen([sys.executable, "-m", "smtpuzzles", "solve", "kingtour", "--size", "8", "--box", "2x4",
                             "--out", str(out), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=start)
    wait_for_steps(out, 3)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    result = json.loads(stdout)
    assert result["status"] == "interrupted" and result["solution"] is not None and "Traceback" not in stderr
    run_dir = Path(result["run_dir"])
    assert json.loads((run_dir / "run.json").read_text())["status"] == "interrupted"
    assert audit(run_dir).ok
    code, _, err = cli("solve", "kingtour", "--resume", run_dir, "--time-limit", "0.5", "--json")
    assert code in (0, 3), err
