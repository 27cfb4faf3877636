"""Stored proofs: LRAT written from a checked DRUP proof, the linear LRAT checker, `certify`, and
`audit --proof` on a folder that holds a proof.

The LRAT checker (smtpuzzles.trusted.lrat) is tested against dratify, an independent DRUP checker: every
LRAT proof it accepts must also pass dratify once ids and hints are dropped, on proofs that must
pass and on mutated ones. Expected answers come from brute force, the rules, or dratify.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from brute_kingtour import best_overall
from conftest import SEED_CASES, copy_of_run, solved_once
from test_differential import tatamibari_solutions
from smtpuzzles.proofs import proof
from smtpuzzles.proofs.drup import check_drup, to_lrat
from smtpuzzles.trusted.lrat import check_lrat
from smtpuzzles.objective import claim_terms
from smtpuzzles.puzzles import kingtour, nonary, tatamibari
from tests.second_opinion import dratify_check, lrat_as_drup
from test_proof import INFEASIBLE_BOARD, UNIQUE_BOARD, _as_dimacs, _random_unsat, one_line


def lrat_of(query: proof.Dimacs) -> bytes:
    made = proof.certify_query(query, timeout=120)
    return made.lrat


def dratify_accepts(query, lrat: bytes) -> bool:
    return dratify_check(query, lrat_as_drup(lrat))[0]


def assert_both_accept(query: proof.Dimacs) -> bytes:
    lrat = lrat_of(query)
    ok, message, lemmas = proof.check_lrat_text(query, lrat)
    assert ok and lemmas > 0 and one_line(message), message
    assert dratify_accepts(query, lrat)
    return lrat


# ------------------------------------------------------------------- the four kinds of claim verify
def test_lexicographic_optimum_has_a_checked_lrat_proof():
    best = best_overall(4, 2, 2)  # brute force
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    assert_both_accept(proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "lex_greater", "best": best})))


def test_count_optimum_has_a_checked_lrat_proof():
    case = next(c for c in SEED_CASES["nonary"] if c["answer"] < 9)
    enc = nonary.encode(nonary.from_doors(case["doors"]))
    assert_both_accept(proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "at_least", "k": case["answer"] + 1})))


def test_uniqueness_has_a_checked_lrat_proof():
    (rects,) = tatamibari_solutions(UNIQUE_BOARD)  # the rules' own enumeration: exactly one
    board = tatamibari.from_text("\n".join(UNIQUE_BOARD))
    regions = tatamibari.regions_from_rects(board.height, board.width, rects)
    enc = tatamibari.encode(board)
    claim = {"op": "block", "solutions": [{"regions": regions}]}
    assert_both_accept(proof.dimacs(enc.formula, claim_terms(enc.objective, claim)))


def test_infeasibility_has_a_checked_lrat_proof():
    assert tatamibari_solutions(INFEASIBLE_BOARD) == set()
    enc = tatamibari.encode(tatamibari.from_text("\n".join(INFEASIBLE_BOARD)))
    assert_both_accept(proof.dimacs(enc.formula, claim_terms(enc.objective, {"op": "first"})))


# --------------------------------------------------------------------------- proofs that must fail
@pytest.fixture(scope="module")
def php():
    """Pigeonhole 5 into 4 (unsatisfiable by counting), its LRAT proof, and a satisfiable
    neighbour (one pigeon may stay out)."""
    n = 5
    var = lambda i, j: i * (n - 1) + j + 1  # noqa: E731
    clauses = [[var(i, j) for j in range(n - 1)] for i in range(n)]
    clauses += [[-var(a, j), -var(b, j)] for j in range(n - 1) for a in range(n) for b in range(a + 1, n)]
    query = proof.Dimacs(_as_dimacs(n * (n - 1), clauses), n * (n - 1), len(clauses))
    satisfiable = proof.Dimacs(_as_dimacs(n * (n - 1), clauses[1:]), n * (n - 1), len(clauses) - 1)
    return query, lrat_of(query), satisfiable


def lemma_lines(lrat: bytes) -> list[int]:
    return [i for i, line in enumerate(lrat.split(b"\n")) if line and b" d " not in line]


def test_a_proof_cut_short_is_rejected(php):
    query, lrat, _ = php
    lines = lrat.split(b"\n")
    for keep in (len(lines) // 2, 1, 0):
        ok, message, _ = proof.check_lrat_text(query, b"\n".join(lines[:keep]))
        assert not ok and "cut short" in message and one_line(message)


def test_a_changed_clause_is_rejected(php):
    """Each lemma with one literal's sign flipped: rejected, naming the line."""
    query, lrat, _ = php
    lines = lrat.decode().split("\n")
    rejected = 0
    for place in lemma_lines(lrat)[:20]:
        parts = lines[place].split()
        if parts[1] == "0":
            continue  # the empty clause has no literal to flip
        changed = lines[:]
        changed[place] = " ".join([parts[0], str(-int(parts[1]))] + parts[2:])
        ok, message, _ = proof.check_lrat_text(query, "\n".join(changed).encode())
        assert not ok and message.startswith(f"proof line {place + 1}:") and one_line(message), message
        rejected += 1
    assert rejected >= 10


def test_a_proof_of_another_formula_is_rejected(php):
    query, lrat, satisfiable = php
    ok, message, _ = proof.check_lrat_text(satisfiable, lrat)
    assert not ok and one_line(message)


def test_unsat_claimed_for_a_satisfiable_formula_is_rejected(php):
    _, _, satisfiable = php
    with pytest.raises(proof.ProofError, match="satisfiable"):
        proof.certify_query(satisfiable, timeout=60)
    n = satisfiable.clauses
    # A forged proof: a unit clause each way with no hints, then the empty clause from both.
    forged = f"{n + 1} 1 0 0\n{n + 2} -1 0 0\n{n + 3} 0 {n + 1} {n + 2} 0\n".encode()
    ok, message, _ = proof.check_lrat_text(satisfiable, forged)
    assert not ok and message.startswith("proof line 1:") and "not implied" in message, message
    assert not dratify_accepts(satisfiable, forged)


@pytest.mark.parametrize("line,fragment", [
    (b"\x00\xff garbage\n", "does not start with a clause id"),
    (b"x 1 0 0\n", "does not start with a clause id"),
    (b"{n} 1 0 0\n", "is not above the previous id"),
    (b"{m} 1 2 0\n", "a lemma is 'ID LITERALS 0 HINTS 0'"),
    (b"{m} 1 0 3 0 0\n", "a lemma is 'ID LITERALS 0 HINTS 0'"),
    (b"{m} 99999 0 1 0\n", "a literal outside"),
    (b"{m} 1 x 0 1 0\n", "not a line of integers"),
    (b"{m} 0 -1 0\n", "RAT hints are not accepted"),
    (b"{m} 0 {m} 0\n", "is not a clause present here"),
    (b"{m} d 99999 0\n", "deletes clause 99999, which does not exist"),
    (b"{m} d 1\n", "a deletion must list ids ending with one 0"),
])
def test_garbage_is_rejected_in_one_line(php, line, fragment):
    query = php[0]
    n = query.clauses
    data = line.replace(b"{n}", str(n).encode()).replace(b"{m}", str(n + 1).encode())
    ok, message, _ = proof.check_lrat_text(query, data)
    assert not ok and fragment in message and one_line(message), message


def test_a_line_past_the_cap_is_refused_not_judged(php):
    query = php[0]
    data = str(query.clauses + 1).encode() + b" 1 0 " + b"1 " * (3 << 20) + b"0\n"
    with pytest.raises(proof.ProofError, match="longer than 4,194,304 bytes"):
        proof.check_lrat_text(query, data)


def test_deleted_clauses_cannot_be_used_as_hints(php):
    query, lrat, _ = php
    first = lrat.split(b"\n")[0].split()
    hint = first[first.index(b"0") + 1]  # the first lemma's first hint
    n = query.clauses
    data = f"{n + 1} d {hint.decode()} 0\n".encode() + lrat.replace(first[0] + b" ", str(n + 2).encode() + b" ", 1)
    ok, message, _ = proof.check_lrat_text(query, data)
    assert not ok and f"hint {hint.decode()} is not a clause present here" in message


@pytest.mark.parametrize("seed", range(20))
def test_whatever_the_lrat_checker_accepts_dratify_accepts(seed):
    """Random unsatisfiable 3-SAT: the LRAT written here passes both checkers. Then mutated proofs
    (a lemma dropped, a literal flipped, a hint dropped, hints swapped, a hint renumbered): each one
    this checker accepts must pass dratify too, and most mutations must be rejected."""
    rng = random.Random(7000 + seed)
    n, clauses = _random_unsat(seed)
    query = proof.Dimacs(_as_dimacs(n, clauses), n, len(clauses))
    lrat = lrat_of(query)
    assert proof.check_lrat_text(query, lrat)[0] and dratify_accepts(query, lrat)
    lines = lrat.decode().split("\n")
    rejected = 0
    for _ in range(15):
        changed = lines[:]
        i = rng.choice(lemma_lines(lrat))
        parts = changed[i].split()
        cut = parts.index("0", 1)
        lits, hints = parts[1:cut], parts[cut + 1:-1]
        kind = rng.randrange(5)
        if kind == 0:
            del changed[i]
        elif kind == 1 and lits:
            k = rng.randrange(len(lits))
            lits[k] = str(-int(lits[k]))
        elif kind == 2 and hints:
            del hints[rng.randrange(len(hints))]
        elif kind == 3 and len(hints) > 1:
            a, b = rng.sample(range(len(hints)), 2)
            hints[a], hints[b] = hints[b], hints[a]
        elif hints:
            hints[rng.randrange(len(hints))] = str(rng.randint(1, int(parts[0]) - 1))
        if kind:
            changed[i] = " ".join([parts[0], *lits, "0", *hints, "0"])
        data = "\n".join(changed).encode()
        ok, message, _ = proof.check_lrat_text(query, data)
        assert one_line(message)
        if ok:
            assert dratify_accepts(query, data), (kind, changed[i] if kind else "dropped")
        else:
            rejected += 1
    assert rejected >= 5


def test_lrat_is_written_only_from_an_accepted_drup_proof(php):
    query = php[0]
    nvars, clauses = proof.read_dimacs(query.text)
    verdict = check_drup(nvars, clauses, [(False, [1])], ["line 1"])
    assert not verdict.ok
    with pytest.raises(ValueError, match="accepted"):
        to_lrat(nvars, clauses, [(False, [1])], verdict)


def test_the_checker_reads_standard_lrat_with_deletions():
    """A hand-written LRAT proof of (a∨b)(a∨¬b)(¬a∨b)(¬a∨¬b), as cake_lpr reads it."""
    formula = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    text = b"5 1 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n"
    assert check_lrat(2, formula, text).ok
    assert not check_lrat(2, formula, b"5 1 0 1 0\n").ok  # hint 1 only sets b: no conflict


# --------------------------------------------------------------------- certify, and audit --proof
@pytest.fixture(scope="module")
def certified_once(tmp_path_factory) -> Path:
    """A Tatamibari uniqueness run with a stored proof (the board has exactly one solution),
    solved once for this file."""
    folder = tmp_path_factory.mktemp("certified")
    board = folder / "unique.txt"
    board.write_text("\n".join(UNIQUE_BOARD) + "\n")
    result = solved_once(folder, "tatamibari", board, "--unique", "--certify")
    assert result["unique"] is True
    run_dir = Path(result["run_dir"])
    assert (run_dir / "proof.lrat.gz").is_file() and (run_dir / "certificate.cnf.gz").is_file()
    return run_dir


@pytest.fixture
def certified(certified_once, tmp_path) -> Path:
    """This test's own copy of it, at TMP_PATH/runs/NAME (the tests below tamper with it)."""
    return copy_of_run(certified_once, tmp_path)


def audit_proof(cli, run_dir):
    code, out, err = cli("audit", run_dir, "--proof", "--json")
    return code, (json.loads(out) if out.strip() else None), err


def test_a_stored_proof_checks_and_is_named_as_evidence(cli, certified):
    code, report, err = audit_proof(cli, certified)
    assert code == 0 and report["verdict"] == "clean", err
    assert any(e.startswith("LRAT proof stored in the folder") for e in report["evidence"])
    # Without --proof the UNSAT answer is taken from the ledger, and the hint says --proof.
    code, out, err = cli("audit", certified)
    assert code == 0 and "consistent" in out and "--proof" in out


def test_the_stored_dimacs_is_the_query_todays_encoder_builds(certified):
    enc = tatamibari.encode(tatamibari.from_text("\n".join(UNIQUE_BOARD)))
    run = json.loads((certified / "run.json").read_text())
    query = proof.dimacs(enc.formula, claim_terms(enc.objective, run["certificate"]["claim"]))
    assert gzip.decompress((certified / "certificate.cnf.gz").read_bytes()) == query.data
    assert run["proof"]["dimacs_sha256"] == query.sha256


def rewrite_proof(run_dir: Path, change, rehash: bool = True) -> None:
    lrat = change(gzip.decompress((run_dir / "proof.lrat.gz").read_bytes()))
    (run_dir / "proof.lrat.gz").write_bytes(gzip.compress(lrat))
    if rehash:
        run = json.loads((run_dir / "run.json").read_text())
        run["proof"]["sha256"] = __import__("hashlib").sha256(lrat).hexdigest()
        (run_dir / "run.json").write_text(json.dumps(run))


def flip_first_literal(lrat: bytes) -> bytes:
    lines = lrat.split(b"\n")
    parts = lines[0].split()
    parts[1] = str(-int(parts[1])).encode()
    return b"\n".join([b" ".join(parts)] + lines[1:])


@pytest.mark.parametrize("tamper,fragment", [
    (lambda d: rewrite_proof(d, flip_first_literal), "the stored proof was rejected: proof line 1:"),
    (lambda d: rewrite_proof(d, flip_first_literal, rehash=False), "does not match its recorded sha-256"),
    (lambda d: rewrite_proof(d, lambda t: t.split(b"\n")[0] + b"\n"), "cut short"),
    (lambda d: (d / "proof.lrat.gz").unlink(), "the stored proof is missing"),
    (lambda d: (d / "certificate.cnf.gz").write_bytes(gzip.compress(b"p cnf 1 1\n1 0\n")),
     "the stored DIMACS is not the query today's encoder builds"),
    (lambda d: (d / "certificate.cnf.gz").unlink(), "the stored DIMACS is missing"),
])
def test_a_tampered_stored_proof_fails_the_audit(cli, certified, tamper, fragment):
    tamper(certified)
    code, report, err = audit_proof(cli, certified)
    assert code == 1 and report["verdict"] == "FAILED", err
    texts = [f["text"] for f in report["findings"] if f["section"] == "proof"]
    assert len(texts) == 1 and fragment in texts[0], texts


def test_a_proof_of_another_claim_fails_the_audit(cli, certified):
    run = json.loads((certified / "run.json").read_text())
    run["proof"]["claim"] = {"op": "first"}
    (certified / "run.json").write_text(json.dumps(run))
    code, report, _ = audit_proof(cli, certified)
    assert code == 1
    (text,) = [f["text"] for f in report["findings"] if f["section"] == "proof"]
    assert "the stored proof refutes 'there is a solution', not the derived" in text


@pytest.mark.parametrize("tamper,fragment", [
    (lambda d: _edit_record(d, file="../proof.lrat.gz"), "the proof files must be proof.lrat.gz"),
    (lambda d: _edit_record(d, format="drat"), "format 'drat' is not one this version reads"),
    (lambda d: _edit_record(d, lemmas=-1), "a count is negative"),
    (lambda d: _edit_record(d, extra=1), "unknown key 'extra'"),
    (lambda d: _symlink_proof(d), "is a symbolic link"),
])
def test_a_malformed_proof_record_or_file_is_exit_2(cli, certified, tamper, fragment):
    tamper(certified)
    code, out, err = cli("audit", certified, "--proof")
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1, err


def test_a_compressed_bomb_is_refused_at_the_cap(cli, certified, monkeypatch):
    """Reading stops at the cap on the expanded text (512 MiB; lowered here to keep the test quick)."""
    monkeypatch.setattr(proof, "MAX_PROOF_BYTES", 1 << 20)
    (certified / "proof.lrat.gz").write_bytes(gzip.compress(b"0" * (8 << 20), 9))
    code, out, err = cli("audit", certified, "--proof")
    assert code == 2 and "stored proof expands past 1,048,576 bytes" in err and len(err.strip().splitlines()) == 1, err


def _edit_record(run_dir: Path, **changes) -> None:
    run = json.loads((run_dir / "run.json").read_text())
    run["proof"].update(changes)
    (run_dir / "run.json").write_text(json.dumps(run))


def _symlink_proof(run_dir: Path) -> None:
    target = run_dir.parent / "elsewhere.gz"
    (run_dir / "proof.lrat.gz").rename(target)
    (run_dir / "proof.lrat.gz").symlink_to(target)


def test_certify_adds_a_proof_to_a_finished_run(cli):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--engine", "sat", code=0)
    run_dir = Path(result["run_dir"])
    assert "proof" not in json.loads((run_dir / "run.json").read_text())
    code, out, err = cli("certify", run_dir)
    assert code == 0 and "stored a checked LRAT proof" in out, err
    lines = out.splitlines()  # the folder's own line is as long as its path
    assert lines[-1] == f"  in: {run_dir}" and max(map(len, lines[:-1])) <= 80, lines
    code, report, err = audit_proof(cli, run_dir)
    assert code == 0 and report["verdict"] == "clean", err


def test_certify_refuses_what_it_cannot_prove(cli):
    # A run stopped by its time limit claims nothing.
    result = cli.solve_json("kingtour", "--size", 6, "--box", "2x3", "--engine", "sat", "--time-limit", "0.001")
    if result["status"] != "optimal":
        code, _, err = cli("certify", result["run_dir"])
        assert code == 2 and "nothing to certify" in err and len(err.strip().splitlines()) == 1
    # An arithmetic encoding has no clausal view.
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--encoding", "posted", "--engine", "z3", code=0)
    code, _, err = cli("certify", result["run_dir"])
    assert code == 2 and "arithmetic" in err and len(err.strip().splitlines()) == 1
    # Not a run folder at all.
    code, _, err = cli("certify", cli.tmp_path)
    assert code == 2 and "not a run folder" in err


def test_certify_with_a_time_limit_too_short_stores_nothing_and_exits_1(cli):
    result = cli.solve_json("kingtour", "--size", 6, "--box", "2x3", "--engine", "sat", code=0)
    run_dir = Path(result["run_dir"])
    before = (run_dir / "run.json").read_bytes()
    code, _, err = cli("certify", run_dir, "--time-limit", "0.01")
    assert code == 1 and "no proof stored" in err and "found no proof within" in err
    assert (run_dir / "run.json").read_bytes() == before and not (run_dir / "proof.lrat.gz").exists()


def test_certify_waits_for_no_one_a_busy_folder_is_refused(cli):
    from smtpuzzles.folders.locking import FolderLock

    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--engine", "sat", code=0)
    run_dir = Path(result["run_dir"])
    lock = FolderLock(run_dir).acquire()
    try:
        code, _, err = cli("certify", run_dir)
    finally:
        lock.release()
    assert code == 2 and "in use by another process" in err
    assert not (run_dir / "proof.lrat.gz").exists() and "proof" not in json.loads((run_dir / "run.json").read_text())


def test_proof_all_proves_every_recorded_unsat_step(cli):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--engine", "sat", code=0)
    run_dir = Path(result["run_dir"])
    steps = [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]
    distinct = {json.dumps(s["claim"], sort_keys=True) for s in steps if s["result"] == "unsat"}
    code, out, err = cli("audit", run_dir, "--proof", "all", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean", err
    # The certificate's claim is proved once, above; every other UNSAT claim here.
    texts = [f["text"] for f in report["findings"] if f["section"] == "proof"]
    assert f"{len(distinct) - 1} recorded UNSAT step queries" in texts[-1]


def test_proof_all_fails_a_forged_unsat_step(cli):
    """A step that found a model, rewritten as UNSAT (chain re-hashed): no proof exists for it."""
    from ledger_forge import forge_chain, read_ledger

    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--engine", "sat", code=0)
    run_dir = Path(result["run_dir"])
    run, steps = read_ledger(run_dir)
    forged = next(s for s in steps if s["result"] == "sat" and s["claim"]["op"] == "exceed")
    forged["result"] = "unsat"
    for key in ("solution", "value"):
        forged.pop(key, None)
    forge_chain(run_dir, run, steps)
    code, out, err = cli("audit", run_dir, "--proof", "all", "--json")
    report = json.loads(out)
    assert code == 1, err
    failed = [f["text"] for f in report["findings"] if f["ok"] is False]
    assert any(t.startswith(f"step {forged['index']} (") and "satisfiable" in t for t in failed), failed


def test_a_lemma_over_a_variable_fixed_at_the_top_level_gets_no_unit_hint_for_it():
    """Regression (found certifying the 8x8 record): the lemma (1 2) when 1 is already false at the
    top level. Its negation assigns 1 false itself, so a unit hint for 1 would be satisfied there
    and the checker rightly refuses it; the writer must leave that unit out."""
    formula = [[-1], [1, 2, 3], [1, 2, -3], [1, -2, 4], [1, -2, -4]]
    query = _as_dimacs(4, formula)
    steps = [(False, [1, 2]), (False, [])]
    verdict = check_drup(4, formula, steps, None)
    assert verdict.ok
    lrat = to_lrat(4, formula, steps, verdict)
    assert check_lrat(4, formula, lrat).ok, lrat
    assert dratify_check(query, lrat_as_drup(lrat))[0]
    assert not check_lrat(4, formula, b"6 1 2 0 1 2 3 0\n").ok  # the unit hint the old writer gave
