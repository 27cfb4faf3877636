"""certify builds and proves the reference formula in a thread (proof.BackgroundProof) while it
proves the closing claim, so the two solver children run at once; the claim's proof is stored as
soon as it is checked, a Ctrl-C or a failure stops the other side's child, and what is stored is
what was proved and checked."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from smtpuzzles import run as runner
from smtpuzzles.proofs import certify, proof as proofs


def pigeonhole(holes: int) -> proofs.Dimacs:
    """holes + 1 pigeons in `holes` holes: unsatisfiable, and minutes of CaDiCaL for 11 holes."""
    pigeons = holes + 1
    var = lambda p, h: p * holes + h + 1  # noqa: E731
    clauses = [[var(p, h) for h in range(holes)] for p in range(pigeons)]
    clauses += [[-var(p, h), -var(q, h)] for h in range(holes) for p in range(pigeons) for q in range(p + 1, pigeons)]
    return proofs.dimacs_of(pigeons * holes, clauses)


def children_of(monkeypatch) -> list:
    """The solver children BackgroundProofs wait on, as they start."""
    seen = []
    real = proofs.BackgroundProof.watch

    def watch(self, child):
        seen.append(child)
        real(self, child)

    monkeypatch.setattr(proofs.BackgroundProof, "watch", watch)
    return seen


def claim_side_raises(monkeypatch, error: BaseException) -> list:
    """certify's reference side proves a query of minutes, and its claim side raises `error` once
    the reference's child is solving; the children, as children_of."""
    children = children_of(monkeypatch)
    real = proofs.certify_query

    def certify_query(query, **kwargs):
        if proofs.BackgroundProof.of_this_thread() is not None:  # the reference side
            return real(pigeonhole(11), **kwargs)
        wait_for(lambda: children)
        raise error

    monkeypatch.setattr(proofs, "certify_query", certify_query)
    return children


def wait_for(condition, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, "waited too long"
        time.sleep(0.01)


def test_stopping_a_background_proof_kills_its_child_at_once(monkeypatch):
    children = children_of(monkeypatch)
    background = proofs.BackgroundProof(lambda: proofs.certify_query(pigeonhole(11)))
    wait_for(lambda: children)
    started = time.time()
    background.stop()
    assert time.time() - started < 5
    wait_for(lambda: children[0].poll() is not None, 5)  # killed, not left solving
    with pytest.raises(proofs.ProofError, match="was stopped"):
        background.result()


def test_the_two_proofs_of_a_certify_are_made_at_once(cli, monkeypatch):
    """Each solver child is held 0.5 s: made one after the other, the second would start after
    the first had ended."""
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    spans = []
    real = certify.run_prover

    def held(*args, **kwargs):
        began = time.monotonic()
        time.sleep(0.5)
        try:
            return real(*args, **kwargs)
        finally:
            spans.append((began, time.monotonic(), threading.current_thread() is threading.main_thread()))

    monkeypatch.setattr(certify, "run_prover", held)
    run = runner.certify(Path(result["run_dir"]))
    assert "proof" in run and "reference_proof" in run
    (a_began, a_ended, _), (b_began, b_ended, _) = sorted(spans)
    assert b_began < a_ended, spans  # they overlapped
    assert {main for *_, main in spans} == {True, False}  # one in the caller's thread, one beside it
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean"


def test_a_ctrl_c_during_the_claims_proof_stops_the_reference_child_and_stores_nothing(cli, monkeypatch):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    before = (run_dir / "run.json").read_bytes()
    children = claim_side_raises(monkeypatch, KeyboardInterrupt())
    started = time.time()
    with pytest.raises(KeyboardInterrupt):
        runner.certify(run_dir)
    assert time.time() - started < 30
    wait_for(lambda: children[0].poll() is not None, 5)  # killed, not left solving
    assert (run_dir / "run.json").read_bytes() == before
    assert not (run_dir / "proof.lrat.gz").exists()


def test_a_ctrl_c_while_the_reference_proof_runs_on_keeps_the_claims_proof_stored(cli, monkeypatch):
    """The claim's proof, checked first, is stored before certify waits for the reference's: a
    Ctrl-C then stops the reference's child and leaves the claim's proof in the folder."""
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    children = children_of(monkeypatch)
    real = proofs.certify_query
    monkeypatch.setattr(proofs, "certify_query", lambda query, **kwargs: real(
        pigeonhole(11) if proofs.BackgroundProof.of_this_thread() is not None else query, **kwargs))
    real_result = proofs.BackgroundProof.result

    def interrupted_wait(self):
        # As the real wait takes a Ctrl-C: it stops the work it waits on (left running, the
        # pigeonhole's CaDiCaL went on for minutes beside the rest of the suite).
        wait_for(lambda: children)
        self.stop()
        raise KeyboardInterrupt

    monkeypatch.setattr(proofs.BackgroundProof, "result", interrupted_wait)
    with pytest.raises(KeyboardInterrupt):
        runner.certify(run_dir)
    monkeypatch.setattr(proofs.BackgroundProof, "result", real_result)
    wait_for(lambda: children[0].poll() is not None, 5)  # killed, not left solving
    run = json.loads((run_dir / "run.json").read_text())
    assert "proof" in run and "reference_proof" not in run
    assert (run_dir / "proof.lrat.gz").is_file()


def test_a_ctrl_c_while_waiting_for_the_background_proof_stops_its_child(monkeypatch):
    children = children_of(monkeypatch)
    background = proofs.BackgroundProof(lambda: proofs.certify_query(pigeonhole(11)))
    wait_for(lambda: children)
    timer = threading.Timer(0.3, lambda: __import__("_thread").interrupt_main())
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        background.result()
    wait_for(lambda: children[0].poll() is not None, 5)


def test_a_failing_claims_proof_stops_the_reference_proof_and_stores_nothing(cli, monkeypatch):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    before = (run_dir / "run.json").read_bytes()
    children = claim_side_raises(monkeypatch, proofs.ProofError("cadical195-lrat found no proof within 1 s", "proof"))
    started = time.time()
    code, _, err = cli("certify", run_dir)
    assert code == 1 and "no proof stored: proof: cadical195-lrat found no proof within 1 s" in err
    assert time.time() - started < 30  # it did not wait for the reference's minutes
    wait_for(lambda: children[0].poll() is not None, 5)
    assert (run_dir / "run.json").read_bytes() == before


def test_stopping_a_background_proof_removes_its_scratch_folder_at_once(tmp_path, monkeypatch):
    """A SIGTERM during the reference proof's trim (minutes on a large board, Python that never
    looks at `stopping`) ended the process with the raw proof's folder left in TMPDIR: the exit
    does not wait for the thread. `stop` removes the thread's scratch folders itself, and one asked
    for after it is refused."""
    import tempfile

    from smtpuzzles.proofs.prover import BackgroundProof, scratch_folder

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    inside, release, later = threading.Event(), threading.Event(), {}

    def work():
        with scratch_folder("smtpuzzles-proof-") as folder:
            (folder / "proof.txt").write_bytes(b"1 0 1 0\n" * 1000)
            inside.set()
            release.wait(30)  # the trim
        try:
            with scratch_folder("smtpuzzles-proof-"):
                later["made"] = True
        except proofs.ProofError as exc:
            later["refused"] = exc.message

    beside = BackgroundProof(work)
    assert inside.wait(30)
    beside.stop()
    assert list(tmp_path.iterdir()) == []
    release.set()
    beside.result()
    assert "made" not in later and "stopped" in later["refused"]
    assert list(tmp_path.iterdir()) == []
