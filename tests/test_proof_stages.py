"""Proofs in stages (smtpuzzles.proofs.stages, `audit --proof --checked-parts FILE`): each part of a
proof in parts checked on its own and written to a journal, the parts' cover checked last, and a
part the journal lists taken at its word, so that a proof goes on from the journal alone. Tested
on a hand-made formula (three parts), through certify and the audit, with parts that fail, a
cover that leaves a case out, journals that are broken one way at a time, and two writers."""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import kingtour_encoding_with, one_error_line, stand_in
from smtpuzzles.errors import InputError
from smtpuzzles.proofs import certify, external, stages
from smtpuzzles.proofs import proof as proofs
from smtpuzzles.proofs.splits import Split
from smtpuzzles.trusted.dimacs import ProofError, Satisfiable


def dimacs(nvars: int, clauses) -> proofs.Dimacs:
    text = f"p cnf {nvars} {len(clauses)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    return proofs.Dimacs(text, nvars, len(clauses))


# (a | b | c), each of a, b, c implies d, and d is false: refuted by the cases a, b and c.
SMALL = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-3, 4], [-4]])


def lines(path: Path) -> list[dict]:
    """The journal's checked parts (the lines that say an audit takes a part, or gives it back, left out)."""
    return [w for w in map(json.loads, path.read_text().splitlines()) if "taking" not in w and "released" not in w]


def never_made(*_):
    raise AssertionError("a part the journal lists was made again")


def test_each_part_is_checked_and_written_and_a_second_proof_takes_them(tmp_path, monkeypatch):
    path = tmp_path / "checked.jsonl"
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert made.lrat == b"" and made.taken == 0 and made.solver.endswith("in 3 parts checked one by one")
    written = lines(path)
    assert [w["case"] for w in written] == [[1], [2], [3]]
    assert {w["query"] for w in written} == {SMALL.sha256}
    assert all(w["checkers"] == ["smtpuzzles.trusted.lrat"] and w["lemmas"] >= 1 for w in written)
    monkeypatch.setattr(certify, "_proved_part", never_made)
    again = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert again.taken == 3 and again.lemmas == made.lemmas
    assert len(lines(path)) == 3  # nothing written twice


def test_a_journal_of_another_query_or_case_is_not_taken(tmp_path):
    path = tmp_path / "checked.jsonl"
    other = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-3, 4], [-4], [1, 2, 3, 4]])
    proofs.certify_query(other, split=1, journal=stages.Journal(path))
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert made.taken == 0 and len(lines(path)) == 6
    # A line for case 9 of this very query does not stand for case 3.
    path.write_text("".join(json.dumps({**w, "case": [9]}) + "\n" if w["case"] == [3] else json.dumps(w) + "\n"
                            for w in lines(path) if w["query"] == SMALL.sha256))
    again = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert again.taken == 2 and lines(path)[-1]["case"] == [3]


def test_a_part_checked_without_the_checkers_asked_now_is_made_again(tmp_path):
    path = tmp_path / "checked.jsonl"
    proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))  # smtpuzzles.trusted.lrat alone
    checker = external.ExternalChecker(str(stand_in(tmp_path, "accepts", "print('s VERIFIED UNSAT')")))
    kept, observe = external.tallies([checker], None, "proof", "the query")
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), observe=observe)
    assert made.taken == 0 and len(kept[0].said) == 3
    names = lines(path)[-1]["checkers"]
    assert names[0].startswith("accepts sha256:") and names[1] == "smtpuzzles.trusted.lrat"
    kept, observe = external.tallies([checker], None, "proof", "the query")
    again = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), observe=observe)
    assert again.taken == 3 and kept[0].verdict()[0] is True and "3 of them by earlier audits" in kept[0].verdict()[1]


def test_a_part_an_outside_checker_rejects_is_never_written(tmp_path):
    path = tmp_path / "checked.jsonl"
    checker = external.ExternalChecker(str(stand_in(tmp_path, "rejects", "print('s NOT VERIFIED'); sys.exit(1)")))
    kept, observe = external.tallies([checker], None, "proof", "the query")
    proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), observe=observe)
    assert lines(path) == [] and kept[0].verdict()[0] is False


def test_a_part_whose_proof_is_rejected_stops_the_proof_and_is_not_written(tmp_path, monkeypatch):
    path = tmp_path / "checked.jsonl"
    real = certify._proved_part

    def broken_second(part, left, budget):
        proof = real(part, left, budget)
        return proof.replace(b" 0 ", b" 0 1 ", 1) if part.text.endswith("\n2 0\n") else proof

    monkeypatch.setattr(certify, "_proved_part", broken_second)
    with pytest.raises(ProofError, match=r"the proof of part 2 \(\+2\) made here was rejected"):
        proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    assert [w["case"] for w in lines(path)] == [[1]]  # the first part stays: a resume goes on from it


def test_a_satisfiable_part_means_no_proof_and_no_line(tmp_path):
    path = tmp_path / "checked.jsonl"
    query = dimacs(4, [[1, 2, 3], [-1, 4], [-2, 4], [-4]])  # c alone is a model
    with pytest.raises(Satisfiable):
        proofs.certify_query(query, split=1, journal=stages.Journal(path))
    assert [w["case"] for w in lines(path)] == [[1], [2]]


def test_cases_that_do_not_cover_the_query_are_no_proof(tmp_path):
    """Two of the three cases, closed as if they were all of clause 1: every part checks, the cover does not."""
    def closing(ids, next_id):
        return f"{next_id} 0 {' '.join(map(str, ids))} 1 0\n".encode(), next_id + 1

    left_out = Split([(1,), (2,)], closing, "two of the literals of clause 1")
    with pytest.raises(ProofError, match="the parts do not cover the query"):
        proofs.certify_query(SMALL, split=left_out, journal=stages.Journal(tmp_path / "checked.jsonl"))


def test_a_forged_journal_is_taken_at_its_word_and_the_audit_says_so(cli, monkeypatch, tmp_path):
    """The journal is the auditor's own record: what it lists is not checked again, so the report
    names it among what the claim rests on, with the count of parts taken from it."""
    kingtour_encoding_with(monkeypatch, proof_parts=True)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    journal = tmp_path / "checked.jsonl"
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--checked-parts", journal, "--checker", "none", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean"
    written = lines(journal)
    words = " ".join(f["text"] for f in report["findings"] if f["section"] == "proof")
    assert f"in {len(written)} parts, each checked on its own: {len(written)} made by cadical195-lrat and checked " \
           "here by smtpuzzles.trusted.lrat" in words and "earlier audits" not in words
    assert not any("journal" in r for r in report["rests_on"])
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--checked-parts", journal, "--checker", "none", "--json")
    report = json.loads(out)
    words = " ".join(f["text"] for f in report["findings"] if f["section"] == "proof")
    assert code == 0 and report["verdict"] == "clean"
    assert "0 made by cadical195-lrat" in words
    assert f"{len(written)} checked by earlier audits and taken from the --checked-parts journal {journal} at its " \
           "word" in words
    assert f"the word of the --checked-parts journal {journal} for {len(written)} parts of the proof" in \
        report["rests_on"]
    assert len(lines(journal)) == len(written)


def test_a_journal_inside_the_run_folder_is_refused_and_nothing_is_made_there(cli, tmp_path):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    inside = Path(result["run_dir"]) / "checked.jsonl"
    code, _, err = cli("audit", result["run_dir"], "--proof", "--checked-parts", inside)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --checked-parts {inside}: lies inside the run " \
                                                "folder audited: a journal of checked parts is the auditor's own " \
                                                "record, never a folder's"
    assert not inside.exists()


def test_a_journal_that_is_a_link_or_cannot_be_written_is_one_line_before_any_proving(cli, tmp_path):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    target = tmp_path / "target.jsonl"
    target.write_text("")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    code, _, err = cli("audit", result["run_dir"], "--proof", "--checked-parts", link)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --checked-parts {link}: is a symbolic link: " \
                                                "name the file itself"
    nowhere = tmp_path / "no-such-folder" / "j.jsonl"
    code, _, err = cli("audit", result["run_dir"], "--proof", "--checked-parts", nowhere)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --checked-parts {nowhere}: cannot be written: " \
                                                f"no folder {nowhere.parent} to write it in"


def test_checked_parts_without_proof_or_unreadable_is_one_line(cli, tmp_path):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    code, _, err = cli("audit", result["run_dir"], "--checked-parts", tmp_path / "j")
    assert code == 2 and one_error_line(err) == "smtpuzzles: error: --checked-parts: records the parts of proofs " \
                                                "--proof makes: add --proof"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n')
    code, _, err = cli("audit", result["run_dir"], "--proof", "--checked-parts", bad)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --checked-parts {bad} line 1: is not a checked " \
                                                "part (a JSON object with query, case, lemmas and checkers)"
    code, _, err = cli("audit", result["run_dir"], "--proof", "--checked-parts", tmp_path)
    assert code == 2 and one_error_line(err) == f"smtpuzzles: error: --checked-parts {tmp_path}: is not a regular file"


GOOD = {"query": "a" * 64, "case": [3], "lemmas": 5, "checkers": ["smtpuzzles.trusted.lrat"]}


@pytest.mark.parametrize("change, words", [
    ({"query": "A" * 64}, "its query is not a sha-256 in hex"),
    ({"query": "a" * 63}, "its query is not a sha-256 in hex"),
    ({"case": [0]}, "its case is not a list of nonzero literals"),
    ({"case": [True]}, "its case is not a list of nonzero literals"),
    ({"case": "3"}, "its case is not a list of nonzero literals"),
    ({"lemmas": 0}, "its lemmas is not a whole number from 1 to 1,099,511,627,776"),
    ({"lemmas": 2.5}, "its lemmas is not a whole number from 1 to 1,099,511,627,776"),
    ({"lemmas": 10 ** 4000}, "its lemmas is not a whole number from 1 to 1,099,511,627,776"),
    ({"checkers": []}, "its checkers is not a list of names"),
    ({"checkers": [1]}, "its checkers is not a list of names"),
])
def test_a_journal_line_broken_one_way_is_named_by_its_line(tmp_path, change, words):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, **change}) + "\n")
    with pytest.raises(InputError) as raised:
        stages.Journal(path)
    assert raised.value.message == words and raised.value.where == f"--checked-parts {path} line 2"


def test_a_journal_cut_by_a_crash_loses_only_the_cut_line_and_goes_on(tmp_path):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "case": [4]})[:30])
    journal = stages.Journal(path)
    assert set(journal.entries) == {("a" * 64, (3,))}
    assert journal.add("a" * 64, (5,), 2, frozenset(["smtpuzzles.trusted.lrat"]), 1.0) == ""
    assert path.read_text().count("\n") == 3  # the cut line ended, the new one on a line of its own
    assert set(stages.Journal(path).entries) == {("a" * 64, (3,)), ("a" * 64, (5,))}


def test_a_complete_line_that_is_no_json_is_still_an_error(tmp_path):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(GOOD)[:-1] + ", 1}\n")
    with pytest.raises(InputError, match="is not a checked part"):
        stages.Journal(path)


def test_a_part_another_audit_checked_meanwhile_is_taken_not_made(tmp_path, monkeypatch):
    path = tmp_path / "j"
    mine = stages.Journal(path)  # opened before the other audit wrote anything
    proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    monkeypatch.setattr(certify, "_proved_part", never_made)
    assert proofs.certify_query(SMALL, split=1, journal=mine).taken == 3


def test_a_journal_past_its_size_cap_or_a_fifo_is_one_line_unread(tmp_path, monkeypatch):
    path = tmp_path / "j"
    path.write_text((json.dumps(GOOD) + "\n") * 20)
    monkeypatch.setattr(stages, "MAX_JOURNAL_BYTES", 1000)
    with pytest.raises(InputError, match="is larger than 1,000 bytes"):
        stages.Journal(path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is not a regular file"):  # never opened: it would block
        stages.Journal(fifo)


def test_two_writers_leave_whole_lines(tmp_path):
    """Two audits sharing one journal: each line is one append, so none is torn or mixed."""
    path = tmp_path / "j"
    first, second = stages.Journal(path), stages.Journal(path)

    def write(journal, sign):
        for i in range(1, 2001):
            assert journal.add("b" * 64, (sign * i,), 7, frozenset(["smtpuzzles.trusted.lrat"]), 0.5) == ""

    threads = [threading.Thread(target=write, args=(j, s)) for j, s in ((first, 1), (second, -1))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(stages.Journal(path).entries) == 4000


def test_a_journal_that_cannot_be_written_is_said_and_the_proof_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "j"
    said = []

    def full(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(stages.os, "write", full)
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), progress=said.append)
    assert made.taken == 0 and made.solver.endswith("in 3 parts checked one by one")
    assert sum(s.endswith(f"not written to {path}: No space left on device") for s in said) == 3
    assert made.staged.unwritten == 3  # the report says so, from `staged`

def test_a_journal_line_past_its_cap_is_one_line_unparsed(tmp_path, monkeypatch):
    path = tmp_path / "j"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "case": list(range(1, 400))}) + "\n")
    monkeypatch.setattr(stages, "MAX_LINE_BYTES", 1000)
    with pytest.raises(InputError) as raised:
        stages.Journal(path)
    assert raised.value.message == "is longer than 1,000 bytes" and raised.value.where.endswith(" line 2")


def taking(path: Path, case: int, by: str, at: str = "2026-12-06T00:00:00Z") -> None:
    with open(path, "a") as handle:
        handle.write(json.dumps({"taking": SMALL.sha256, "case": [case], "by": by, "at": at}) + "\n")


MAKE_PART = certify._proved_part


def made_only(monkeypatch, allowed: set[int]) -> list[int]:
    """certify's part maker, refusing the parts whose case is not `allowed`; the cases it made."""
    made, real = [], MAKE_PART

    def maker(part, left, budget):
        case = int(part.text.rstrip().splitlines()[-1].split()[0])
        assert case in allowed, f"part {case} was made here, where another audit is making it"
        made.append(case)
        return real(part, left, budget)

    monkeypatch.setattr(certify, "_proved_part", maker)
    return made


def test_a_part_another_live_audit_took_is_left_to_it_and_taken_when_it_is_done(tmp_path, monkeypatch):
    import subprocess
    import sys

    path = tmp_path / "j"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        taking(path, 2, f"{stages.HOST} {other.pid}")
        made = made_only(monkeypatch, {1, 3})
        monkeypatch.setattr(stages, "WAIT", 0.05)

        def the_other_audit_finishes():
            with open(path, "a") as handle:
                handle.write(json.dumps({"query": SMALL.sha256, "case": [2], "lemmas": 4,
                                         "checkers": ["smtpuzzles.trusted.lrat"]}) + "\n")

        timer = threading.Timer(1.0, the_other_audit_finishes)
        timer.start()
        done = proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
        timer.join()
    finally:
        other.kill()
        other.wait()
    assert made == [1, 3] and done.taken == 1
    assert [w["case"] for w in lines(path)] == [[1], [3], [2]]


def test_a_part_whose_taker_is_gone_is_made_here(tmp_path, monkeypatch):
    import subprocess
    import sys

    path = tmp_path / "j"
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    taking(path, 2, f"{stages.HOST} {gone.pid}")
    made = made_only(monkeypatch, {1, 2, 3})
    assert proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), timeout=60).taken == 0 and made == [1, 2, 3]


def test_another_machines_part_is_waited_for_until_it_is_stale(tmp_path, monkeypatch):
    path = tmp_path / "j"
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    taking(path, 2, "elsewhere.example 4242", at=now)
    made = made_only(monkeypatch, {1, 3})
    monkeypatch.setattr(stages, "WAIT", 0.05)
    with pytest.raises(ProofError, match=r"no proof within 1 s \(2 of 3 parts\)"):
        proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), timeout=1)
    assert made == [1, 3]
    monkeypatch.setattr(stages, "STALE", 0.0)  # given up: made here
    made = made_only(monkeypatch, {2})
    assert proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), timeout=60).taken == 2 and made == [2]


def test_a_taking_line_broken_is_named_by_its_line(tmp_path):
    path = tmp_path / "j"
    path.write_text(json.dumps({"taking": "a" * 64, "case": [1], "by": "h 1", "at": "yesterday"}) + "\n")
    with pytest.raises(InputError) as raised:
        stages.Journal(path)
    assert raised.value.message == "is not a part taken (a JSON object with taking, case, by and at)"
    assert raised.value.where.endswith(" line 1")


SHARED = """
import sys
sys.path.insert(0, {tests!r})
from test_proof_stages import pigeons
from smtpuzzles.proofs import proof as proofs, stages
made = proofs.certify_query(pigeons(), split=1, journal=stages.Journal(sys.argv[1]))
print(made.taken)
"""


def pigeons(holes: int = 6):
    """holes + 1 pigeons in `holes` holes, split on the first pigeon's clause: a part a hole,
    each a fraction of a second."""
    from test_checker_soundness import php

    return dimacs(*php(holes + 1, holes))


def test_two_audits_sharing_a_journal_make_each_part_once(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "j"
    code = SHARED.format(tests=str(Path(__file__).parent))
    both = [subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).parents[1]) for _ in range(2)]
    taken = [int(p.communicate(timeout=300)[0]) for p in both]
    assert [p.returncode for p in both] == [0, 0]
    cases = sorted(w["case"][0] for w in lines(path))
    assert cases == list(range(1, 7))  # each part checked once, by one of them
    assert sorted(taken) == sorted([6 - taken[1], 6 - taken[0]])  # what one made, the other took


def test_a_killed_child_is_reaped_when_an_interrupted_wait_left_its_lock_held():
    """A Ctrl-C between Popen._wait's taking of its lock and its try leaves the lock held, and a
    plain wait() then waits for ever (a hostile review saw an audit hang so, once, in a cake_lpr
    check); `reap` does not."""
    import subprocess
    import sys

    from smtpuzzles.children import reap

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    assert child._waitpid_lock.acquire(False)  # as the cut-short wait left it
    child.kill()
    done = threading.Thread(target=reap, args=(child, 0.2), daemon=True)
    done.start()
    done.join(10)
    assert not done.is_alive() and child.returncode == -9


def test_of_two_audits_that_take_a_part_at_once_the_first_line_wins(tmp_path, monkeypatch):
    """Both looked, saw the part free and wrote that they take it: the one whose line came first
    makes it, the other leaves it (and takes it once the first is done)."""
    import subprocess
    import sys

    path = tmp_path / "j"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    journal = stages.Journal(path)
    real = journal._append

    def after_the_other(record):
        if record.get("taking") and record["case"] == [2]:  # the other audit's line lands just before ours
            taking(path, 2, f"{stages.HOST} {other.pid}")
            threading.Timer(1.0, lambda: real({"query": SMALL.sha256, "case": [2], "lemmas": 4,
                                               "checkers": ["smtpuzzles.trusted.lrat"]})).start()
        return real(record)

    monkeypatch.setattr(journal, "_append", after_the_other)
    monkeypatch.setattr(stages, "WAIT", 0.05)
    made = made_only(monkeypatch, {1, 3})
    try:
        done = proofs.certify_query(SMALL, split=1, journal=journal, timeout=60)
    finally:
        other.kill()
        other.wait()
    assert made == [1, 3] and done.taken == 1


def test_with_no_lrat_solver_the_proof_is_not_said_to_be_in_stages(tmp_path, monkeypatch):
    def no_lrat(_):
        raise ProofError("this python-sat writes no LRAT", "proof")

    monkeypatch.setattr(certify, "cadical_lrat_solver", no_lrat)
    made = proofs.certify_query(SMALL, split=1, journal=stages.Journal(tmp_path / "j"))
    assert made.staged is None and "fallback" in made.solver and not (tmp_path / "j").exists()


def test_a_part_taken_on_another_boot_of_this_machine_is_not_waited_for_by_its_pid(tmp_path, monkeypatch):
    """Machines made from one image share a name ("vm"), and a process id means nothing after a
    reboot: a part taken under another boot's id is another machine's, waited for until STALE,
    even where a process of that number runs here (this one)."""
    import socket

    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()[:8]
    assert stages.HOST == f"{socket.gethostname()}:{boot}"
    path = tmp_path / "j"
    taking(path, 2, f"{socket.gethostname()}:0ldb00t0 {os.getpid()}",
           at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    monkeypatch.setattr(stages, "STALE", 0.0)
    made = made_only(monkeypatch, {1, 2, 3})
    assert proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), timeout=60).taken == 0
    assert made == [1, 2, 3]


def test_a_stopped_audit_gives_back_the_part_it_was_making(tmp_path, monkeypatch):
    path = tmp_path / "j"

    def interrupted(part, left, budget):
        if part.text.endswith("\n2 0\n"):
            raise KeyboardInterrupt
        return MAKE_PART(part, left, budget)

    monkeypatch.setattr(certify, "_proved_part", interrupted)
    with pytest.raises(KeyboardInterrupt):
        proofs.certify_query(SMALL, split=1, journal=stages.Journal(path))
    said = [json.loads(line) for line in path.read_text().splitlines()]
    assert [w.get("released") and w["case"] for w in said if "released" in w] == [[2]]
    # Another audit (another machine, by the line's name) takes part 2 at once, though the taking
    # line is fresh: it was given back.
    text = path.read_text().replace(stages.HOST, "elsewhere:boot")
    path.write_text(text)
    made = made_only(monkeypatch, {2, 3})
    assert proofs.certify_query(SMALL, split=1, journal=stages.Journal(path), timeout=60).taken == 1
    assert made == [2, 3]


def test_the_api_takes_a_journal_as_the_command_does(cli, monkeypatch, tmp_path):
    from smtpuzzles import api

    kingtour_encoding_with(monkeypatch, proof_parts=True)
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    journal = tmp_path / "checked.jsonl"
    first = api.audit(result["run_dir"], proof=True, checked_parts=journal, checker="none")
    assert first.verdict == "clean" and lines(journal)
    again = api.audit(result["run_dir"], proof=True, checked_parts=str(journal), checker="none")
    assert again.verdict == "clean" and any("journal" in r for r in again.report.rests_on)
    with pytest.raises(InputError) as raised:
        api.audit(result["run_dir"], checked_parts=journal)
    assert str(raised.value) == "audit(checked_parts=...): records the parts of proofs audit(proof=...) makes: " \
                                "add audit(proof=...)"


def test_kept_parts_are_checked_not_made_and_a_wrong_one_is_made_anew(tmp_path, monkeypatch):
    import gzip

    kept = tmp_path / "parts"
    proofs.certify_query(SMALL, split=1, parts_dir=kept, journal=stages.Journal(tmp_path / "j1"))
    assert len(list(kept.glob("*.lrat.gz"))) == 3
    monkeypatch.setattr(certify, "_proved_part", never_made)
    found = proofs.certify_query(SMALL, split=1, parts_dir=kept, journal=stages.Journal(tmp_path / "j2"))
    assert found.taken == 0 and [w["case"] for w in lines(tmp_path / "j2")] == [[1], [2], [3]]
    second = next(p for p in kept.glob("*.lrat.gz") if p.name.endswith("+2.lrat.gz"))
    second.write_bytes(gzip.compress(b"9 0 2 0\n"))  # well formed, proves nothing
    made = made_only(monkeypatch, {2})
    said = []
    again = proofs.certify_query(SMALL, split=1, parts_dir=kept, journal=stages.Journal(tmp_path / "j3"),
                                 progress=said.append)
    assert again.taken == 0 and made == [2] and any("fails on its own" in s and "made anew" in s for s in said)
