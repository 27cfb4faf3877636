"""A lexicographic run's closing claim ("some vector beats the best") refuted case by case: it is
the disjunction of "position i is the first to exceed the best's", each refuted as position i
closed, so the run records a step `by: cases` listing those steps instead of asking a solver the
whole query (on 14x14 undecided after 50 minutes; on 9x9 0.7 s of a 4.8 s run). The audit checks the cases against the claim's
formula; forged lists fail the claim."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import copy_of_run
from ledger_forge import forge_chain, read_ledger


@pytest.fixture
def closed_6x6(solved_6x6, tmp_path) -> Path:
    """A 6x6 run, closed by its cases as every King's-tour run is: a copy of the session's
    (conftest.solved_6x6), which the tests below forge."""
    return copy_of_run(solved_6x6.run_dir, tmp_path)


@pytest.mark.parametrize("size,box", [(4, "2x2"), (6, "2x3")])
def test_every_board_closes_by_its_cases_and_never_asks_the_whole_claim(cli, size, box):
    """Since 2026-12-04 (9x9: the whole claim was 0.7 s of a 4.8 s run, repeating what was refuted)."""
    result = cli.solve_json("kingtour", "--size", size, "--box", box, code=0)
    _, steps = read_ledger(Path(result["run_dir"]))
    assert steps[-1]["claim"]["op"] == "lex_greater" and steps[-1]["by"] == "cases"
    assert [s for s in steps if s["claim"]["op"] == "lex_greater"] == [steps[-1]]


def expected_cases(best: list[int], top: int) -> list[dict]:
    """Written out here from the definition, not taken from the objective's code."""
    return [{"op": "exceed", "prefix": best[:i], "pos": i, "than": d} for i, d in enumerate(best) if d < top]


def test_the_closing_step_lists_one_refuted_step_per_case_and_audits_consistent(audited_6x6):
    """On the session's 6x6 run, and its `audit --resolve --json` (made once: conftest.audited_6x6)."""
    run, steps = read_ledger(audited_6x6.run_dir)
    closing = steps[-1]
    best = [int(d) for d in run["value"]]
    assert closing["claim"] == {"op": "lex_greater", "best": best}
    assert closing["result"] == "unsat" and closing["by"] == "cases" and run["certificate"]["step"] == closing["index"]
    cited = [steps[i] for i in closing["cases"]]
    assert [s["claim"] for s in cited] == expected_cases(best, 6)
    assert all(s["result"] == "unsat" and s["index"] < closing["index"] for s in cited)
    code, out, err = audited_6x6.audit  # `smtpuzzles audit RUN --resolve --json`
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean" and report["unsat_rechecked"], err
    assert "by its" in out and "cases, each refuted before" in out


@pytest.mark.parametrize("forgery,message", [
    (lambda cases, steps: cases[:-1], "are not the cases of its claim"),  # one case left out
    (lambda cases, steps: cases[:-2] + [cases[-1], cases[-2]], "are not the cases of its claim"),  # two swapped
    (lambda cases, steps: cases[:-1] + [next(s["index"] for s in steps if s["result"] == "sat")],
     "which is no UNSAT answer"),  # a SAT step cited
])
def test_a_forged_list_of_cases_fails_the_claim(cli, closed_6x6, forgery, message):
    run, steps = read_ledger(closed_6x6)
    steps[-1]["cases"] = forgery(list(steps[-1]["cases"]), steps)
    forge_chain(closed_6x6, run, steps)
    code, out, _ = cli("audit", closed_6x6, "--json")
    assert code == 1 and message in out


def test_a_listed_case_that_claims_its_own_cases_is_checked_too(cli, closed_6x6):
    """A forger's cited step 'refuted by cases' citing the SAT first step: the audit follows it
    (found by a hostile review, where it was taken on the ledger's word)."""
    run, steps = read_ledger(closed_6x6)
    cited = steps[steps[-1]["cases"][0]]
    cited.update(by="cases", cases=[0])
    forge_chain(closed_6x6, run, steps)
    code, out, _ = cli("audit", closed_6x6, "--json")
    assert code == 1 and "which is no UNSAT answer" in out


def test_a_case_listed_from_the_future_is_refused_by_the_reader(cli, closed_6x6):
    from conftest import one_error_line

    run, steps = read_ledger(closed_6x6)
    steps[-1]["cases"] = steps[-1]["cases"][:-1] + [len(steps) - 1]
    forge_chain(closed_6x6, run, steps)
    code, _, err = cli("audit", closed_6x6)
    assert code == 2 and "a step by cases must be unsat and list distinct earlier steps" in one_error_line(err)
