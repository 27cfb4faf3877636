"""The audit trusts nothing in a run folder: forged claims fail, hostile text never reaches a solver,
malformed folders get one line and exit 2, and memory stays bounded.

Ground truth comes from the seeds' expected answers (smtpuzzles/examples/nonary/expected.json), never
from the code under test."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import one_error_line
from ledger_forge import forge_chain, read_ledger, write_gz_text
from smtpuzzles import puzzles
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.errors import LedgerError
from smtpuzzles.formula import smt2
from smtpuzzles.objective import claim_terms, describe

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "smtpuzzles" / "examples" / "nonary"
EXPECTED = json.loads((EXAMPLES / "expected.json").read_text())
RECORD = next((ROOT / "results").glob("kingtour-033a4d9697-*"))
ONE_DOOR = [[9, 0, -1]]  # the seeds' case 03: optimum 5
FOUR_PLAYERS = {"moves": [{"door": 0, "players": [1, 2, 7, 8]}]}  # 1+2+7+8 = 18, a valid plan worth 4


def nonary_run(cli, doors) -> Path:
    path = cli.tmp_path / "map.json"
    path.write_text(json.dumps(doors))
    code, out, err = cli("solve", "nonary", path, "--json", "--out", cli.tmp_path / "runs")
    assert code == 0, err
    return Path(json.loads(out)["run_dir"])


def audit_process(*args, cwd: Path, memory_mb: int | None = None) -> subprocess.CompletedProcess:
    """`smtpuzzles audit ARGS` as a real process in `cwd`, HOME there too, optionally under an
    address-space limit (what a runaway read would hit)."""
    limit = None
    if memory_mb:
        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    env = {**os.environ, "HOME": str(cwd)}
    return subprocess.run([sys.executable, "-m", "smtpuzzles", "audit", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, preexec_fn=limit, timeout=300)


def flat(text: str) -> str:
    """Output with rich's wrapping undone: words joined by single spaces."""
    return " ".join(text.split())


def tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


# ------------------------------------------------------------------------------ forged optimum
def forge_false_optimum(run_dir: Path, with_certificate: bool) -> None:
    """The map [[9,0,-1]] (optimum 5) rewritten to claim an optimum of 4: a valid 4-player plan,
    'at least 5' recorded as UNSAT, every hash recomputed."""
    run, steps = read_ledger(run_dir)
    module = puzzles.get("nonary")
    enc = module.encode(module.from_canonical(run["instance"]))
    claim = {"op": "at_least", "k": 5}
    terms = claim_terms(enc.objective, claim)
    first = {**steps[0], "solution": FOUR_PLAYERS, "value": 4}
    refuted = {"claim": claim, "words": describe(claim), "assumptions": [smt2(t) for t in terms], "result": "unsat",
               "by": "solver", "engine": "sat", "seconds": 0.01, "stats": {}, "core": [0]}
    (run_dir / "solution.json").write_text(json.dumps({"value": 4, "solution": FOUR_PLAYERS}))
    run["value"] = 4
    if with_certificate:
        sha = write_gz_text(run_dir / "certificate.smt2.gz", enc.formula.query(terms))
        run["certificate"] = {"file": "certificate.smt2.gz", "claim": claim, "step": 1, "sha256": sha}
    else:
        run.pop("certificate")
        (run_dir / "certificate.smt2.gz").unlink()
    forge_chain(run_dir, run, [first, refuted])


def test_a_false_optimum_without_its_certificate_fails(cli):
    run_dir = nonary_run(cli, ONE_DOOR)
    forge_false_optimum(run_dir, with_certificate=False)
    for extra in ([], ["--resolve"], ["--resolve", "all"]):
        code, out, err = cli("audit", run_dir, *extra)
        assert code == 1, (extra, out)
        assert "certificate.smt2.gz) is missing" in flat(out) or "certificate" in out
        assert "Traceback" not in err


def test_a_false_optimum_with_a_consistent_forgery_fails_when_re_solved(cli):
    """A forger who also writes a matching certificate gets a ledger that holds together, so the
    UNSAT answer alone would be taken on trust; the independent search of the game's positions
    (nonary's solver-free certificate) already finds 5, and any re-solve refutes the claim."""
    run_dir = nonary_run(cli, ONE_DOOR)
    forge_false_optimum(run_dir, with_certificate=True)
    code, out, _ = cli("audit", run_dir)
    assert code == 1 and "audit FAILED" in out
    # The start and one position per group of 3..5 summing to 0 mod 9 that leaves by the one door.
    positions = 1 + sum(1 for k in (3, 4, 5) for g in itertools.combinations(range(1, 10), k) if sum(g) % 9 == 0)
    assert f"an independent search of {positions} positions finds 5 can escape, not 4" in flat(out)
    assert "✓ claims" in out  # the ledger itself holds together: only the certificate and a re-solve see through it
    for extra in (["--resolve"], ["--resolve", "all"], ["--resolve", "--solver", "cvc5"]):
        code, out, err = cli("audit", run_dir, *extra)
        assert code == 1, (extra, out)
        assert "answered sat" in out and "audit FAILED" in out


def test_run_json_cannot_point_the_claim_at_another_step(cli):
    """run.json's certificate entry naming a different (refuted but weaker) step does not help."""
    run_dir = nonary_run(cli, ONE_DOOR)
    run, steps = read_ledger(run_dir)
    run["certificate"]["step"] = 0
    (run_dir / "run.json").write_text(json.dumps(run))
    code, out, _ = cli("audit", run_dir)
    assert code == 1 and "certificate entry names another claim" in flat(out)


# --------------------------------------------------------------------- hostile text and options
HOSTILE_PREFIX = '(set-option :regular-output-channel "{target}")\n(echo "owned")\n'


def test_ledger_text_never_reaches_a_solver(cli, tmp_path):
    run_dir = nonary_run(cli, ONE_DOOR)
    target = tmp_path / "written-by-the-ledger"
    prefix = HOSTILE_PREFIX.format(target=target)
    run = json.loads((run_dir / "run.json").read_text())
    base = gzip.decompress((run_dir / "base.smt2.gz").read_bytes()).decode()
    cert = gzip.decompress((run_dir / "certificate.smt2.gz").read_bytes()).decode()
    run["base"]["sha256"] = write_gz_text(run_dir / "base.smt2.gz", prefix + base)
    run["certificate"]["sha256"] = write_gz_text(run_dir / "certificate.smt2.gz", prefix + cert)
    (run_dir / "run.json").write_text(json.dumps(run))
    before = tree(tmp_path)
    done = audit_process(run_dir, "--resolve", "all", cwd=tmp_path)
    assert not target.exists()
    assert tree(tmp_path) == before, "the audit wrote or changed files"
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "certificate.smt2.gz is not the query today's encoder builds" in flat(done.stdout)
    assert "different base formula" in flat(done.stdout)


@pytest.mark.parametrize("solver", ["z3", "cvc5"])
def test_the_query_solver_refuses_commands_that_write_files(tmp_path, solver):
    target = tmp_path / "written-by-the-query"
    query = tmp_path / "q.smt2"
    query.write_text(HOSTILE_PREFIX.format(target=target) + "(declare-fun a () Bool)\n(assert a)\n(check-sat)\n")
    done = subprocess.run([sys.executable, "-m", "smtpuzzles.smtlib", "--solver", solver, str(query)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and not target.exists()
    assert "line 1: command 'set-option' is not allowed" in one_error_line(done.stderr)


def test_solver_options_in_run_json_are_refused(cli, tmp_path):
    code, out, err = cli("solve", "kingtour", "--size", 6, "--box", "2x3", "--engine", "z3", "--time-limit", "0.001",
                         "--json", "--out", tmp_path / "runs")
    assert code == 3
    run_dir = Path(json.loads(out)["run_dir"])
    target = tmp_path / "z3-log"
    run = json.loads((run_dir / "run.json").read_text())
    run["engine"]["params"]["smtlib2_log"] = str(target)
    (run_dir / "run.json").write_text(json.dumps(run))
    before = (run_dir / "steps.jsonl").read_bytes()
    code, _, err = cli("solve", "kingtour", "--resume", run_dir)
    assert code == 2 and "unknown z3 engine parameter 'smtlib2_log'" in one_error_line(err)
    code, _, err = cli("audit", run_dir)
    assert code == 2 and "smtlib2_log" in one_error_line(err)
    assert not target.exists() and (run_dir / "steps.jsonl").read_bytes() == before


# ------------------------------------------------------------------------------- malformed folders
def _edit_run(change):
    def apply(run_dir: Path):
        run = json.loads((run_dir / "run.json").read_text())
        change(run)
        (run_dir / "run.json").write_text(json.dumps(run))
    return apply


def _edit_first_step(change):
    def apply(run_dir: Path):
        run, steps = read_ledger(run_dir)
        change(steps[0])
        forge_chain(run_dir, run, steps)
    return apply


def _write(name: str, data: bytes):
    return lambda run_dir: (run_dir / name).write_bytes(data)


def _symlink(name: str, target: str):
    def apply(run_dir: Path):
        (run_dir / name).unlink()
        (run_dir / name).symlink_to(target)
    return apply


MALFORMED = [
    ("run.json a list", _write("run.json", b"[1, 2]"), "run.json: must be a JSON object, not list"),
    ("run.json not UTF-8", _write("run.json", b'{"a": "\xff"}'), "run.json: not UTF-8"),
    ("run.json NaN", _write("run.json", b'{"value": NaN}'), "NaN is not a JSON number"),
    ("run.json huge int", _write("run.json", b'{"value": ' + b"9" * 5000 + b"}"), "run.json: not valid JSON"),
    ("status a number", _edit_run(lambda r: r.update(status=5)), "status has the wrong type"),
    ("steps a string", _edit_run(lambda r: r.update(steps="x")), "steps has the wrong type"),
    ("unknown status", _edit_run(lambda r: r.update(status="proved")), "unknown status 'proved'"),
    ("unknown key", _edit_run(lambda r: r.update(shell="rm -rf /")), "unknown key 'shell'"),
    ("base path leaves", _edit_run(lambda r: r["base"].update(file="../../etc/passwd")), "base must be {file: base.smt2.gz"),
    ("cert path leaves", _edit_run(lambda r: r["certificate"].update(file="/etc/passwd")), "certificate must be"),
    ("unknown puzzle", _edit_run(lambda r: r.update(puzzle="chess")), "unknown puzzle 'chess'"),
    ("instance wrong shape", _edit_run(lambda r: r.update(instance=[1])), "recorded instance is invalid"),
    ("instance edited", _edit_run(lambda r: r["instance"]["doors"].append([9, 0, -1])), "instance does not match"),
    ("encoding unknown", _edit_run(lambda r: r["encoding"].update(name="x")), "unknown nonary encoding 'x'"),
    ("claim a string", _edit_first_step(lambda s: s.update(claim="first")), "claim has the wrong type"),
    ("claim op unknown", _edit_first_step(lambda s: s.update(claim={"op": "exec"})), "unknown claim op 'exec'"),
    ("claim extra field", _edit_first_step(lambda s: s["claim"].update(cmd=1)), "must have exactly the fields op"),
    ("result unknown", _edit_first_step(lambda s: s.update(result="maybe")), "unknown result 'maybe'"),
    ("claim solutions not objects", _edit_first_step(lambda s: s.update(claim={"op": "block", "solutions": [1]})),
     "claim field solutions must hold objects"),
    ("solution.json a list", _write("solution.json", b"[]"), "solution.json: must be an object {value, solution}"),
    ("base not gzip", _write("base.smt2.gz", b"(set-logic QF_UF)"), "base formula is not valid gzip"),
    ("base cut off", lambda d: (d / "base.smt2.gz").write_bytes((d / "base.smt2.gz").read_bytes()[:40]),
     "base formula is cut off"),
    ("steps.jsonl to /dev/zero", _symlink("steps.jsonl", "/dev/zero"), "steps.jsonl: is a symbolic link"),
    ("run.json to elsewhere", _symlink("run.json", "/etc/hostname"), "run.json: is a symbolic link"),
    ("steps line deeply nested", _write("steps.jsonl", b"[" * 200000 + b"\n"), "JSON nested too deeply"),
]


@pytest.mark.parametrize("what,damage,fragment", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_folders_get_one_line_and_exit_2(cli, what, damage, fragment):
    run_dir = nonary_run(cli, ONE_DOOR)
    damage(run_dir)
    code, out, err = cli("audit", run_dir)
    assert code == 2, (what, out)
    line = one_error_line(err)
    assert fragment in line, line
    assert str(run_dir) in line  # the place is named


@pytest.mark.parametrize("solution", [
    {"moves": [{"door": 0, "players": [[]]}]}, {"moves": None}, {"moves": [None]}, {"plan": []},
])
def test_a_recorded_model_of_the_wrong_shape_breaks_the_rules(cli, solution):
    """The referee judges any JSON: a model it cannot read is a model that breaks the rules."""
    run_dir = nonary_run(cli, ONE_DOOR)
    _edit_first_step(lambda s: s.update(solution=solution))(run_dir)
    code, out, err = cli("audit", run_dir)
    assert code == 1 and "step 0: the model breaks the rules" in flat(out) and not err


def test_a_bad_folder_among_good_ones_is_marked_and_the_rest_audited(cli):
    good = nonary_run(cli, ONE_DOOR)
    bad = nonary_run(cli, ONE_DOOR)
    (bad / "run.json").write_text("[]")
    code, out, err = cli("audit", good, bad, RECORD)
    assert code == 2
    assert "unreadable" in out and out.count("consistent") >= 2  # both good folders listed
    assert one_error_line(err).startswith("smtpuzzles: error: ")


# ------------------------------------------------------------------------------------ memory bounds
def _sparse(name: str, size: int):
    def apply(run_dir: Path):
        with open(run_dir / name, "wb") as handle:
            handle.truncate(size)
    return apply


def _gzip_bomb(name: str, expands_to: int):
    """A gzip file that expands to `expands_to` bytes of zeros, made in milliseconds: after a full
    flush the compressor starts afresh, so every further 16 MiB block compresses to the same bytes.
    It has no trailer; a reader that does not stop early expands all of it first."""
    def apply(run_dir: Path):
        block = b"\0" * (1 << 24)
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        head = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
        again = packer.compress(block) + packer.flush(zlib.Z_FULL_FLUSH)
        (run_dir / name).write_bytes(head + again * (expands_to // len(block) - 1))
    return apply


@pytest.mark.parametrize("what,damage,code,fragment", [
    ("steps.jsonl to /dev/zero", _symlink("steps.jsonl", "/dev/zero"), 2, "symbolic link"),
    ("steps.jsonl 20 GB", _sparse("steps.jsonl", 20 << 30), 2, "larger than 64 MiB"),
    ("steps.jsonl one 40 MB line", _sparse("steps.jsonl", 40 << 20), 2, "line 1 is longer than 16 MiB"),
    ("run.json 5 GB", _sparse("run.json", 5 << 30), 2, "run.json is larger than 64 MiB"),
    ("base a 2 GB gzip bomb", _gzip_bomb("base.smt2.gz", 2 << 30), 2, "base formula does not match"),
    ("certificate a 2 GB gzip bomb", _gzip_bomb("certificate.smt2.gz", 2 << 30), 1, None),
])
def test_memory_stays_bounded(cli, tmp_path, what, damage, code, fragment):
    run_dir = nonary_run(cli, ONE_DOOR)
    damage(run_dir)
    done = audit_process(run_dir, "--resolve", cwd=tmp_path, memory_mb=1024)
    assert done.returncode == code, (what, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    if fragment:
        assert fragment in one_error_line(done.stderr)


# ---------------------------------------------------------------------------------- using the audit
def test_a_missing_solver_is_named_with_its_install_command(cli, monkeypatch):
    run_dir = nonary_run(cli, ONE_DOOR)
    monkeypatch.setattr("smtpuzzles.auditing.resolving.solver_available", lambda solver: solver != "cvc5")
    code, out, err = cli("audit", run_dir, "--resolve")
    assert code == 4
    assert "cvc5 is not installed" in flat(out) and "pip install 'smtpuzzles[audit]'" in flat(out)
    assert "FAILED" not in out and "re-solved unsat by z3" in flat(out)


def test_a_re_solve_out_of_time_is_undecided_not_failed(cli):
    run_dir = nonary_run(cli, ONE_DOOR)
    code, out, _ = cli("audit", run_dir, "--resolve", "--time-limit", "0.001")
    assert code == 3 and "audit undecided" in out and "FAILED" not in out


def test_progress_is_reported_while_re_solving(cli, tmp_path):
    run_dir = nonary_run(cli, ONE_DOOR)
    done = audit_process(run_dir, "--resolve", "--solver", "z3", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "audit: re-solving certificate with z3..." in done.stderr
    assert "audit: certificate: z3 answered unsat in" in done.stderr
    assert "audit clean" in done.stdout


def test_a_glob_of_two_runs_of_one_board_audits_as_a_table(tmp_path):
    """A glob that matches the record and a user's run of the same board (as results/ did when
    user runs defaulted to it): both are audited, in one table of 80 columns."""
    results = tmp_path / "results"
    shutil.copytree(RECORD, results / RECORD.name)
    shutil.copytree(RECORD, results / (RECORD.name[:-6] + "999999"))
    done = subprocess.run("smtpuzzles audit results/kingtour-033a4d9697-*/", shell=True, cwd=tmp_path,
                          capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("kingtour-033a4d9697-") == 2 and "audit of 2 run folders" in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


# ------------------------------------------------------------------------------- mutated ledgers
@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    from smtpuzzles import run as runner

    module = puzzles.get("nonary")
    text = (EXAMPLES / "02.json").read_text()
    instance = module.load(text, "02.json", {})
    outcome, ledger = runner.solve(module, instance, text, out_dir=tmp_path_factory.mktemp("pristine"))
    assert outcome.status == "optimal" and outcome.value == EXPECTED["02.json"]
    return ledger.dir


FILES = ["run.json", "steps.jsonl", "solution.json", "certificate.smt2.gz", "base.smt2.gz"]
mutation = st.one_of(
    st.tuples(st.just("flip"), st.sampled_from(FILES), st.floats(0, 1), st.integers(1, 255)),
    st.tuples(st.just("drop"), st.integers(0, 50)),
    st.tuples(st.just("repeat"), st.integers(0, 50)),
    st.tuples(st.just("step"), st.integers(0, 50), st.sampled_from(["result", "value", "k", "players", "door"]),
              st.integers(-2, 12)),
    st.tuples(st.just("run"), st.sampled_from(["value", "status", "steps"]), st.integers(-1, 12)),
)


def _mutate(run_dir: Path, change) -> None:
    kind = change[0]
    if kind == "flip":
        _, name, where, bits = change
        data = bytearray((run_dir / name).read_bytes())
        if data:
            data[min(int(where * len(data)), len(data) - 1)] ^= bits
            (run_dir / name).write_bytes(bytes(data))
        return
    if kind in ("drop", "repeat"):
        lines = (run_dir / "steps.jsonl").read_bytes().splitlines(keepends=True)
        if not lines:
            return
        i = change[1] % len(lines)
        lines[i:i + 1] = [] if kind == "drop" else [lines[i], lines[i]]
        (run_dir / "steps.jsonl").write_bytes(b"".join(lines))
        return
    try:
        run, steps = read_ledger(run_dir)
    except ValueError:  # an earlier flip broke the JSON: nothing structured left to edit
        return
    if kind == "run":
        _, key, number = change
        run[key] = {"value": number, "status": ["optimal", "infeasible", "solved", "unknown"][number % 4],
                    "steps": number}[key]
        (run_dir / "run.json").write_text(json.dumps(run))
        return
    _, index, field, number = change  # a careful forger: edit one step, re-hash the chain
    if not steps or not isinstance(run, dict):
        return
    step = steps[index % len(steps)]
    if field == "result":
        step["result"] = ["sat", "unsat", "unknown"][number % 3]
    elif field == "value":
        step["value"] = number
    elif field == "k" and step["claim"]["op"] == "at_least":
        step["claim"]["k"] = number
    elif field in ("players", "door") and step.get("solution", {}).get("moves"):
        move = step["solution"]["moves"][0]
        if field == "door":
            move["door"] = number
        else:
            move["players"] = sorted({*move["players"][:-1], number % 9 + 1})
    forge_chain(run_dir, run, steps)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(mutation, min_size=1, max_size=3))
def test_mutated_ledgers_never_pass_a_false_claim(pristine, changes):
    """Whatever the mutation, the audit either rejects the folder (LedgerError: exit 2), fails the
    claim, or passes a claim that is true for the seed map (optimum from expected.json). A plain pass
    that took an UNSAT answer on trust is re-checked by re-solving it."""
    work = Path(tempfile.mkdtemp())
    try:
        run_dir = work / "run"
        shutil.copytree(pristine, run_dir)
        for change in changes:
            _mutate(run_dir, change)
        try:
            report = audit(run_dir)
            if report.exit_code == 0 and report.unchecked_unsat:
                report = audit(run_dir, resolve="certificate", solvers=("z3",))
        except LedgerError:
            return
        if report.exit_code != 0:
            return
        run = json.loads((run_dir / "run.json").read_text())
        assert run["status"] != "infeasible" and run["status"] != "solved"
        if run["status"] == "optimal":
            assert run["value"] == EXPECTED["02.json"], (changes, report.findings)
    finally:
        shutil.rmtree(work)


def test_results_marks_a_bad_folder_and_lists_the_rest(cli, tmp_path):
    good = nonary_run(cli, ONE_DOOR)
    bad = nonary_run(cli, ONE_DOOR)
    (bad / "run.json").write_text('{"format": 1')
    outside = tmp_path / "elsewhere"
    shutil.copytree(good, outside / "run")
    (good.parent / "link").symlink_to(outside)  # a folder that leaves the results folder
    code, out, err = cli("results", good.parent, "--json", "--audit")
    rows = {Path(r["run"]).name: r for r in json.loads(out)}
    assert code == 0 and set(rows) == {good.name, bad.name}, rows
    assert rows[good.name]["audit"] == "consistent"
    assert rows[bad.name]["audit"].startswith("unreadable: not valid JSON")


def test_a_checked_proof_backs_a_true_claim_and_none_exists_for_a_false_one(cli):
    """--proof: a proof-logging solver refutes the derived query and smtpuzzles.proofs.drup checks it; for
    the forged optimum of 4 on [[9,0,-1]] (seeds: 5) no proof exists, so the claim fails."""
    good = nonary_run(cli, ONE_DOOR)
    code, out, _ = cli("audit", good, "--proof")
    assert code == 0 and "audit clean" in out and "checked by smtpuzzles.proofs.drup" in flat(out)
    forged = nonary_run(cli, ONE_DOOR)
    forge_false_optimum(forged, with_certificate=True)
    code, out, _ = cli("audit", forged, "--proof")
    assert code == 1 and "satisfiable" in flat(out) and "audit FAILED" in out


def test_an_arithmetic_encoding_has_no_clausal_proof(cli, tmp_path):
    path = tmp_path / "map.txt"
    path.write_text("@.$\n")
    code, out, err = cli("solve", "rogue", path, "--json", "--out", tmp_path / "runs")
    assert code == 0, err
    code, out, _ = cli("audit", json.loads(out)["run_dir"], "--proof")
    assert code == 3 and "is arithmetic: no clausal proof" in flat(out)
