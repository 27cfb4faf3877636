"""One check split into cubes: what a cube is, and the check that a puzzle's cubes cover every case.
(The runners that solve cubes, here one by one or on Dask workers, are in smtpuzzles.cluster; a
question split by look-ahead on its own formula, not by a puzzle's cubes, is smtpuzzles.sharing's.)

A cube is a few positive literals of the base formula (for example "the tour's first cell is x,
its second y"). The claim under each cube is its own step in the ledger; the claim is refuted when
every cube is, and a step `by: cubes` lists them. That is sound only if every model of the formula
satisfies some cube, which `coverage_problem` checks by syntax against today's clauses, trusting
nothing the puzzle proposed: the cubes must branch along clauses of the formula (every model
satisfies some literal of a clause, so following the branches reaches a cube).
"""

from __future__ import annotations

from typing import Sequence


MAX_CUBE = 8  # literals in one cube; a run folder's cube longer than this is malformed
DEPTHS = (1, 2)  # how many branching levels `--cubes` may ask a puzzle for


def with_cube(claim: dict, cube: Sequence[str]) -> dict:
    return {**claim, "cube": list(cube)}


def without_cube(claim: dict) -> dict:
    return {k: v for k, v in claim.items() if k != "cube"}


def clauses_with(cnf, names) -> dict[int, list[int]]:
    """For each variable of `cnf` named (others left out), the clauses holding it as a positive
    literal: one pass over the formula, which an audit checking many splits makes once."""
    occurs: dict[int, list[int]] = {cnf.index[n]: [] for n in names if n in cnf.index}
    for number, clause in enumerate(cnf.clauses):
        for x in clause:
            if x in occurs:
                occurs[x].append(number)
    return occurs


def coverage_problem(cnf, cubes: Sequence[Sequence[str]], occurs: dict[int, list[int]] | None = None) -> str | None:
    """None when every assignment satisfying `cnf` satisfies some cube, shown by branching: at each
    node (the literals chosen so far) some clause of the formula has each literal either false under
    the node or leading to a covered child; a node equal to a whole cube is covered. `occurs`:
    `clauses_with` for (at least) the cubes' variables, else it is made here."""
    if cnf is None:
        return "the formula has no clausal view to check cubes against"
    if not cubes:
        return "no cubes"
    index = cnf.index
    as_ints = []
    for cube in cubes:
        if not 1 <= len(cube) <= MAX_CUBE or any(name not in index for name in cube):
            return f"cube {' '.join(cube)[:60]!r} names a variable the formula lacks or is too long"
        as_ints.append(tuple(index[name] for name in cube))
    wanted = {x for cube in as_ints for x in cube}
    if occurs is None or not wanted <= occurs.keys():
        occurs = clauses_with(cnf, {cnf.names[x] for x in wanted})

    def covered(node: tuple[int, ...], below: list[tuple[int, ...]]) -> tuple[int, ...] | None:
        """None when covered, else an uncovered node."""
        if any(len(cube) == len(node) for cube in below):
            return None
        children: dict[int, list] = {}
        for cube in below:
            children.setdefault(cube[len(node)], []).append(cube)
        false_here = {-x for x in node}
        for first in children:
            for number in occurs[first]:
                clause = cnf.clauses[number]
                if all(x in children or x in false_here for x in clause):
                    for x in clause:
                        if x in children:
                            gap = covered(node + (x,), children[x])
                            if gap is not None:
                                return gap
                    return None
        return node

    gap = covered((), as_ints)
    if gap is None:
        return None
    shown = " & ".join(cnf.names[x] for x in gap) or "no literal chosen"
    return f"the cubes leave out a case: no clause of the formula splits the branch ({shown[:60]})"
