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

Sections: integrity (the one run-folder reader: schema, hash chain, seal, caps), symmetry (today's
lemma checked by machine), models (every recorded model passes the referee and has its value),
claims (the derived refutation is recorded; a step resting on others is checked by
smtpuzzles.auditing.derivations), drift (the folder's formula and steps are what today's encoder
emits), certificate, and on request resolve (smtpuzzles.auditing.resolving) and the proofs
(smtpuzzles.auditing.auditproof). What was found goes into a Report (smtpuzzles.auditing.report).
"""


from __future__ import annotations

from pathlib import Path
from typing import Callable

from smtpuzzles.auditing import auditproof as proving, resolving
from smtpuzzles.auditing.derivations import RESTING, Derivations, recorded_query_texts
from smtpuzzles.auditing.readback import Referee, recorded_instance, same_json
from smtpuzzles.auditing.report import Report
from smtpuzzles.canonical import canonical_json, sha256_text
from smtpuzzles.durations import counted
from smtpuzzles.errors import InputError, LedgerError
from smtpuzzles.folders.runfolder import BASE, CERTIFICATE, RUN, STEPS_GZ, open_run, steps_name
from smtpuzzles.formula import smt2
from smtpuzzles.objectives import ClaimFails, Recorded, claim_terms, describe, kind_of, meets
from smtpuzzles.objectives.base import distinct
from smtpuzzles.shown import escaped
from smtpuzzles.smtlib import SOLVERS
from smtpuzzles.symmetry import check as check_symmetry

SHOWN_MODEL_FAILURES = 5  # broken models named one by one; the rest counted in one line


def audit(run_dir: Path, resolve: str | None = None, solvers=SOLVERS, jobs: int = 2, scheduler: str | None = None,
          timeout: float | None = None, progress: Callable[[dict], None] | None = None, proof: bool = False,
          parts_dir: Path | None = None, checkers=(), journal=None) -> Report:
    """Audit one run folder. An unreadable, malformed or tampered folder raises LedgerError (exit 2).
    `parts_dir`: where `--proof` keeps the parts of a proof it makes in parts, and finds them again.
    `checkers`: outside LRAT checkers (smtpuzzles.proofs.external) every proof is also handed to.
    `journal`: a proof in parts is made in stages and recorded there (smtpuzzles.proofs.stages)."""
    if journal is not None and journal.within(run_dir):
        raise InputError("lies inside the run folder audited: a journal of checked parts is the auditor's own "
                         "record, never a folder's", f"{journal.where} {escaped(str(journal.path))}")
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
    referee = Referee(module, instance)
    report.instance = {"puzzle": module.NAME, "description": _described(module, instance),
                       "sha256": run["instance_sha256"]}  # recorded_instance checked it is the instance's
    sealed = "sealed by run.json" if folder.finished else "the run never finished (killed), so it claims nothing"
    report.add("integrity", True, f"hash chain of {counted(len(steps), 'step')} intact, {sealed}")

    digest = _check_base(report, folder, enc)
    _check_lemma(report, folder, enc)
    models, witnesses = _check_models(report, folder, referee)
    claim, query = _check_claims(report, folder, referee, enc, mode, models, witnesses)
    _check_trees(report, folder, enc, claim)
    _check_drift(report, folder, enc, digest)
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
        resolving.resolve(report, folder, enc, claim, query, resolve, solvers, jobs, scheduler, timeout, progress)
    if proof:
        proving.prove_both(report, folder, enc, referee, claim, timeout, progress, beside=jobs > 1, parts_dir=parts_dir,
                           checkers=checkers, journal=journal)
    if proof == "all" and enc.formula.cnf is not None:
        proving.prove_steps(report, folder, enc, claim, timeout, progress, checkers)
    return report


def _check_base(report: Report, folder, enc) -> tuple[str, int] | None:
    """The base file checked against its recorded hash without ever being parsed; reading stops
    well past the size today's formula has, so a compressed bomb costs nothing. Returns its digest,
    or None where a published run left the file out."""
    recorded, path = folder.run["base"]["sha256"], str(folder.path / BASE)
    document = enc.formula.document()
    digest = folder.gz_digest(BASE, 2 * len(document.encode()) + (1 << 20), "base formula")
    if digest is None:
        if steps_name(folder.path) != STEPS_GZ:
            raise LedgerError("base formula is missing", path)
        # A run published compressed (steps.jsonl.gz) may leave its base out, as its certificate:
        # the audit never reads the file's formula, only compares its hash with run.json's, and the
        # formula it builds from the recorded instance is compared with run.json's the same way.
        same = recorded == enc.formula.sha256
        report.add("integrity", same, f"{BASE} is not stored in this published run: the base formula was rebuilt "
                   "from the recorded instance, its sha-256 " + ("matching" if same else "differing from")
                   + " run.json's base.sha256")
        return None
    # Past the cap the file cannot be the recorded formula when that is today's (known size).
    if digest[0] != recorded and (digest[0] != "larger" or recorded == enc.formula.sha256):
        raise LedgerError("base formula does not match its recorded sha-256", path)
    return digest


# --------------------------------------------------------------------------------------------- models
def _check_models(report: Report, folder, referee: Referee):
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
        problems, worth = referee.judge(step["solution"], f"{where} line {step['index'] + 1}")
        if step["result"] != "sat":
            if not problems:
                witnesses.append((f"step {step['index']}", worth))
            continue
        if problems:
            broken(f"step {step['index']}: the model breaks the rules: {problems[0]}")
        elif not same_json(worth, step["value"]):
            broken(f"step {step['index']}: the model is worth {_short(referee.shown(worth))}, the step says "
                   f"{_short(step['value'])}")
        elif not _meets(step["claim"], step["solution"], worth, referee):
            broken(f"step {step['index']}: the model does not satisfy its claim ({describe(step['claim'])[:80]})")
        else:
            good.append((step["index"], step["solution"], worth))
            witnesses.append((f"step {step['index']}", worth))
    if bad > SHOWN_MODEL_FAILURES:
        report.add("models", False, f"and {bad - SHOWN_MODEL_FAILURES} more recorded models fail (the first "
                                    f"{SHOWN_MODEL_FAILURES} are named above)")
    if not bad:
        n_sat = sum(1 for s in folder.steps if s["result"] == "sat")
        name = referee.module.NAME
        report.add("models", True, f"the 1 recorded model passes the {name} referee and meets its claim" if n_sat == 1
                   else f"{n_sat} recorded models pass the {name} referee and meet their claims")
    claimed = folder.run.get("value")
    if folder.saved is not None:
        problems, worth = referee.judge(folder.solution, str(folder.path / "solution.json"))
        if problems:
            report.add("models", False, f"solution.json breaks the rules: {problems[0]}")
        elif not same_json(referee.shown(worth), folder.saved["value"]):
            report.add("models", False,
                       f"solution.json is worth {_short(referee.shown(worth))}, it says {_short(folder.saved['value'])}")
        elif folder.finished and claimed is not None and not same_json(referee.shown(worth), claimed):
            report.add("models", False,
                       f"solution.json is worth {_short(referee.shown(worth))}, run.json claims {_short(claimed)}")
        else:
            witnesses.append(("solution.json", worth))
            report.add("models", True, "solution.json passes the referee and has the claimed value")
    elif claimed is not None:
        report.add("models", False, f"run.json claims {_short(claimed)}, but there is no solution.json to show it")
    return good, witnesses


def _meets(claim: dict, solution: dict, worth, referee: Referee) -> bool:
    return meets(claim, solution, worth, referee.same)


# --------------------------------------------------------------------------------------------- claims
def required_refutation(folder, referee: Referee, kind: str, mode: str, models, witnesses) -> tuple[dict | None, str]:
    """What must have been refuted for the run's claimed status and value to hold, derived from the
    claim itself (never read from the folder), and the claim in words: what holds of every run
    here, the rest by the objective kind's `closing` (smtpuzzles.objectives). None: the status
    claims nothing that needs a refutation (solved, unknown, interrupted, running); a status that
    cannot hold at all raises ClaimFails."""
    run, status = folder.run, folder.run["status"]
    objective = kind_of(kind)

    def recorded(best, found: list[dict]) -> Recorded:
        return Recorded(status, mode, run.get("extra") or {}, best, folder.solution if folder.saved is not None
                        else None, witnesses, found, _distinct(referee, found), referee.shown, _short)

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
    best = referee.judge(folder.solution, str(folder.path / "solution.json"))[1]
    if best is None or not same_json(referee.shown(best), run.get("value")):
        raise ClaimFails(f"run.json claims {_short(run.get('value'))}, which solution.json does not reach")
    found = [solution for _, solution, _ in models]
    if len(found) != sum(1 for s in folder.steps if s["result"] == "sat"):
        raise ClaimFails("a recorded model breaks the rules, so the run's search cannot be trusted")
    if not any(referee.same(solution, folder.solution) for solution in found):
        raise ClaimFails("the claimed solution was not found by any recorded check")
    return objective.closing(recorded(best, found))


def _distinct(referee: Referee, solutions: list[dict]) -> list[dict]:
    return distinct(solutions, referee.same)


def _check_claims(report: Report, folder, referee: Referee, enc, mode: str, models, witnesses) -> tuple[dict | None, str | None]:
    """The derived refutation, checked against the folder; returns it and today's query for it
    (for --resolve), or (None, None)."""
    try:
        claim, words = required_refutation(folder, referee, enc.objective.kind, mode, models, witnesses)
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
    how = f" (by its {len(step['cases'])} cases, each refuted before)" if step.get("by") == "cases" else \
        f" (by a tree of {step['tree']['tree'].count(0)} refuted cubes)" if step.get("by") == "tree" else ""
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


def _check_trees(report: Report, folder, enc, claim: dict | None) -> None:
    """Every step by tree (a question shared out, smtpuzzles.sharing) checked as such, each on its
    own: its tree of refuted cubes against its claim and the formula built here (the closing
    step's verdict is the claims section's)."""
    trees = [s for s in folder.steps if s.get("by") == "tree"]
    if not trees:
        return
    closing = resolving.refuting_step(folder, claim) if claim is not None else None
    derived = Derivations(folder, enc)
    failing = [s["index"] for s in trees if derived.problems(s["index"])]
    problems = [derived.problem[i] for i in failing if closing is None or i != closing["index"]]
    for problem in problems[:SHOWN_MODEL_FAILURES]:
        report.add("claims", False, problem)
    if len(problems) > SHOWN_MODEL_FAILURES:
        report.add("claims", False, f"and {len(problems) - SHOWN_MODEL_FAILURES} more steps by tree fail")
    if not failing:
        leaves = sum(s["tree"]["tree"].count(0) for s in trees)
        report.add("claims", True, f"{counted(len(trees), 'step')} by tree: each a complete tree of refuted cubes "
                                   f"({leaves:,} in all) of its claim over the formula built here")


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


# ---------------------------------------------------------------------------------------------- drift
def _check_drift(report: Report, folder, enc, digest) -> None:
    run = folder.run
    drift = []
    if enc.version != run["encoding"]["version"]:
        drift.append(f"encoding {enc.name} is version {enc.version} today, the run used {run['encoding']['version']}")
    if run.get("objective", enc.objective.kind) != enc.objective.kind:
        drift.append(f"the run recorded a {run['objective'][:20]} objective, the encoder has {enc.objective.kind}")
    if run["base"]["sha256"] != enc.formula.sha256 or (digest is not None and digest[0] == "larger"):
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
