"""Re-check a run folder without trusting the run that wrote it.

1. integrity: files present and well formed, the steps' hash chain, run.json sealing its last step;
2. models: every recorded solution passes the puzzle's referee and has the value its step claims;
3. claims: the run's status follows from its recorded UNSAT steps;
4. drift: the base formula and every step's assumptions are what today's encoder emits;
5. --resolve: the closing certificate (or with `all`, every UNSAT step) re-solved from SMT-LIB2 by z3
   and by cvc5, each in a fresh process.
Nothing here knows a particular puzzle: it asks the puzzle registry for referee, value and encoder.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from smtpuzzles import puzzles
from smtpuzzles.errors import InputError, LedgerError
from smtpuzzles.formula import query_from_base, smt2
from smtpuzzles.ledger import header_genesis, read_base, read_json, read_steps, seal_problem, sha256_text
from smtpuzzles.run import instance_sha
from smtpuzzles.objective import claim_terms, describe
from smtpuzzles.smtlib import read_query, solve_in_subprocess


@dataclass
class Finding:
    section: str
    ok: bool
    text: str


@dataclass
class Report:
    run_dir: str
    puzzle: str = "?"
    status: str = "?"
    value: object = None
    findings: list[Finding] = field(default_factory=list)
    resolved: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    def add(self, section: str, ok: bool, text: str) -> None:
        self.findings.append(Finding(section, ok, text))

    def as_json(self) -> dict:
        return {"run_dir": self.run_dir, "puzzle": self.puzzle, "status": self.status, "value": self.value, "ok": self.ok,
                "findings": [f.__dict__ for f in self.findings], "resolved": self.resolved}


def audit(run_dir: Path, resolve: str | None = None, solvers=("z3", "cvc5"), jobs: int = 2,
          scheduler: str | None = None, timeout: float | None = None) -> Report:
    """Audit one run folder. Unreadable or tampered input raises LedgerError (exit 2)."""
    run_dir = Path(run_dir)
    if not (run_dir / "run.json").exists():
        raise LedgerError("not a run folder (no run.json)", str(run_dir))
    run = read_json(run_dir / "run.json")
    report = Report(str(run_dir), run.get("puzzle", "?"), run.get("status", "?"), run.get("value"))
    for key in ("puzzle", "instance", "instance_sha256", "encoding", "base", "status"):
        if key not in run:
            raise LedgerError(f"run.json has no {key!r}", str(run_dir / "run.json"))

    # 1. integrity ----------------------------------------------------------------------------------
    read = read_steps(run_dir, header_genesis(run))
    if read.problems:
        raise LedgerError(read.problems[0], str(run_dir))
    steps = read.steps
    finished = run["status"] not in ("running",)
    if finished:
        problem = seal_problem(run, read)
        if problem:
            raise LedgerError(problem, str(run_dir))
        report.add("integrity", True, f"hash chain of {len(steps)} steps intact and sealed by run.json")
    else:
        report.add("integrity", True, f"hash chain of {len(steps)} steps intact; the run never finished (killed), so makes no claim")
    base = read_base(run_dir, run)
    if sha256_text(base) != run["base"]["sha256"]:
        raise LedgerError("base formula does not match its recorded sha-256", str(run_dir / run["base"]["file"]))
    module = puzzles.get(run["puzzle"])
    try:
        instance = module.from_canonical(run["instance"])
    except InputError as exc:
        raise LedgerError(f"recorded instance is invalid: {exc}", str(run_dir / "run.json")) from None
    if instance_sha(module.canonical(instance)) != run["instance_sha256"]:
        raise LedgerError("instance does not match its recorded sha-256", str(run_dir / "run.json"))

    # 2. models -------------------------------------------------------------------------------------
    bad_models = 0
    for step in steps:
        if step.get("result") != "sat":
            continue
        problems = module.referee(instance, step.get("solution") or {})
        if problems:
            bad_models += 1
            report.add("models", False, f"step {step['index']}: the model breaks the rules: {problems[0]}")
            continue
        worth = module.value(instance, step["solution"])
        if worth != step.get("value"):
            bad_models += 1
            report.add("models", False, f"step {step['index']}: the model is worth {module.value_json(worth)}, the step says {step.get('value')}")
        elif not _meets(step["claim"], step["solution"], worth, module, instance):
            bad_models += 1
            report.add("models", False, f"step {step['index']}: the model does not satisfy its claim ({describe(step['claim'])})")
    n_sat = sum(1 for s in steps if s.get("result") == "sat")
    if not bad_models:
        report.add("models", True, f"{n_sat} recorded models pass the {run['puzzle']} referee and meet their claims")
    best_solution = None
    if (run_dir / "solution.json").exists():
        saved = read_json(run_dir / "solution.json")
        best_solution = saved.get("solution")
        problems = module.referee(instance, best_solution or {})
        if problems:
            report.add("models", False, f"solution.json breaks the rules: {problems[0]}")
        elif finished and run.get("value") is not None and module.value_json(module.value(instance, best_solution)) != run["value"]:
            report.add("models", False, f"solution.json is worth {module.value_json(module.value(instance, best_solution))}, run.json claims {run['value']}")
        else:
            report.add("models", True, "solution.json passes the referee and has the claimed value")

    certify = getattr(module, "certify", None)
    if certify is not None and best_solution is not None and run["status"] == "optimal":
        ok, text = certify(instance, best_solution)
        report.add("certificate", ok, f"solver-free certificate: {text}")

    # 3. claims -------------------------------------------------------------------------------------
    _check_claims(report, run, steps, module, instance, best_solution)

    # 4. drift --------------------------------------------------------------------------------------
    enc = module.encode(instance, run["encoding"]["name"])
    drift = []
    if enc.version != run["encoding"].get("version"):
        drift.append(f"encoding {enc.name} is version {enc.version} today, the run used {run['encoding'].get('version')}")
    if enc.formula.sha256 != run["base"]["sha256"]:
        drift.append("today's encoder writes a different base formula")
    for step in steps:
        texts = [smt2(t) for t in claim_terms(enc.objective, step["claim"])]
        if texts != step.get("assumptions"):
            drift.append(f"step {step['index']}: its assumptions differ from what today's encoder emits for {describe(step['claim'])!r}")
            break
    if drift:
        for text in drift:
            report.add("drift", False, f"encoding drift: {text}")
    else:
        report.add("drift", True, f"base formula and all step queries are what encoding {enc.name} v{enc.version} emits today")

    if "certificate" in run:
        cert = run["certificate"]
        cert_path = run_dir / cert["file"]
        if not cert_path.exists():
            raise LedgerError("closing certificate is missing", str(cert_path))
        query = read_query(cert_path)
        step = steps[cert["step"]] if 0 <= cert["step"] < len(steps) else None
        if sha256_text(query) != cert.get("sha256") or step is None or query != query_from_base(base, step["assumptions"]):
            raise LedgerError("closing certificate does not match the base formula and its recorded step", str(cert_path))

    # 5. resolve ------------------------------------------------------------------------------------
    if resolve:
        jobs_to_run = []
        if resolve == "all":
            for step in steps:
                if step.get("result") == "unsat":
                    jobs_to_run.append((f"step {step['index']}", query_from_base(base, step["assumptions"])))
        elif "certificate" in run:
            jobs_to_run.append(("certificate", read_query(run_dir / run["certificate"]["file"])))
        else:
            report.add("resolve", True, "no closing certificate: the run claims no optimum, infeasibility or uniqueness")
        work = [(label, text, solver) for label, text in jobs_to_run for solver in solvers]
        results = _resolve_all(work, jobs, scheduler, timeout)
        for (label, _, solver), (answer, seconds) in zip(work, results):
            report.resolved.append({"query": label, "solver": solver, "answer": answer, "seconds": round(seconds, 2)})
        failed = [r for r in report.resolved if r["answer"] != "unsat"]
        for r in failed:
            report.add("resolve", False, f"{r['query']}: {r['solver']} answered {r['answer']}, the ledger says unsat")
        if work and not failed:
            report.add("resolve", True, f"{len(jobs_to_run)} UNSAT quer{'y' if len(jobs_to_run) == 1 else 'ies'} re-solved unsat by {' and '.join(solvers)} in fresh processes")
    return report


def _resolve_all(work, jobs: int, scheduler: str | None, timeout: float | None):
    if scheduler:
        from smtpuzzles.batch import dask_client

        client = dask_client(scheduler)
        futures = [client.submit(solve_in_subprocess, text, solver, timeout, pure=False) for _, text, solver in work]
        return client.gather(futures)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # each job is its own process
        return list(pool.map(lambda w: solve_in_subprocess(w[1], w[2], timeout), work))


def _meets(claim: dict, solution: dict, worth, module, instance) -> bool:
    op = claim["op"]
    if op == "exceed":
        k = claim["pos"]
        return list(worth[:k]) == list(claim["prefix"]) and worth[k] > claim["than"]
    if op == "lex_greater":
        return list(worth) > list(claim["best"])
    if op == "at_least":
        return worth >= claim["k"]
    if op == "block":
        return all(module.same_solution(instance, solution, other) is False for other in claim["solutions"])
    return True


def _unsat(steps, claim) -> dict | None:
    for step in steps:
        if step.get("claim") == claim and step.get("result") == "unsat":
            return step
    return None


def _check_claims(report: Report, run: dict, steps: list[dict], module, instance, best_solution) -> None:
    status = run["status"]
    if status in ("unknown", "interrupted", "running"):
        report.add("claims", True, f"status {status}: no optimality claimed")
        return
    if status == "infeasible":
        ok = _unsat(steps, {"op": "first"}) is not None
        report.add("claims", ok, "infeasible: the base formula was refuted" if ok else "infeasible claimed without an UNSAT step on the base formula")
        return
    if best_solution is None:
        report.add("claims", False, f"status {status} but no solution.json")
        return
    best = module.value(instance, best_solution)
    if not any(s.get("result") == "sat" and s.get("value") == best for s in steps):
        report.add("claims", False, "the claimed solution was not found by any recorded check")
        return
    if status == "optimal" and run.get("objective") == "lex":
        missing = [i for i in range(len(best)) if _unsat(steps, {"op": "exceed", "prefix": list(best[:i]), "pos": i, "than": best[i]}) is None]
        closing = _unsat(steps, {"op": "lex_greater", "best": list(best)})
        if missing:
            report.add("claims", False, f"optimal claimed, but position {missing[0] + 1} has no UNSAT step with the final prefix")
        elif closing is None:
            report.add("claims", False, "optimal claimed, but the closing certificate (nothing lexicographically greater) is not recorded UNSAT")
        else:
            by_bound = sum(1 for s in steps if s.get("by") == "bound")
            report.add("claims", True, f"optimal: {len(best)} positions each closed by an UNSAT step ({by_bound} by the digit-count bound), and the closing certificate is UNSAT")
        return
    if status == "optimal" and run.get("objective") == "max":
        ok = _unsat(steps, {"op": "at_least", "k": best + 1}) is not None
        report.add("claims", ok, f"optimal: {best} reached and 'at least {best + 1}' refuted" if ok else f"optimal {best} claimed without an UNSAT step at {best + 1}")
        return
    if status == "solved":
        extra = run.get("extra") or {}
        if extra.get("unique") is True or extra.get("count_complete"):
            found = [s["solution"] for s in steps if s.get("result") == "sat"]
            ok = _unsat(steps, {"op": "block", "solutions": found}) is not None
            what = "unique" if extra.get("unique") else f"exactly {extra.get('count')} solutions"
            ok = ok and (extra.get("unique") is not True or len(found) == 1) and (not extra.get("count_complete") or len(found) == extra.get("count"))
            report.add("claims", ok, f"{what}: blocking every solution found is UNSAT" if ok else f"{what} claimed without a matching UNSAT blocking step")
        elif extra.get("unique") is False:
            found = [s["solution"] for s in steps if s.get("result") == "sat"]
            ok = len(found) >= 2 and module.same_solution(instance, found[0], found[1]) is False
            report.add("claims", ok, "not unique: two different solutions recorded" if ok else "not-unique claimed without two different solutions")
        else:
            report.add("claims", True, "solved: the recorded solution passes the referee")
        return
    report.add("claims", False, f"unknown status {status!r}")
