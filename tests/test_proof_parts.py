"""Proofs in parts (smtpuzzles.proofs.proof, `split`): a query refuted once per literal of one of its
clauses, the parts joined into one LRAT proof of the query itself. Nothing of the joining is
trusted: smtpuzzles.trusted.lrat checks the joined proof against the query alone, and dratify gives a
second opinion. Tested on a hand-made formula, on King's-tour reference formulas, through certify
and the audit, and with the joined proof broken one way at a time."""

from __future__ import annotations

from importlib import import_module
import dataclasses
import json
from pathlib import Path

import pytest

from conftest import kingtour_encoding_with, one_error_line
from second_opinion import dratify_check, lrat_as_drup
from smtpuzzles.proofs import parts
from smtpuzzles.proofs import proof as proofs
from smtpuzzles.trusted.lrat import check_lrat


def dimacs(nvars: int, clauses) -> proofs.Dimacs:
    text = f"p cnf {nvars} {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return proofs.Dimacs(text, nvars, len(clauses))


# (a | b | c), each of a, b, c implies d, and d is false; the split clause is the first.
SMALL = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-3, 4], [-4]])


def test_a_small_query_refuted_in_parts_checks_whole():
    made = proofs.certify_query(SMALL, split=1)
    assert made.solver.endswith("in 3 parts")
    _, clauses = proofs.read_dimacs(SMALL.text)
    assert check_lrat(4, clauses, made.lrat).ok
    assert dratify_check(SMALL, lrat_as_drup(made.lrat))[0]
    last = made.lrat.strip().splitlines()[-1].split()
    assert last[1] == b"0" and last[-2] == b"1"  # the empty clause, from the units and clause 1


def test_each_part_is_weakened_by_its_literal():
    """Every lemma of the joined proof (but the last) holds the negation of one split literal, so
    each part's lemmas are lemmas of the query, not of the query and the part's unit."""
    made = proofs.certify_query(SMALL, split=1)
    for line in made.lrat.strip().splitlines()[:-1]:
        tokens = line.split()
        if tokens[1] == b"d":
            continue
        lits = [int(x) for x in tokens[1:tokens.index(b"0", 1)]]
        assert {-1, -2, -3} & set(lits), line


@pytest.mark.parametrize("cut", ["drop_negation", "drop_last", "drop_unit"])
def test_a_joined_proof_broken_one_way_is_rejected(cut):
    made = proofs.certify_query(SMALL, split=1)
    lines = made.lrat.strip().splitlines()
    if cut == "drop_last":
        lines = lines[:-1]
    elif cut == "drop_unit":  # the last part's unit is missing from the final hints
        tokens = lines[-1].split()
        lines[-1] = b" ".join(tokens[:3] + tokens[4:])
    else:  # a part's lemma without its literal's negation: no longer implied by the query
        for i, line in enumerate(lines):
            tokens = line.split()
            if tokens[1] != b"d" and b"-1" in tokens[1:tokens.index(b"0", 1)]:
                tokens.remove(b"-1")
                lines[i] = b" ".join(tokens)
                break
    _, clauses = proofs.read_dimacs(SMALL.text)
    assert check_lrat(4, clauses, b"\n".join(lines) + b"\n").ok is False


def test_a_satisfiable_part_means_no_proof():
    query = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-4]])  # c alone is a model
    with pytest.raises(proofs.ProofError, match="satisfiable"):
        proofs.certify_query(query, split=1)


def test_a_split_clause_out_of_range_is_one_line():
    with pytest.raises(proofs.ProofError, match="not one to split on"):
        proofs.certify_query(SMALL, split=9)


def test_a_kingtour_reference_in_parts_agrees_with_the_whole():
    from smtpuzzles.auditing.readback import reference_query
    from smtpuzzles.puzzles import kingtour
    from test_rules_reference import kt_board

    board = kt_board(6, "2x3")
    best = [6, 6, 6, 6, 5, 5, 5, 4, 6] + [6] * 27  # the seed's best 6x6 prefix, then digits no tour reads
    query = reference_query(kingtour, board, {"op": "lex_greater", "best": best}, "test").broken
    whole = proofs.certify_query(query)
    parts = proofs.certify_query(query, split=query.clauses)
    assert parts.solver.endswith("in 9 parts") and whole.solver == proofs.LRAT_SOLVER
    _, clauses = proofs.read_dimacs(query.text)
    assert check_lrat(query.variables, clauses, parts.lrat).ok


@pytest.mark.parametrize("split,parts", [("breaking", 3), ("beats", 16)])
def test_certify_and_the_audit_on_a_reference_proved_in_parts(cli, monkeypatch, split, parts):
    """Split on the breaking clause (the start cell) or on F's "beats best first at step i"."""
    from smtpuzzles.puzzles.kingtour import symmetry as proposals
    rules = import_module("smtpuzzles.puzzles.kingtour.reference")  # not `from`: the package's `reference` is its hook

    real = proposals.proposal

    def advised(reference, board, claim):
        proposal = real(reference, board, claim)
        wanted = True if split == "breaking" else proposals.beats_clause(rules.reference(board, claim), 4)
        return dict(proposal, parts=wanted if claim.get("op") == "lex_greater" else None)

    monkeypatch.setattr(proposals, "proposal", advised)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--certify", code=0)
    run_dir = Path(result["run_dir"])
    record = json.loads((run_dir / "run.json").read_text())["reference_proof"]
    assert record["solver"] == f"{proofs.LRAT_SOLVER}, in {parts} parts" and "symmetry" in record
    code, out, err = cli("audit", run_dir, "--proof", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean", report["findings"]


def test_claim_cases_is_the_clause_listing_the_claims_cases():
    # u = 5 is the claim; u implies one of 1, 2, 3 (the cases); the query ends with the unit u
    query = dimacs(5, [[-1, 4], [-2, 4], [-3, 4], [-4], [-5, 1, 2, 3], [-5, 1], [5]])
    assert proofs.claim_cases(query) == 5
    assert proofs.claim_cases(SMALL) is None  # no unit at the end
    assert proofs.certify_query(query, split=proofs.claim_cases(query)).solver.endswith("in 4 parts")


def test_certify_splits_the_encoders_query_where_the_encoding_advises(cli, monkeypatch):
    """proof_parts on the encoder's side: the closing query refuted case by case ("position i is
    the first to beat the best"), joined, stored, and checked whole by the audit."""
    in_parts(monkeypatch)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", "--certify", code=0)
    run_dir = Path(result["run_dir"])
    record = json.loads((run_dir / "run.json").read_text())["proof"]
    assert record["solver"].startswith(f"{proofs.LRAT_SOLVER}, in ") and record["solver"].endswith(" parts")
    code, out, err = cli("audit", run_dir, "--proof", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean", report["findings"]


def test_a_proof_made_here_and_not_kept_is_checked_as_it_is_made():
    """keep=False (the audit's own reference proofs): the same verdict, nothing held, and the kept
    proof's cap does not apply, since the joined text is never held whole. Kept, a joined proof past
    that cap is checked to the end all the same, and not kept."""
    whole = proofs.certify_query(SMALL, split=1)
    tight = proofs.ProofBudget(text_bytes=len(whole.lrat) - 1)  # every part fits, the joined proof does not
    for keep in (True, False):
        made = proofs.certify_query(SMALL, split=1, budget=tight, keep=keep)
        assert made.lrat == b"" and made.lemmas == whole.lemmas


def test_a_part_past_a_stored_proof_s_caps_is_made_within_the_part_budget():
    """The 16x16 record's reference formula has a part of more than 512 MB of LRAT, what the audit
    reads of a stored proof: a part is never stored alone, so it answers to `part_budget` (the audit
    stopped at part 166 of 256 with no proof); past that, one line names the cap."""
    whole = proofs.certify_query(SMALL, split=1)
    tight = proofs.ProofBudget(text_bytes=40)  # no part's text fits: the joined proof is not kept
    made = proofs.certify_query(SMALL, split=1, budget=tight, keep=False)
    assert made.lrat == b"" and made.lemmas == whole.lemmas
    with pytest.raises(proofs.ProofError, match="more than 40 bytes of LRAT text"):
        proofs.certify_query(SMALL, split=1, keep=False, part_budget=tight)


def careless_weakening(monkeypatch) -> None:
    """Parts joined by a weakening that forgets the literal's negation in one lemma of each part."""
    real = parts._weakened

    def careless(lrat, clauses, cube, next_id):
        text, unit, after = real(lrat, clauses, cube, next_id)
        return text.replace(f" {-cube[0]} 0 ".encode(), b" 0 ", 1), unit, after

    monkeypatch.setattr(parts, "_weakened", careless)


def test_a_broken_part_fails_the_streamed_check(monkeypatch):
    """A weakening that forgets the literal's negation: the check, streamed or not, rejects it."""
    careless_weakening(monkeypatch)
    for keep in (True, False):
        with pytest.raises(proofs.ProofError, match="rejected"):
            proofs.certify_query(SMALL, split=1, keep=keep)


def test_a_joined_proof_past_the_stored_caps_is_checked_and_not_kept(monkeypatch):
    """Kept, a proof in parts must fit what the audit reads of a folder; past that it is still
    checked to the end, and handed back empty: checked here, too large to store."""
    kept = proofs.certify_query(SMALL, split=1)
    assert kept.lrat and check_lrat(SMALL.variables, proofs.read_dimacs(SMALL.text)[1], kept.lrat).ok
    checked = proofs.certify_query(SMALL, split=1, budget=proofs.ProofBudget(text_bytes=len(kept.lrat) // 2))
    assert checked.lrat == b"" and checked.lemmas == kept.lemmas
    # Past a checker's cap of a stored proof (its lemma count here) it is not kept either.
    from smtpuzzles.trusted import lrat

    monkeypatch.setattr(lrat, "LIMITS", lrat.Limits(lemmas=kept.lemmas - 1))
    assert proofs.certify_query(SMALL, split=1).lrat == b""


def test_certify_stores_the_claims_proof_and_says_a_reference_too_large_to_store_was_checked(cli, monkeypatch):
    """The 12x12 record's case: the reference formula's proof in parts is past the caps of a stored
    proof. certify stores the closing claim's proof, says the reference one was checked here and not
    stored, exits 0; `audit --proof` makes the reference proof again and audits clean."""
    from smtpuzzles.puzzles.kingtour import symmetry as proposals

    real = proposals.proposal
    monkeypatch.setattr(proposals, "proposal", lambda rules, board, claim: dict(real(rules, board, claim), parts=True))
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    from smtpuzzles.trusted import lrat

    monkeypatch.setattr(lrat, "LIMITS", lrat.Limits(lemmas=50))  # the closing claim's proof is not in parts
    code, out, err = cli("certify", run_dir)
    assert code == 0, err
    assert "checked\n  here, too large to store: audit --proof makes it again" in out
    run = json.loads((run_dir / "run.json").read_text())
    assert "proof" in run and "reference_proof" not in run and "reference_checked_here" not in run
    monkeypatch.undo()
    code, out, err = cli("audit", run_dir, "--proof", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean", out


def test_a_failing_reference_proof_says_the_claims_proof_is_stored(cli, monkeypatch):
    """certify stores the closing claim's proof even when the reference formula's fails: its one
    line says the first is stored (it used to say "no proof stored")."""
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    made = proofs.certify_query
    calls = []

    def second_fails(query, **kw):
        calls.append(query)
        if proofs.BackgroundProof.of_this_thread() is not None:  # the reference formula's, beside the claim's
            raise proofs.ProofError("cadical195-lrat found no proof within 1 s", "proof")
        return made(query, **kw)

    monkeypatch.setattr(proofs, "certify_query", second_fails)
    code, out, err = cli("certify", run_dir)
    assert code == 1 and len(calls) == 2
    assert one_error_line(err) == ("smtpuzzles: the claim's proof is stored, the reference proof is not: "
                                   "proof: on the reference formula: cadical195-lrat found no proof within 1 s")
    assert "proof" in json.loads((run_dir / "run.json").read_text())


def test_the_audit_makes_the_encoders_proof_in_parts_where_the_encoding_advises(cli, monkeypatch):
    """No proof stored (14x14's did not fit results/): `audit --proof` refutes the closing query a
    case at a time as `certify` would, and checks the joined proof; a part joined wrongly leaves the
    claim without that evidence."""
    in_parts(monkeypatch)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    assert "proof" not in json.loads((run_dir / "run.json").read_text())
    code, out, _ = cli("audit", run_dir, "--proof", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean", report["findings"]
    (made,) = [f for f in report["findings"] if f["section"] == "proof"]
    assert made["ok"] is True and made["text"].startswith("LRAT proof of the refutation")
    assert f"{proofs.LRAT_SOLVER}, in " in made["text"] and " parts " in made["text"]

    careless_weakening(monkeypatch)
    code, out, _ = cli("audit", run_dir, "--proof", "--json")
    (made,) = [f for f in json.loads(out)["findings"] if f["section"] == "proof"]
    assert made["ok"] is not True and "rejected" in made["text"]


# ------------------------------------------------------------------ parts kept (audit --keep-parts)
def test_parts_kept_in_a_folder_are_found_again_and_the_proof_is_the_same(tmp_path):
    made_said, found_said = [], []
    made = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=made_said.append)
    assert len(list(tmp_path.glob("*.lrat.gz"))) == 3 and "found" not in " ".join(made_said)
    found = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=found_said.append)
    assert found.lrat == made.lrat and f"part 3/3 done, 0 MB, 3 of them found in {tmp_path}" in found_said
    assert check_lrat(4, proofs.read_dimacs(SMALL.text)[1], found.lrat).ok


@pytest.mark.parametrize("damage", [b"", b"not gzip", "not a proof", "no empty clause"])
def test_a_kept_part_unreadable_or_proving_nothing_is_made_again(tmp_path, damage):
    import gzip

    made = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path)
    part = sorted(tmp_path.glob("*+2.lrat.gz"))[0]
    if damage == "not a proof":
        part.write_bytes(gzip.compress(b"this is no LRAT proof\n"))
    elif damage == "no empty clause":  # its lemmas, less the last: well formed, and no refutation
        lines = gzip.decompress(part.read_bytes()).splitlines(keepends=True)
        part.write_bytes(gzip.compress(b"".join(lines[:-1])))
    else:
        part.write_bytes(damage)
    said = []
    again = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=said.append)
    assert again.lrat == made.lrat and "2 of them found" in said[-2]
    assert gzip.decompress(part.read_bytes())  # made again, and kept anew


def test_a_kept_part_well_formed_and_wrong_is_named_and_made_anew(tmp_path):
    """A part whose empty clause is claimed from one clause that does not give it: nothing found
    is trusted, so the joined proof is rejected there, the line says which kept part it was, and
    the join starts again with every kept part checked on its own: that one is made anew, the
    proof stands (a true record audits clean whatever one wrong kept part holds)."""
    import gzip

    made = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path)
    first = sorted(tmp_path.glob("*+1.lrat.gz"))[0]
    first.write_bytes(gzip.compress(b"7 0 2 0\n"))
    said: list[str] = []
    again = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=said.append)
    assert again.lrat == made.lrat
    rejected = next(line for line in said if line.startswith("the proof joined from parts was rejected"))
    assert rejected.startswith("the proof joined from parts was rejected: proof line 1: ")
    assert f"that line is of the part kept in {first}, not made here" in rejected
    assert any(line.startswith(f"part 1 kept in {first} fails on its own") and line.endswith("made anew")
               for line in said)
    assert gzip.decompress(first.read_bytes()) != b"7 0 2 0\n"  # kept anew


def test_a_long_line_in_a_kept_part_is_measured_before_it_is_split(tmp_path, monkeypatch):
    """A kept part of one long line of short tokens (about 50 times its size once split): refused
    by its length, never split, and made anew. The cap is scaled down so the test stays small."""
    import gzip
    import tracemalloc

    made = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path)
    first = sorted(tmp_path.glob("*+1.lrat.gz"))[0]
    first.write_bytes(gzip.compress(b"7 " + b"1 " * 2_000_000 + b"0 2 0\n"))  # 4 MB, one line
    monkeypatch.setattr(parts, "LRAT_LIMITS", dataclasses.replace(parts.LRAT_LIMITS, line_bytes=1 << 20))
    tracemalloc.start()
    again = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert again.lrat == made.lrat
    assert peak < 40 << 20, peak  # split into ints, the line alone would take about 200 MB


def in_parts(monkeypatch) -> None:
    kingtour_encoding_with(monkeypatch, proof_parts=True)


def test_the_audit_keeps_its_parts_and_a_second_audit_takes_them(cli, monkeypatch, tmp_path):
    in_parts(monkeypatch)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    kept = tmp_path / "parts"
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--keep-parts", kept, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean"
    assert "made here by" in proof_words(json.loads(out)) and "found" not in proof_words(json.loads(out))
    files = {p.name: p.stat().st_mtime_ns for p in kept.glob("*.lrat.gz")}
    assert files  # the encoder's closing query, a part per case
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--keep-parts", kept, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean"
    assert {p.name: p.stat().st_mtime_ns for p in kept.glob("*.lrat.gz")} == files  # taken, not made again
    # What an earlier audit made is not said to be made here: the report counts the parts found.
    words = proof_words(json.loads(out))
    assert "made here" not in words and f"in {len(files)} parts, {len(files)} of them found in the --keep-parts" in words


def proof_words(report: dict) -> str:
    return " ".join(f["text"] for f in report["findings"] if f["section"] == "proof")


def test_keep_parts_without_proof_or_on_a_file_is_one_line(cli, tmp_path):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    code, _, err = cli("audit", result["run_dir"], "--keep-parts", tmp_path)
    assert code == 2 and one_error_line(err) == "smtpuzzles: error: --keep-parts: keeps the parts of proofs " \
                                                "--proof makes: add --proof"
    afile = tmp_path / "afile"
    afile.write_text("x")
    code, _, err = cli("audit", result["run_dir"], "--proof", "--keep-parts", afile)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --keep-parts {afile}: names a file, not a folder"
    code, _, err = cli("audit", result["run_dir"], "--proof", "--keep-parts", "")
    assert code == 2 and one_error_line(err) == "smtpuzzles: error: --keep-parts: names no folder"
    loop = tmp_path / "loop"
    loop.symlink_to(loop)  # refused before any proving: it could keep no part
    code, _, err = cli("audit", result["run_dir"], "--proof", "--keep-parts", loop / "parts")
    assert code == 2 and one_error_line(err).startswith(f"smtpuzzles: error: --keep-parts {loop / 'parts'}: ")


def test_the_two_proofs_side_by_side_report_as_one_after_the_other(cli, monkeypatch):
    """--jobs 2 (the default) makes the reference proof in a thread beside the encoder's: the same
    findings, in the same order, as --jobs 1."""
    beside = []

    class Counted(proofs.BackgroundProof):
        def __init__(self, work):
            beside.append(work)
            super().__init__(work)

    monkeypatch.setattr(proofs, "BackgroundProof", Counted)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    reports = []
    for jobs in (1, 2):
        code, out, _ = cli("audit", result["run_dir"], "--proof", "--jobs", jobs, "--json")
        assert code == 0 and len(beside) == jobs - 1  # one thread, and only with --jobs 2
        reports.append(json.loads(out))
    strip = [[(f["section"], f["ok"], f["text"].split(" in ")[0]) for f in r["findings"]] for r in reports]
    assert strip[0] == strip[1] and [s for s, *_ in strip[1]][-3:] == ["proof", "reference", "reference"]  # fits, proof
    assert reports[0]["rests_on"] == reports[1]["rests_on"] and len(reports[1]["rests_on"]) >= 2


def test_a_kept_part_that_is_a_fifo_a_link_or_a_folder_is_made_again(tmp_path):
    """Never opened as a part: a FIFO would block the audit, a link could lead anywhere."""
    import os

    made = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path)
    first, second, third = sorted(tmp_path.glob("*.lrat.gz"))
    elsewhere = tmp_path / "elsewhere.gz"
    first.rename(elsewhere)
    first.symlink_to(elsewhere)
    second.unlink()
    os.mkfifo(second)
    third.unlink()
    third.mkdir()
    said = []
    again = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=said.append)
    assert again.lrat == made.lrat and "found" not in " ".join(said)
    # The link and the FIFO were not read but replaced by the parts made (the link's target kept);
    # the folder in the third's place could not be replaced: the proof went on and said so.
    assert first.is_file() and not first.is_symlink() and second.is_file() and elsewhere.read_bytes()
    assert any(line.startswith(f"part 3 not kept in {tmp_path}: ") for line in said)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary left
    third.rmdir()
    said.clear()
    again = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=said.append)
    assert again.lrat == made.lrat and "2 of them found" in said[-2] and third.is_file()


def test_a_link_left_at_a_temporary_name_is_never_written_through(tmp_path):
    """Parts are written to new files of their own, not to a name someone could have linked."""
    import os

    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    kept = tmp_path / "kept"
    kept.mkdir()
    for name in (f".{parts.PartsStore(kept, SMALL).path((1,)).name}.{os.getpid()}", ".part-x"):
        (kept / name).symlink_to(victim)
    proofs.certify_query(SMALL, split=1, parts_dir=kept)
    assert victim.read_text() == "mine" and len(list(kept.glob("*.lrat.gz"))) == 3


def test_a_kept_part_of_too_many_lemmas_is_made_again_not_read(tmp_path):
    """A part read back may hold no more lemmas than a part may (its ids are memory)."""
    import gzip

    made = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path)
    part = sorted(tmp_path.glob("*+1.lrat.gz"))[0]
    padding = b"".join(f"{7 + i} -4 2 0 5 0\n".encode() for i in range(50))  # true lemmas, 50 of them
    part.write_bytes(gzip.compress(padding + b"57 -1 0 5 2 0\n58 0 57 1 0\n"))
    said = []
    taken = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=said.append)
    assert "3 of them found" in said[-2] and taken.lemmas > 50  # within the cap: taken, its 52 lemmas
    part.write_bytes(gzip.compress(padding + b"57 -1 0 5 2 0\n58 0 57 1 0\n"))
    said = []
    again = proofs.certify_query(SMALL, split=1, parts_dir=tmp_path, progress=said.append,
                                 part_budget=proofs.ProofBudget(lemmas=20))
    assert again.lrat == made.lrat and "2 of them found" in said[-2]


def test_checking_kept_parts_costs_no_more_per_byte_than_a_stored_proof(tmp_path, monkeypatch):
    """A part read back is bounded as a proof read from a folder is: past `visits_per_byte` (hints
    naming wide clauses again and again) it is refused, where one made here is bounded by time."""
    import dataclasses
    import gzip

    from smtpuzzles.trusted import lrat

    width, repeats = 40, 1500  # about 2.5 million literals looked at: past the checker's first clock
    n = 3 + 2 * width
    query = dimacs(n, [[1, 2], [3], [-3]])
    wide = " ".join(map(str, range(4, 4 + width)))
    lines = [f"{10 + j} 3 {wide} {4 + width + j} 0 2 0\n" for j in range(width)]  # wide true lemmas
    hints = " ".join(str(10 + j) for j in range(width))
    lines += [f"{10 + width + k} 3 {wide} 0 {hints} 2 0\n" for k in range(repeats)]  # each looks at them all
    lines.append(f"{10 + width + repeats} 0 2 3 0\n")
    part = "".join(lines).encode()
    parts.PartsStore(tmp_path, query).path((1,)).write_bytes(gzip.compress(part))
    # The caps scaled down to this small part: 1 literal looked at per byte past the first 1,000.
    monkeypatch.setattr(lrat, "MADE_HERE", dataclasses.replace(lrat.MADE_HERE, free_visits=1000))
    monkeypatch.setattr(lrat, "LIMITS", dataclasses.replace(lrat.LIMITS, visits_per_byte=1))
    said: list[str] = []
    taken = proofs.certify_query(query, split=1, parts_dir=tmp_path, keep=False, progress=said.append)
    assert taken.solver.endswith("in 2 parts") and taken.found == 0  # the kept part refused, made here
    assert any("per byte of proof" in line and "that line is of the part kept in" in line for line in said)
    assert any(line.startswith("part 1 kept in") and "per byte of proof" in line for line in said)
