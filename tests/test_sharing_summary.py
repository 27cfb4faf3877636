"""The summary of a question refuted cube by cube (smtpuzzles.sharing.tree) and its check: an honest
summary passes; one with a cube left out, a cube of another question, or a cube never refuted fails,
named. The check is compared with a brute force over every assignment of the split variables."""

from __future__ import annotations

import copy
import itertools
import random

import pytest

from brute_kingtour import best_overall
from smtpuzzles.objectives import claim_terms
from smtpuzzles.puzzles import kingtour
from smtpuzzles.sharing import tree
from smtpuzzles.sharing.pools import LocalPool
from smtpuzzles.sharing.runner import question_of, share
from smtpuzzles.sharing.tree import leaf_cubes, summary_of, summary_problem
from smtpuzzles.sharing.worker import Base

BEST = best_overall(4, 2, 2)
CLAIM = {"op": "lex_greater", "best": BEST}
OTHER_CLAIM = {"op": "lex_greater", "best": BEST[:6] + [3] + [1] * 9}  # also refuted: a digit raised


@pytest.fixture(scope="module")
def board():
    enc = kingtour.encode(kingtour.parse(4, "2x2", None), "onehot")
    cnf = enc.formula.cnf
    summaries = {}
    with LocalPool(1, Base(enc.formula.sha256, lambda: (cnf.clauses, cnf.names))) as pool:
        for claim in (CLAIM, OTHER_CLAIM):
            shared = share(pool, question_of(cnf, claim_terms(enc.objective, claim)), budget=5)
            assert shared.status == "unsat"
            summaries[claim["best"][6]] = shared.summary(claim, enc.formula.sha256, cnf.names)
    return enc, summaries[BEST[6]], summaries[OTHER_CLAIM["best"][6]]


def problem(enc, summary, claim=CLAIM):
    return summary_problem(summary, claim, enc.formula.sha256, enc.formula.cnf.index)


def test_an_honest_summary_passes_and_its_leaves_partition_every_assignment(board):
    enc, summary, _ = board
    assert problem(enc, summary) is None
    assert len(summary["tree"]) >= 5  # split at least twice: the budget was small
    assert partitions(summary["variables"], list(leaf_cubes(summary)))


def test_a_summary_with_a_cube_left_out_fails(board):
    enc, summary, _ = board
    for leaf in range(summary["tree"].count(0)):
        forged = without_leaf(summary, leaf)
        assert "leaves out a case" in problem(enc, forged), leaf


def test_a_cube_of_another_question_fails(board):
    enc, summary, other = board
    assert problem(enc, other, OTHER_CLAIM) is None
    assert problem(enc, other) == "the cube tree is of another claim than its step's"
    grafted = copy.deepcopy(summary)  # a split of a variable the run's formula does not have
    grafted["variables"][0] = "v9_9_9"
    assert problem(enc, grafted) == "the cube tree splits 'v9_9_9', which the base formula lacks"
    # Another question's tree relabelled as this claim's is a complete tree over the formula's
    # variables: only re-solving its leaves (the audit's --resolve) can tell, as for any UNSAT step.
    assert problem(enc, {**other, "claim": CLAIM}) is None
    assert summary_problem(summary, CLAIM, "0" * 64, enc.formula.cnf.index) == \
        "the cube tree is of another base formula than the run's"


def test_a_cube_never_refuted_fails(board):
    enc, summary, _ = board
    forged = {**summary, "results": "o" + summary["results"][1:]}
    found = problem(enc, forged)
    assert found.startswith("leaf 0 of the cube tree (") and found.endswith(") is not refuted")
    first = next(leaf_cubes(summary))
    assert (first[0][0] if first[0][1] else f"not {first[0][0]}") in found
    shorter = {**summary, "results": summary["results"][:-1]}
    assert "leaves but" in problem(enc, shorter)


@pytest.mark.parametrize("change,fragment", [
    (lambda s: s.update(tree=s["tree"] + [0], results=s["results"] + "u", conflicts=s["conflicts"] + [0]),
     "goes on after its root"),
    (lambda s: s.update(tree=[1, 1, 0, 0, 0], results="uuu", conflicts=[0, 0, 0]), "twice on one path"),
    (lambda s: s.update(tree=[len(s["variables"]) + 1, 0, 0]), "not numbers of its variables"),
    (lambda s: s.update(tree=[1.0, 0, 0]), "not numbers of its variables"),
    (lambda s: s.update(variables=s["variables"] + s["variables"][:1]), "distinct names"),
    (lambda s: s.update(format="cubes"), "not cube-tree version 1"),
    (lambda s: s.update(tree=[], results="", conflicts=[]), "leaves out a case"),
])
def test_malformed_summaries_fail_in_one_line(board, change, fragment):
    enc, summary, _ = board
    forged = copy.deepcopy(summary)
    change(forged)
    found = problem(enc, forged)
    assert fragment in found and "\n" not in found
    assert problem(enc, "not a table") == "the cube tree is not a table"


def test_the_check_agrees_with_a_brute_force_on_random_trees():
    names = [f"x{i}" for i in range(5)]
    chance = random.Random(46)
    agreed = {True: 0, False: 0}
    for _ in range(400):
        tokens = random_tree(chance, 4)
        for _ in range(chance.randrange(3)):  # mutations: a token dropped, added or changed
            where = chance.randrange(len(tokens) + 1)
            how = chance.choice(("drop", "add", "set"))
            if how == "drop" and tokens:
                del tokens[min(where, len(tokens) - 1)]
            elif how == "add":
                tokens.insert(where, chance.randrange(6))
            elif tokens:
                tokens[min(where, len(tokens) - 1)] = chance.randrange(6)
        leaves = tokens.count(0)
        summary = {"format": "cube-tree", "version": 1, "claim": CLAIM, "base_sha256": "b", "variables": names,
                   "tree": tokens, "results": "u" * leaves, "conflicts": [0] * leaves}
        passes = summary_problem(summary, CLAIM, "b", set(names)) is None
        cubes = parsed(tokens, names)
        assert passes == (cubes is not None and partitions(names, cubes)), tokens
        agreed[passes] += 1
    assert min(agreed.values()) > 50  # both kinds were met


def test_summary_of_writes_the_tree_in_preorder_true_branch_first():
    splits = {(): 3, (3,): 5, (-3,): 4, (-3, 4): 5}
    leaves = {(3, 5): ("u", 1), (3, -5): ("p", 0), (-3, -4): ("u", 2), (-3, 4, 5): ("u", 3), (-3, 4, -5): ("u", 4)}
    names = ["", "a", "b", "c", "d", "e"]
    summary = summary_of(CLAIM, "b", splits, leaves, names)
    assert summary["variables"] == ["c", "e", "d"]
    assert summary["tree"] == [1, 2, 0, 0, 3, 2, 0, 0, 0]
    assert summary["results"] == "upuuu" and summary["conflicts"] == [1, 0, 3, 4, 2]
    assert list(leaf_cubes(summary)) == [[("c", True), ("e", True)], [("c", True), ("e", False)],
                                         [("c", False), ("d", True), ("e", True)],
                                         [("c", False), ("d", True), ("e", False)], [("c", False), ("d", False)]]
    assert summary_problem(summary, CLAIM, "b", set(names)) is None


def test_the_check_imports_no_solver():
    import subprocess
    import sys

    code = ("import sys; import smtpuzzles.sharing.tree; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pysat', 'z3', 'cvc5', 'dask')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert tree.MAX_LEAVES >= 100_000


# ------------------------------------------------------------------------------------------ helpers
def without_leaf(summary: dict, leaf: int) -> dict:
    forged = copy.deepcopy(summary)
    zeros = [i for i, t in enumerate(forged["tree"]) if t == 0]
    del forged["tree"][zeros[leaf]]
    forged["results"] = forged["results"][:leaf] + forged["results"][leaf + 1:]
    del forged["conflicts"][leaf]
    return forged


def random_tree(chance: random.Random, depth: int, path=()) -> list[int]:
    free = [v for v in range(1, 6) if v not in path]
    if depth == 0 or not free or chance.random() < 0.3:
        return [0]
    var = chance.choice(free)
    return [var] + random_tree(chance, depth - 1, path + (var,)) + random_tree(chance, depth - 1, path + (var,))


def parsed(tokens: list[int], names: list[str]):
    """The leaves' cubes by recursive descent (another reading of the preorder than the check's), or
    None when the tokens are not exactly one tree."""
    at = 0

    def node(path):
        nonlocal at
        if at >= len(tokens) or not 0 <= tokens[at] <= len(names):
            raise ValueError
        token = tokens[at]
        at += 1
        if token == 0:
            return [list(path)]
        return node(path + [(names[token - 1], True)]) + node(path + [(names[token - 1], False)])

    try:
        cubes = node([])
    except ValueError:
        return None
    return cubes if at == len(tokens) else None


def partitions(names: list[str], cubes) -> bool:
    """Whether every assignment of `names` satisfies exactly one cube, and no cube contradicts itself."""
    if any(len({n for n, _ in c}) != len(c) for c in cubes):
        return False
    for values in itertools.product((False, True), repeat=len(names)):
        given = dict(zip(names, values))
        if sum(all(given[n] == v for n, v in cube) for cube in cubes) != 1:
            return False
    return True
