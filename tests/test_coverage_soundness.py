"""Soundness of the audit's check that a claim refuted in parts is refuted whole: cubes
(`cubes.coverage_problem` and the auditor's check of a split) and cases (its check of a step by cases:
`_split_problems` and `_cases_problems`, or `Derivations` since they are audited in linear time).

Each held-out mutation below is a small unsound change to one of them, applied to the source and
run as a fresh module (test_checker_soundness.mutant), and names the test that must fail on it.
Each test forges a ledger on the 4x4 King's tour for a false optimum: "nothing beats BELOW", the
number just below the brute force's best, which BEST beats. A SAT solver (glucose, on the query the
encoder builds) finds the cube or the case BEST lies in, and the forgery leaves exactly that part
unrefuted (left out, recorded SAT, refuted under other assumptions or another claim, or resting on a
SAT step): a check that accepted it would audit a false optimum as consistent. No expected verdict
comes from the code under test.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from pysat.solvers import Solver

from brute_kingtour import best_overall
from smtpuzzles import cubes as cubes_module
from smtpuzzles.auditing import derivations as auditor_module
from smtpuzzles.formula import smt2
from smtpuzzles.objectives import claim_terms
from smtpuzzles.proofs import proof
from smtpuzzles.puzzles import kingtour
from test_checker_soundness import mutant
from test_rules_reference import just_below

ENC = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
BEST = best_overall(4, 2, 2)  # brute force
BELOW = just_below(BEST, 4)
CLAIM = {"op": "lex_greater", "best": BELOW}


def has_model(claim: dict) -> bool:
    """The encoder's query for the claim (its cube too), answered by glucose."""
    _, clauses = proof.dimacs(ENC.formula, claim_terms(ENC.objective, claim)).clause_list()
    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        return solver.solve()


def expected_cases(best: list[int], top: int) -> list[dict]:
    """The cases of "some vector beats best", written out from the definition: position i is the
    first to exceed best's digit (only where that digit is below the top)."""
    return [{"op": "exceed", "prefix": best[:i], "pos": i, "than": d} for i, d in enumerate(best) if d < top]


@dataclass
class Folder:  # what the two checks read of a run folder
    steps: list
    steps_where: str = "steps.jsonl"


class Ledger:
    def __init__(self):
        self.steps: list[dict] = []

    def add(self, claim: dict, result: str = "unsat", assumptions=None, **extra) -> int:
        texts = [smt2(t) for t in claim_terms(ENC.objective, claim)] if assumptions is None else assumptions
        self.steps.append({"index": len(self.steps), "claim": claim, "result": result, "assumptions": texts, **extra})
        return len(self.steps) - 1


@pytest.fixture(scope="module")
def parts():
    """The depth-1 and depth-2 cubes and the cases, each with whether BELOW is beaten in it."""
    one = [(c, has_model({**CLAIM, "cube": c})) for c in ENC.advice.cubes(1)]
    two = [(c, has_model({**CLAIM, "cube": c})) for c in ENC.advice.cubes(2) if c[0] in [c for c, sat in one if sat][0]]
    cases = [(c, has_model(c)) for c in expected_cases(BELOW, 4)]
    assert has_model(CLAIM) and not has_model({"op": "lex_greater", "best": BEST})
    for found in (one, two, cases):
        assert 0 < sum(sat for _, sat in found) < len(found)
    return one, two, cases


PARTS: dict = {}


@pytest.fixture(autouse=True)
def _parts(parts):
    PARTS["one"], PARTS["two"], PARTS["cases"] = parts


def split(forge) -> tuple[Folder, dict]:
    """A split of CLAIM into the depth-1 cubes; `forge(ledger, cube, sat)` records each cube's step
    (returning its index, or None to leave it out)."""
    ledger = Ledger()
    listed = [forge(ledger, c, sat) for c, sat in PARTS["one"]]
    closing = ledger.add(CLAIM, by="cubes", cubes=[i for i in listed if i is not None])
    return Folder(ledger.steps), ledger.steps[closing]


def by_cases(forge) -> tuple[Folder, dict]:
    ledger = Ledger()
    listed = [forge(ledger, c, sat) for c, sat in PARTS["cases"]]
    closing = ledger.add(CLAIM, by="cases", cases=[i for i in listed if i is not None])
    return Folder(ledger.steps), ledger.steps[closing]


def derivation_problems(audit, folder: Folder, closing: dict) -> list[str]:
    """Why the audit (auditor.py or a mutant of it) refuses the closing step's derivation."""
    if hasattr(audit, "Derivations"):  # since steps resting on others are audited in linear time
        return audit.Derivations(folder, ENC).problems(closing["index"])
    if closing["by"] == "cubes":
        return audit._split_problems(folder, ENC, closing)
    return audit._cases_problems(folder, ENC, closing, claim_terms(ENC.objective, closing["claim"]))


def refused_split(audit, forge) -> None:
    folder, closing = split(forge)
    problems = derivation_problems(audit, folder, closing)
    assert problems, "accepted: a split that leaves BEST's cube unrefuted"


def refused_cases(audit, forge) -> None:
    folder, closing = by_cases(forge)
    problems = derivation_problems(audit, folder, closing)
    assert problems, "accepted: cases that leave BEST's case unrefuted"


def honest(ledger, part, sat):
    return ledger.add({**CLAIM, "cube": part} if isinstance(part, list) else part)


def test_cover_honest_parts_are_accepted():
    """Every cube or case recorded as refuted passes both checks (the forgeries below differ in one part)."""
    for forged in (split(honest), by_cases(honest)):
        assert derivation_problems(auditor_module, *forged) == []


def test_cover_a_split_with_a_cube_left_out_is_refused(audit=auditor_module):
    refused_split(audit, lambda ledger, cube, sat: None if sat else honest(ledger, cube, sat))


def test_cover_a_split_with_a_cube_left_out_one_level_down_is_refused(audit=auditor_module):
    """Depth 2 under BEST's first cell: the sub-cube BEST's tour lies in left out."""
    ledger = Ledger()
    (first, _), = [(c, sat) for c, sat in PARTS["one"] if sat][:1]
    listed = [honest(ledger, c, sat) for c, sat in PARTS["one"] if c != first]
    listed += [honest(ledger, c, sat) for c, sat in PARTS["two"] if not sat]
    closing = ledger.add(CLAIM, by="cubes", cubes=listed)
    assert derivation_problems(audit, Folder(ledger.steps), ledger.steps[closing]), "accepted: a sub-cube left out"


def test_cover_a_cube_step_answered_sat_is_refused(audit=auditor_module):
    refused_split(audit, lambda ledger, cube, sat: ledger.add({**CLAIM, "cube": cube}, "sat" if sat else "unsat"))


def test_cover_a_cube_of_another_claim_is_refused(audit=auditor_module):
    # "Nothing beats BEST" in that cube is true, and says nothing of BELOW.
    refused_split(audit, lambda ledger, cube, sat: ledger.add(
        {"op": "lex_greater", "best": BEST, "cube": cube} if sat else {**CLAIM, "cube": cube}))


def test_cover_a_cube_refuted_under_other_assumptions_is_refused(audit=auditor_module):
    def forge(ledger, cube, sat):
        claim = {**CLAIM, "cube": cube}
        return ledger.add(claim, assumptions=[smt2(t) for t in claim_terms(ENC.objective, claim)] + ["false"]
                          if sat else None)
    refused_split(audit, forge)


def test_cover_cases_with_a_case_left_out_are_refused(audit=auditor_module):
    refused_cases(audit, lambda ledger, case, sat: None if sat else honest(ledger, case, sat))


def test_cover_a_case_answered_sat_is_refused(audit=auditor_module):
    refused_cases(audit, lambda ledger, case, sat: ledger.add(case, "sat" if sat else "unsat"))


def test_cover_a_case_refuted_under_other_assumptions_is_refused(audit=auditor_module):
    refused_cases(audit, lambda ledger, case, sat: ledger.add(case, assumptions=["false"] if sat else None))


def test_cover_a_case_resting_on_a_sat_step_is_refused(audit=auditor_module):
    """BEST's case recorded as refuted by cases of its own, which list a SAT step."""
    def forge(ledger, case, sat):
        if not sat:
            return honest(ledger, case, sat)
        return ledger.add(case, by="cases", cases=[ledger.add(case, "sat")])
    refused_cases(audit, forge)


def fresh_auditor(mutation_of: str, alternatives: list[tuple]):
    """A fresh copy of auditor.py, with the mutation applied to it or to the cubes.py it calls. The
    audit of resting steps is being rewritten (Derivations, linear in the ledger): a mutation gives
    its text in each form, and exactly one of them must apply, exactly once."""
    if mutation_of == "cubes":
        (old, new), = alternatives
        audit = mutant(auditor_module, "class Derivations:", "class Derivations:")
        audit.coverage_problem = mutant(cubes_module, old, new).coverage_problem
        return audit, False
    source = Path(auditor_module.__file__).read_text()
    applying = [form for form in alternatives if form[0] in source]
    assert len(applying) == 1, f"{len(applying)} forms of the mutation apply: {alternatives}"
    return mutant(auditor_module, *applying[0][:2]), applying[0][2:] == ("equivalent",)


COVERAGE_MUTATIONS = [  # (module, name, the test that must fail, [(old, new), ...])
    ("cubes", "a clause partly branched on counts as a split", "test_cover_a_split_with_a_cube_left_out_is_refused",
     [("if all(x in children or x in false_here for x in clause):",
       "if any(x in children or x in false_here for x in clause):")]),
    ("cubes", "a node covered when any cube passes through it", "test_cover_a_split_with_a_cube_left_out_is_refused",
     [("if any(len(cube) == len(node) for cube in below):", "if any(len(cube) >= len(node) for cube in below):")]),
    ("cubes", "a gap below a child swallowed", "test_cover_a_split_with_a_cube_left_out_one_level_down_is_refused",
     [("if gap is not None:\n                                return gap",
       "if gap is not None:\n                                return None")]),
    ("auditor", "the coverage problem dropped", "test_cover_a_split_with_a_cube_left_out_is_refused",
     [("return [f\"step {step['index']}'s {len(cubes)} cubes: {problem}\"] if problem else []", "return []"),
      ("return f\"step {step['index']}'s {len(cubes)} cubes: {problem}\" if problem else None", "return None")]),
    ("auditor", "a cube step's answer not read", "test_cover_a_cube_step_answered_sat_is_refused",
     [("if cube_step[\"result\"] != \"unsat\" or ", "if ")]),
    ("auditor", "a cube step's claim not compared", "test_cover_a_cube_of_another_claim_is_refused",
     [("or canonical_json(without_cube(cube_step[\"claim\"]))",
       "or False and canonical_json(without_cube(cube_step[\"claim\"]))")]),
    ("auditor", "a cube step's assumptions not compared", "test_cover_a_cube_refuted_under_other_assumptions_is_refused",
     [("if cube_step[\"assumptions\"] != recorded_query_texts(",
       "if False and cube_step[\"assumptions\"] != recorded_query_texts("),
      ("if not self._fits(index):\n                return f\"step {index} refuted other",
       "if False:\n                return f\"step {index} refuted other")]),
    ("auditor", "the cases never compared with the claim", "test_cover_cases_with_a_case_left_out_are_refused",
     [("if len(terms) != 1 or smt2(terms[0]) != smt2(any_of(conjunctions)):", "if len(terms) != 1:"),
      ("or len(own) != 1 or not _is_disjunction(own[0], cases):", "or len(own) != 1:")]),
    ("auditor", "a case's answer not read", "test_cover_a_case_answered_sat_is_refused",
     [("if case[\"result\"] != \"unsat\" or case[\"assumptions\"]", "if case[\"assumptions\"]"),
      ("if self.steps[index][\"result\"] != \"unsat\" or not fits:", "if not fits:")]),
    ("auditor", "a case's assumptions not compared", "test_cover_a_case_refuted_under_other_assumptions_is_refused",
     [("or case[\"assumptions\"] != [smt2(t) for t in case_terms]:", ":"),
      # Equivalent in the Derivations form: its disjunction is built from the recorded assumptions
      # themselves, so a case refuted under other assumptions is still refused (checked below).
      ("if self.steps[index][\"result\"] != \"unsat\" or not fits:",
       "if self.steps[index][\"result\"] != \"unsat\":", "equivalent")]),
    ("auditor", "a listed case resting on others taken on its word", "test_cover_a_case_resting_on_a_sat_step_is_refused",
     [("        if problem:\n            return problem\n        conjunctions", "        conjunctions"),
      ("            if self.problem.get(index):\n                return self.problem[index]\n        own",
       "        own")]),
]


@pytest.mark.parametrize("mutation_of,name,test,alternatives", COVERAGE_MUTATIONS, ids=[m[1] for m in COVERAGE_MUTATIONS])
def test_each_held_out_coverage_mutation_is_caught_by_its_named_test(mutation_of, name, test, alternatives):
    named = globals()[test]
    named()
    audit, equivalent = fresh_auditor(mutation_of, alternatives)
    if equivalent:
        named(audit)  # another check of the same code still refuses the forgery
        return
    with pytest.raises(AssertionError, match="^accepted"):
        named(audit)
