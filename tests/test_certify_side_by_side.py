"""certify makes the closing claim's proof in a thread (proof.BackgroundProof) while it builds and
proves the reference formula, so the two solver children run at once; a Ctrl-C or a failure of
either stops the other's child, and what is stored is what was proved and checked."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from smtpuzzles import run as runner
from smtpuzzles.proofs import proof as proofs


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
    assert children[0].poll() is not None  # killed, not left solving
    with pytest.raises(proofs.ProofError, match="was stopped"):
        background.result()


def test_the_two_proofs_of_a_certify_are_made_at_once(cli, monkeypatch):
    """Each solver child is held 0.5 s: made one after the other, the second would start after
    the first had ended."""
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    spans = []
    real = proofs._run_prover

    def held(*args, **kwargs):
        began = time.monotonic()
        time.sleep(0.5)
        try:
            return real(*args, **kwargs)
        finally:
            spans.append((began, time.monotonic(), threading.current_thread() is threading.main_thread()))

    monkeypatch.setattr(proofs, "_run_prover", held)
    run = runner.certify(Path(result["run_dir"]))
    assert "proof" in run and "reference_proof" in run
    (a_began, a_ended, _), (b_began, b_ended, _) = sorted(spans)
    assert b_began < a_ended, spans  # they overlapped
    assert {main for *_, main in spans} == {True, False}  # one in the caller's thread, one beside it
    code, out, _ = cli("audit", result["run_dir"], "--proof", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean"


def test_a_ctrl_c_during_the_reference_proof_stops_the_claims_child_and_stores_nothing(cli, monkeypatch):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    before = (run_dir / "run.json").read_bytes()
    children = children_of(monkeypatch)
    monkeypatch.setattr(proofs, "dimacs", lambda formula, terms: pigeonhole(11))  # a claim's proof of minutes

    def interrupted(*args):
        wait_for(lambda: children)  # the claim's child is solving
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_prove_reference", interrupted)
    started = time.time()
    with pytest.raises(KeyboardInterrupt):
        runner.certify(run_dir)
    assert time.time() - started < 30
    assert children[0].poll() is not None
    assert (run_dir / "run.json").read_bytes() == before
    assert not (run_dir / "proof.lrat.gz").exists()


def test_a_failing_claims_proof_stores_nothing_even_when_the_reference_one_succeeds(cli, monkeypatch):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    run_dir = Path(result["run_dir"])
    before = (run_dir / "run.json").read_bytes()
    real = proofs.certify_query

    def claim_fails(query, **kwargs):
        if proofs.BackgroundProof.of_this_thread() is not None:  # the claim's proof
            raise proofs.ProofError("cadical195-lrat found no proof within 1 s", "proof")
        return real(query, **kwargs)

    monkeypatch.setattr(proofs, "certify_query", claim_fails)
    code, _, err = cli("certify", run_dir)
    assert code == 1 and "no proof stored: proof: cadical195-lrat found no proof within 1 s" in err
    assert (run_dir / "run.json").read_bytes() == before
