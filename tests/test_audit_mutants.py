"""The audit's every finding, held to its exact words, section, verdict and exit status: on real
runs of each kind of claim, and on each the one tampering a check exists for. Written against the
mutants mutmut left alive in smtpuzzles/auditing/auditor.py (scripts/mutation.py); each test fails on at
least one of them.

Ground truth never comes from the audit: optima, counts and uniqueness are the seeds'
(smtpuzzles/examples/*/expected.json, tests/data/seed_cases.json), step numbers and counts are read
from the folder's own files, models are judged by the puzzle's referee, and queries are built by
today's encoder directly. Re-solves and proofs run on fakes where the test is about how the audit
reads their answers (a real solver cannot be made to answer `unknown` on cue).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from ledger_forge import forge_chain, read_ledger, write_gz_text
from smtpuzzles.auditing import readback, resolving
from smtpuzzles.proofs import proof as proofs
from smtpuzzles import puzzles
from smtpuzzles.auditing.auditor import _meets, audit
from smtpuzzles.auditing.report import Finding, Report
from smtpuzzles.auditing.resolving import INSTALL_HINT
from smtpuzzles.cli import main
from smtpuzzles.errors import LedgerError
from smtpuzzles.formula import smt2
from smtpuzzles.objective import claim_terms, describe
from smtpuzzles.auditing.readback import Referee

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "smtpuzzles" / "examples"
TATAMIBARI = json.loads((EXAMPLES / "tatamibari" / "expected.json").read_text())
ONE_DOOR = [[9, 0, -1]]  # the seeds' Nonary case 03: 5 escape
FIVE = 5
FOUR_PLAYERS = {"moves": [{"door": 0, "players": [1, 2, 7, 8]}]}  # 1+2+7+8 = 18: a valid plan worth 4
BAD_PLAN = {"moves": [{"door": 0, "players": [1, 2, 3]}]}  # 1+2+3 = 6: not 9 modulo 9
SEARCHED = "an independent search of "  # Nonary's solver-free certificate, then a count of positions
assert TATAMIBARI["01.txt"]["count"] == 1 and TATAMIBARI["03.txt"]["count"] == 2



@pytest.fixture(autouse=True)
def main_proof_only(monkeypatch):
    """These tests pin down the encoder's proof, query by query and event by event; the same claim's
    proof on the reference encoding (tests/test_reference_claims.py) is left out of them."""
    import smtpuzzles.run  # noqa: F401 - certify, which reads it from readback too

    monkeypatch.setattr(readback, "reference_query", lambda module, instance, claim, where, *deadline: None)


# kind -> the `smtpuzzles solve` arguments of a pristine run of it
RUNS = {
    "nonary": ("nonary", "{map}"),
    "unique": ("tatamibari", EXAMPLES / "tatamibari" / "01.txt", "--unique"),
    "not-unique": ("tatamibari", EXAMPLES / "tatamibari" / "03.txt", "--unique"),
    "count": ("tatamibari", EXAMPLES / "tatamibari" / "03.txt", "--count"),
    "count-1": ("tatamibari", EXAMPLES / "tatamibari" / "03.txt", "--count", 1),
    "solve": ("tatamibari", EXAMPLES / "tatamibari" / "01.txt"),
    "infeasible": ("tatamibari", "-"),  # a 2x2 board of four '+' clues: no partition (seeds)
    "kingtour": ("kingtour", "--size", 4, "--box", "2x2"),
    "kingtour6": ("kingtour", "--size", 6, "--box", "2x3"),
    "rogue": ("rogue", EXAMPLES / "rogue" / "01.txt"),
    "certified": ("nonary", "{map}", "--certify"),  # with a stored LRAT proof of its closing claim
}


def solve_into(out: Path, args) -> Path:
    import sys

    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="utf-8")
    stdin = sys.stdin
    sys.stdin = io.StringIO("++\n++\n")
    try:
        with contextlib.redirect_stdout(text):
            code = main(["solve", *map(str, args), "--json", "--out", str(out)])
    finally:
        sys.stdin = stdin
    text.flush()
    assert code == 0
    return Path(json.loads(raw.getvalue())["run_dir"])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """kind -> a finished run folder of that kind, solved once per module on first use."""
    root = tmp_path_factory.mktemp("pristine")
    (root / "map.json").write_text(json.dumps(ONE_DOOR))
    made: dict[str, Path] = {}

    def get(kind: str) -> Path:
        if kind not in made:
            args = [str(root / "map.json") if a == "{map}" else a for a in RUNS[kind]]
            made[kind] = solve_into(root / "runs", args)
        return made[kind]
    return get


@pytest.fixture
def run_of(pristine, tmp_path):
    """A fresh copy of a pristine run of `kind`, to tamper with."""
    def copy(kind: str) -> Path:
        target = tmp_path / kind
        shutil.copytree(pristine(kind), target, ignore=shutil.ignore_patterns(".lock"))
        return target
    return copy


# ---------------------------------------------------------------------------------------- helpers
def encoder(run_dir: Path):
    run, _ = read_ledger(run_dir)
    module = puzzles.get(run["puzzle"])
    instance = module.from_canonical(run["instance"])
    return module, instance, module.encode(instance, run["encoding"]["name"])


def query_for(run_dir: Path, claim: dict) -> str:
    _, _, enc = encoder(run_dir)
    return enc.formula.query(claim_terms(enc.objective, claim))


def refuting(run_dir: Path, claim: dict) -> dict:
    _, _, enc = encoder(run_dir)
    return {"claim": claim, "words": describe(claim), "assumptions": [smt2(t) for t in claim_terms(enc.objective, claim)],
            "result": "unsat", "by": "solver", "engine": "sat", "seconds": 0.01, "stats": {}}


def reseal(run_dir: Path, change=None, steps=None) -> None:
    """Rewrite run.json (and the steps) as a careful forger would: chain and seal recomputed."""
    run, recorded = read_ledger(run_dir)
    if change:
        change(run)
    forge_chain(run_dir, run, recorded if steps is None else steps(recorded))


def certify_claim(run_dir: Path, run: dict, claim: dict, step: int) -> None:
    """A certificate file and run.json entry for `claim` that match today's query."""
    sha = write_gz_text(run_dir / "certificate.smt2.gz", query_for(run_dir, claim))
    run["certificate"] = {"file": "certificate.smt2.gz", "claim": claim, "step": step, "sha256": sha}


def save_solution(run_dir: Path, value, solution: dict) -> None:
    (run_dir / "solution.json").write_text(json.dumps({"value": value, "solution": solution}))


def texts(report: Report, section: str) -> list[tuple[bool | None, str]]:
    return [(f.ok, f.text) for f in report.findings if f.section == section]


def claims_finding(report: Report) -> tuple[bool | None, str]:
    (only,) = texts(report, "claims")
    return only


def steps_file(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]


def unsat_index(run_dir: Path, claim: dict) -> int:
    return next(s["index"] for s in steps_file(run_dir) if s["result"] == "unsat" and s["claim"] == claim)


def short(value, width: int = 40) -> str:
    """How the audit's messages cut a long value: to `width` columns, the last three '...'."""
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


# ------------------------------------------------------------------------------- the report itself
@pytest.mark.parametrize("oks,missing,unchecked,expected", [
    ([], [], False, (True, 0, "clean")),
    ([True], [], True, (True, 0, "consistent")),
    ([True, None], [], False, (True, 3, "undecided")),
    ([None], [], True, (True, 3, "undecided")),
    ([True, None], ["cvc5"], False, (True, 4, "incomplete")),
    ([True], ["z3"], True, (True, 4, "incomplete")),
    ([True, False, None], ["cvc5"], True, (False, 1, "FAILED")),
    ([False], [], False, (False, 1, "FAILED")),
])
def test_exit_status_and_verdict_follow_the_readme_table(oks, missing, unchecked, expected):
    """README: 0 clean (consistent when an UNSAT answer was taken on trust), 1 a check failed,
    3 a re-solve undecided, 4 a solver missing."""
    report = Report("r")
    for ok in oks:
        report.add("x", ok, "t")
    report.missing = list(missing)
    report.unchecked_unsat = unchecked
    assert (report.ok, report.exit_code, report.verdict) == expected


def test_the_json_report_carries_every_field():
    report = Report("runs/r", "nonary", "optimal", 5)
    report.add("claims", True, "fine")
    report.add("resolve", None, "cvc5 is missing")
    report.missing.append("cvc5")
    report.evidence.append("because")
    report.resolved.append({"query": "certificate", "solver": "z3", "answer": "unsat", "seconds": 0.5})
    assert report.as_json() == {
        "run_dir": "runs/r", "puzzle": "nonary", "status": "optimal", "value": 5, "ok": True, "verdict": "incomplete",
        "exit": 4, "evidence": ["because"], "missing_solvers": ["cvc5"], "unsat_rechecked": True, "proof_stored": False,
        "instance": {}, "rests_on": [], "answer": "",
        "findings": [{"section": "claims", "ok": True, "text": "fine"},
                     {"section": "resolve", "ok": None, "text": "cvc5 is missing"}],
        "resolved": [{"query": "certificate", "solver": "z3", "answer": "unsat", "seconds": 0.5}]}
    report.unchecked_unsat, report.proof_stored = True, True
    assert report.as_json()["unsat_rechecked"] is False and report.as_json()["proof_stored"] is True
    assert Report("r").as_json()["puzzle"] == "?" and Report("r").status == "?" and Report("r").value is None


# ------------------------------------------------------------------------------ pristine runs
CLOSES = "certificate.smt2.gz is the query today's encoder builds for it"


class StartsWith(str):
    """Equal to a text that starts with `prefix` and contains each of `parts` (counts in between
    come from the formula's size, which the test does not restate)."""

    def __new__(cls, prefix: str, *parts: str):
        made = super().__new__(cls, prefix)
        made.parts = parts
        return made

    def __eq__(self, other) -> bool:
        return isinstance(other, str) and other.startswith(str(self)) and all(p in other for p in self.parts)

    __hash__ = str.__hash__


def expected_pristine(kind: str, run_dir: Path) -> tuple[list[tuple[str, bool, str]], list[str], str]:
    """(findings, evidence, verdict) of an untouched run, from the seeds and the folder's files."""
    run, steps = read_ledger(run_dir)
    name = run["puzzle"]
    n_sat = sum(1 for s in steps if s["result"] == "sat")
    chain = f"{len(steps)} step" + ("" if len(steps) == 1 else "s")
    head = [("integrity", True, f"hash chain of {chain} intact, sealed by run.json"),
            ("models", True, f"{n_sat} recorded models pass the {name} referee and meet their claims" if n_sat != 1
             else f"the 1 recorded model passes the {name} referee and meets its claim")]
    if kind != "infeasible":
        head.append(("models", True, "solution.json passes the referee and has the claimed value"))
    lemma = run["encoding"].get("lemma")
    if lemma:  # symmetry breaking: the lemma in the run's words, then what the check verified
        head.insert(1, ("symmetry", True, StartsWith(f"{lemma}: ", "onto themselves", "UNSAT with it is UNSAT without")))
    drift = [("drift", True, f"base formula and all step queries are what encoding {run['encoding']['name']} "
                              f"v{run['encoding']['version']} emits today")]
    words = {
        "nonary": f"optimal: {FIVE} is the most, {FIVE + 1} cannot be reached",
        "unique": "unique: no solution other than the one found",
        "count": f"exactly {TATAMIBARI['03.txt']['count']} solutions",
        "infeasible": "infeasible: there is no solution",
        "kingtour": f"optimal: nothing beats {run['value']}",
        "kingtour6": f"optimal: nothing beats {short(run['value'], 24)}",
        "rogue": f"optimal: {run['value']} is the most, {run['value'] + 1} cannot be reached"
                 if isinstance(run["value"], int) else None,
        "not-unique": "not unique: two different solutions recorded",
        "count-1": "at least 1 solutions (the count stopped at its limit)",
        "solve": "solved: the recorded solution passes the referee",
    }[kind]
    first = [f"a checked symmetry lemma: {lemma}"] if lemma else []
    if "certificate" not in run:  # nothing refuted: the claim needs no UNSAT answer
        return head + [("claims", True, words)] + drift, first + [words], "clean"
    step = unsat_index(run_dir, run["certificate"]["claim"])
    # A King's tour closes by its cases: "position i is the first to beat the best", one for each
    # position whose digit is not the board's largest (counted here from the value).
    cases = "" if kind not in ("kingtour", "kingtour6") else \
        f" (by its {sum(1 for d in run['value'] if int(d) < run['instance']['size'])} cases, each refuted before)"
    claims = [("claims", True, f"{words}: recorded UNSAT at step {step}{cases}, and {CLOSES}")]
    evidence = first + [f"{words}: recorded UNSAT step {step} and the certificate file"]
    searched = []  # Nonary: an independent search of the positions confirms the optimum without a solver
    if kind == "nonary":
        searched = [("certificate", True, StartsWith(f"solver-free certificate: {SEARCHED}", f"finds at most {FIVE} can"))]
        evidence.append(StartsWith(f"a solver-free certificate: {SEARCHED}", f"finds at most {FIVE} can escape"))
    return head + claims + drift + searched, evidence, "consistent"


@pytest.mark.parametrize("kind", ["nonary", "unique", "not-unique", "count", "count-1", "solve", "infeasible",
                                  "kingtour", "kingtour6"])
def test_a_pristine_run_gets_exactly_its_findings(run_of, kind):
    run_dir = run_of(kind)
    findings, evidence, verdict = expected_pristine(kind, run_dir)
    report = audit(run_dir)
    assert [(f.section, f.ok, f.text) for f in report.findings] == findings
    assert report.evidence == evidence
    assert (report.verdict, report.exit_code, report.unchecked_unsat) == (verdict, 0, verdict == "consistent")
    run, _ = read_ledger(run_dir)
    assert (report.run_dir, report.puzzle, report.status, report.value) == (
        str(run_dir), run["puzzle"], run["status"], run["value"])


def test_a_rogue_optimum_also_carries_its_solver_free_certificate(run_of):
    run_dir = run_of("rogue")
    module, instance, _ = encoder(run_dir)
    saved = json.loads((run_dir / "solution.json").read_text())
    ok, words = module.certificate(instance, saved["solution"])
    assert ok
    report = audit(run_dir)
    assert texts(report, "certificate") == [(True, f"solver-free certificate: {words}")]
    assert report.evidence[-1] == f"a solver-free certificate: {words}" and report.exit_code == 0


@pytest.mark.parametrize("status", ["running", "unknown", "interrupted"])
def test_a_run_that_did_not_finish_claims_nothing(run_of, status):
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: (run.update(status=status, ended=None), run.pop("certificate")))
    report = audit(run_dir)
    chain = texts(report, "integrity")[0][1]
    sealed = ("the run never finished (killed), so it claims nothing" if status == "running" else "sealed by run.json")
    assert chain == f"hash chain of 2 steps intact, {sealed}"
    assert claims_finding(report) == (True, f"status {status}: no optimality claimed")
    assert report.evidence == [f"status {status}: no optimality claimed"] and report.verdict == "clean"


def test_a_killed_run_may_show_a_value_it_has_not_claimed(run_of):
    """Not finished: a solution.json worth more than run.json's value (the value lags) is fine."""
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: (run.update(status="running", value=4, ended=None), run.pop("certificate")))
    report = audit(run_dir)
    assert (True, "solution.json passes the referee and has the claimed value") in texts(report, "models")
    assert report.exit_code == 0


@pytest.mark.parametrize("count,fine", [(1, True), (2, False), (0, False)])
def test_a_count_so_far_must_match_the_models(run_of, count, fine):
    run_dir = run_of("count-1")  # one model recorded
    reseal(run_dir, lambda run: run.update(status="unknown", extra={"count": count}))
    words = "status unknown: no optimality claimed" if fine else f"a count of {count} so far, but the recorded models differ"
    assert claims_finding(audit(run_dir)) == (fine, words)


# --------------------------------------------------------------------------- unreadable folders
@pytest.mark.parametrize("mode,shown", [("count", "'count'"), ("m" * 50, repr("m" * 40))])
def test_a_mode_the_puzzle_lacks_is_one_error_naming_run_json(run_of, mode, shown):
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: run.update(mode=mode))
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert (caught.value.message, caught.value.where) == (f"nonary runs have no mode {shown}", str(run_dir / "run.json"))


def test_a_missing_base_formula_is_one_error(run_of):
    run_dir = run_of("nonary")
    (run_dir / "base.smt2.gz").unlink()
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert (caught.value.message, caught.value.where) == ("base formula is missing", str(run_dir / "base.smt2.gz"))


def base_text(run_dir: Path) -> str:
    _, _, enc = encoder(run_dir)
    return enc.formula.document()


def cap_of(run_dir: Path) -> int:
    """What the audit reads of a base before calling it larger: twice today's, plus 1 MiB."""
    return 2 * len(base_text(run_dir).encode()) + (1 << 20)


@pytest.mark.parametrize("size,recorded,error", [
    ("small", "today's", True),
    ("at the cap", "today's", True),
    ("past the cap", "today's", True),
    ("small", "its own", False),
    ("at the cap", "its own", False),
    ("past the cap", "its own", False),
    ("at the cap", "another", True),
    ("past the cap", "another", False),
])
def test_a_base_is_checked_against_its_hash_up_to_the_read_cap(run_of, size, recorded, error):
    """A base not matching the hash run.json records is an unreadable folder (exit 2). One that
    matches (a forger's, or an older encoder's) is drift. Past the read cap the audit cannot hash
    the file, but it cannot be today's formula either: drift, unless run.json says it is today's."""
    run_dir = run_of("nonary")
    text = {"small": base_text(run_dir) + "(assert false)\n",
            "at the cap": ";" * (cap_of(run_dir) - 1) + "\n",
            "past the cap": ";" * cap_of(run_dir) + "\n"}[size]
    own = write_gz_text(run_dir / "base.smt2.gz", text)
    if recorded != "today's":
        reseal(run_dir, lambda run: run["base"].update(sha256=own if recorded == "its own" else "ab" * 32))
    if error:
        with pytest.raises(LedgerError) as caught:
            audit(run_dir)
        assert (caught.value.message, caught.value.where) == ("base formula does not match its recorded sha-256",
                                                              str(run_dir / "base.smt2.gz"))
    else:
        report = audit(run_dir)
        assert texts(report, "drift") == [(False, "encoding drift: today's encoder writes a different base formula")]
        assert report.exit_code == 1


# ---------------------------------------------------------------------- solver-free certificates
@pytest.fixture
def fake_certify(monkeypatch):
    """Give the Nonary puzzle a `certificate` hook that answers as told and records its calls."""
    calls = []

    def install(answer):
        def certify(instance, solution):
            calls.append(solution)
            if isinstance(answer, Exception):
                raise answer
            return answer
        monkeypatch.setattr(puzzles.get("nonary"), "certificate", certify, raising=False)
        return calls
    return install


def test_a_failed_certificate_fails_the_audit(run_of, fake_certify):
    run_dir = run_of("nonary")
    calls = fake_certify((False, "a closed set holds 6"))
    report = audit(run_dir)
    assert calls == [json.loads((run_dir / "solution.json").read_text())["solution"]]
    assert texts(report, "certificate") == [(False, "solver-free certificate: a closed set holds 6")]
    assert report.exit_code == 1 and not any("solver-free" in e for e in report.evidence)


def test_a_certificate_of_the_wrong_shape_is_one_error_naming_solution_json(run_of, fake_certify):
    run_dir = run_of("nonary")
    fake_certify(KeyError("cells"))
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert (caught.value.message, caught.value.where) == ("the solver-free certificate has the wrong shape (KeyError)",
                                                          str(run_dir / "solution.json"))


@pytest.mark.parametrize("change", ["not optimal", "no solution.json"])
def test_a_certificate_is_only_asked_of_an_optimum_with_its_solution(run_of, fake_certify, change):
    run_dir = run_of("nonary")
    calls = fake_certify((True, "fine"))
    if change == "not optimal":
        reseal(run_dir, lambda run: (run.update(status="unknown"), run.pop("certificate")))
    else:
        (run_dir / "solution.json").unlink()
    report = audit(run_dir)
    assert calls == [] and texts(report, "certificate") == []


# ----------------------------------------------------------------------------------------- models
def nonary_steps(run_dir: Path, first: dict | None = None, extra_steps=()) -> None:
    """The Nonary run with its first step replaced (fields merged) and steps added before the
    closing refutation; run.json's certificate follows the refutation's new place."""
    def steps(recorded):
        head = {**recorded[0], **(first or {})}
        return [head, *extra_steps, recorded[-1]]

    def change(run):
        run["certificate"]["step"] = 1 + len(extra_steps)
    reseal(run_dir, change, steps)


def test_a_recorded_model_that_breaks_the_rules_fails_twice(run_of):
    run_dir = run_of("nonary")
    nonary_steps(run_dir, {"solution": BAD_PLAN, "value": 3})
    module, instance, _ = encoder(run_dir)
    problem = module.referee(instance, BAD_PLAN)[0]
    report = audit(run_dir)
    assert texts(report, "models") == [(False, f"step 0: the model breaks the rules: {problem}"),
                                       (True, "solution.json passes the referee and has the claimed value")]
    assert claims_finding(report) == (False, "a recorded model breaks the rules, so the run's search cannot be trusted")


def test_a_model_worth_other_than_its_step_says_fails(run_of):
    run_dir = run_of("nonary")
    nonary_steps(run_dir, {"value": 4})
    assert texts(audit(run_dir), "models")[0] == (False, f"step 0: the model is worth {FIVE}, the step says 4")


def test_a_long_value_is_cut_to_forty_columns(run_of):
    run_dir = run_of("nonary")
    said = list(range(30))
    nonary_steps(run_dir, {"value": said})
    text = texts(audit(run_dir), "models")[0][1]
    assert text == f"step 0: the model is worth {FIVE}, the step says {short(said)}"
    assert text.endswith("...") and len(short(said)) == 40


def test_a_model_that_misses_its_claim_fails(run_of):
    run_dir = run_of("nonary")
    claim = {"op": "at_least", "k": FIVE + 1}
    nonary_steps(run_dir, {"claim": claim, "assumptions": refuting(run_dir, claim)["assumptions"]})
    assert texts(audit(run_dir), "models")[0] == (
        False, f"step 0: the model does not satisfy its claim ({describe(claim)})")


def test_models_of_steps_that_are_not_sat_are_witnesses_only(run_of):
    """A model on an unknown step is not counted as a search result, but it is refereed: a bad
    one is ignored, a good one is a witness (here: contradicting a lower optimum)."""
    run_dir = run_of("nonary")
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    claim = {"op": "at_least", "k": FIVE}
    aside = [{**refuting(run_dir, claim), "result": "unknown", "reason": "timeout", "solution": BAD_PLAN, "value": 3},
             {**refuting(run_dir, claim), "result": "unknown", "reason": "timeout", "solution": best, "value": FIVE}]
    run, recorded = read_ledger(run_dir)
    run.update(value=4)
    save_solution(run_dir, 4, FOUR_PLAYERS)
    steps = [{**recorded[0], "solution": FOUR_PLAYERS, "value": 4}, *aside, refuting(run_dir, claim)]
    certify_claim(run_dir, run, claim, 3)
    forge_chain(run_dir, run, steps)
    report = audit(run_dir)
    assert texts(report, "models")[0] == (True, "the 1 recorded model passes the nonary referee and meets its claim")
    assert claims_finding(report) == (False, "optimal claimed, yet step 2 holds a better solution")


def test_solution_json_that_breaks_the_rules_fails(run_of):
    run_dir = run_of("nonary")
    save_solution(run_dir, FIVE, BAD_PLAN)
    module, instance, _ = encoder(run_dir)
    report = audit(run_dir)
    assert texts(report, "models")[1] == (False, f"solution.json breaks the rules: {module.referee(instance, BAD_PLAN)[0]}")
    assert claims_finding(report) == (False, f"run.json claims {FIVE}, which solution.json does not reach")


def test_solution_json_worth_other_than_it_says_fails(run_of):
    run_dir = run_of("nonary")
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    save_solution(run_dir, 4, best)
    assert texts(audit(run_dir), "models")[1] == (False, f"solution.json is worth {FIVE}, it says 4")


def test_solution_json_worth_other_than_run_json_claims_fails(run_of):
    run_dir = run_of("nonary")
    save_solution(run_dir, 4, FOUR_PLAYERS)
    report = audit(run_dir)
    assert texts(report, "models")[1] == (False, f"solution.json is worth 4, run.json claims {FIVE}")
    assert claims_finding(report) == (False, f"run.json claims {FIVE}, which solution.json does not reach")


@pytest.mark.parametrize("value", [FIVE, None])
def test_a_claimed_value_needs_a_solution_json(run_of, value):
    run_dir = run_of("nonary")
    (run_dir / "solution.json").unlink()
    reseal(run_dir, lambda run: (run.update(status="running", value=value), run.pop("certificate")))
    report = audit(run_dir)
    missing = [(False, f"run.json claims {value}, but there is no solution.json to show it")] if value is not None else []
    assert texts(report, "models")[1:] == missing


# --------------------------------------------------------------------------- a claim and a model
@pytest.fixture(scope="module")
def tour(pristine):
    run_dir = pristine("kingtour")
    module, instance, _ = encoder(run_dir)
    solution = json.loads((run_dir / "solution.json").read_text())["solution"]
    return Referee(module, instance), solution, list(module.value(instance, solution))


def test_an_exceed_claim_is_met_only_past_the_prefix_and_above_the_bound(tour):
    rules, solution, worth = tour
    k = 3
    prefix = worth[:k]

    def meets(**claim):
        return _meets({"op": "exceed", **claim}, solution, worth, rules)

    assert meets(pos=k, prefix=prefix, than=worth[k] - 1)
    assert not meets(pos=k, prefix=prefix, than=worth[k])  # strictly above
    assert not meets(pos=k, prefix=[worth[0] + 1, *prefix[1:]], than=0)  # another prefix
    assert meets(pos=0, prefix=[], than=worth[0] - 1)
    assert not meets(pos=len(worth), prefix=worth, than=0)  # past the end
    assert not meets(pos=-1, prefix=[], than=0)
    assert not _meets({"op": "exceed", "pos": 0, "prefix": [], "than": 0}, solution, 5, rules)  # not a vector


def test_lex_greater_at_least_block_and_first_claims(tour, run_of):
    rules, solution, worth = tour
    lower = worth[:-1] + [worth[-1] - 1]
    assert _meets({"op": "lex_greater", "best": lower}, solution, worth, rules)
    assert not _meets({"op": "lex_greater", "best": worth}, solution, worth, rules)
    assert not _meets({"op": "lex_greater", "best": lower}, solution, tuple(worth), rules)
    assert _meets({"op": "at_least", "k": 5}, solution, 5, rules)
    assert not _meets({"op": "at_least", "k": 6}, solution, 5, rules)
    assert not _meets({"op": "at_least", "k": 0}, solution, [5], rules)
    assert _meets({"op": "block", "solutions": []}, solution, worth, rules)
    assert not _meets({"op": "block", "solutions": [solution]}, solution, worth, rules)
    assert not _meets({"op": "block", "solutions": ["not an object"]}, solution, worth, rules)
    assert _meets({"op": "first"}, solution, worth, rules)
    count_dir = run_of("count")
    module, instance, _ = encoder(count_dir)
    one, two = [s["solution"] for s in steps_file(count_dir) if s["result"] == "sat"]
    board = Referee(module, instance)
    assert _meets({"op": "block", "solutions": [one]}, two, None, board)
    assert not _meets({"op": "block", "solutions": [one, two]}, two, None, board)


# ------------------------------------------------------------------------- claims that cannot hold
def test_infeasible_with_a_sat_step_fails(run_of):
    run_dir = run_of("solve")
    (run_dir / "solution.json").unlink()
    reseal(run_dir, lambda run: run.update(status="infeasible", value=None, extra={}))
    assert claims_finding(audit(run_dir)) == (False, "infeasible claimed, yet a recorded check found a solution")


def forge_infeasible_nonary(run_dir: Path, aside: list[dict]) -> None:
    claim = {"op": "first"}
    run, _ = read_ledger(run_dir)
    run.update(status="infeasible", value=None)
    certify_claim(run_dir, run, claim, len(aside))
    forge_chain(run_dir, run, [*aside, refuting(run_dir, claim)])


def test_infeasible_with_a_refereed_model_anywhere_fails(run_of):
    run_dir = run_of("nonary")
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    (run_dir / "solution.json").unlink()
    aside = {**refuting(run_dir, {"op": "first"}), "result": "unknown", "reason": "timeout", "solution": best, "value": FIVE}
    forge_infeasible_nonary(run_dir, [aside])
    assert claims_finding(audit(run_dir)) == (False, "infeasible claimed, yet the folder holds a solution (step 0)")


@pytest.mark.parametrize("valid", [True, False])
def test_infeasible_with_any_solution_json_fails(run_of, valid):
    """A valid solution.json is a witness by that name; an invalid one is named all the same."""
    run_dir = run_of("nonary")
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    save_solution(run_dir, FIVE if valid else None, best if valid else BAD_PLAN)
    forge_infeasible_nonary(run_dir, [])
    assert claims_finding(audit(run_dir)) == (False, "infeasible claimed, yet the folder holds a solution (solution.json)")


def test_an_infeasible_claim_that_holds_together(run_of):
    run_dir = run_of("nonary")
    (run_dir / "solution.json").unlink()
    forge_infeasible_nonary(run_dir, [])
    report = audit(run_dir)
    assert claims_finding(report) == (True, f"infeasible: there is no solution: recorded UNSAT at step 0, and {CLOSES}")
    assert report.verdict == "consistent"


def test_an_optimum_without_solution_json_fails(run_of):
    run_dir = run_of("nonary")
    (run_dir / "solution.json").unlink()
    report = audit(run_dir)
    assert claims_finding(report) == (False, "status optimal but no solution.json")
    assert texts(report, "models")[1] == (False, f"run.json claims {FIVE}, but there is no solution.json to show it")


def test_a_claimed_solution_no_check_found_fails(run_of):
    run_dir = run_of("nonary")
    save_solution(run_dir, 4, FOUR_PLAYERS)
    reseal(run_dir, lambda run: run.update(value=4))
    assert claims_finding(audit(run_dir)) == (False, "the claimed solution was not found by any recorded check")


def test_a_better_model_in_solution_json_history_is_not_needed_for_max(run_of):
    """Equal is not better: a second model worth the optimum on an unknown step is fine."""
    run_dir = run_of("nonary")
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    claim = {"op": "at_least", "k": FIVE}
    aside = {**refuting(run_dir, claim), "result": "unknown", "reason": "timeout", "solution": best, "value": FIVE}
    nonary_steps(run_dir, extra_steps=[aside])
    assert claims_finding(audit(run_dir))[0] is True


def forge_lower_tour(run_dir: Path, aside_worth: str) -> tuple[list, list]:
    """The 4x4 optimum's digits relabelled (4 <-> 1): a valid grid on the same tour worth less,
    claimed optimal. The real optimum is kept on an unknown step (`better`) or not (`equal`)."""
    module, instance, enc = encoder(run_dir)
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    swap = {4: 1, 1: 4, 2: 2, 3: 3}
    lower = {"grid": [[swap[d] for d in row] for row in best["grid"]], "tour": best["tour"]}
    assert module.referee(instance, lower) == []
    low, high = list(module.value(instance, lower)), list(module.value(instance, best))
    assert low < high
    run, recorded = read_ledger(run_dir)
    claim = {"op": "lex_greater", "best": low}
    first = {**recorded[0], "solution": lower, "value": low}
    kept = {"better": best, "equal": lower}[aside_worth]
    aside = {**refuting(run_dir, claim), "result": "unknown", "reason": "timeout", "solution": kept,
             "value": list(module.value(instance, kept))}
    run["value"] = module.value_json(low)
    save_solution(run_dir, run["value"], lower)
    certify_claim(run_dir, run, claim, 2)
    forge_chain(run_dir, run, [first, aside, refuting(run_dir, claim)])
    return low, high


def test_a_lex_optimum_beaten_by_a_recorded_model_fails(run_of):
    run_dir = run_of("kingtour")
    forge_lower_tour(run_dir, "better")
    assert claims_finding(audit(run_dir)) == (False, "optimal claimed, yet step 1 holds a better solution")


def test_a_lex_optimum_matched_but_not_beaten_holds_together(run_of):
    run_dir = run_of("kingtour")
    low, _ = forge_lower_tour(run_dir, "equal")
    ok, words = claims_finding(audit(run_dir))
    assert ok is True and words.startswith(f"optimal: nothing beats {''.join(map(str, low))}: recorded UNSAT at step 2")


def test_optimal_for_a_run_with_nothing_to_optimise_fails(run_of):
    run_dir = run_of("solve")
    reseal(run_dir, lambda run: run.update(status="optimal"))
    assert claims_finding(audit(run_dir)) == (False, "optimal claimed for a run with nothing to optimise (satisfy)")


def test_solved_is_no_outcome_of_a_maximum(run_of):
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: run.update(status="solved"))
    assert claims_finding(audit(run_dir)) == (False, "status solved is not an outcome of a max run")


@pytest.mark.parametrize("kind,extra,ok,words", [
    ("not-unique", {"unique": True}, False, "unique claimed, yet 2 different solutions are recorded"),
    ("unique", {"unique": False}, False, "not unique claimed without two different recorded solutions"),
    ("unique", {}, False, "status solved with nothing recorded does not fit mode unique"),
    ("solve", {"count": 1}, False, "status solved with count recorded does not fit mode solve"),
    ("solve", {"unique": True, "count": 1}, False, "status solved with count, unique recorded does not fit mode solve"),
    ("count", {"count": 3, "count_complete": True}, False, "count 3 claimed, but 2 different solutions are recorded"),
    ("count", {"count_complete": True}, False, "count None claimed, but 2 different solutions are recorded"),
    ("count", {"count": 2, "count_complete": False}, True, "at least 2 solutions (the count stopped at its limit)"),
    ("count", {"count": 2}, True, "at least 2 solutions (the count stopped at its limit)"),
])
def test_satisfy_claims_must_fit_their_mode_and_models(run_of, kind, extra, ok, words):
    run_dir = run_of(kind)
    reseal(run_dir, lambda run: run.update(extra=extra))
    assert claims_finding(audit(run_dir)) == (ok, words)


@pytest.mark.parametrize("count", [2, 3])
def test_a_model_recorded_twice_is_counted_once(run_of, count):
    run_dir = run_of("count")
    reseal(run_dir, lambda run: (run["extra"].update(count=count), run["certificate"].update(step=3)),
           lambda recorded: [*recorded[:2], dict(recorded[0]), recorded[2]])
    assert claims_finding(audit(run_dir)) == (
        False, f"count {count} claimed, but 2 different solutions are recorded among 3 models")


# -------------------------------------------------------------------- the derived refutation's record
CLAIM6 = {"op": "at_least", "k": FIVE + 1}
WORDS6 = f"optimal: {FIVE} is the most, {FIVE + 1} cannot be reached"
ANOTHER = "run.json's certificate entry names another claim, step or query"


def test_no_recorded_refutation_fails(run_of):
    run_dir = run_of("nonary")
    reseal(run_dir, steps=lambda recorded: recorded[:1])
    assert claims_finding(audit(run_dir)) == (
        False, f"{WORDS6}, but no recorded UNSAT step refutes '{describe(CLAIM6)}'; {ANOTHER}")


def test_a_refutation_of_other_assumptions_fails(run_of):
    run_dir = run_of("nonary")
    reseal(run_dir, steps=lambda recorded: [recorded[0], {**recorded[1], "assumptions": ["(not false)"]}])
    report = audit(run_dir)
    assert claims_finding(report) == (
        False, f"{WORDS6}, but step 1 refuted other assumptions than today's encoder builds for its claim")
    assert texts(report, "drift") == [
        (False, "encoding drift: step 1: its assumptions differ from what today's encoder emits for its claim")]


@pytest.mark.parametrize("damage,problem", [
    ("missing", "the closing certificate (certificate.smt2.gz) is missing"),
    ("other query", "certificate.smt2.gz is not the query today's encoder builds for the claim"),
    ("one byte longer", "certificate.smt2.gz is not the query today's encoder builds for the claim"),
    ("far longer", "certificate.smt2.gz is not the query today's encoder builds for the claim"),
])
def test_the_certificate_file_must_be_todays_query(run_of, damage, problem):
    run_dir = run_of("nonary")
    path = run_dir / "certificate.smt2.gz"
    query = query_for(run_dir, CLAIM6)
    if damage == "missing":
        path.unlink()
    else:
        write_gz_text(path, {"other query": query_for(run_dir, {"op": "at_least", "k": FIVE}),
                             "one byte longer": query + "\n", "far longer": query * 3}[damage])
    report = audit(run_dir)
    assert claims_finding(report) == (False, f"{WORDS6}, but {problem}")
    # Only the independent search stands, which needs no certificate file.
    assert [e for e in report.evidence if not e.startswith(f"a solver-free certificate: {SEARCHED}")] == []
    assert report.unchecked_unsat is False


@pytest.mark.parametrize("change,problem", [
    (lambda cert: None, "run.json records no closing certificate"),
    (lambda cert: {**cert, "claim": {"op": "at_least", "k": FIVE}}, ANOTHER),
    (lambda cert: {**cert, "step": 0}, ANOTHER),
    (lambda cert: {**cert, "sha256": "0" * 64}, ANOTHER),
], ids=["none", "claim", "step", "sha256"])
def test_run_jsons_certificate_entry_must_name_the_refutation(run_of, change, problem):
    run_dir = run_of("nonary")

    def edit(run):
        cert = change(run.pop("certificate"))
        if cert is not None:
            run["certificate"] = cert
    reseal(run_dir, edit)
    assert claims_finding(audit(run_dir)) == (False, f"{WORDS6}, but {problem}")


# ----------------------------------------------------------------------------------------- drift
def test_another_encoding_version_is_drift(run_of):
    run_dir = run_of("nonary")
    run, _ = read_ledger(run_dir)
    name, version = run["encoding"]["name"], run["encoding"]["version"]
    reseal(run_dir, lambda run: run["encoding"].update(version=version - 1))
    assert texts(audit(run_dir), "drift") == [
        (False, f"encoding drift: encoding {name} is version {version} today, the run used {version - 1}")]


@pytest.mark.parametrize("objective,shown", [("lex", "lex"), ("a" * 30, "a" * 20)])
def test_another_objective_is_drift(run_of, objective, shown):
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: run.update(objective=objective))
    assert texts(audit(run_dir), "drift") == [
        (False, f"encoding drift: the run recorded a {shown} objective, the encoder has max")]


def test_a_run_json_without_an_objective_is_no_drift(run_of):
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: run.pop("objective"))
    assert texts(audit(run_dir), "drift")[0][0] is True


def test_only_the_first_drifted_step_is_named(run_of):
    run_dir = run_of("count")  # three steps: two models, then the refutation
    reseal(run_dir, steps=lambda recorded: [recorded[0], {**recorded[1], "assumptions": ["x"]},
                                            {**recorded[2], "assumptions": ["y"]}])
    assert texts(audit(run_dir), "drift") == [
        (False, "encoding drift: step 1: its assumptions differ from what today's encoder emits for its claim")]


def test_a_step_claim_the_encoder_cannot_build_is_one_error_naming_the_line(run_of):
    run_dir = run_of("kingtour")
    claim = {"op": "at_least", "k": 3}  # a maximum's claim: the lexicographic objective has no such term
    reseal(run_dir, steps=lambda recorded: [recorded[0], {**recorded[1], "claim": claim}, *recorded[2:]])
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert re.fullmatch(re.escape(f"claim {describe(claim)!r} cannot be built for this instance (") + r"\w+\)",
                        caught.value.message), caught.value.message
    assert caught.value.where == f"{run_dir / 'steps.jsonl'} line 2"


# ---------------------------------------------------------------------------------------- resolve
class FakeSolvers:
    """Stands in for solve_in_subprocess: answers by solver name, records every call."""

    def __init__(self, answers: dict, installed=("z3", "cvc5")):
        self.answers, self.installed, self.calls = answers, installed, []

    def solve(self, text, solver, timeout, watch=None):
        self.calls.append((text, solver, timeout))
        return self.answers[solver], 0.123456


@pytest.fixture
def solvers(monkeypatch):
    def install(answers, installed=("z3", "cvc5")):
        fake = FakeSolvers(answers, installed)
        monkeypatch.setattr(resolving, "solve_in_subprocess", fake.solve)
        monkeypatch.setattr(resolving, "solver_available", lambda s: s in fake.installed)
        return fake
    return install


def test_a_refutation_both_solvers_confirm_is_clean(run_of, solvers):
    run_dir = run_of("nonary")
    fake = solvers({"z3": "unsat", "cvc5": "unsat"})
    events = []
    report = audit(run_dir, resolve="certificate", timeout=7.5, progress=events.append)
    query = query_for(run_dir, CLAIM6)
    assert sorted(fake.calls) == sorted([(query, "z3", 7.5), (query, "cvc5", 7.5)])
    assert report.resolved == [{"query": "certificate", "solver": s, "answer": "unsat", "seconds": 0.12} for s in ("z3", "cvc5")]
    what = "1 UNSAT query built by today's encoder"
    assert texts(report, "resolve") == [(True, f"{what} re-solved unsat by z3 and cvc5 in fresh processes here")]
    assert report.evidence[-1] == f"{what}, re-solved unsat by z3 and cvc5 in fresh processes here"
    assert (report.verdict, report.exit_code, report.unchecked_unsat) == ("clean", 0, False)
    started = [e for e in events if e["state"] == "started"]
    done = [e for e in events if e["state"] == "done"]
    assert sorted(e["solver"] for e in started) == ["cvc5", "z3"] and all(isinstance(e["at"], float) for e in started)
    assert sorted((e["solver"], e["answer"], e["seconds"]) for e in done) == [
        ("cvc5", "unsat", 0.123456), ("z3", "unsat", 0.123456)]
    assert {e["query"] for e in events} == {"certificate"}


def test_resolve_all_re_solves_every_recorded_refutation_once(run_of, solvers):
    run_dir = run_of("kingtour")
    fake = solvers({"z3": "unsat"})
    report = audit(run_dir, resolve="all", solvers=("z3",), jobs=0)
    refuted = {}
    for step in steps_file(run_dir):
        if step["result"] == "unsat":
            refuted.setdefault(json.dumps(step["claim"], sort_keys=True), step)
    run, steps = read_ledger(run_dir)
    closing = json.dumps(run["certificate"]["claim"], sort_keys=True)
    cases = set(steps[run["certificate"]["step"]]["cases"])  # the closing claim rests on them, not asked whole
    solved = [s for k, s in refuted.items() if k != closing]
    assert len(fake.calls) == len(solved) > 1
    assert sorted(text for text, _, _ in fake.calls) == sorted(query_for(run_dir, s["claim"]) for s in solved)
    labels = sorted(r["query"] for r in report.resolved)
    assert labels == sorted(f"case at step {s['index']}" if s["index"] in cases else f"step {s['index']}" for s in solved)
    assert texts(report, "resolve") == [
        (True, f"{len(solved)} UNSAT queries built by today's encoder (among them {len(cases)} cases covering the claim) "
               "re-solved unsat by z3 in fresh processes here")]


def test_a_solver_that_finds_a_solution_fails_the_claim(run_of, solvers):
    run_dir = run_of("nonary")
    solvers({"z3": "sat", "cvc5": "unsat"})
    report = audit(run_dir, resolve="certificate")
    assert texts(report, "resolve") == [
        (False, "certificate: z3 answered sat, so the refutation does not hold"),
        (True, "1 UNSAT query built by today's encoder re-solved unsat by cvc5 in fresh processes here")]
    assert report.exit_code == 1


def test_an_undecided_re_solve_is_undecided_and_cut_to_80_columns(run_of, solvers):
    run_dir = run_of("nonary")
    reason = "unknown (" + "resource limit " * 10 + ")"
    solvers({"z3": reason, "cvc5": "unknown"})
    report = audit(run_dir, resolve="certificate")
    assert texts(report, "resolve") == [(None, f"certificate: z3 could not decide ({reason[:80]})"),
                                        (None, "certificate: cvc5 could not decide (unknown)")]
    assert (report.exit_code, report.verdict, report.unchecked_unsat) == (3, "undecided", True)


def test_a_missing_solver_is_named_with_its_install_command(run_of, solvers):
    run_dir = run_of("nonary")
    fake = solvers({"z3": "unsat"}, installed=("z3",))
    report = audit(run_dir, resolve="certificate")
    assert [solver for _, solver, _ in fake.calls] == ["z3"]
    assert report.missing == ["cvc5"]
    assert texts(report, "resolve") == [
        (None, f"cvc5 is not installed, so nothing was re-solved with it: {INSTALL_HINT['cvc5']}"),
        (True, "1 UNSAT query built by today's encoder re-solved unsat by z3 in fresh processes here")]
    assert INSTALL_HINT == {"cvc5": "pip install 'smtpuzzles[audit]'", "z3": "pip install z3-solver"}
    assert (report.exit_code, report.verdict) == (4, "incomplete")


def test_no_solver_installed_re_solves_nothing(run_of, solvers):
    run_dir = run_of("nonary")
    fake = solvers({}, installed=())
    report = audit(run_dir, resolve="certificate")
    assert fake.calls == [] and report.missing == ["z3", "cvc5"]
    assert [ok for ok, _ in texts(report, "resolve")] == [None, None] and report.unchecked_unsat is True


def test_nothing_to_re_solve_without_a_refutation(run_of, solvers):
    run_dir = run_of("solve")
    fake = solvers({"z3": "unsat", "cvc5": "unsat"})
    report = audit(run_dir, resolve="all")
    assert fake.calls == []
    assert texts(report, "resolve") == [(True, "nothing to re-solve: the run claims no optimum, infeasibility or uniqueness")]


def test_a_failed_claim_is_still_re_solved_from_todays_query(run_of, solvers):
    """The certificate is missing, so the claim fails; the re-solve still runs on the query built
    here, never on anything read from the folder."""
    run_dir = run_of("nonary")
    (run_dir / "certificate.smt2.gz").unlink()
    fake = solvers({"z3": "unsat"})
    audit(run_dir, resolve="certificate", solvers=("z3",))
    assert fake.calls == [(query_for(run_dir, CLAIM6), "z3", None)]


def test_a_scheduler_gets_every_re_solve_as_a_task(run_of, monkeypatch):
    from smtpuzzles import cluster

    submitted = []

    class Client:
        def submit(self, fn, *args, pure=True):
            submitted.append((fn, args, pure))
            return len(submitted) - 1

        def gather(self, futures):
            return [("unsat", 1.0) for _ in futures]

    monkeypatch.setattr(cluster, "dask_client", lambda address: Client())
    monkeypatch.setattr(resolving, "solver_available", lambda s: False)  # the workers have them
    run_dir = run_of("nonary")
    events = []
    report = audit(run_dir, resolve="certificate", scheduler="tcp://x:1", timeout=3, progress=events.append)
    query = query_for(run_dir, CLAIM6)
    assert submitted == [(resolving.solve_in_subprocess, (query, "z3", 3), False),
                         (resolving.solve_in_subprocess, (query, "cvc5", 3), False)]
    assert [(e["solver"], e["state"]) for e in events] == [("z3", "started"), ("cvc5", "started")]
    assert report.missing == [] and report.verdict == "clean"
    # The workers are other machines: the report says whose word the UNSAT answers are.
    assert report.evidence[-1].endswith("re-solved unsat by z3 and cvc5 on the Dask cluster at tcp://x:1, "
                                        "whose answers are taken on its word")


# ----------------------------------------------------------------------------------------- proofs
def test_a_checked_proof_makes_the_audit_clean(run_of):
    run_dir = run_of("nonary")
    events = []
    report = audit(run_dir, proof=True, progress=events.append)
    (found,) = texts(report, "proof")
    assert found[0] is True
    assert re.fullmatch(r"DRUP proof of the refutation \([\d,]+ variables, \d+\.\d MB\) made by \S+ in \d+\.\d s, "
                        r"checked by smtpuzzles\.proofs\.drup in \d+\.\d s", found[1]), found[1]
    assert report.evidence[-1] == found[1] and (report.verdict, report.unchecked_unsat) == ("clean", False)
    assert [(e["query"], e["solver"], e["state"]) for e in events] == [
        ("certificate", f"{proofs.DEFAULT_SOLVER} proof", "started"), ("certificate", f"{proofs.DEFAULT_SOLVER} proof", "done")]
    assert events[1]["answer"] == "checked" and events[1]["seconds"] >= 0


def test_a_rejected_proof_fails(run_of, monkeypatch):
    run_dir = run_of("nonary")
    monkeypatch.setattr(proofs, "check", lambda query, made: (False, "lemma 3 is not implied"))
    events = []
    report = audit(run_dir, proof=True, progress=events.append)
    assert texts(report, "proof") == [(False, "the proof was rejected: lemma 3 is not implied")]
    assert report.unchecked_unsat is True and events[-1]["answer"] == "rejected"


@pytest.mark.parametrize("error,message,ok,words", [
    ("Satisfiable", "the query is satisfiable", False,
     "the claim is false: the query built here from today's encoder has a solution (the query is satisfiable)"),
    ("ProofError", "glucose42 ran out of time", None, "no proof: glucose42 ran out of time"),
    # Words are never a verdict: a message that merely says "satisfiable" (a folder's name may) is none.
    ("ProofError", "no part kept in /tmp/unsatisfiable", None, "no proof: no part kept in /tmp/unsatisfiable")])
def test_no_proof_is_a_failure_only_when_the_query_is_satisfiable(run_of, monkeypatch, error, message, ok, words):
    run_dir = run_of("nonary")

    def no_proof(query, timeout=None):
        raise getattr(proofs, error)(message, "proof")
    monkeypatch.setattr(proofs, "prove", no_proof)
    events = []
    report = audit(run_dir, proof=True, progress=events.append)
    assert texts(report, "proof") == [(ok, words)]
    assert events[-1] == {"query": "certificate", "solver": f"{proofs.DEFAULT_SOLVER} proof", "state": "done",
                          "answer": "no proof", "seconds": 0.0, "why": message}


def test_nothing_to_prove_without_a_refutation(run_of):
    report = audit(run_of("solve"), proof=True)
    assert texts(report, "proof") == [(True, "nothing to prove: the run claims no optimum, infeasibility or uniqueness")]


def test_an_arithmetic_encoding_has_no_clausal_proof(run_of):
    run_dir = run_of("rogue")
    run, _ = read_ledger(run_dir)
    report = audit(run_dir, proof=True)
    assert texts(report, "proof") == [
        (None, f"encoding {run['encoding']['name']} is arithmetic: no clausal proof (use --resolve)")]
    assert report.exit_code == 3


def test_a_finding_is_a_plain_record():
    assert Finding("drift", None, "t").__dict__ == {"section": "drift", "ok": None, "text": "t"}


# ---------------------------------------------------------------------------------- stored proofs
def proof_record(run_dir: Path) -> dict:
    return read_ledger(run_dir)[0]["proof"]


def edit_proof_record(run_dir: Path, **changes) -> None:
    """run.json's proof entry changed (not part of the seal: a proof is added after the run)."""
    run = json.loads((run_dir / "run.json").read_text())
    run["proof"].update(changes)
    (run_dir / "run.json").write_text(json.dumps(run))


def test_a_stored_proof_is_checked_against_the_query_built_here(run_of, monkeypatch):
    run_dir = run_of("certified")
    record = proof_record(run_dir)
    _, _, enc = encoder(run_dir)
    query = proofs.dimacs(enc.formula, claim_terms(enc.objective, CLAIM6))
    checked = []
    real = proofs.check_lrat_text

    def spy(against, lrat, deadline=None):
        checked.append(against.data)
        return real(against, lrat, deadline=deadline)
    monkeypatch.setattr(proofs, "check_lrat_text", spy)
    events = []
    report = audit(run_dir, proof=True, progress=events.append)
    assert checked == [query.data]
    (found,) = texts(report, "proof")
    assert found[0] is True and report.proof_stored is True
    sizes = f"{record['lemmas']:,} lemmas, {record['bytes'] / 1e6:.1f} MB"
    against = f"the query built here ({record['variables']:,} variables)"
    assert re.fullmatch(re.escape(f"LRAT proof stored in the folder ({sizes}), checked against {against} by "
                                  "smtpuzzles.trusted.lrat in ") + r"\d+\.\d s", found[1]), found[1]
    assert report.evidence[-1] == found[1] and (report.verdict, report.unchecked_unsat) == ("clean", False)
    assert [(e["query"], e["solver"], e["state"]) for e in events] == [
        ("certificate", "its stored LRAT proof", "started"), ("certificate", "its stored LRAT proof", "done")]
    assert events[0]["verb"] == "checking" and events[1]["answer"] == "checked" and events[1]["seconds"] >= 0


def test_without_proof_the_stored_proof_is_only_noted(run_of):
    report = audit(run_of("certified"))
    assert report.proof_stored is True and texts(report, "proof") == [] and report.verdict == "consistent"
    assert audit(run_of("nonary")).proof_stored is False


def test_a_stored_proof_the_checker_rejects_fails(run_of, monkeypatch):
    run_dir = run_of("certified")
    monkeypatch.setattr(proofs, "check_lrat_text", lambda query, lrat, deadline=None: (False, "lemma 7 is not implied", 0))
    events = []
    report = audit(run_dir, proof=True, progress=events.append)
    assert texts(report, "proof") == [(False, "the stored proof was rejected: lemma 7 is not implied")]
    assert report.unchecked_unsat is True and events[-1]["answer"] == "rejected"
    assert [e for e in report.evidence if not e.startswith(f"a solver-free certificate: {SEARCHED}")][-1].startswith("optimal")


@pytest.mark.parametrize("claim", [{"op": "at_least", "k": FIVE}, {"op": "exceed", "prefix": [1] * 70, "pos": 70, "than": 1}],
                         ids=["weaker", "long"])
def test_a_stored_proof_of_another_claim_fails(run_of, claim):
    run_dir = run_of("certified")
    edit_proof_record(run_dir, claim=claim)
    assert texts(audit(run_dir, proof=True), "proof") == [
        (False, f"the stored proof refutes '{describe(claim)[:60]}', not the derived '{describe(CLAIM6)}'")]


def test_the_derived_claim_is_cut_to_sixty_columns_too(run_of, pristine):
    """A 6x6 tour's claim names 36 digits; the proof record is the certified Nonary run's."""
    run_dir = run_of("kingtour6")
    record = proof_record(pristine("certified"))
    run = json.loads((run_dir / "run.json").read_text())
    run["proof"] = record
    (run_dir / "run.json").write_text(json.dumps(run))
    derived = describe(run["certificate"]["claim"])
    assert len(derived) > 60
    assert texts(audit(run_dir, proof=True), "proof") == [
        (False, f"the stored proof refutes '{describe(record['claim'])}', not the derived '{derived[:60]}'")]


@pytest.mark.parametrize("damage,problem", [
    ("dimacs missing", "the stored DIMACS is missing ({dimacs})"),
    ("dimacs other", "the stored DIMACS is not the query today's encoder builds ({dimacs})"),
    ("dimacs one byte longer", "the stored DIMACS is not the query today's encoder builds ({dimacs})"),
    ("dimacs hash recorded wrong", "the stored DIMACS is not the query today's encoder builds ({dimacs})"),
    ("proof missing", "the stored proof is missing ({lrat})"),
    ("proof edited", "the stored proof does not match its recorded sha-256 ({lrat})"),
])
def test_a_damaged_stored_proof_fails_naming_its_file(run_of, damage, problem):
    import gzip

    run_dir = run_of("certified")
    dimacs, lrat = run_dir / "certificate.cnf.gz", run_dir / "proof.lrat.gz"
    if damage == "dimacs missing":
        dimacs.unlink()
    elif damage == "dimacs other":
        dimacs.write_bytes(gzip.compress(b"p cnf 1 1\n1 0\n"))
    elif damage == "dimacs one byte longer":
        dimacs.write_bytes(gzip.compress(gzip.decompress(dimacs.read_bytes()) + b"\n"))
    elif damage == "dimacs hash recorded wrong":
        edit_proof_record(run_dir, dimacs_sha256="ab" * 32)
    elif damage == "proof missing":
        lrat.unlink()
    else:
        lrat.write_bytes(gzip.compress(gzip.decompress(lrat.read_bytes()) + b"1 0 0\n"))
    report = audit(run_dir, proof=True)
    assert texts(report, "proof") == [(False, problem.format(dimacs=dimacs, lrat=lrat))]
    assert report.exit_code == 1


# ------------------------------------------------------------------------------ --proof all
@pytest.fixture
def fake_prover(monkeypatch):
    """prove/check stand-ins: each query is answered by `verdict(query)`: True (a proof that
    checks), False (one that does not), or an exception message for prove to raise."""
    def install(verdict):
        asked = []

        def prove(query, timeout=None):
            asked.append(query.data)
            answer = verdict(query)
            if isinstance(answer, str):  # a model found is a type of its own; any other failure is words
                error = proofs.Satisfiable if answer.endswith("is satisfiable") else proofs.ProofError
                raise error(answer, "proof")
            return proofs.Proof(b"good" if answer else b"bad", "fake", 0.25)

        def check(query, made):
            return (True, "") if made.text == b"good" else (False, "lemma 1 is not implied")
        monkeypatch.setattr(proofs, "prove", prove)
        monkeypatch.setattr(proofs, "check", check)
        return asked
    return install


def refuted_claims(run_dir: Path) -> list[tuple[int, dict]]:
    """(first index, claim) of every distinct claim recorded UNSAT, in file order."""
    seen, out = set(), []
    for step in steps_file(run_dir):
        key = json.dumps(step["claim"], sort_keys=True)
        if step["result"] == "unsat" and key not in seen:
            seen.add(key)
            out.append((step["index"], step["claim"]))
    return out


def step_query(run_dir: Path, claim: dict) -> bytes:
    _, _, enc = encoder(run_dir)
    return proofs.dimacs(enc.formula, claim_terms(enc.objective, claim)).data


def test_proof_all_proves_every_other_refuted_claim_once(run_of, fake_prover):
    run_dir = run_of("kingtour")
    closing = read_ledger(run_dir)[0]["certificate"]["claim"]
    others = [(i, c) for i, c in refuted_claims(run_dir) if c != closing]
    asked = fake_prover(lambda query: True)
    events = []
    report = audit(run_dir, proof="all", progress=events.append)
    assert sorted(asked) == sorted([step_query(run_dir, closing)] + [step_query(run_dir, c) for _, c in others])
    words = (f"{len(others)} recorded UNSAT step queries built by today's encoder, each refuted with a DRUP proof "
             "checked by smtpuzzles.proofs.drup")
    assert texts(report, "proof")[-1] == (True, words) and report.evidence[-1] == words
    labels = [e["query"] for e in events if e["state"] == "started"]
    assert labels == ["certificate"] + [f"step {i}" for i, _ in others]
    done = [e for e in events if e["state"] == "done"][1:]
    assert all(e["answer"] == "checked" and e["seconds"] >= 0 for e in done) and len(done) == len(others)


def test_proof_all_names_each_step_without_a_checked_proof(run_of, fake_prover):
    run_dir = run_of("kingtour")
    closing = read_ledger(run_dir)[0]["certificate"]["claim"]
    (i1, c1), (i2, c2), (i3, c3), *rest = [(i, c) for i, c in refuted_claims(run_dir) if c != closing]
    answers = {step_query(run_dir, c1): False, step_query(run_dir, c2): "the query is satisfiable",
               step_query(run_dir, c3): "glucose42 ran out of time"}
    fake_prover(lambda query: answers.get(query.data, True))
    events = []
    report = audit(run_dir, proof="all", progress=events.append)
    assert texts(report, "proof") == [
        (True, texts(report, "proof")[0][1]),
        (False, f"step {i1} ({describe(c1)[:50]}): no checked proof: lemma 1 is not implied"),
        (False, f"step {i2} ({describe(c2)[:50]}): no checked proof: the query is satisfiable"),
        (None, f"step {i3} ({describe(c3)[:50]}): no checked proof: glucose42 ran out of time"),
        (True, f"{len(rest)} recorded UNSAT step quer{'y' if len(rest) == 1 else 'ies'} built by today's encoder, "
               "each refuted with a DRUP proof checked by smtpuzzles.proofs.drup")]
    answered = {e["query"]: e["answer"] for e in events if e["state"] == "done"}
    assert (answered[f"step {i1}"], answered[f"step {i2}"], answered[f"step {i3}"]) == ("no proof",) * 3


def test_proof_all_with_one_step_proved_says_query(run_of, fake_prover):
    run_dir = run_of("kingtour")
    closing = read_ledger(run_dir)[0]["certificate"]["claim"]
    (_, first), *_ = [(i, c) for i, c in refuted_claims(run_dir) if c != closing]
    wanted = {step_query(run_dir, closing), step_query(run_dir, first)}
    fake_prover(lambda query: query.data in wanted or "no proof here")
    report = audit(run_dir, proof="all")
    assert texts(report, "proof")[-1] == (
        True, "1 recorded UNSAT step query built by today's encoder, each refuted with a DRUP proof checked by "
              "smtpuzzles.proofs.drup")


def test_proof_all_of_a_run_that_claims_nothing_proves_every_refutation(run_of, fake_prover):
    run_dir = run_of("kingtour")
    reseal(run_dir, lambda run: (run.update(status="running", ended=None), run.pop("certificate")))
    asked = fake_prover(lambda query: True)
    report = audit(run_dir, proof="all")
    claims = refuted_claims(run_dir)
    assert sorted(asked) == sorted(step_query(run_dir, c) for _, c in claims)
    assert texts(report, "proof")[0] == (True, "nothing to prove: the run claims no optimum, infeasibility or uniqueness")
    assert texts(report, "proof")[-1][1].startswith(f"{len(claims)} recorded UNSAT step queries")


def test_proof_all_proves_nothing_more_on_an_arithmetic_encoding_or_without_all(run_of, fake_prover):
    asked = fake_prover(lambda query: True)
    report = audit(run_of("rogue"), proof="all")
    assert asked == [] and [ok for ok, _ in texts(report, "proof")] == [None]
    audit(run_of("kingtour"), proof=True)
    assert len(asked) == 1  # the closing claim only


def test_proof_all_checks_each_step_claim_before_building_it(run_of, fake_prover):
    run_dir = run_of("kingtour")
    claim = {"op": "at_least", "k": 3}  # no such term for a lexicographic objective
    monkey_steps = lambda recorded: [*recorded[:-1], {**refuting(run_dir, {"op": "first"}), "claim": claim},  # noqa: E731
                                     recorded[-1]]
    reseal(run_dir, lambda run: run["certificate"].update(step=run["steps"]), monkey_steps)
    fake_prover(lambda query: True)
    with pytest.raises(LedgerError) as caught:
        audit(run_dir, proof="all")
    assert caught.value.where.endswith("steps.jsonl line " + str(len(steps_file(run_dir)) - 1))


# ------------------------------------------------------------------------- places and odd files
@pytest.fixture
def touchy_referee(monkeypatch):
    """The Nonary referee made to crash on a solution with a "crash" key, as a puzzle's referee
    may on folder data of a shape it does not expect (the built-in referees are hardened)."""
    nonary = puzzles.get("nonary")
    real = nonary.referee

    def referee(instance, solution):
        if "crash" in solution:
            raise TypeError("unexpected shape")
        return real(instance, solution)
    monkeypatch.setattr(nonary, "referee", referee)


def test_a_recorded_model_the_referee_trips_over_is_one_error_naming_its_line(run_of, touchy_referee):
    run_dir = run_of("nonary")
    nonary_steps(run_dir, extra_steps=[{**read_ledger(run_dir)[1][0], "solution": {"crash": 1}}])
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert caught.value.message == "solution has the wrong shape for a nonary solution (TypeError)"
    assert caught.value.where == f"{run_dir / 'steps.jsonl'} line 2"


def test_a_solution_json_the_referee_trips_over_is_one_error_naming_it(run_of, touchy_referee):
    run_dir = run_of("nonary")
    save_solution(run_dir, FIVE, {"crash": 1})
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert caught.value.message == "solution has the wrong shape for a nonary solution (TypeError)"
    assert caught.value.where == str(run_dir / "solution.json")


def test_a_block_claim_holding_a_solution_of_the_wrong_shape_is_one_error(run_of):
    run_dir = run_of("count")
    reseal(run_dir, steps=lambda recorded: [recorded[0], {**recorded[1], "claim": {"op": "block", "solutions": [{"x": 1}]}},
                                            recorded[2]])
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert caught.value.message.startswith("a solution has the wrong shape for a tatamibari solution (")
    assert caught.value.where == "a block claim"


@pytest.mark.parametrize("kind,name,what,proof", [
    ("nonary", "base.smt2.gz", "base formula", False),
    ("nonary", "certificate.smt2.gz", "closing certificate", False),
    ("certified", "certificate.cnf.gz", "stored DIMACS", True),
    ("certified", "proof.lrat.gz", "stored proof", True),
])
def test_a_file_that_is_not_gzip_is_one_error_naming_what_it_is(run_of, kind, name, what, proof):
    run_dir = run_of(kind)
    (run_dir / name).write_bytes(b"plain text, not gzip\n")
    with pytest.raises(LedgerError) as caught:
        audit(run_dir, proof=proof)
    assert caught.value.message.startswith(f"{what} is not valid gzip (") and caught.value.where == str(run_dir / name)


def test_an_invalid_recorded_instance_is_one_error_naming_run_json(run_of):
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: run.update(instance={"doors": "none"}))
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert caught.value.message.startswith("recorded instance is invalid") and caught.value.where == str(run_dir / "run.json")


def test_a_run_json_without_a_mode_is_read_in_the_puzzles_first_mode(run_of):
    run_dir = run_of("nonary")
    reseal(run_dir, lambda run: run.pop("mode"))
    assert audit(run_dir).verdict == "consistent"


def test_the_run_is_encoded_with_the_encoding_it_names(run_of):
    """A King's-tour run recorded under the second encoding: its base is that encoding's, so the
    audit, encoding as the run says, finds no base drift (the steps, made under the first, do)."""
    run_dir = run_of("kingtour")
    module, instance, _ = encoder(run_dir)
    assert module.ENCODINGS[0] != "posted" and "posted" in module.ENCODINGS
    posted = module.encode(instance, "posted")
    sha = write_gz_text(run_dir / "base.smt2.gz", posted.formula.document())
    reseal(run_dir, lambda run: (run.update(encoding={"name": "posted", "version": posted.version}),
                                 run["base"].update(sha256=sha)))
    drift = [text for _, text in texts(audit(run_dir), "drift")]
    assert "encoding drift: today's encoder writes a different base formula" not in drift and drift


def test_a_long_claim_that_cannot_be_built_is_cut_to_sixty_columns(run_of):
    run_dir = run_of("nonary")
    claim = {"op": "exceed", "prefix": [1] * 70, "pos": 70, "than": 1}  # a maximum has no positions
    reseal(run_dir, steps=lambda recorded: [{**recorded[0], "claim": claim}, recorded[1]])
    with pytest.raises(LedgerError) as caught:
        audit(run_dir)
    assert caught.value.message.startswith(f"claim {describe(claim)[:60]!r} cannot be built for this instance (")
    assert caught.value.where == f"{run_dir / 'steps.jsonl'} line 1"


@pytest.mark.parametrize("extra,words", [
    ({"unique": True}, "unique"), ({"count_complete": True}, "count_complete")])
def test_a_plain_solve_carries_no_uniqueness_or_count(run_of, extra, words):
    run_dir = run_of("solve")
    reseal(run_dir, lambda run: run.update(extra=extra))
    assert claims_finding(audit(run_dir)) == (False, f"status solved with {words} recorded does not fit mode solve")


def test_solver_available_asks_the_installed_packages():
    assert resolving.solver_available("z3") is True  # z3-solver is a dependency
    assert resolving.solver_available("smtpuzzles_no_such_solver") is False


def test_a_value_of_exactly_forty_columns_is_shown_whole(run_of):
    run_dir = run_of("nonary")
    said = "x" * 40
    nonary_steps(run_dir, {"value": said})
    assert texts(audit(run_dir), "models")[0] == (False, f"step 0: the model is worth {FIVE}, the step says {said}")


@pytest.mark.parametrize("pair", [("rules", "worth"), ("rules", "claim"), ("worth", "claim")])
def test_two_bad_models_of_different_kinds_are_both_failures(run_of, pair):
    """No "models pass" line once any model is bad, however the bad ones are counted."""
    run_dir = run_of("nonary")
    best = json.loads((run_dir / "solution.json").read_text())["solution"]
    claim = {"op": "at_least", "k": FIVE + 1}
    bad = {"rules": {"solution": BAD_PLAN, "value": 3}, "worth": {"solution": best, "value": 4},
           "claim": {"solution": best, "value": FIVE, "claim": claim, "assumptions": refuting(run_dir, claim)["assumptions"]}}
    run, recorded = read_ledger(run_dir)
    steps = [recorded[0]] + [{**recorded[0], **bad[kind]} for kind in pair] + [recorded[1]]
    run["certificate"]["step"] = 3
    forge_chain(run_dir, run, steps)
    models = texts(audit(run_dir), "models")
    assert [ok for ok, _ in models] == [False, False, True] and models[-1][1].startswith("solution.json")


# ------------------------------------------------------------------------ the published record
RECORD = ROOT / "results" / "kingtour-033a4d9697-20261201-094928"  # a 9x9 tour: 81 digits of value


@pytest.fixture
def record(tmp_path):
    target = tmp_path / "record"
    shutil.copytree(RECORD, target, ignore=shutil.ignore_patterns(".lock", "proof.lrat.gz", "certificate.cnf.gz"))
    run = json.loads((target / "run.json").read_text())
    run.pop("proof", None)
    (target / "run.json").write_text(json.dumps(run))
    packed = target / "steps.jsonl.gz"
    if packed.exists():  # published compressed, its certificate left out: back to a working copy
        import gzip

        text = gzip.decompress(packed.read_bytes())
        (target / "steps.jsonl").write_bytes(text)
        packed.unlink()
        closing = json.loads(text.decode().splitlines()[run["certificate"]["step"]])
        base = gzip.decompress((target / "base.smt2.gz").read_bytes()).decode()
        certificate = base + "".join(f"(assert {a})\n" for a in closing["assumptions"]) + "(check-sat)\n(exit)\n"
        (target / "certificate.smt2.gz").write_bytes(gzip.compress(certificate.encode()))
    return target


def test_a_missing_refutation_of_a_long_claim_is_cut_to_ninety_columns(record):
    run, _ = read_ledger(record)
    claim = run["certificate"]["claim"]
    assert len(describe(claim)) > 90
    reseal(record, steps=lambda recorded: recorded[:-1])
    ok, words = claims_finding(audit(record))
    assert ok is False and f"no recorded UNSAT step refutes '{describe(claim)[:90]}'; " in words


def test_a_long_claim_a_model_misses_is_cut_to_eighty_columns(record):
    run, _ = read_ledger(record)
    best = run["certificate"]["claim"]["best"]
    claim = {"op": "lex_greater", "best": best}  # no model beats the optimum
    first_sat = next(s["index"] for s in steps_file(record) if s["result"] == "sat")
    reseal(record, steps=lambda recorded: [{**s, "claim": claim} if s["index"] == first_sat else s for s in recorded])
    assert len(describe(claim)) > 80
    assert texts(audit(record), "models")[0] == (
        False, f"step {first_sat}: the model does not satisfy its claim ({describe(claim)[:80]})")


# --------------------------------------------------------------------- progress, times, sizes
def test_a_stored_proof_reports_its_size_and_time_as_measured(run_of, monkeypatch):
    """1,050,000 bytes is 1.05 MB, shown 1.1; the time is no more than the audit took."""
    import gzip
    import hashlib
    import time

    run_dir = run_of("certified")
    lrat = b"0" * 1_050_000
    (run_dir / "proof.lrat.gz").write_bytes(gzip.compress(lrat))
    edit_proof_record(run_dir, sha256=hashlib.sha256(lrat).hexdigest())
    # The proof reaches the checker as a stream of its lines (never held whole)
    monkeypatch.setattr(proofs, "check_lrat_text",
                        lambda query, lines, deadline=None: (b"\n".join(lines) == lrat, "", 12345))
    events = []
    started = time.perf_counter()
    report = audit(run_dir, proof=True, progress=events.append)
    took = time.perf_counter() - started
    (ok, words), = texts(report, "proof")
    assert ok is True and words.startswith("LRAT proof stored in the folder (12,345 lemmas, 1.1 MB), checked against")
    assert isinstance(events[0]["at"], float) and 0 <= events[1]["seconds"] <= took
    assert float(words.rsplit(" in ", 1)[1].removesuffix(" s")) <= took + 0.05


def test_a_proof_made_here_reports_its_size_time_and_limit(run_of, monkeypatch):
    import time

    run_dir = run_of("nonary")
    asked = []

    def prove(query, timeout=None):
        asked.append(timeout)
        return proofs.Proof(b"0" * 1_050_000, "fake", 5.0)
    monkeypatch.setattr(proofs, "prove", prove)
    monkeypatch.setattr(proofs, "check", lambda query, made: (isinstance(query, proofs.Dimacs), ""))
    events = []
    started = time.perf_counter()
    report = audit(run_dir, proof=True, timeout=7.5, progress=events.append)
    took = time.perf_counter() - started
    (ok, words), = texts(report, "proof")
    assert asked == [7.5] and ok is True
    assert re.fullmatch(r"DRUP proof of the refutation \([\d,]+ variables, 1\.1 MB\) made by fake in 5\.0 s, "
                        r"checked by smtpuzzles\.proofs\.drup in \d+\.\d s", words), words
    assert float(words.rsplit(" in ", 1)[1].removesuffix(" s")) <= took + 0.05
    assert events[0]["verb"] == "proving" and isinstance(events[0]["at"], float)
    assert 5.0 <= events[1]["seconds"] <= 5.0 + took


def test_proof_all_passes_its_limit_and_query_and_names_its_events(run_of, monkeypatch):
    import time

    run_dir = run_of("kingtour")
    asked, checked = [], []

    def prove(query, timeout=None):
        asked.append(timeout)
        return proofs.Proof(b"good", "fake", 0.0)

    def check(query, made):
        checked.append(query.data if isinstance(query, proofs.Dimacs) else None)
        return True, ""
    monkeypatch.setattr(proofs, "prove", prove)
    monkeypatch.setattr(proofs, "check", check)
    events = []
    started = time.perf_counter()
    audit(run_dir, proof="all", timeout=9.0, progress=events.append)
    took = time.perf_counter() - started
    claims = [c for _, c in refuted_claims(run_dir)]
    assert asked == [9.0] * len(claims) and sorted(checked) == sorted(step_query(run_dir, c) for c in claims)
    steps = [e for e in events if e["query"].startswith("step ")]
    assert steps and all(e["solver"] == f"{proofs.DEFAULT_SOLVER} proof" for e in steps)
    assert all(e["verb"] == "proving" and isinstance(e["at"], float) for e in steps if e["state"] == "started")
    assert all(0 <= e["seconds"] <= took for e in steps if e["state"] == "done")


def test_proof_all_proves_a_claim_recorded_twice_once(run_of, fake_prover):
    run_dir = run_of("kingtour")
    closing = read_ledger(run_dir)[0]["certificate"]["claim"]
    others = [(i, c) for i, c in refuted_claims(run_dir) if c != closing]
    again = next(s for s in steps_file(run_dir) if s["index"] == others[0][0])
    reseal(run_dir, lambda run: run["certificate"].update(step=run["steps"]),
           lambda recorded: [*recorded[:-1], dict(again), recorded[-1]])
    asked = fake_prover(lambda query: True)
    report = audit(run_dir, proof="all")
    assert len(asked) == 1 + len(others)
    assert texts(report, "proof")[-1][1].startswith(f"{len(others)} recorded UNSAT step queries")


def test_a_step_without_a_proof_is_named_with_its_claim_cut_to_fifty_columns(run_of, fake_prover):
    run_dir = run_of("kingtour")
    closing = read_ledger(run_dir)[0]["certificate"]["claim"]
    index, longest = max(((i, c) for i, c in refuted_claims(run_dir) if c != closing), key=lambda ic: len(describe(ic[1])))
    assert len(describe(longest)) > 50
    failing = step_query(run_dir, longest)
    fake_prover(lambda query: query.data != failing)
    report = audit(run_dir, proof="all")
    assert (False, f"step {index} ({describe(longest)[:50]}): no checked proof: lemma 1 is not implied") in texts(report, "proof")


def test_a_scheduler_is_asked_at_its_address_and_told_each_query(run_of, monkeypatch):
    from smtpuzzles import cluster

    addresses = []

    class Client:
        def submit(self, fn, *args, pure=True):
            return None

        def gather(self, futures):
            return [("unsat", 1.0) for _ in futures]

    monkeypatch.setattr(cluster, "dask_client", lambda address: addresses.append(address) or Client())
    events = []
    audit(run_of("nonary"), resolve="certificate", scheduler="tcp://10.0.0.1:8786", progress=events.append)
    assert addresses == ["tcp://10.0.0.1:8786"]
    assert [e["query"] for e in events] == ["certificate", "certificate"] and all(isinstance(e["at"], float) for e in events)


@pytest.mark.parametrize("jobs,most", [(1, 1), (0, 1), (None, 2)])
def test_re_solves_run_at_most_jobs_at_a_time(run_of, monkeypatch, jobs, most):
    """--jobs bounds the solver processes running at once (the default, 2, included): never more."""
    import threading
    import time

    lock, running, peak = threading.Lock(), [0], [0]

    def solve(text, solver, timeout, watch=None):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.01)
        with lock:
            running[0] -= 1
        return "unsat", 0.01
    monkeypatch.setattr(resolving, "solve_in_subprocess", solve)
    monkeypatch.setattr(resolving, "solver_available", lambda s: True)
    options = {} if jobs is None else {"jobs": jobs}
    report = audit(run_of("kingtour"), resolve="all", solvers=("z3",), **options)
    assert 1 <= peak[0] <= most and report.verdict == "clean"
