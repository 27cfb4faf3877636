"""Re-check a run folder without trusting anything in it.

What the audit trusts: the puzzle's referee (pure Python), today's encoder, and the solvers it runs
itself. What it does not: every byte of the folder. So it never asks the folder which step or which
file carries a claim. From the puzzle, the recorded instance (parsed and checked by the puzzle) and
the claimed status and value, it derives what must have been refuted:

  optimal, lexicographic   "some solution beats the claimed number"            (lex_greater best)
  optimal, count           "some solution reaches at least value + 1"          (at_least value+1)
  unique / complete count  "there is a solution other than those found"        (block found)
  infeasible               "there is a solution"                               (first)

asks today's encoder for that query, and requires a recorded UNSAT step with exactly that claim and
assumptions, and a certificate file equal to that query. `--resolve` re-solves the query built here
(never text read from the folder) with z3 and cvc5, each in a fresh process.

Sections: integrity (the one run-folder reader: schema, hash chain, seal, caps), models (every
recorded model passes the referee and has its value), claims (the derived refutation is recorded),
drift (the folder's formula and steps are what today's encoder emits), resolve.
"""

from __future__ import annotations

import importlib.util
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from smtpuzzles.cubes import clauses_with, coverage_problem, without_cube
from smtpuzzles.auditing import auditproof as proving
from smtpuzzles.objectives.base import distinct
from smtpuzzles.errors import LedgerError
from smtpuzzles.formula import smt2
from smtpuzzles.canonical import canonical_json, sha256_text
from smtpuzzles.durations import counted
from smtpuzzles.objectives import ClaimFails, Recorded, claim_terms, describe, kind_of, meets
from smtpuzzles.folders.readback import Rules, recorded_claim_terms, recorded_instance, same_json
from smtpuzzles.folders.runfolder import BASE, CERTIFICATE, RUN, STEPS_GZ, open_run, steps_name
from smtpuzzles.smtlib import SOLVERS, solve_in_subprocess
from smtpuzzles.symmetry import check as check_symmetry

INSTALL_HINT = {"cvc5": "pip install 'smtpuzzles[audit]'", "z3": "pip install z3-solver"}
# Exit statuses of `smtpuzzles audit` beyond 0 (clean), 1 (a claim fails) and 2 (unreadable folder).
SHOWN_MODEL_FAILURES = 5  # broken models named one by one; the rest counted in one line
EXIT_UNDECIDED = 3  # a re-solve ran out of time or the solver answered unknown
EXIT_MISSING_SOLVER = 4  # a solver the audit was asked to use is not installed
# A step by cases or by cubes rests on the steps it lists, which may rest on others. The driver
# nests two levels at most (a closing step on its cases, a case on its cubes), and the published
# records list 466 steps in all (15x15: 210 cases and four splits); a 16x16 run split two deep and
# closed by cases would list about 67,000 (256 cases of 262 cubes). A folder past either cap is forged: refused as
# malformed, so a hostile chain costs neither a deep stack nor a long walk.
MAX_RESTS_DEPTH = 64  # steps resting on steps resting on ... under one claim
MAX_RESTS_LISTED = 1_000_000  # listings followed in one audit, each step's list once
RESTING = ("cases", "cubes")  # the ways a step rests on others (smtpuzzles.driver)


@dataclass
class Finding:
    section: str
    ok: bool | None  # None: undecided (a re-solve that could not answer)
    text: str


@dataclass
class Report:
    run_dir: str
    puzzle: str = "?"
    status: str = "?"
    value: object = None
    findings: list[Finding] = field(default_factory=list)
    resolved: list[dict] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # what backs the claim, in words
    missing: list[str] = field(default_factory=list)  # solvers asked for but not installed
    # The claim rests on a recorded UNSAT answer that no solver here has re-checked (no --resolve).
    unchecked_unsat: bool = False
    proof_stored: bool = False  # the folder holds an LRAT proof (`certify`) that --proof checks
    instance: dict = field(default_factory=dict)  # which instance: puzzle, a few words, canonical sha-256
    rests_on: list[str] = field(default_factory=list)  # the formulas a checked proof refuted the claim on
    answer: str = ""  # what a unique or count run claims besides its status ("unique", "13 solutions")

    @property
    def ok(self) -> bool:
        """No check failed (a claim that is undecided or unchecked is not a failure)."""
        return all(f.ok is not False for f in self.findings)

    @property
    def exit_code(self) -> int:
        if not self.ok:
            return 1
        if self.missing:
            return EXIT_MISSING_SOLVER
        if any(f.ok is None for f in self.findings):
            return EXIT_UNDECIDED
        return 0

    @property
    def verdict(self) -> str:
        code = self.exit_code
        if code == 0 and self.unchecked_unsat:
            return "consistent"  # the ledger holds together, but its UNSAT answer was taken on trust
        return {0: "clean", 1: "FAILED", EXIT_UNDECIDED: "undecided", EXIT_MISSING_SOLVER: "incomplete"}[code]

    def add(self, section: str, ok: bool | None, text: str) -> None:
        self.findings.append(Finding(section, ok, text))

    def as_json(self) -> dict:
        return {"run_dir": self.run_dir, "puzzle": self.puzzle, "status": self.status, "value": self.value,
                "ok": self.ok, "verdict": self.verdict, "exit": self.exit_code, "evidence": self.evidence,
                "missing_solvers": self.missing, "unsat_rechecked": not self.unchecked_unsat,
                "proof_stored": self.proof_stored, "instance": self.instance, "rests_on": self.rests_on, "answer": self.answer,
                "findings": [f.__dict__ for f in self.findings],
                "resolved": self.resolved}


def audit(run_dir: Path, resolve: str | None = None, solvers=SOLVERS, jobs: int = 2, scheduler: str | None = None,
          timeout: float | None = None, progress: Callable[[dict], None] | None = None, proof: bool = False,
          parts_dir: Path | None = None, checkers=()) -> Report:
    """Audit one run folder. An unreadable, malformed or tampered folder raises LedgerError (exit 2).
    `parts_dir`: where `--proof` keeps the parts of a proof it makes in parts, and finds them again.
    `checkers`: outside LRAT checkers (smtpuzzles.proofs.external) every proof is also handed to."""
    folder = open_run(Path(run_dir))  # integrity: schema, caps, no symlinks, hash chain, seal
    run, steps = folder.run, folder.steps
    where = str(folder.path / RUN)
    report = Report(str(run_dir), run["puzzle"], run["status"], run.get("value"), proof_stored="proof" in run,
                    answer=claimed_answer(run.get("extra") or {}))
    module, instance = recorded_instance(run, where)
    mode = run.get("mode", module.MODES[0])
    if mode not in module.MODES:
        raise LedgerError(f"{module.NAME} runs have no mode {str(mode)[:40]!r}", where)
    enc = module.encode(instance, run["encoding"]["name"])
    rules = Rules(module, instance)
    report.instance = {"puzzle": module.NAME, "description": _described(module, instance),
                       "sha256": run["instance_sha256"]}  # recorded_instance checked it is the instance's
    sealed = "sealed by run.json" if folder.finished else "the run never finished (killed), so it claims nothing"
    report.add("integrity", True, f"hash chain of {counted(len(steps), 'step')} intact, {sealed}")

    # The base file is checked against its recorded hash without ever being parsed; reading stops
    # well past the size today's formula has, so a compressed bomb costs nothing.
    document = enc.formula.document()
    digest = folder.gz_digest(BASE, 2 * len(document.encode()) + (1 << 20), "base formula")
    if digest is None:
        raise LedgerError("base formula is missing", str(folder.path / BASE))
    # Past the cap the file cannot be the recorded formula when that is today's (known size).
    if digest[0] != run["base"]["sha256"] and (digest[0] != "larger" or run["base"]["sha256"] == enc.formula.sha256):
        raise LedgerError("base formula does not match its recorded sha-256", str(folder.path / BASE))

    _check_lemma(report, folder, enc)
    models, witnesses = _check_models(report, folder, rules)
    claim, query = _check_claims(report, folder, rules, enc, mode, models, witnesses)
    _check_drift(report, folder, enc, digest, document)
    if module.certificate is not None and folder.solution is not None and run["status"] == "optimal":
        try:
            certificate = module.certificate(instance, folder.solution)  # None: none for this instance
        except Exception as exc:  # noqa: BLE001 - a certificate of the wrong shape is a malformed ledger
            raise LedgerError(f"the solver-free certificate has the wrong shape ({exc.__class__.__name__})",
                              str(folder.path / "solution.json")) from None
        if certificate is not None:
            ok, text = certificate
            report.add("certificate", ok, f"solver-free certificate: {text}")
            if ok:
                report.evidence.append(f"a solver-free certificate: {text}")
    if resolve:
        _resolve(report, folder, enc, claim, query, resolve, solvers, jobs, scheduler, timeout, progress)
    if proof:
        proving.prove_both(report, folder, enc, rules, claim, timeout, progress, beside=jobs > 1, parts_dir=parts_dir,
                           checkers=checkers)
    if proof == "all" and enc.formula.cnf is not None:
        proving.prove_steps(report, folder, enc, claim, timeout, progress, checkers)
    return report


# --------------------------------------------------------------------------------------------- models
def _check_models(report: Report, folder, rules: Rules):
    """Referee every model in the folder. Returns the good models of SAT steps as (step index,
    solution, value), and the values of every model anywhere that passes the referee (any step's,
    whatever its result, and solution.json's): each is a witness a claim must not contradict."""
    bad, good, witnesses = 0, [], []
    where = folder.steps_where

    def broken(text: str) -> None:
        nonlocal bad
        bad += 1
        if bad <= SHOWN_MODEL_FAILURES:  # one broken referee or decoder would repeat itself per step
            report.add("models", False, text)

    for step in folder.steps:
        if "solution" not in step:
            continue
        problems, worth = rules.judge(step["solution"], f"{where} line {step['index'] + 1}")
        if step["result"] != "sat":
            if not problems:
                witnesses.append((f"step {step['index']}", worth))
            continue
        if problems:
            broken(f"step {step['index']}: the model breaks the rules: {problems[0]}")
        elif not same_json(worth, step["value"]):
            broken(f"step {step['index']}: the model is worth {_short(rules.shown(worth))}, the step says "
                   f"{_short(step['value'])}")
        elif not _meets(step["claim"], step["solution"], worth, rules):
            broken(f"step {step['index']}: the model does not satisfy its claim ({describe(step['claim'])[:80]})")
        else:
            good.append((step["index"], step["solution"], worth))
            witnesses.append((f"step {step['index']}", worth))
    if bad > SHOWN_MODEL_FAILURES:
        report.add("models", False, f"and {bad - SHOWN_MODEL_FAILURES} more recorded models fail (the first "
                                    f"{SHOWN_MODEL_FAILURES} are named above)")
    if not bad:
        n_sat = sum(1 for s in folder.steps if s["result"] == "sat")
        name = rules.module.NAME
        report.add("models", True, f"the 1 recorded model passes the {name} referee and meets its claim" if n_sat == 1
                   else f"{n_sat} recorded models pass the {name} referee and meet their claims")
    claimed = folder.run.get("value")
    if folder.saved is not None:
        problems, worth = rules.judge(folder.solution, str(folder.path / "solution.json"))
        if problems:
            report.add("models", False, f"solution.json breaks the rules: {problems[0]}")
        elif not same_json(rules.shown(worth), folder.saved["value"]):
            report.add("models", False,
                       f"solution.json is worth {_short(rules.shown(worth))}, it says {_short(folder.saved['value'])}")
        elif folder.finished and claimed is not None and not same_json(rules.shown(worth), claimed):
            report.add("models", False, f"solution.json is worth {_short(rules.shown(worth))}, run.json claims {_short(claimed)}")
        else:
            witnesses.append(("solution.json", worth))
            report.add("models", True, "solution.json passes the referee and has the claimed value")
    elif claimed is not None:
        report.add("models", False, f"run.json claims {_short(claimed)}, but there is no solution.json to show it")
    return good, witnesses


def _meets(claim: dict, solution: dict, worth, rules: Rules) -> bool:
    return meets(claim, solution, worth, rules.same)


# --------------------------------------------------------------------------------------------- claims
def required_refutation(folder, rules: Rules, kind: str, mode: str, models, witnesses) -> tuple[dict | None, str]:
    """What must have been refuted for the run's claimed status and value to hold, derived from the
    claim itself (never read from the folder), and the claim in words: what holds of every run
    here, the rest by the objective kind's `closing` (smtpuzzles.objectives). None: the status
    claims nothing that needs a refutation (solved, unknown, interrupted, running); a status that
    cannot hold at all raises ClaimFails."""
    run, status = folder.run, folder.run["status"]
    objective = kind_of(kind)

    def recorded(best, found: list[dict]) -> Recorded:
        return Recorded(status, mode, run.get("extra") or {}, best, folder.solution if folder.saved is not None
                        else None, witnesses, found, _distinct(rules, found), rules.shown, _short)

    if status in ("running", "unknown", "interrupted"):
        if hasattr(objective, "unfinished"):
            objective.unfinished(recorded(None, [s for _, s, _ in models]))
        return None, f"status {status}: no optimality claimed"
    if status == "infeasible":
        if any(s["result"] == "sat" for s in folder.steps):  # even a model the referee rejects
            raise ClaimFails("infeasible claimed, yet a recorded check found a solution")
        if witnesses or folder.saved is not None:
            raise ClaimFails(f"infeasible claimed, yet the folder holds a solution ({(witnesses or [('solution.json',)])[0][0]})")
        return {"op": "first"}, "infeasible: there is no solution"
    if folder.saved is None:
        raise ClaimFails(f"status {status} but no solution.json")
    best = rules.judge(folder.solution, str(folder.path / "solution.json"))[1]
    if best is None or not same_json(rules.shown(best), run.get("value")):
        raise ClaimFails(f"run.json claims {_short(run.get('value'))}, which solution.json does not reach")
    found = [solution for _, solution, _ in models]
    if len(found) != sum(1 for s in folder.steps if s["result"] == "sat"):
        raise ClaimFails("a recorded model breaks the rules, so the run's search cannot be trusted")
    if not any(rules.same(solution, folder.solution) for solution in found):
        raise ClaimFails("the claimed solution was not found by any recorded check")
    return objective.closing(recorded(best, found))


def _distinct(rules: Rules, solutions: list[dict]) -> list[dict]:
    return distinct(solutions, rules.same)


def _check_claims(report: Report, folder, rules: Rules, enc, mode: str, models, witnesses) -> tuple[dict | None, str | None]:
    """The derived refutation, checked against the folder; returns it and today's query for it
    (for --resolve), or (None, None)."""
    try:
        claim, words = required_refutation(folder, rules, enc.objective.kind, mode, models, witnesses)
    except ClaimFails as exc:
        report.add("claims", False, str(exc))
        return None, None
    if claim is None:
        report.add("claims", True, words)
        report.evidence.append(words)
        return None, None
    terms = claim_terms(enc.objective, claim)
    texts = [smt2(t) for t in terms]
    query = enc.formula.query(terms)
    key = canonical_json(claim)
    step = next((s for s in folder.steps if s["result"] == "unsat" and canonical_json(s["claim"]) == key), None)
    problems = []
    if step is None:
        problems.append(f"no recorded UNSAT step refutes '{describe(claim)[:90]}'")
    elif step["assumptions"] != texts:
        problems.append(f"step {step['index']} refuted other assumptions than today's encoder builds for its claim")
    elif step.get("by") in RESTING:
        problems += Derivations(folder, enc).problems(step["index"])
    digest = folder.gz_digest(CERTIFICATE, len(query.encode()) + 1, "closing certificate")
    # A run published compressed (steps.jsonl.gz) may leave its certificate out: it is the base
    # formula's text plus the claim's assertions, as the UNSAT step records them, and check-sat,
    # so anyone can rebuild it from the folder; the run.json entry below still names its hash.
    left_out = digest is None and steps_name(folder.path) == STEPS_GZ
    if digest is None and not left_out:
        problems.append("the closing certificate (certificate.smt2.gz) is missing")
    elif digest is not None and digest[0] != sha256_text(query):
        problems.append("certificate.smt2.gz is not the query today's encoder builds for the claim")
    cert = folder.run.get("certificate")
    if cert is None:
        problems.append("run.json records no closing certificate")
    elif canonical_json(cert["claim"]) != key or step is None or cert["step"] != step["index"] \
            or cert["sha256"] != sha256_text(query):
        problems.append("run.json's certificate entry names another claim, step or query")
    if problems:
        report.add("claims", False, f"{words}, but " + "; ".join(problems))
        return claim, query
    how = f" (by its {len(step['cases'])} cases, each refuted before)" if step.get("by") == "cases" else ""
    if left_out:
        report.add("claims", True, f"{words}: recorded UNSAT at step {step['index']}{how}; certificate.smt2.gz "
                                   "is left out of this published run (the base formula plus that step's "
                                   "assertions), and run.json names the hash of the query today's encoder builds "
                                   "for it")
    else:
        report.add("claims", True, f"{words}: recorded UNSAT at step {step['index']}{how}, and "
                                   "certificate.smt2.gz is the query today's encoder builds for it")
    report.unchecked_unsat = True  # until --resolve re-solves it
    report.evidence.append(f"{words}: recorded UNSAT step {step['index']} and "
                           + ("the certificate's hash" if left_out else "the certificate file"))
    return claim, query


# -------------------------------------------------------------------------------------------- lemma
def _check_lemma(report: Report, folder, enc) -> None:
    """A symmetry-breaking clause in today's encoding is only as good as its lemma, checked here by
    machine (smtpuzzles.symmetry) whatever the folder says; the folder's words must name it too."""
    recorded = folder.run["encoding"].get("lemma")
    if enc.lemma is None:
        if recorded is not None:
            report.add("symmetry", False, f"the run records a symmetry lemma, encoding {enc.name} has none today")
        return
    problems, text = check_symmetry(enc.formula, enc.objective, enc.lemma)
    if recorded != enc.lemma.summary:
        problems.append("the run does not record the symmetry breaking today's encoder adds")
    if problems:
        report.add("symmetry", False, f"symmetry breaking ({enc.lemma.summary}) not justified: {problems[0]}")
        return
    report.add("symmetry", True, f"{enc.lemma.summary}: {text}")
    report.evidence.append(f"a checked symmetry lemma: {enc.lemma.summary}")


class Derivations:
    """Steps that rest on earlier ones (by cubes, by cases), checked as such. Each step is checked
    once however many steps list it, children before parents (listed steps are earlier: the reader
    checks that), with an explicit stack rather than recursion: time linear in the ledger."""

    def __init__(self, folder, enc):
        self.folder, self.enc, self.steps = folder, enc, folder.steps
        self.problem: dict[int, str | None] = {}  # resting step -> why it does not hold (None: it holds)
        self.height: dict[int, int] = {}  # resting step -> how many levels of resting steps it tops
        self.fits: dict[int, bool] = {}  # step -> its assumptions are today's for its claim
        self.coverage: dict[tuple, str | None] = {}  # a split's cubes -> coverage_problem
        self.occurs = None  # clauses of each variable named in a cube, indexed once (cubes.clauses_with)
        self.listed = 0

    def _resting(self, index: int) -> bool:
        return self.steps[index].get("by") in RESTING

    def _listing(self, index: int) -> list[int]:
        step = self.steps[index]
        return step[step["by"]]  # the reader requires the list of a step by cubes or by cases

    def _fits(self, index: int) -> bool:
        if index not in self.fits:
            step = self.steps[index]
            texts = recorded_query_texts(self.enc, step["claim"], f"{self.folder.steps_where} line {index + 1}")
            self.fits[index] = step["assumptions"] == texts
        return self.fits[index]

    def problems(self, index: int) -> list[str]:
        """Why the resting step `index` does not refute its claim, or nothing. Past a cap: LedgerError."""
        self._check_from(index)
        problem = self.problem[index]
        return [problem] if problem else []

    def leaves(self, index: int) -> list[int] | None:
        """The steps answered on their own (a solver's, a bound's) that the resting step `index`
        rests on, when its derivation holds (None when it does not)."""
        if self.problems(index):
            return None
        found, seen, stack = [], {index}, [index]
        while stack:
            for child in self._listing(stack.pop()):
                if child not in seen:
                    seen.add(child)
                    (stack if self._resting(child) else found).append(child)
        return sorted(found)

    def _check_from(self, root: int) -> None:
        if root in self.problem:
            return
        where = self.folder.steps_where
        order, seen, stack = [], {root}, [root]  # the resting steps below root not checked yet
        while stack:
            index = stack.pop()
            order.append(index)
            listing = self._listing(index)
            self.listed += len(listing)
            if self.listed > MAX_RESTS_LISTED:
                raise LedgerError(f"steps by cases or cubes list more than {MAX_RESTS_LISTED:,} listed steps in all",
                                  f"{where} line {index + 1}")
            for child in listing:
                if child not in seen and child not in self.problem and self._resting(child):
                    seen.add(child)
                    stack.append(child)
        order.sort()  # children first
        for index in order:  # the depth is bounded before anything costly is built
            height = 1 + max((self.height[c] for c in self._listing(index) if self._resting(c)), default=0)
            if height > MAX_RESTS_DEPTH:
                raise LedgerError(f"step {index} rests on steps by cases or cubes more than {MAX_RESTS_DEPTH} deep",
                                  f"{where} line {index + 1}")
            self.height[index] = height
        for index in order:
            step = self.steps[index]
            self.problem[index] = self._split(step) if step["by"] == "cubes" else self._cases(step)

    def _split(self, step: dict) -> str | None:
        """A claim refuted by cubes: each listed step an UNSAT answer to the claim under one cube,
        with today's assumptions, and the cubes covering every case of today's formula."""
        claim = canonical_json(step["claim"])
        cubes = []
        for index in step["cubes"]:
            cube_step = self.steps[index]
            if cube_step["result"] != "unsat" or "cube" not in cube_step["claim"] \
                    or canonical_json(without_cube(cube_step["claim"])) != claim:
                return f"step {step['index']} lists step {index}, which is no UNSAT answer to one of its cubes"
            if not self._fits(index):
                return f"step {index} refuted other assumptions than today's encoder builds for its cube"
            if self.problem.get(index):  # a cube step resting on others is checked as such
                return self.problem[index]
            cubes.append(tuple(cube_step["claim"]["cube"]))
        key = tuple(cubes)
        if key not in self.coverage:
            cnf = self.enc.formula.cnf
            if self.occurs is None and cnf is not None:  # every cube variable of the ledger, in one pass
                self.occurs = clauses_with(cnf, {n for s in self.steps for n in s["claim"].get("cube", ())})
            self.coverage[key] = coverage_problem(cnf, cubes, self.occurs)
        problem = self.coverage[key]
        return f"step {step['index']}'s {len(cubes)} cubes: {problem}" if problem else None

    def _cases(self, step: dict) -> str | None:
        """A claim refuted case by case: its formula, as today's encoder builds it, must be exactly
        the disjunction of the listed steps' claims (each the conjunction of its assumptions), and
        each listed step an UNSAT answer with today's assumptions (one resting on others checked as
        such). Then base and claim have no model, for each disjunct has none."""
        listed = step["cases"]
        for index in listed:
            fits = self._fits(index)  # first: a claim today's encoder cannot build is a malformed ledger
            if self.steps[index]["result"] != "unsat" or not fits:
                return f"step {step['index']} lists step {index}, which is no UNSAT answer with today's assumptions"
            if self.problem.get(index):
                return self.problem[index]
        own = step["assumptions"]  # today's, once _fits says so
        cases = [self.steps[i]["assumptions"] for i in listed]
        if not self._fits(step["index"]) or len(own) != 1 or not _is_disjunction(own[0], cases):
            return f"step {step['index']}'s {len(listed)} cases are not the cases of its claim as today's encoder builds it"
        return None


def _is_disjunction(text: str, cases: list[list[str]]) -> bool:
    """Whether `text` is smt2(any_of(all_of(case) for case in cases)), each case given as the
    smt2 of its terms: matched piece by piece against `text`, so that a long list of long cases
    costs no more than `text` and the list themselves (never a string as long as all the cases)."""
    def conjunction(case: list[str]):
        if len(case) == 1:
            yield case[0]
            return
        if not case:
            yield "true"
            return
        yield "(and "
        for number, part in enumerate(case):
            if number:
                yield " "
            yield part
        yield ")"

    def pieces():
        if len(cases) == 1:
            yield from conjunction(cases[0])
            return
        if not cases:
            yield "false"
            return
        yield "(or "
        for number, case in enumerate(cases):
            if number:
                yield " "
            yield from conjunction(case)
        yield ")"

    at = 0
    for piece in pieces():
        if not text.startswith(piece, at):
            return False
        at += len(piece)
    return at == len(text)


# ---------------------------------------------------------------------------------------------- drift
def _check_drift(report: Report, folder, enc, digest, document: str) -> None:
    run = folder.run
    drift = []
    if enc.version != run["encoding"]["version"]:
        drift.append(f"encoding {enc.name} is version {enc.version} today, the run used {run['encoding']['version']}")
    if run.get("objective", enc.objective.kind) != enc.objective.kind:
        drift.append(f"the run recorded a {run['objective'][:20]} objective, the encoder has {enc.objective.kind}")
    if run["base"]["sha256"] != enc.formula.sha256 or digest[0] == "larger":
        drift.append("today's encoder writes a different base formula")
    where = folder.steps_where
    for step in folder.steps:
        texts = recorded_query_texts(enc, step["claim"], f"{where} line {step['index'] + 1}")
        if texts != step["assumptions"]:
            drift.append(f"step {step['index']}: its assumptions differ from what today's encoder emits for its claim")
            break
    for text in drift:
        report.add("drift", False, f"encoding drift: {text}")
    if not drift:
        report.add("drift", True, f"base formula and all step queries are what encoding {enc.name} v{enc.version} emits today")


def recorded_query_texts(enc, claim: dict, where: str) -> list[str]:
    """Today's assumptions for a claim read from a folder, as SMT-LIB2 terms."""
    return [smt2(t) for t in recorded_claim_terms(enc, claim, where)]


# -------------------------------------------------------------------------------------------- resolve
def solver_available(solver: str) -> bool:
    return importlib.util.find_spec(solver) is not None


def _refuting_step(folder, claim: dict) -> dict | None:
    """The first recorded UNSAT step with exactly this claim, the one _check_claims checks."""
    key = canonical_json(claim)
    return next((s for s in folder.steps if s["result"] == "unsat" and canonical_json(s["claim"]) == key), None)


def _resolve(report: Report, folder, enc, claim, query, resolve, solvers, jobs, scheduler, timeout, progress) -> None:
    """Re-solve queries built here from today's encoder: the derived refutation (`certificate`), and
    with `all` also every recorded UNSAT step's claim rebuilt the same way."""
    queries: dict[str, tuple[str, str]] = {}  # claim key -> (label, query)
    where, steps, derived = folder.steps_where, folder.steps, Derivations(folder, enc)

    def add(step: dict, label: str) -> None:
        terms = recorded_claim_terms(enc, step["claim"], f"{where} line {step['index'] + 1}")
        queries[canonical_json(step["claim"])] = (label, enc.formula.query(terms))

    closing = _refuting_step(folder, claim) if claim is not None else None
    # A claim refuted by cases or cubes whose derivation holds: the steps it rests on are
    # re-solved, each its own query built by today's encoder, rather than the whole claim (on
    # 14x14 undecided after 50 minutes). A derivation that fails proves nothing: the whole query.
    leaves = derived.leaves(closing["index"]) if closing is not None and closing.get("by") in RESTING else None
    by_cases = leaves is not None and closing["by"] == "cases"
    for index in leaves or ():
        cube = steps[index]["claim"].get("cube")
        add(steps[index], f"cube {' '.join(cube)[:30]}" if cube and not by_cases else f"case at step {index}")
    if leaves is None and claim is not None:
        queries[canonical_json(claim)] = ("certificate", query)  # built once, by _check_claims
    if resolve == "all":
        for step in steps:
            if step["result"] != "unsat" or canonical_json(step["claim"]) in queries:
                continue
            # A step resting on others whose derivation holds: those are re-solved here as steps.
            if step.get("by") not in RESTING or derived.leaves(step["index"]) is None:
                add(step, f"step {step['index']}")
    if not queries:
        report.add("resolve", True, "nothing to re-solve: the run claims no optimum, infeasibility or uniqueness")
        return
    usable = [s for s in solvers if solver_available(s)] if not scheduler else list(solvers)
    for solver in solvers:
        if solver not in usable:
            report.missing.append(solver)
            report.add("resolve", None, f"{solver} is not installed, so nothing was re-solved with it: {INSTALL_HINT[solver]}")
    work = [(label, text, solver) for label, text in queries.values() for solver in usable]
    results = _resolve_all(work, jobs, scheduler, timeout, progress)
    for (label, _, solver), (answer, seconds) in zip(work, results):
        report.resolved.append({"query": label, "solver": solver, "answer": answer, "seconds": round(seconds, 2)})
        if answer == "sat":
            report.add("resolve", False, f"{label}: {solver} answered sat, so the refutation does not hold")
        elif answer != "unsat":
            report.add("resolve", None, f"{label}: {solver} could not decide ({answer[:80]})")
    agreed = [s for s in usable if all(r["answer"] == "unsat" for r in report.resolved if r["solver"] == s)]
    if work and agreed:
        n = len(queries)
        what = f"{n} UNSAT quer{'y' if n == 1 else 'ies'} built by today's encoder"
        if by_cases:
            cases = f"{len(leaves)} cases covering the claim"
            what = f"{cases} (each a query built by today's encoder)" if n == len(leaves) else f"{what} (among them {cases})"
        # A cluster's workers are other machines: their answers are taken on the cluster's word.
        where = f"on the Dask cluster at {scheduler}, whose answers are taken on its word" if scheduler \
            else "in fresh processes here"
        report.add("resolve", True, f"{what} re-solved unsat by {' and '.join(agreed)} {where}")
        report.unchecked_unsat = False
        report.evidence.append(f"{what}, re-solved unsat by {' and '.join(agreed)} {where}")


def _resolve_all(work, jobs: int, scheduler: str | None, timeout: float | None, progress):
    tell = progress or (lambda event: None)

    def one(item):
        label, text, solver = item
        tell({"query": label, "solver": solver, "state": "started", "at": time.monotonic()})
        answer, seconds = solve_in_subprocess(text, solver, timeout)
        tell({"query": label, "solver": solver, "state": "done", "answer": answer, "seconds": seconds})
        return answer, seconds

    if scheduler:
        from smtpuzzles.cluster import dask_client

        client = dask_client(scheduler)
        for label, _, solver in work:
            tell({"query": label, "solver": solver, "state": "started", "at": time.monotonic()})
        futures = [client.submit(solve_in_subprocess, text, solver, timeout, pure=False) for _, text, solver in work]
        return client.gather(futures)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # each job is its own process
        return list(pool.map(one, work))


def _described(module, instance) -> str:
    try:
        return str(module.describe(instance))[:80]
    except Exception:  # noqa: BLE001 - a puzzle's hook on folder data: the report goes on without it
        return ""


def claimed_answer(extra: dict) -> str:
    """A unique or count run's answer in a word or two, as the verdict line shows it (from the run's
    own claim, checked by the claims section like the rest)."""
    if "unique" in extra:
        return "unique" if extra["unique"] is True else "not unique"
    count = extra.get("count")
    if isinstance(count, int) and not isinstance(count, bool):
        return f"{count} solution{'' if count == 1 else 's'}" + ("" if extra.get("count_complete") else " or more")
    return ""


def _short(value, width: int = 40) -> str:
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."
