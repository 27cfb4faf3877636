"""A hostile author of run folders against audit, show, results and solve --resume.

Each test builds a real run, then rewrites it the way someone handing over a crafted folder would
(hash chain and seal recomputed, see ledger_forge). Tests marked xfail(strict) show a weakness
that is still open: they fail today and pass once it is fixed (then the marker goes). The others
pin attacks that are handled, where tests/test_audit_hostile.py does not already cover them.

Ground truth never comes from the code under test: the Nonary optimum of [[9,0,-1]] is the seeds'
(case 03, 5), the Tatamibari count of 03.txt is the seeds' (2, smtpuzzles/examples), and a forged
King's-tour claim is shown false by a refereed solution worth more.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import one_error_line
from ledger_forge import forge_chain, read_ledger, write_gz_text
from smtpuzzles import puzzles
from smtpuzzles.formula import smt2
from smtpuzzles.canonical import canonical_json
from smtpuzzles.objective import claim_terms, describe
from smtpuzzles.folders.runfolder import MAX_STEPS_FILE

ROOT = Path(__file__).resolve().parents[1]
TATAMIBARI = ROOT / "smtpuzzles" / "examples" / "tatamibari"
TATAMIBARI_EXPECTED = json.loads((TATAMIBARI / "expected.json").read_text())
ONE_DOOR = [[9, 0, -1]]  # the seeds' Nonary case 03: optimum 5
ONE_DOOR_OPTIMUM = 5
TWO_SOLUTIONS = "03.txt"  # the seeds' Tatamibari case 03: exactly two solutions
assert TATAMIBARI_EXPECTED[TWO_SOLUTIONS]["count"] == 2


# ---------------------------------------------------------------------------------------- helpers
def solve(cli, *args) -> Path:
    code, out, err = cli("solve", *args, "--json", "--out", cli.tmp_path / "runs")
    assert code == 0, err
    return Path(json.loads(out)["run_dir"])


def nonary_run(cli) -> Path:
    path = cli.tmp_path / "map.json"
    path.write_text(json.dumps(ONE_DOOR))
    return solve(cli, "nonary", path)


def refuting_step(enc, claim: dict) -> dict:
    return {"claim": claim, "words": describe(claim), "assumptions": [smt2(t) for t in claim_terms(enc.objective, claim)],
            "result": "unsat", "by": "solver", "engine": "sat", "seconds": 0.01, "stats": {}, "core": []}


def forge(run_dir: Path, *, status: str, value, solution: dict | None, steps: list[dict], claim: dict | None,
          extra: dict | None = None) -> None:
    """Rewrite a run folder to claim `status`/`value` with `solution`, the given steps and (when
    `claim` is given) a certificate equal to the query today's encoder builds for it: a ledger that
    holds together, whose UNSAT answer is a lie."""
    run, _ = read_ledger(run_dir)
    module = puzzles.get(run["puzzle"])
    enc = module.encode(module.from_canonical(run["instance"]), run["encoding"]["name"])
    run.update(status=status, value=value, extra=extra or {})
    if solution is None:
        (run_dir / "solution.json").unlink(missing_ok=True)
    else:
        (run_dir / "solution.json").write_text(json.dumps({"value": value, "solution": solution}))
    run.pop("certificate", None)
    (run_dir / "certificate.smt2.gz").unlink(missing_ok=True)
    if claim is not None:
        index = next(i for i, s in enumerate(steps) if s["result"] == "unsat" and s["claim"] == claim)
        sha = write_gz_text(run_dir / "certificate.smt2.gz", enc.formula.query(claim_terms(enc.objective, claim)))
        run["certificate"] = {"file": "certificate.smt2.gz", "claim": claim, "step": index, "sha256": sha}
    forge_chain(run_dir, run, steps)


def encoder_of(run_dir: Path):
    run, _ = read_ledger(run_dir)
    module = puzzles.get(run["puzzle"])
    return module, module.encode(module.from_canonical(run["instance"]), run["encoding"]["name"])


def edit_run(run_dir: Path, change) -> None:
    run = json.loads((run_dir / "run.json").read_text())
    change(run)
    (run_dir / "run.json").write_text(json.dumps(run))


def smtpuzzles_process(*args, cwd: Path, memory_mb: int | None = None, timeout: float = 60):
    """(exit status or 'timeout', stdout, stderr) of `smtpuzzles ARGS` as a real process."""
    def limit():
        if memory_mb:
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    try:
        done = subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], cwd=cwd, capture_output=True,
                              text=True, preexec_fn=limit, timeout=timeout, env={**os.environ, "HOME": str(cwd)})
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    return done.returncode, done.stdout, done.stderr


def make_resumable(run_dir: Path) -> None:
    """A finished Nonary run cut back to its first step and marked unknown: what a time limit leaves."""
    run, steps = read_ledger(run_dir)
    run.update(status="unknown", extra={})
    run.pop("certificate")
    (run_dir / "certificate.smt2.gz").unlink()
    forge_chain(run_dir, run, steps[:1])


# ----------------------------------------------------- forged claims that a re-solve must refute
def test_a_forged_unique_tatamibari_fails_when_re_solved(cli):
    """03.txt has two solutions (seeds); claimed unique with a lying UNSAT step and certificate."""
    run_dir = solve(cli, "tatamibari", TATAMIBARI / TWO_SOLUTIONS, "--unique")
    _, enc = encoder_of(run_dir)
    _, steps = read_ledger(run_dir)
    first = steps[0]
    claim = {"op": "block", "solutions": [first["solution"]]}
    forge(run_dir, status="solved", value=first["value"], solution=first["solution"], claim=claim,
          steps=[first, refuting_step(enc, claim)], extra={"unique": True})
    code, out, _ = cli("audit", run_dir)
    assert code == 0 and "audit consistent" in out  # the ledger holds together: taken on trust
    code, out, err = cli("audit", run_dir, "--resolve", "--solver", "z3")
    assert code == 1 and "audit FAILED" in out and "answered sat" in err and "Traceback" not in err


def test_a_forged_complete_count_fails_when_re_solved(cli):
    run_dir = solve(cli, "tatamibari", TATAMIBARI / TWO_SOLUTIONS, "--count")
    _, enc = encoder_of(run_dir)
    _, steps = read_ledger(run_dir)
    first = steps[0]
    claim = {"op": "block", "solutions": [first["solution"]]}
    forge(run_dir, status="solved", value=first["value"], solution=first["solution"], claim=claim,
          steps=[first, refuting_step(enc, claim)], extra={"count": 1, "count_complete": True})
    code, out, err = cli("audit", run_dir, "--resolve", "--solver", "z3")
    assert code == 1 and "audit FAILED" in out and "answered sat" in err and "Traceback" not in err


def test_a_forged_infeasible_nonary_fails_when_re_solved(cli):
    run_dir = nonary_run(cli)
    _, enc = encoder_of(run_dir)
    claim = {"op": "first"}
    forge(run_dir, status="infeasible", value=None, solution=None, claim=claim, steps=[refuting_step(enc, claim)])
    code, out, _ = cli("audit", run_dir)
    assert code == 0 and "audit consistent" in out
    code, out, err = cli("audit", run_dir, "--resolve", "--solver", "z3")
    assert code == 1 and "audit FAILED" in out and "answered sat" in err and "Traceback" not in err


def test_a_forged_smaller_kingtour_optimum_fails_when_re_solved(cli):
    """The 4x4 optimum's digits relabelled (4 <-> 1): a valid Sudoku on the same tour, worth less.
    The original solution, refereed, beats it, so 'optimal' for it is false."""
    run_dir = solve(cli, "kingtour", "--size", 4, "--box", "2x2")
    module, enc = encoder_of(run_dir)
    _, steps = read_ledger(run_dir)
    board = module.from_canonical(read_ledger(run_dir)[0]["instance"])
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    swap = {4: 1, 1: 4, 2: 2, 3: 3}
    smaller = {"grid": [[swap[d] for d in row] for row in best["grid"]], "tour": best["tour"]}
    assert module.referee(board, smaller) == [] and module.referee(board, best) == []
    worse = module.value(board, smaller)
    assert worse < module.value(board, best)
    first = {**steps[0], "solution": smaller, "value": worse}
    claim = {"op": "lex_greater", "best": worse}
    forge(run_dir, status="optimal", value=module.value_json(worse), solution=smaller, claim=claim,
          steps=[first, refuting_step(enc, claim)])
    code, out, _ = cli("audit", run_dir)
    assert code == 0 and "audit consistent" in out
    code, out, err = cli("audit", run_dir, "--resolve", "--solver", "z3")
    assert code == 1 and "audit FAILED" in out and "answered sat" in err and "Traceback" not in err


def test_a_claimed_value_of_another_type_fails(cli):
    """run.json says "5", [5] or {"v": 5} where solution.json is worth 5: not the value the referee
    computed."""
    run_dir = nonary_run(cli)
    for odd in ("5", [5], {"v": 5}):
        edit_run(run_dir, lambda run: run.update(value=odd))
        code, out, _ = cli("audit", run_dir)
        assert code in (1, 2), (odd, out)


# ---------------------------------------------------------- claims the audit should not pass
def test_results_never_shows_a_complete_count_the_audit_did_not_check(cli):
    """03.txt has two solutions. A count stopped at its limit (1) with count_complete set to 1."""
    run_dir = solve(cli, "tatamibari", TATAMIBARI / TWO_SOLUTIONS, "--count", 1)
    edit_run(run_dir, lambda run: run["extra"].update(count_complete=1))
    code, out, _ = cli("results", run_dir.parent, "--json", "--audit")
    (row,) = json.loads(out)
    assert not (row["count_complete"] and row["audit"] in ("clean", "consistent")), row


def test_an_unknown_run_cannot_carry_a_complete_count(cli):
    run_dir = solve(cli, "tatamibari", TATAMIBARI / TWO_SOLUTIONS, "--count")
    edit_run(run_dir, lambda run: run.update(status="unknown", value=None, extra={"count": 99, "count_complete": True}))
    code, out, _ = cli("results", run_dir.parent, "--json", "--audit")
    (row,) = json.loads(out)
    assert not (row["count"] == 99 and row["audit"] in ("clean", "consistent")), row


def test_infeasible_fails_when_the_folder_holds_a_refereed_solution(cli):
    run_dir = nonary_run(cli)
    saved = json.loads((run_dir / "solution.json").read_text())
    _, enc = encoder_of(run_dir)
    claim = {"op": "first"}
    forge(run_dir, status="infeasible", value=None, solution=None, claim=claim, steps=[refuting_step(enc, claim)])
    (run_dir / "solution.json").write_text(json.dumps(saved))
    code, out, _ = cli("audit", run_dir)
    assert code == 1, out


def test_optimal_fails_when_any_step_carries_a_better_refereed_model(cli):
    run_dir = nonary_run(cli)
    _, enc = encoder_of(run_dir)
    _, steps = read_ledger(run_dir)
    better = json.loads((run_dir / "solution.json").read_text())["solution"]  # worth 5
    four = {"moves": [{"door": 0, "players": [1, 2, 7, 8]}]}  # 1+2+7+8 = 18: a valid plan worth 4
    claim = {"op": "at_least", "k": 5}
    aside = {"claim": {"op": "at_least", "k": 5}, "words": "",
             "assumptions": [smt2(t) for t in claim_terms(enc.objective, claim)],
             "result": "unknown", "reason": "timeout", "solution": better, "value": 5}
    forge(run_dir, status="optimal", value=4, solution=four, claim=claim,
          steps=[{**steps[0], "solution": four, "value": 4}, aside, refuting_step(enc, claim)])
    code, out, _ = cli("audit", run_dir)
    assert code == 1, out


def test_a_value_without_a_solution_is_not_clean(cli):
    run_dir = nonary_run(cli)
    make_resumable(run_dir)
    (run_dir / "solution.json").unlink()
    edit_run(run_dir, lambda run: run.update(value=9))  # 9 escaping [[9,0,-1]] is impossible (seeds: 5)
    code, out, _ = cli("audit", run_dir)
    assert code != 0, out


# ----------------------------------------------------------------- solve --resume on a crafted folder
def test_resume_does_not_write_through_a_lock_symlink(cli, tmp_path):
    run_dir = nonary_run(cli)
    make_resumable(run_dir)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (run_dir / ".lock").unlink()
    (run_dir / ".lock").symlink_to(victim)
    cli("solve", "nonary", "--resume", run_dir)
    assert victim.read_bytes() == b"precious\n"


def test_resume_does_not_write_through_a_certificate_symlink(cli, tmp_path):
    run_dir = nonary_run(cli)
    make_resumable(run_dir)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (run_dir / "certificate.smt2.gz").symlink_to(victim)
    cli("solve", "nonary", "--resume", run_dir)
    assert victim.read_bytes() == b"precious\n"


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_resume_with_an_odd_lock_file_is_one_line(cli, kind):
    run_dir = nonary_run(cli)
    make_resumable(run_dir)
    (run_dir / ".lock").unlink()
    if kind == "fifo":
        os.mkfifo(run_dir / ".lock")
    else:
        (run_dir / ".lock").symlink_to("/dev/null")
    code, _, err = cli("solve", "nonary", "--resume", run_dir)
    assert code == 2 and one_error_line(err)


@pytest.mark.parametrize("kind", ["not utf-8", "/dev/zero", "fifo"])
def test_resume_reads_run_json_through_the_checked_reader(cli, tmp_path, kind):
    run_dir = nonary_run(cli)
    make_resumable(run_dir)
    (run_dir / "run.json").unlink()
    if kind == "not utf-8":
        (run_dir / "run.json").write_bytes(b'{"puzzle": "\xff"}')
    elif kind == "/dev/zero":
        (run_dir / "run.json").symlink_to("/dev/zero")
    else:
        os.mkfifo(run_dir / "run.json")
    code, _, err = smtpuzzles_process("solve", "nonary", "--resume", run_dir, cwd=tmp_path, memory_mb=1024,
                                        timeout=5 if kind == "fifo" else 60)
    assert code == 2, (code, err[-300:])
    assert str(run_dir) in one_error_line(err)


def test_resume_does_not_trust_a_recorded_value(cli):
    run_dir = nonary_run(cli)
    make_resumable(run_dir)
    run, steps = read_ledger(run_dir)
    steps[0]["value"] = 9  # its model lets 5 escape
    (run_dir / "solution.json").unlink()
    run["value"] = None
    forge_chain(run_dir, run, steps)
    code, out, err = cli("solve", "nonary", "--resume", run_dir, "--json")
    if code == 0:
        assert json.loads(out)["value"] == ONE_DOOR_OPTIMUM
    else:
        assert code == 2 and one_error_line(err)
    assert json.loads((run_dir / "run.json").read_text()).get("value") != 9


def test_resume_refuses_a_symlinked_solution(cli, tmp_path):
    run_dir = nonary_run(cli)
    make_resumable(run_dir)
    outside = tmp_path / "outside.json"
    outside.write_text((run_dir / "solution.json").read_text())
    (run_dir / "solution.json").unlink()
    (run_dir / "solution.json").symlink_to(outside)
    before = outside.read_bytes()
    code, _, err = cli("solve", "nonary", "--resume", run_dir)
    assert code == 2 and "symbolic link" in one_error_line(err)
    assert outside.read_bytes() == before


# ------------------------------------------------------------------------- crashes and resources
def _block_claim_of_the_wrong_shape(cli) -> Path:
    run_dir = solve(cli, "tatamibari", TATAMIBARI / TWO_SOLUTIONS, "--count")
    run, steps = read_ledger(run_dir)
    sat_block = next(s for s in steps if s["result"] == "sat" and s["claim"]["op"] == "block")
    sat_block["claim"]["solutions"] = [{"regions": [[[1]]]}]
    forge_chain(run_dir, run, steps)
    return run_dir


def test_a_block_claim_of_the_wrong_shape_is_one_line(cli):
    run_dir = _block_claim_of_the_wrong_shape(cli)
    code, out, err = cli("audit", run_dir)
    assert code in (1, 2) and (code == 1 or one_error_line(err))


def test_results_lists_the_other_runs_when_one_audit_crashes(cli):
    bad = _block_claim_of_the_wrong_shape(cli)
    good = nonary_run(cli)
    code, out, _ = cli("results", good.parent, "--json", "--audit")
    rows = {Path(r["run"]).name: r for r in json.loads(out)}
    assert code == 0 and set(rows) == {bad.name, good.name}


def _many_steps(run_dir: Path, count: int) -> int:
    """steps.jsonl rewritten as `count` small unknown steps (a valid chain), the run left unknown."""
    run = json.loads((run_dir / "run.json").read_text())
    prev = run["instance_sha256"]
    with open(run_dir / "steps.jsonl", "wb") as handle:
        for i in range(count):
            line = canonical_json({"index": i, "prev": prev, "claim": {"op": "first"}, "assumptions": [],
                                   "result": "unknown"}).encode()
            handle.write(line + b"\n")
            prev = hashlib.sha256(line).hexdigest()
    run.update(status="unknown", steps=count, last_step_sha256=prev, extra={}, value=None)
    run.pop("certificate", None)
    (run_dir / "run.json").write_text(json.dumps(run))
    (run_dir / "solution.json").unlink(missing_ok=True)
    return (run_dir / "steps.jsonl").stat().st_size


PEAK = "import resource, sys; from pathlib import Path; from smtpuzzles.auditing.auditor import audit; " \
       "audit(Path(sys.argv[1])); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"


def test_a_steps_file_at_the_cap_fits_in_bounded_memory(cli):
    """Measured on a 12 MB file and scaled to the cap: the audit of a folder at the size cap must fit
    the 1 GiB address-space limit test_audit_hostile's memory tests use (at the cap it runs ~45 s)."""
    small, big = nonary_run(cli), nonary_run(cli)
    _many_steps(small, 1)
    size = _many_steps(big, 80_000)
    peaks = []
    for run_dir in (small, big):
        done = subprocess.run([sys.executable, "-c", PEAK, str(run_dir)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        peaks.append(int(done.stdout.split()[-1]) * 1024)
    per_byte = (peaks[1] - peaks[0]) / size
    assert peaks[0] + per_byte * MAX_STEPS_FILE < 1 << 30, f"{per_byte:.1f} bytes of memory per byte of file"


def test_files_that_are_not_regular_are_refused(cli):
    """FIFOs and folders in place of a run's files: one line, exit 2, never a blocked read."""
    for name, make in [("steps.jsonl", os.mkfifo), ("solution.json", os.mkfifo), ("run.json", os.mkdir),
                       ("certificate.smt2.gz", os.mkfifo), ("base.smt2.gz", os.mkdir)]:
        run_dir = nonary_run(cli)
        (run_dir / name).unlink()
        make(run_dir / name)
        code, _, err = cli("audit", run_dir)
        assert code == 2, name
        assert name in one_error_line(err)


@pytest.mark.parametrize("data,fragment", [
    (b"\xef\xbb\xbf", "not valid JSON"),  # a byte-order mark before the object
])
def test_a_bom_in_run_json_is_one_line(cli, data, fragment):
    run_dir = nonary_run(cli)
    (run_dir / "run.json").write_bytes(data + (run_dir / "run.json").read_bytes())
    code, _, err = cli("audit", run_dir)
    assert code == 2 and fragment in one_error_line(err)


# ------------------------------------------------------------------------------- what a person sees
def test_folder_text_cannot_send_terminal_escapes(cli):
    run_dir = nonary_run(cli)
    edit_run(run_dir, lambda run: run.update(value="\x1b[32maudit clean\x1b[8m", started="\x1b]52;c;cHduZWQ=\x1b\\"))
    code, out, err = cli("audit", run_dir)
    assert code == 2 and "\x1b" not in out + err and "control character" in one_error_line(err)
    code, out, err = cli("show", run_dir)
    assert code == 2 and "\x1b" not in out + err
