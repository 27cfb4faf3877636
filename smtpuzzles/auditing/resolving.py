"""The audit's re-solves (`--resolve`): queries built here from today's encoder, never text read
from the folder, answered by z3 and cvc5, each in a fresh process (or on a Dask cluster). The
derived refutation is re-solved, or, where it rests on cases or cubes whose derivation holds, the
steps it rests on, and where a tree of cubes refutes it (a shared question), each of its leaves'
cubes; with `all`, every recorded UNSAT step's claim too (a tree step's by its cubes)."""

from __future__ import annotations

import importlib.util
import time
from concurrent.futures import ThreadPoolExecutor

from smtpuzzles.auditing.derivations import RESTING, Derivations
from smtpuzzles.auditing.readback import recorded_claim_terms
from smtpuzzles.auditing.report import Report
from smtpuzzles.canonical import canonical_json
from smtpuzzles.children import Stoppable
from smtpuzzles.formula import lit
from smtpuzzles.sharing.tree import leaf_cubes
from smtpuzzles.smtlib import solve_in_subprocess

INSTALL_HINT = {"cvc5": "pip install 'smtpuzzles[audit]'", "z3": "pip install z3-solver"}


def solver_available(solver: str) -> bool:
    return importlib.util.find_spec(solver) is not None


def refuting_step(folder, claim: dict) -> dict | None:
    """The first recorded UNSAT step with exactly this claim, the one the claims section checks."""
    key = canonical_json(claim)
    return next((s for s in folder.steps if s["result"] == "unsat" and canonical_json(s["claim"]) == key), None)


def resolve(report: Report, folder, enc, claim, query, resolve, solvers, jobs, scheduler, timeout, progress) -> None:
    """Re-solve queries built here from today's encoder: the derived refutation (`certificate`), and
    with `all` also every recorded UNSAT step's claim rebuilt the same way."""
    queries: dict[str, tuple[str, str]] = {}  # claim key -> (label, query)
    where, steps, derived = folder.steps_where, folder.steps, Derivations(folder, enc)

    def add(step: dict, label: str) -> None:
        terms = recorded_claim_terms(enc, step["claim"], f"{where} line {step['index'] + 1}")
        queries[canonical_json(step["claim"])] = (label, enc.formula.query(terms))

    def add_cubes(step: dict) -> None:
        """Each leaf of a tree step that passed its check: the claim's terms and the cube's literals,
        each cube's variable one of the formula built here (the check says so)."""
        terms = recorded_claim_terms(enc, step["claim"], f"{where} line {step['index'] + 1}")
        for number, cube in enumerate(leaf_cubes(step["tree"])):
            literals = [lit(name, value) for name, value in cube]
            queries[canonical_json([step["claim"], cube])] = (f"step {step['index']} cube {number}",
                                                              enc.formula.query(terms + literals))

    closing = refuting_step(folder, claim) if claim is not None else None
    # A claim refuted by cases or cubes whose derivation holds: the steps it rests on are
    # re-solved, each its own query built by today's encoder, rather than the whole claim (on
    # 14x14 undecided after 50 minutes). A derivation that fails proves nothing: the whole query.
    leaves = derived.leaves(closing["index"]) if closing is not None and closing.get("by") in RESTING else None
    by_cases = leaves is not None and closing["by"] == "cases"
    for index in leaves or ():
        cube = steps[index]["claim"].get("cube")
        if steps[index].get("by") == "tree":
            add_cubes(steps[index])
        else:
            add(steps[index], f"cube {' '.join(cube)[:30]}" if cube and not by_cases else f"case at step {index}")
    if leaves is None and claim is not None:
        queries[canonical_json(claim)] = ("certificate", query)  # built once, by the claims section
    if resolve == "all":
        for step in steps:
            if step["result"] != "unsat" or canonical_json(step["claim"]) in queries:
                continue
            # A step resting on others whose derivation holds: those are re-solved here as steps.
            if step.get("by") not in RESTING or derived.leaves(step["index"]) is None:
                add(step, f"step {step['index']}")
            elif step["by"] == "tree":
                add_cubes(step)
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
        elif leaves and steps[leaves[0]].get("by") == "tree" and leaves[0] == closing["index"]:
            cubes = f"the {steps[leaves[0]]['tree']['tree'].count(0)} cubes of the claim's tree"
            what = f"{cubes} (each a query built by today's encoder)" if resolve != "all" else f"{what} (among them {cubes})"
        # A cluster's workers are other machines: their answers are taken on the cluster's word.
        where = f"on the Dask cluster at {scheduler}, whose answers are taken on its word" if scheduler \
            else "in fresh processes here"
        report.add("resolve", True, f"{what} re-solved unsat by {' and '.join(agreed)} {where}")
        report.unchecked_unsat = False
        report.evidence.append(f"{what}, re-solved unsat by {' and '.join(agreed)} {where}")


def _resolve_all(work, jobs: int, scheduler: str | None, timeout: float | None, progress):
    tell = progress or (lambda event: None)
    stops = Stoppable()

    def one(item):
        label, text, solver = item
        if stops.stopped:  # a queued query after a Ctrl-C: never started
            return "interrupted", 0.0
        tell({"query": label, "solver": solver, "state": "started", "at": time.monotonic()})
        answer, seconds = solve_in_subprocess(text, solver, timeout, stops.adopt)
        if not stops.stopped:  # a solver killed to stop the audit answered nothing
            tell({"query": label, "solver": solver, "state": "done", "answer": answer, "seconds": seconds})
        return answer, seconds

    if scheduler:
        from smtpuzzles.cluster import dask_client  # Dask loaded only when a cluster is asked for

        client = dask_client(scheduler)
        for label, _, solver in work:
            tell({"query": label, "solver": solver, "state": "started", "at": time.monotonic()})
        futures = [client.submit(solve_in_subprocess, text, solver, timeout, pure=False) for _, text, solver in work]
        return client.gather(futures)
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))  # each job is its own process
    try:
        return list(pool.map(one, work))
    except BaseException:
        # A Ctrl-C or SIGTERM: the solvers under way are killed and the queued queries dropped, where
        # the pool's exit waited for every one of them (hours without --time-limit).
        stops.stop()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
