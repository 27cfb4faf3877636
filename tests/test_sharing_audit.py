"""A run whose checks were shared out (steps `by: tree`) read and audited: the reader takes an honest
tree step and refuses a malformed one in one line (exit 2); the audit checks every tree step against
the formula it builds itself, names a forged one (a cube left out, a leaf never refuted, a tree of
another claim) and fails (exit 1); `--resolve` re-solves the closing tree's cubes."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from brute_kingtour import best_overall
from conftest import asking_closing_whole
from ledger_forge import forge_chain, read_ledger
from smtpuzzles import driver
from smtpuzzles import run as runner
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.puzzles import kingtour
from smtpuzzles.sharing import tree
from smtpuzzles.sharing.runner import Sharing

BRUTE_4x4 = best_overall(4, 2, 2)


@pytest.fixture(scope="module")
def shared_run(tmp_path_factory):
    """A 4x4 run, every check shared on two local workers with a small budget (so trees split), the
    closing claim asked (and shared) whole."""
    made = []

    class SharingSteering(driver.Steering):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.sharing = Sharing.local(2, budget=2)
            made.append(self)

    with asking_closing_whole(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(runner, "Steering", SharingSteering)
        try:
            outcome, ledger = runner.solve(kingtour, kingtour.parse(4, "2x2", None), "", split_after=0,
                                           out_dir=tmp_path_factory.mktemp("shared"), encoding="onehot")
        finally:
            for steering in made:
                steering.sharing.close()
    assert outcome.status == "optimal" and outcome.value == BRUTE_4x4
    return ledger.dir


@pytest.fixture
def forged(shared_run, tmp_path):
    """A copy of the shared run, and a way to rewrite its steps with every hash and seal renewed."""
    folder = tmp_path / "copy"
    shutil.copytree(shared_run, folder)
    run, steps = read_ledger(folder)

    def rewrite(change) -> None:
        change(steps)
        forge_chain(folder, run, steps)

    return folder, steps, rewrite


def tree_steps(steps: list[dict]) -> tuple[dict, list[dict]]:
    """(the closing tree step, the other tree steps)."""
    trees = [s for s in steps if s.get("by") == "tree"]
    closing = next(s for s in trees if s["claim"] == {"op": "lex_greater", "best": BRUTE_4x4})
    return closing, [s for s in trees if s is not closing]


def test_an_honest_shared_run_audits_clean_and_resolves_clean(shared_run, cli):
    closing, others = tree_steps(read_ledger(shared_run)[1])
    assert others and any(s["tree"]["tree"].count(0) >= 2 for s in others + [closing])  # trees, split
    report = audit(shared_run)
    assert report.exit_code == 0, [f.text for f in report.findings if not f.ok]
    texts = [f.text for f in report.findings if f.section == "claims"]
    assert any(f"recorded UNSAT at step {closing['index']} (by a tree of" in t for t in texts)
    assert any(f"{len(others) + 1} steps by tree: each a complete tree" in t for t in texts)
    code, out, _ = cli("audit", shared_run, "--resolve", "--json")
    result = json.loads(out)
    assert code == 0 and result["verdict"] == "clean"
    cubes = {r["query"] for r in result["resolved"]}
    # Each leaf of the closing tree re-solved as its own query, by each solver, and nothing else.
    assert cubes == {f"step {closing['index']} cube {n}" for n in range(closing["tree"]["tree"].count(0))}
    assert all(r["answer"] == "unsat" for r in result["resolved"])


def _leave_out_last_cube(step: dict) -> None:
    """The last leaf dropped, with its result: the split above it is left one branch short (a tree
    of one cube is left with none)."""
    summary = step["tree"]
    last = len(summary["tree"]) - 1 - summary["tree"][::-1].index(0)
    del summary["tree"][last]
    summary["results"], summary["conflicts"] = summary["results"][:-1], summary["conflicts"][:-1]


@pytest.mark.parametrize("which", ["closing", "other"])
@pytest.mark.parametrize("forgery,words", [
    ("cube left out", "leaves out a case"),
    ("leaf never refuted", "is not refuted"),
    ("another claim's tree", "another claim than its step's"),
])
def test_a_forged_tree_step_fails_the_audit_naming_it(forged, cli, which, forgery, words):
    folder, steps, rewrite = forged
    closing, others = tree_steps(steps)
    target, donor = (closing, others[0]) if which == "closing" else (others[0], closing)

    def change(_):
        if forgery == "cube left out":
            _leave_out_last_cube(target)
        elif forgery == "leaf never refuted":
            target["tree"]["results"] = "o" + target["tree"]["results"][1:]
        else:
            target["tree"] = copy.deepcopy(donor["tree"])

    rewrite(change)
    report = audit(folder)
    assert report.exit_code == 1
    failed = [f.text for f in report.findings if f.ok is False]
    assert any(f"step {target['index']}" in t and words in t for t in failed), failed
    code, _, _ = cli("audit", folder)
    assert code == 1


@pytest.mark.parametrize("change,words", [
    (lambda s: s["tree"].update(tree="1,0,0"), "nodes are not a list"),
    (lambda s: s["tree"].update(extra=1), "exactly the fields"),
    (lambda s: s["tree"].update(tree=[1] * (tree.MAX_DEPTH + 1) + [0] * (tree.MAX_DEPTH + 2),
                                results="u" * (tree.MAX_DEPTH + 2), conflicts=[0] * (tree.MAX_DEPTH + 2),
                                variables=["d0_0_1"]), "deeper than"),
    (lambda s: s.update(result="sat", solution={}, value=[]), "a step by tree must be unsat"),
    (lambda s: s.update(by="solver"), "a step by tree must be unsat"),
    (lambda s: s.pop("tree"), "carry its tree"),
])
def test_a_malformed_tree_step_is_one_line_exit_2(forged, cli, change, words):
    folder, steps, rewrite = forged
    closing, _ = tree_steps(steps)
    rewrite(lambda _: change(closing))
    code, out, err = cli("audit", folder)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and words in lines[0], err
    assert f"line {closing['index'] + 1}" in lines[0] and "Traceback" not in err


def test_resolve_re_solves_each_cube_of_the_closing_tree(forged, cli):
    # The closing claim refuted by a tree made here: one variable of the formula split both ways,
    # both cubes UNSAT since the whole claim is. Each is re-solved as its own query, with --jobs.
    folder, steps, rewrite = forged
    closing, _ = tree_steps(steps)
    rewrite(lambda _: closing["tree"].update(variables=["v2_1_0", "v2_2_3"], tree=[1, 2, 0, 0, 0], results="upu",
                                             conflicts=[1, 0, 2]))
    code, out, _ = cli("audit", folder, "--resolve", "--solver", "z3", "--jobs", 3, "--json")
    result = json.loads(out)
    assert code == 0 and result["verdict"] == "clean", result["findings"]
    assert sorted(r["query"] for r in result["resolved"]) == [f"step {closing['index']} cube {n}" for n in range(3)]
    assert "the 3 cubes of the claim's tree" in " ".join(result["evidence"])
