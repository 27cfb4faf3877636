"""The record of a question refuted cube by cube: the tree of its refuted cubes as one compact,
JSON-able summary, and the pure-Python check that the summary proves what it says.

A question (the base formula with a claim's assumptions) was split by a decision tree: each inner
node splits one variable of the base formula both ways (true first, then false), each leaf is a
cube (the literals on its path) that a worker refuted. The summary is that tree in preorder:

    {"format": "cube-tree", "version": 1, "claim": {...}, "base_sha256": "...",
     "variables": ["v3_4_5", ...],            # the split variables, numbered from 1
     "tree": [1, 2, 0, 0, 0],                 # preorder: k > 0 splits variables[k-1], 0 is a leaf
     "results": "upu",                        # each leaf's refutation, in preorder: u a solver's
                                              # UNSAT answer, p unit propagation at the split
     "conflicts": [812, 0, 77]}               # each leaf's conflicts (reported, not checked)

`summary_problem` is what an audit calls for such a step: the tree is complete (every inner node has
both children, so the leaves cover every assignment, whatever the formula), every leaf is refuted,
every split names a variable of the base formula, and the summary is of this claim of this run's
base formula. Whether each leaf is truly UNSAT rests on the solver's word, as every UNSAT step
does; `leaf_cubes` gives the leaves an audit re-solves (`--resolve`).

This module imports no solver and nothing of the project but the canonical JSON text.
"""

from __future__ import annotations

from typing import Container, Iterator

from smtpuzzles.canonical import canonical_json

FORMAT, VERSION = "cube-tree", 1
RESULTS = {"u": "refuted by a solver", "p": "refuted by unit propagation"}
# A summary past these is malformed (a forged one must not make the audit run for hours).
MAX_LEAVES = 1_000_000
MAX_DEPTH = 4096
MAX_NODES = 2 * MAX_LEAVES - 1  # a complete binary tree's nodes, leaves and splits
FIELDS = ("format", "version", "claim", "base_sha256", "variables", "tree", "results", "conflicts")


def summary_of(claim: dict, base_sha256: str, splits: dict[tuple[int, ...], int],
               leaves: dict[tuple[int, ...], tuple[str, int]], names: list[str]) -> dict:
    """The summary of a finished split: `splits` maps each inner node (its path, signed variable
    numbers of the formula) to the variable it splits, `leaves` each leaf to (result, conflicts);
    `names` the formula's variable names by number."""
    numbers: dict[int, int] = {}  # formula variable -> its number in the summary
    tree: list[int] = []
    results: list[str] = []
    conflicts: list[int] = []
    stack: list[tuple[int, ...]] = [()]
    while stack:
        path = stack.pop()
        if path in splits:
            var = splits[path]
            tree.append(numbers.setdefault(var, len(numbers) + 1))
            stack.append(path + (-var,))
            stack.append(path + (var,))  # popped first: the true branch comes first in preorder
        else:
            result, spent = leaves[path]
            tree.append(0)
            results.append(result)
            conflicts.append(int(spent))
    return {"format": FORMAT, "version": VERSION, "claim": claim, "base_sha256": base_sha256,
            "variables": [names[v] for v in sorted(numbers, key=numbers.get)], "tree": tree,
            "results": "".join(results), "conflicts": conflicts}


def malformed(summary) -> str | None:
    """Why `summary` is no cube tree at all (its fields, types, counts and caps), in one line; None
    when it is one, whatever it proves. The run-folder reader asks this of every tree step (a
    malformed one is a malformed folder), `summary_problem` first; linear in the summary's size."""
    if not isinstance(summary, dict):
        return "the cube tree is not a table"
    if summary.get("format") != FORMAT or summary.get("version") != VERSION:
        return f"the cube tree is not {FORMAT} version {VERSION}"
    if set(summary) != set(FIELDS):
        return f"the cube tree must have exactly the fields {', '.join(FIELDS)}"
    if not isinstance(summary["claim"], dict) or not isinstance(summary["base_sha256"], str):
        return "the cube tree's claim is not a table or its base_sha256 not a text"
    names, tree, results = summary["variables"], summary["tree"], summary["results"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        return "the cube tree's variables are not a list of distinct names"
    if not isinstance(tree, list) or len(tree) > MAX_NODES:
        return f"the cube tree's nodes are not a list of at most {MAX_NODES:,}"
    if not all(type(t) is int and 0 <= t <= len(names) for t in tree):
        return "the cube tree's nodes are not numbers of its variables (0 for a leaf)"
    if not isinstance(results, str):
        return "the cube tree's results are not a text"
    leaves = tree.count(0)
    if leaves > MAX_LEAVES:
        return f"the cube tree has more than {MAX_LEAVES:,} leaves"
    conflicts = summary["conflicts"]
    if not isinstance(conflicts, list) or len(conflicts) != leaves or len(results) != leaves \
            or not all(type(c) is int and c >= 0 for c in conflicts):
        return f"the cube tree has {leaves} leaves but {len(results)} results"
    if _depth(tree) > MAX_DEPTH:
        return f"the cube tree is deeper than {MAX_DEPTH}"
    return None


def _depth(tree: list[int]) -> int:
    """The preorder's deepest node, read as a tree even where it is not exactly one."""
    pending: list[int] = []  # for each inner node on the path, the children still to read
    deepest = 0
    for token in tree:
        if token:
            pending.append(2)
            deepest = max(deepest, len(pending))
            continue
        while pending:
            pending[-1] -= 1
            if pending[-1]:
                break
            pending.pop()
    return deepest


def summary_problem(summary, claim: dict, base_sha256: str, variables: Container[str] | None = None) -> str | None:
    """None when `summary` refutes `claim` over the base formula of hash `base_sha256` (see the
    module's text), else the first problem found, in one line. `variables`: the base formula's
    variable names (the audit's CNF index), to check every split names one; None skips that."""
    problem = malformed(summary)
    if problem is not None:
        return problem
    if canonical_json(summary["claim"]) != canonical_json(claim):
        return "the cube tree is of another claim than its step's"
    if summary["base_sha256"] != base_sha256:
        return "the cube tree is of another base formula than the run's"
    names, tree, results = summary["variables"], summary["tree"], summary["results"]
    if variables is not None:
        unknown = next((n for n in names if n not in variables), None)
        if unknown is not None:
            return f"the cube tree splits {unknown[:60]!r}, which the base formula lacks"
    unrefuted = next((i for i, r in enumerate(results) if r not in RESULTS), None)
    if unrefuted is not None:
        return f"leaf {unrefuted} of the cube tree ({_cube_words(summary, unrefuted)}) is not refuted"
    return _shape_problem(tree, names)


def _shape_problem(tree: list[int], names: list[str]) -> str | None:
    """None when the preorder `tree` is one complete binary tree, no path splitting a variable twice."""
    path: list[int] = []  # the variables split on the way down
    on_path: set[int] = set()
    pending: list[int] = []  # for each of them, the children still to read (2 or 1)
    for position, token in enumerate(tree):
        if position and not pending:
            return f"the cube tree goes on after its root is complete (node {position})"
        if token:
            if token in on_path:
                return f"the cube tree splits {names[token - 1][:60]!r} twice on one path (node {position})"
            path.append(token)
            on_path.add(token)
            pending.append(2)
            continue
        while pending:  # a leaf: close every node whose last child it was
            pending[-1] -= 1
            if pending[-1]:
                break
            pending.pop()
            on_path.discard(path.pop())
    if not tree or pending:
        return "the cube tree leaves out a case: a split with one branch missing"
    return None


def leaf_cubes(summary: dict) -> Iterator[list[tuple[str, bool]]]:
    """Each leaf's cube, in preorder, as (variable name, value) pairs (for an audit that re-solves
    them: the claim's assumptions and these literals). Call on a summary that passed the check."""
    names, path = summary["variables"], []
    for token in summary["tree"]:
        if token:
            path.append([names[token - 1], True])
            continue
        yield [tuple(x) for x in path]
        while path and not path[-1][1]:  # climb out of finished false branches
            path.pop()
        if path:
            path[-1][1] = False


def _cube_words(summary: dict, leaf: int) -> str:
    try:
        cube = next(c for i, c in enumerate(leaf_cubes(summary)) if i == leaf)
    except (StopIteration, IndexError, TypeError):
        return "a cube past the tree's end"
    return " & ".join(n if v else f"not {n}" for n, v in cube)[:80] or "the whole question"
