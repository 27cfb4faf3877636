"""Proofs any checker accepts, and a reference that must fit its own witness (issue: the verified
checker). `audit --proof --checker PATH` hands every proof to a program outside this tool; stand-in
checkers written here (one accepts, one rejects, one hangs, one prints garbage) show each verdict is
taken as it should be, and cake_lpr itself, the verified checker, is built and run where its source
lies beside the project (../shared/tools/cake_lpr, as on the developers' machines and CI). `proofs`
writes the files an auditor with no Python checks. A reference that rejects the run's own solution,
or admits more than the rules, fails the audit; a kept-parts folder's name never decides a verdict."""

from __future__ import annotations

from importlib import import_module
import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import copy_of_run, kingtour_encoding_with, one_error_line, solved_once, stand_in

HERE = Path(__file__).resolve().parent
CAKE_SOURCE = HERE.parent.parent / "shared" / "tools" / "cake_lpr"


@pytest.fixture(scope="module")
def certified_4x4(tmp_path_factory) -> Path:
    """`smtpuzzles solve kingtour --size 4 --box 2x2 --certify`, solved once for this file."""
    return Path(solved_once(tmp_path_factory.mktemp("certified"), "kingtour", "--size", 4, "--box", "2x2",
                            "--certify")["run_dir"])


@pytest.fixture
def honest(certified_4x4, tmp_path):
    """A finished 4x4 King's tour with its proofs stored (certify), audited as a record is: this
    test's own copy, at TMP_PATH/runs/NAME, of the one solved for this file."""
    return str(copy_of_run(certified_4x4, tmp_path))


def audited(cli, run_dir, *flags):
    code, out, err = cli("audit", run_dir, "--proof", *map(str, flags), "--json")
    return code, (json.loads(out) if out.strip() else None), err


def texts(report: dict, section: str | None = None) -> list[str]:
    return [f["text"] for f in report["findings"] if section is None or f["section"] == section]


def test_a_checker_that_accepts_is_named_beside_each_proof(cli, honest, tmp_path):
    checker = stand_in(tmp_path, "accepts", "print('c fine'); print('s VERIFIED UNSAT')")
    code, report, _ = audited(cli, honest, "--checker", checker)
    assert code == 0 and report["verdict"] == "clean"
    outside = [t for t in texts(report) if f"accepted by accepts ({checker})" in t]
    assert len(outside) == 2  # the encoder's proof and the reference proof, each said by name


def test_a_checker_that_rejects_fails_the_claim(cli, honest, tmp_path):
    checker = stand_in(tmp_path, "rejects", "print('s NOT VERIFIED'); sys.exit(1)")
    code, report, _ = audited(cli, honest, "--checker", checker)
    assert code == 1 and report["verdict"] == "FAILED"
    failed = [f["text"] for f in report["findings"] if f["ok"] is False]
    assert failed and all("was not accepted by the outside checker" in t and "s NOT VERIFIED" in t for t in failed)


@pytest.mark.parametrize("body", ["print('all good')", "print('s VERIFIED UNSAT'); sys.exit(3)",
                                  "sys.stderr.write('s VERIFIED UNSAT\\n')", "print('s VERIFIED UNSAT'); sys.exit(1)"])
def test_no_acceptance_without_the_line_on_standard_output_and_exit_zero(cli, honest, tmp_path, body):
    """Exit 0 without the line, the line with another exit status, or the line on stderr only: none
    is a verdict of UNSAT (check.sh, which `proofs` writes, reads a checker the same way)."""
    code, _, _ = audited(cli, honest, "--checker", stand_in(tmp_path, "sloppy", body))
    assert code == 1


def test_a_checker_that_hangs_is_no_verdict_within_the_time_limit(cli, honest, tmp_path):
    import time

    checker = stand_in(tmp_path, "hangs", "time.sleep(600)")
    started = time.monotonic()
    code, report, _ = audited(cli, honest, "--checker", checker, "--time-limit", 2)
    assert time.monotonic() - started < 60  # two checks of 2 s each, and the rest of a small audit
    assert code == 3 and report["verdict"] == "undecided"
    assert any("hangs ran past 2 s without a verdict" in t for t in texts(report))


def test_a_checker_that_prints_garbage_is_rejected_escaped_and_bounded(cli, honest, tmp_path):
    checker = stand_in(tmp_path, "garbage", "sys.stdout.buffer.write(b'\\x1b[31mred\\xff\\n' * 300000); sys.exit(0)")
    code, report, err = audited(cli, honest, "--checker", checker)
    assert code == 1
    failed = " ".join(f["text"] for f in report["findings"] if f["ok"] is False)
    assert "printed more than 1,048,576 bytes" in failed or "its last line" in failed
    assert "\x1b" not in failed and "\\x1b" in failed  # what it printed, shown escaped


def test_checker_flags_are_one_line(cli, honest, tmp_path):
    code, _, err = cli("audit", honest, "--checker", "/nonexistent/cake_lpr")
    assert code == 2 and one_error_line(err) == "smtpuzzles: error: --checker: checks the proofs --proof checks or " \
                                                "makes: add --proof"
    code, _, err = cli("audit", honest, "--proof", "--checker", "/nonexistent/cake_lpr")
    assert code == 2 and one_error_line(err) == "smtpuzzles: error: --checker: no checker program at " \
                                                "'/nonexistent/cake_lpr'"
    plain = tmp_path / "plain"
    plain.write_text("x")
    code, _, err = cli("audit", honest, "--proof", "--checker", plain)
    assert code == 2 and one_error_line(err).endswith("is not executable")


def built_cake_lpr(tmp_path: Path) -> Path | None:
    """cake_lpr built from its source beside the project (gcc, about a second), or the one on PATH."""
    if (CAKE_SOURCE / "cake_lpr.S").is_file() and shutil.which("gcc"):
        binary = tmp_path / "cake_lpr"
        subprocess.run(["gcc", "-O2", "-std=c99", "-o", str(binary), str(CAKE_SOURCE / "basis_ffi.c"),
                        str(CAKE_SOURCE / "cake_lpr.S")], check=True, capture_output=True)
        return binary
    found = shutil.which("cake_lpr")
    return Path(found) if found else None


def test_cake_lpr_accepts_the_proofs_where_it_is_to_be_had(cli, honest, tmp_path, monkeypatch):
    """The verified checker on the stored proofs; without its source or a copy on PATH, the audit
    looks for it on PATH and, finding none, says nothing of an outside checker."""
    cake = built_cake_lpr(tmp_path)
    if cake is None:
        monkeypatch.setenv("PATH", str(tmp_path))
        code, report, _ = audited(cli, honest)
        assert code == 0 and not [t for t in texts(report) if "accepted by" in t]
        return
    code, report, _ = audited(cli, honest, "--checker", cake)
    assert code == 0 and len([t for t in texts(report) if "accepted by cake_lpr" in t]) == 2
    monkeypatch.setenv("PATH", f"{cake.parent}{os.pathsep}{os.environ['PATH']}")
    code, report, _ = audited(cli, honest)  # found on PATH, with no --checker
    assert code == 0 and len([t for t in texts(report) if "accepted by cake_lpr" in t]) == 2
    code, report, _ = audited(cli, honest, "--checker", "none")
    assert code == 0 and not [t for t in texts(report) if "accepted by" in t]


LRAT_STAND_IN = f"""
sys.path.insert(0, {str(HERE.parent)!r})
from smtpuzzles.trusted.dimacs import read_dimacs
from smtpuzzles.trusted.lrat import check_lrat
nvars, clauses = read_dimacs(open(sys.argv[1], 'rb').read())
verdict = check_lrat(nvars, clauses, open(sys.argv[2], 'rb').read())
print('s VERIFIED UNSAT' if verdict.ok else 's NOT VERIFIED ' + verdict.message)
"""


def run_check_script(folder: Path, checker: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", str(folder / "check.sh")], capture_output=True, text=True,
                          env={**os.environ, "CHECKER": str(checker)})


def test_proofs_writes_files_an_lrat_checker_checks_with_no_python(cli, honest, tmp_path):
    out = tmp_path / "proofs"
    code, _, err = cli("proofs", honest, "--out", out)
    assert code == 0 and "wrote 6 files" in err
    assert sorted(p.name for p in out.iterdir()) == ["README.txt", "check.sh", "encoder.cnf", "encoder.lrat",
                                                     "reference.cnf", "reference.lrat"]
    readme = " ".join((out / "README.txt").read_text().split())  # wrapped to 80 columns
    assert "reference.cnf, reference.lrat: refutes the reference formula" in readme and "symmetry" in readme
    # 80 columns, but for a line that is one unbreakable word (a long number or path)
    assert all(len(line) <= 80 or " " not in line.strip() for line in (out / "README.txt").read_text().splitlines())
    checker = built_cake_lpr(tmp_path) or stand_in(tmp_path, "lrat_stand_in", LRAT_STAND_IN)
    done = run_check_script(out, checker)
    assert done.returncode == 0 and done.stdout.strip().endswith("all proofs here verified"), done
    # A proof broken by one line: the script says which, and fails.
    lines = (out / "reference.lrat").read_bytes().splitlines()
    (out / "reference.lrat").write_bytes(b"\n".join(lines[:-1]) + b"\n")
    done = run_check_script(out, checker)
    assert done.returncode == 1 and "NOT VERIFIED: reference.lrat" in done.stdout


def test_proofs_in_parts_are_written_part_by_part_and_checked(cli, monkeypatch, tmp_path):
    kingtour_encoding_with(monkeypatch, proof_parts=True)
    run_dir = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)["run_dir"]
    out = tmp_path / "proofs"
    code, _, err = cli("proofs", run_dir, "--out", out)
    assert code == 0
    parts = sorted((out / "encoder-parts").iterdir())
    assert len(parts) > 1 and all(p.name.startswith("case") and p.suffix == ".lrat" for p in parts)
    readme = " ".join((out / "README.txt").read_text().split())  # wrapped to 80 columns
    assert f"in {len(parts)} parts" in readme and "are exactly the literals of clause " in readme
    checker = built_cake_lpr(tmp_path) or stand_in(tmp_path, "lrat_stand_in", LRAT_STAND_IN)
    done = run_check_script(out, checker)
    assert done.returncode == 0 and done.stdout.strip().endswith("all proofs here verified"), done


def test_proofs_never_writes_into_a_folder_that_exists(cli, honest, tmp_path):
    (tmp_path / "there").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    for name in ("there", "link"):
        code, _, err = cli("proofs", honest, "--out", tmp_path / name)
        assert code == 2 and one_error_line(err).endswith("already exists: name a new folder, so no file there is "
                                                          "overwritten")
    assert not (tmp_path / "elsewhere").exists() and not list((tmp_path / "there").iterdir())


# ------------------------------------------------------------------ the reference fits its witness
def with_reference(monkeypatch, make) -> None:
    """The King's tour's reference hook replaced (as a plug-in author might write it), in the
    registered puzzle the audit finds."""
    from smtpuzzles import puzzles

    monkeypatch.setattr(puzzles.get("kingtour"), "reference", make)


def test_an_always_unsatisfiable_reference_fails_the_audit_of_an_honest_run(cli, monkeypatch):
    run_dir = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)["run_dir"]
    with_reference(monkeypatch, lambda board, claim: "p cnf 100000 2\n1 0\n-1 0\n")  # unsatisfiable
    code, report, _ = audited(cli, run_dir)
    assert code == 1 and report["verdict"] == "FAILED"
    assert [f["text"] for f in report["findings"] if f["ok"] is False] == [
        "the kingtour reference formula, without the claim, rejects the run's solution: it is stricter than the "
        "rules, and its proof cannot vouch for the claim"]
    assert not [r for r in report["rests_on"] if "reference" in r]


def test_a_reference_missing_the_box_rule_fails_the_audit_of_an_honest_run(cli, monkeypatch):
    """The box rule left out (boards of n x 1 boxes: a box is then a column): the reference admits
    the honest solution and a better number besides, so it cannot refute the claim."""
    import dataclasses

    rules = import_module("smtpuzzles.puzzles.kingtour.reference")  # not `from`: the package's `reference` is its hook

    run_dir = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)["run_dir"]
    with_reference(monkeypatch, lambda board, claim: rules.reference(
        dataclasses.replace(board, box_rows=board.size, box_cols=1), claim).dimacs())
    code, report, _ = audited(cli, run_dir)
    assert code == 1
    assert any("admits the run's solution" in t for t in texts(report, "reference"))
    assert [f["text"] for f in report["findings"] if f["ok"] is False][-1].startswith(
        "the reference encoding, written from the rules alone, has a solution the claim rules out")


def test_every_builtin_reference_admits_its_own_examples_solution():
    """The contract test's check for the built-ins, here on each puzzle's first example."""
    from smtpuzzles import puzzles
    from smtpuzzles.auditing import witness
    from smtpuzzles.contract import adopt
    rules = import_module("smtpuzzles.puzzles.kingtour.reference")  # not `from`: the package's `reference` is its hook

    checked = 0
    for name in puzzles.names():
        module = adopt(puzzles.get(name))
        if module.reference is None:
            continue
        example = next(iter(module.examples()))
        for found in (module.brute_force(example.instance, 100_000) or [])[:3] if module.brute_force else []:
            ok, words = witness.check(module, example.instance, {"op": "first"}, found)
            assert ok is True, (name, words)
            checked += 1
    assert checked >= 1
    board = adopt(puzzles.get("kingtour"))
    assert rules.witness is not None and board.reference_witness is not None


def test_a_plugin_with_a_reference_and_no_witness_breaks_the_contract():
    import types

    from smtpuzzles.contract import problems
    from smtpuzzles.puzzles import kingtour

    plugin = types.SimpleNamespace(**{name: getattr(kingtour, name) for name in kingtour.__all__})
    del plugin.reference_witness
    assert any(p.startswith("reference needs reference_witness") for p in problems(plugin))


# ------------------------------------------------------------------ verdicts are types, not words
def test_a_kept_parts_folder_named_unsatisfiable_with_a_wrong_part_audits_clean(cli, monkeypatch, tmp_path):
    """The folder's name is in every message about its parts; no verdict is read from a message, and
    a wrong kept part is made anew: the true claim audits clean."""
    kingtour_encoding_with(monkeypatch, proof_parts=True)
    run_dir = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)["run_dir"]
    kept = tmp_path / "is satisfiable, unsatisfiable"
    code, report, _ = audited(cli, run_dir, "--keep-parts", kept)
    assert code == 0
    wrong = sorted(kept.glob("*.lrat.gz"))[0]
    wrong.write_bytes(gzip.compress(b"9999999 0 1 0\n"))
    code, report, _ = audited(cli, run_dir, "--keep-parts", kept)
    assert code == 0 and report["verdict"] == "clean", texts(report)


def test_a_false_claim_is_called_false_not_blamed_on_the_encoder(cli):
    """A claim one step below the run's true optimum, proved on both formulas: each has a model, and
    the report calls the claim false rather than blaming the encoder for being stricter than the rules."""
    from smtpuzzles.auditing import auditproof
    from smtpuzzles.auditing.readback import Referee, recorded_instance
    from smtpuzzles.auditing.report import Report
    from smtpuzzles.folders.runfolder import open_run

    run_dir = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)["run_dir"]
    folder = open_run(Path(run_dir))
    module, instance = recorded_instance(folder.run, "run.json")
    enc = module.encode(instance, folder.run["encoding"]["name"])
    lower = list(module.value(instance, folder.solution))
    lower[-1] -= 1  # the run's own solution beats this
    report = Report(run_dir, "kingtour", "optimal", None)
    auditproof.prove_both(report, folder, enc, Referee(module, instance), {"op": "lex_greater", "best": lower},
                          None, None, beside=False)
    failed = [f.text for f in report.findings if f.ok is False]
    assert failed[0].startswith(auditproof.FALSE_BY_ENCODER)
    assert failed[-1] == auditproof.FALSE_BY_RULES
    assert not any("stricter" in t for t in failed)


# ------------------------------------------------------------------ after a hostile review
def test_a_checker_that_leaves_children_behind_has_them_stopped(cli, honest, tmp_path):
    """A wrapper script that starts the real work as its child and hangs: the whole group is stopped
    at the time limit, nothing of it left running."""
    marker = f"smtpuzzles-test-{os.getpid()}-sleeps"
    checker = tmp_path / "wrapper"
    checker.write_text(f"#!/bin/sh\nexec -a {marker} sleep 300 &\nsleep 300\n")
    checker.chmod(0o755)
    code, report, _ = audited(cli, honest, "--checker", checker, "--time-limit", 1)
    assert code == 3
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert left == [], left


def test_check_script_needs_the_exit_status_and_fails_when_the_audit_was_not_clean(cli, honest, tmp_path):
    out = tmp_path / "proofs"
    assert cli("proofs", honest, "--out", out)[0] == 0
    liar = stand_in(tmp_path, "liar", "print('s VERIFIED UNSAT'); sys.exit(1)")
    done = run_check_script(out, liar)
    assert done.returncode == 1 and "NOT VERIFIED: encoder.lrat" in done.stdout
    # An audit that could not make its proofs in time: check.sh never says all is verified.
    slow = tmp_path / "slow"
    code, _, _ = cli("proofs", honest, "--out", slow, "--checker", stand_in(tmp_path, "sleeper", "time.sleep(30)"),
                     "--time-limit", 1)
    assert code == 3
    assert "THE AUDIT WAS NOT CLEAN (undecided)" in " ".join((slow / "README.txt").read_text().split())
    done = run_check_script(slow, stand_in(tmp_path, "yes", "print('s VERIFIED UNSAT')"))
    assert done.returncode == 1 and "all proofs here verified" not in done.stdout


def test_proofs_takes_one_readable_run_and_makes_no_folder_otherwise(cli, honest, tmp_path):
    holder = tmp_path / "several"
    holder.mkdir()
    shutil.copytree(honest, holder / "a")
    for bad in (holder, tmp_path / "missing"):
        code, _, err = cli("proofs", bad, "--out", tmp_path / "out")
        assert code == 2 and "is not a run folder (proofs takes one run)" in one_error_line(err)
    broken = tmp_path / "broken"
    shutil.copytree(honest, broken)
    (broken / "run.json").write_text("{")
    code, _, err = cli("proofs", broken, "--out", tmp_path / "out")
    assert code == 2 and not (tmp_path / "out").exists()


def test_the_proof_files_are_no_finding_of_the_audit(cli, honest, tmp_path):
    code, out, _ = cli("proofs", honest, "--out", tmp_path / "p", "--checker", "none", "--json")
    assert code == 0 and not [t for t in texts(json.loads(out)) if "written to" in t]


def test_the_api_takes_a_checker_as_the_command_does(honest, tmp_path):
    import smtpuzzles
    from smtpuzzles.errors import InputError

    checker = stand_in(tmp_path, "rejects", "print('s NOT VERIFIED'); sys.exit(1)")
    assert smtpuzzles.audit(honest, proof=True, checker=str(checker)).verdict == "FAILED"
    assert smtpuzzles.audit(honest, proof=True, checker="none").verdict == "clean"
    with pytest.raises(InputError, match=r"audit\(checker=...\): checks the proofs audit\(proof=...\) checks"):
        smtpuzzles.audit(honest, checker=str(checker))


def test_a_gzip_bomb_kept_as_a_part_is_read_no_further_than_an_honest_part_its_size(tmp_path):
    """500 KB unpacking to 500 MB of comment lines: cut at 64 times its size, and the part made anew."""
    import tracemalloc

    from smtpuzzles.proofs import parts, proof as proofs

    text = "p cnf 4 5\n1 2 3 0\n-1 4 0\n-2 4 0\n-3 4 0\n-4 0\n"
    query = proofs.Dimacs(text, 4, 5)
    made = proofs.certify_query(query, split=1, parts_dir=tmp_path)
    bomb = sorted(tmp_path.glob("*+1.lrat.gz"))[0]
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        for _ in range(500):
            out.write(b"c " * 500_000 + b"\n")
    packed = bomb.stat().st_size
    assert packed < 2_000_000
    tracemalloc.start()
    again = proofs.certify_query(query, split=1, parts_dir=tmp_path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert again.lrat == made.lrat and again.found == 2
    assert peak < parts.EXPANSION * packed * 3 + (8 << 20), peak  # unread whole, it would be 250 MB at least


def test_a_checker_s_verdict_is_taken_when_it_exits_not_at_the_next_look(tmp_path, monkeypatch):
    """The wait for a checker looks at its output's size and the time limit every POLL seconds, and
    returns once the checker exits: with POLL made 60 s, a checker that answers at once is heard
    at once (the wait had slept a whole POLL before each look, 0.1 s a part of hundreds)."""
    import time

    from smtpuzzles.proofs import external

    monkeypatch.setattr(external, "POLL", 60.0)
    checker = external.ExternalChecker(str(stand_in(tmp_path, "quick", "print('s VERIFIED UNSAT')")))
    (tmp_path / "f.cnf").write_text("p cnf 1 2\n1 0\n-1 0\n")
    (tmp_path / "f.lrat").write_text("3 0 1 2 0\n")
    started = time.monotonic()
    accepted, line = external.check_file(checker, tmp_path / "f.cnf", tmp_path / "f.lrat", timeout=120)
    assert accepted is True and "accepted by quick" in line
    assert time.monotonic() - started < 30  # one POLL (60 s) would have been waited before
