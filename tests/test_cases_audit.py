"""A claim closed by cases (or cubes) rests on the steps it lists, which may rest on others: the
audit checks each listed step once, without recursion, within caps on depth and on the listings it
follows, in time linear in the ledger; `--resolve` re-solves the cases, not the whole claim (whole,
on 14x14, undecided after 50 minutes).

Found on a forged ledger: a case resting on a case, 1,200 deep, ended in a RecursionError traceback;
steps listing a shared chain re-checked it each time (about 68 ms a step, hours within the caps)."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest

from conftest import one_error_line
from ledger_forge import forge_chain, read_ledger
from smtpuzzles import run as runner
from smtpuzzles.auditing import derivations, resolving
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.formula import smt2
from smtpuzzles.objectives import claim_terms
from smtpuzzles.puzzles import kingtour


@pytest.fixture(scope="module")
def closed_4x4(tmp_path_factory) -> Path:
    """A 4x4 run closed by its cases (12, four of them settled by a bound), solved once."""
    outcome, ledger = runner.solve(kingtour, kingtour.parse(4, "2x2", None), "", out_dir=tmp_path_factory.mktemp("cases"))
    assert outcome.status == "optimal" and read_ledger(ledger.dir)[1][-1]["by"] == "cases"
    return ledger.dir


@pytest.fixture
def run_dir(closed_4x4, tmp_path) -> Path:
    import shutil

    target = tmp_path / closed_4x4.name
    shutil.copytree(closed_4x4, target, ignore=shutil.ignore_patterns(".lock"))
    return target


def todays_encoding(run_dir: Path):
    run, _ = read_ledger(run_dir)
    return kingtour.encode(kingtour.from_canonical(run["instance"]), run["encoding"]["name"])


def forged(run_dir: Path, build) -> None:
    """The closing step's first case replaced by the step `build(add, first)` returns, having added
    steps with `add(claim_changes, **fields)` (a copy of the real first case, at index `first`,
    with its claim and step fields changed and today's assumptions; returns its index)."""
    run, steps = read_ledger(run_dir)
    enc = todays_encoding(run_dir)
    closing = steps.pop()
    first = closing["cases"][0]
    template = {k: v for k, v in steps[first].items() if k not in ("engine", "stats", "reason", "prev", "index")}

    def add(claim_changes: dict | None = None, **fields) -> int:
        claim = {**template["claim"], **(claim_changes or {})}
        assumptions = [smt2(t) for t in claim_terms(enc.objective, claim)]
        steps.append({**copy.deepcopy(template), "claim": claim, "assumptions": assumptions, "seconds": 0.0, **fields})
        return len(steps) - 1

    closing["cases"][0] = build(add, first)
    steps.append(closing)
    run["certificate"]["step"] = len(steps) - 1
    forge_chain(run_dir, run, steps)


def chained(run_dir: Path, depth: int, bottom: int | None = None) -> None:
    """A chain `depth` steps long, each by cases listing the one below, on the real first case (or
    on step `bottom`). A King's-tour case is several assumptions, so no link is its own only case:
    the chain fails the claim where the audit reaches its last link."""
    def build(add, first):
        below = first if bottom is None else bottom
        for _ in range(depth):
            below = add(by="cases", cases=[below])
        return below
    forged(run_dir, build)


def by_cubes(add, enc, shared: int = 1) -> list[int]:
    """`shared` steps refuting the first case by the same cubes, each cube step added once (forged
    UNSAT answers, which an audit without --resolve takes on trust)."""
    cubes = [add({"cube": cube}, by="solver") for cube in enc.advice.cubes(1)]
    return [add(by="cubes", cubes=cubes) for _ in range(shared)]


def timed_audit(cli, *args):
    started = time.perf_counter()
    code, out, err = cli("audit", *args)
    return code, out, err, time.perf_counter() - started


def test_a_chain_of_cases_10000_deep_is_refused_in_one_line_within_seconds(cli, run_dir):
    """Past the depth cap: malformed, exit 2, one line (it was a RecursionError traceback)."""
    chained(run_dir, 10_000)
    code, out, err, seconds = timed_audit(cli, run_dir)
    assert code == 2, (code, out[-400:], err[-400:])
    line = one_error_line(err)
    assert f"more than {derivations.MAX_RESTS_DEPTH} deep" in line and "steps.jsonl" in line
    assert seconds < 20


def test_a_chain_within_the_cap_is_checked_to_its_last_link(cli, run_dir):
    chained(run_dir, derivations.MAX_RESTS_DEPTH - 1)
    code, out, _ = cli("audit", run_dir, "--json")
    assert code == 1 and "are not the cases of its claim" in out


def test_a_chain_resting_on_a_sat_step_fails_the_claim(cli, run_dir):
    _, steps = read_ledger(run_dir)
    sat = next(s["index"] for s in steps if s["result"] == "sat")
    chained(run_dir, 40, bottom=sat)
    code, out, _ = cli("audit", run_dir, "--json")
    assert code == 1 and "which is no UNSAT answer" in out


def test_a_case_refuted_by_cubes_is_followed(cli, run_dir):
    enc = todays_encoding(run_dir)
    forged(run_dir, lambda add, first: by_cubes(add, enc)[0])
    code, out, err = cli("audit", run_dir, "--json")
    assert code == 0 and json.loads(out)["verdict"] == "consistent", (out[-300:], err)


def test_cubes_listed_by_many_steps_are_checked_once(cli, run_dir, monkeypatch):
    """2,000 steps refute the first case by the same three cube steps, and one step lists those
    2,000 (its claim is not their disjunction, so the claim fails). Followed listing by listing that
    is 6,000 cube steps and 2,000 coverage checks (steps listing a shared chain cost about 68 ms
    each); memoised, each step's claim is built a fixed number of times (its check, the drift
    check), and the same cubes' coverage once."""
    enc = todays_encoding(run_dir)
    forged(run_dir, lambda add, first: add(by="cases", cases=by_cubes(add, enc, shared=2000)))
    built: dict[str, int] = {}
    real = derivations.recorded_claim_terms

    def counting(enc, claim, where):
        built[where] = built.get(where, 0) + 1
        if built[where] > 3:
            raise AssertionError(f"{where} built {built[where]} times")
        return real(enc, claim, where)

    covered = []
    real_coverage = derivations.coverage_problem
    monkeypatch.setattr(derivations, "recorded_claim_terms", counting)
    monkeypatch.setattr(derivations, "coverage_problem", lambda *a, **k: covered.append(1) or real_coverage(*a, **k))
    code, out, err, seconds = timed_audit(cli, run_dir, "--json")
    assert code == 1 and "are not the cases of its claim" in out, (out[-300:], err[-300:])
    assert len(covered) == 1 and seconds < 20


def test_the_listings_followed_are_capped(cli, run_dir, monkeypatch):
    """The count cap (a constant of the audit's derivations), tried low here: past it, one line and exit 2."""
    monkeypatch.setattr(derivations, "MAX_RESTS_LISTED", 5)
    code, _, err = cli("audit", run_dir)
    line = one_error_line(err)
    assert code == 2 and "more than 5 listed steps" in line


# ------------------------------------------------------------------------------------------ resolve
class Solvers:
    """Stands in for z3 and cvc5 in their fresh processes: records each query and answers unsat."""

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def solve(self, text, solver, timeout, watch=None):
        self.calls.append((text, solver))
        return "unsat", 0.01


def queries(run_dir: Path) -> tuple[str, dict[int, str]]:
    """Today's query for the closing claim, and for each of its cases (by step)."""
    run, steps = read_ledger(run_dir)
    enc = kingtour.encode(kingtour.from_canonical(run["instance"]), run["encoding"]["name"])
    closing = steps[run["certificate"]["step"]]
    whole = enc.formula.query(claim_terms(enc.objective, closing["claim"]))
    return whole, {i: enc.formula.query(claim_terms(enc.objective, steps[i]["claim"])) for i in closing["cases"]}


@pytest.mark.parametrize("resolve", ["certificate", "all"])
def test_resolve_re_solves_the_cases_and_never_the_whole_claim(run_dir, monkeypatch, resolve):
    fake = Solvers()
    monkeypatch.setattr(resolving, "solve_in_subprocess", fake.solve)
    monkeypatch.setattr(resolving, "solver_available", lambda s: True)
    whole, cases = queries(run_dir)
    report = audit(run_dir, resolve=resolve, jobs=2)
    asked = [text for text, _ in fake.calls]
    assert whole not in asked
    assert set(cases.values()) <= set(asked)
    if resolve == "certificate":
        assert sorted(asked) == sorted(q for q in cases.values() for _ in ("z3", "cvc5"))
    (line,) = [f.text for f in report.findings if f.section == "resolve"]
    n = len(cases)
    assert f"{n} cases covering the claim" in line and "re-solved unsat by z3 and cvc5" in line
    assert (report.verdict, report.unchecked_unsat) == ("clean", False)


def test_resolve_follows_a_case_refuted_by_cubes_to_its_cubes(run_dir, monkeypatch):
    enc = todays_encoding(run_dir)
    forged(run_dir, lambda add, first: by_cubes(add, enc)[0])
    fake = Solvers()
    monkeypatch.setattr(resolving, "solve_in_subprocess", fake.solve)
    monkeypatch.setattr(resolving, "solver_available", lambda s: True)
    run, steps = read_ledger(run_dir)
    closing = steps[-1]
    under_cubes = steps[closing["cases"][0]]
    leaves = [steps[i] for i in under_cubes["cubes"]] + [steps[i] for i in closing["cases"][1:]]
    wanted = sorted(enc.formula.query(claim_terms(enc.objective, s["claim"])) for s in leaves for _ in ("z3", "cvc5"))
    report = audit(run_dir, resolve="certificate")
    assert sorted(text for text, _ in fake.calls) == wanted
    assert f"{len(leaves)} cases covering the claim" in report.evidence[-1] and report.verdict == "clean"


def test_resolve_sends_the_cases_to_the_cluster(run_dir, monkeypatch):
    from smtpuzzles import cluster

    submitted = []

    class Client:
        def submit(self, fn, *args, pure=True):
            submitted.append(args)
            return len(submitted) - 1

        def gather(self, futures):
            return [("unsat", 1.0) for _ in futures]

    monkeypatch.setattr(cluster, "dask_client", lambda address: Client())
    whole, cases = queries(run_dir)
    report = audit(run_dir, resolve="certificate", scheduler="tcp://x:1")
    assert sorted(text for text, _, _ in submitted) == sorted(q for q in cases.values() for _ in ("z3", "cvc5"))
    assert report.verdict == "clean" and "on the Dask cluster at tcp://x:1" in report.evidence[-1]


def test_a_case_list_that_fails_is_re_solved_whole(run_dir, monkeypatch):
    """Cases that do not cover the claim prove nothing: the claim fails, and the re-solve asks the
    whole query as it does for any claim (never trusting the list)."""
    run, steps = read_ledger(run_dir)
    steps[-1]["cases"] = steps[-1]["cases"][:-1]
    forge_chain(run_dir, run, steps)
    fake = Solvers()
    monkeypatch.setattr(resolving, "solve_in_subprocess", fake.solve)
    monkeypatch.setattr(resolving, "solver_available", lambda s: True)
    whole, _ = queries(run_dir)
    report = audit(run_dir, resolve="certificate")
    assert [text for text, _ in fake.calls] == [whole, whole] and report.exit_code == 1


def test_resolve_on_a_real_small_run_with_both_solvers(cli, run_dir):
    code, out, err = cli("audit", run_dir, "--resolve", "--jobs", "2", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean", err
    assert {r["query"] for r in report["resolved"]} == {f"case at step {i}" for i in read_ledger(run_dir)[1][-1]["cases"]}


def test_the_cases_are_matched_as_the_formula_prints_their_disjunction():
    """The piecewise match says what comparing with smt2(any_of(all_of(...))) said, on every shape."""
    import random

    from smtpuzzles.formula import all_of, any_of, lit

    rng = random.Random(5)
    names = ["a", "b", "(not a)", "(or a b)"]
    for _ in range(3000):
        cases = [[rng.choice(names) for _ in range(rng.randrange(3))] for _ in range(rng.randrange(4))]
        printed = smt2(any_of(all_of(lit(t) for t in case) for case in cases))
        assert derivations._is_disjunction(printed, cases)
        other = [[rng.choice(names) for _ in range(rng.randrange(3))] for _ in range(rng.randrange(4))]
        assert derivations._is_disjunction(printed, other) == (printed == smt2(any_of(all_of(lit(t) for t in c) for c in other)))
