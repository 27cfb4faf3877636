"""Does a puzzle's reference formula admit the run's own solutions? A reference proof shows that the
reference formula F and a claim have no model; it vouches for the claim only if F admits what the
rules admit. A reference that is always unsatisfiable, or stricter than the rules, would back any
claim. So before a reference proof counts, each solution the run recorded (the best one, or those a
count found) must satisfy F without the claim: the puzzle's `reference_witness` hook names the
literals of F that say that solution, a SAT solver finds a model of F holding them, and the model
is checked here against every clause of F (so an answer "admits" rests on no solver's word). A run
that claims there is no solution has no witness: the puzzle's brute force, where it has one and the
instance is small, must find none either.
"""

from __future__ import annotations

import threading
import time

from smtpuzzles.contract import reference_time_limit, whole
from smtpuzzles.engines import sat_solver_class

FIRST = {"op": "first"}  # the claim "there is a solution": F with nothing more
BRUTE_FORCE_STEPS = 200_000  # an infeasible instance's brute force, where the puzzle has one
CONFLICTS = 1_000_000  # with a solution's literals assumed, F is decided by propagation; this bounds a bad hook


def solutions_of(claim: dict, solution: dict | None) -> list[dict]:
    """The run's witnesses for the claim: the solutions a block claim lists, else the saved best."""
    found = claim.get("solutions") if isinstance(claim.get("solutions"), list) else None
    return list(found) if found else ([solution] if isinstance(solution, dict) else [])


def check(module, instance, claim: dict, solution: dict | None, timeout: float | None = None) -> tuple[bool | None, str]:
    """(ok, one line): ok True when F admits every witness (or, with none, the brute force agrees
    that there is no solution), False when F rejects one, None when it could not be decided."""
    from smtpuzzles.trusted.dimacs import read_dimacs

    witnesses, whose = solutions_of(claim, solution), "the run's"
    if not witnesses:
        witnesses, words = _brute_force_witnesses(module, instance)
        if not witnesses:
            return True, words
        whose = "the brute force's"
    if module.reference_witness is None:
        return False, (f"the {module.NAME} reference encoding has no reference_witness hook, so nothing shows it admits "
                       "the run's own solution: its proof cannot vouch for the claim")
    try:
        with reference_time_limit(timeout):
            text = module.reference(instance, FIRST)
    except TimeoutError:
        return None, f"the {module.NAME} reference formula was not built within the time limit ({timeout:g} s)"
    nvars, clauses = read_dimacs(text, f"{module.NAME} reference encoding")
    # One solver for all the witnesses (a count's solutions differ only in the literals assumed), and
    # one time limit for them all.
    with sat_solver_class()(name="glucose4", bootstrap_with=clauses) as engine:
        return _admits_each(engine, module, instance, nvars, clauses, witnesses, whose,
                            None if timeout is None else time.monotonic() + timeout)


def _admits_each(engine, module, instance, nvars: int, clauses, witnesses: list, whose: str,
                 deadline: float | None) -> tuple[bool | None, str]:
    words = ""
    for number, found in enumerate(witnesses, 1):
        which = f"{whose} solution" if len(witnesses) == 1 else f"solution {number} of {whose} {len(witnesses)}"
        try:
            literals = list(module.reference_witness(instance, found))
        except Exception as exc:  # noqa: BLE001 - a puzzle's hook on a refereed solution: one line, never a traceback
            return False, f"the {module.NAME} reference_witness hook failed on {which} ({exc.__class__.__name__})"
        bad = next((x for x in literals if not whole(x) or not 0 < abs(x) <= nvars), None)
        if bad is not None:
            return False, f"the {module.NAME} reference_witness hook gave {str(bad)[:20]!r}, no literal of its formula"
        ok, words = _admits(engine, clauses, literals, deadline)
        if ok is not True:
            return ok, (f"the {module.NAME} reference formula, without the claim, rejects {which}: it is stricter "
                        "than the rules, and its proof cannot vouch for the claim" if ok is False
                        else f"could not decide whether the reference formula admits {which} ({words})")
    count = f"{whose} solution" if len(witnesses) == 1 else f"each of {whose} {len(witnesses)} solutions"
    return True, f"the reference formula, without the claim, admits {count} ({words})"


def _admits(engine, clauses, literals: list[int], deadline: float | None) -> tuple[bool | None, str]:
    """Whether F (in `engine`) has a model holding `literals`: found by Glucose before `deadline`
    (time.monotonic()), then checked clause by clause."""
    left = None if deadline is None else max(0.0, deadline - time.monotonic())
    timer = threading.Timer(left, engine.interrupt) if left is not None else None
    if timer is not None:
        timer.start()
    try:
        engine.conf_budget(CONFLICTS)
        answer = engine.solve_limited(assumptions=literals, expect_interrupt=timer is not None)
    finally:
        if timer is not None:
            timer.cancel()
    model = engine.get_model() if answer else None
    if answer is None:
        return None, "the solver gave no answer within its bound"
    if not answer:
        return False, "no model holds its literals"
    true = set(model)
    broken = next((i for i, clause in enumerate(clauses, 1) if not any(x in true for x in clause)), None)
    if broken is not None or not all(x in true for x in literals):
        return None, f"the solver's model fails clause {broken}: no answer taken from it"
    return True, f"a model holding its {len(literals):,} literals satisfies all {len(clauses):,} clauses, checked here"


def _brute_force_witnesses(module, instance) -> tuple[list[dict], str]:
    """A run that found no solution: the solutions the puzzle's brute force finds (refereed), for
    the reference to admit (and its proof then to fail), or none with words saying why."""
    if module.brute_force is None:
        return [], "the run found no solution, so there is none to hold the reference to (the puzzle has no brute force)"
    found = module.brute_force(instance, BRUTE_FORCE_STEPS)
    if found is None:
        return [], (f"the run found no solution and the instance is past the brute force's {BRUTE_FORCE_STEPS:,} "
                    "steps, so there is none to hold the reference to")
    found = [s for s in found[:5] if isinstance(s, dict) and not module.referee(instance, s)]
    return found, "the run found no solution, and neither does the puzzle's brute force"
