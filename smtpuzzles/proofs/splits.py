"""How a query is cut into parts for a proof in parts (smtpuzzles.proofs.parts): the cases, each a
cube (literals made units beside the query), and the closing lemmas that take the cases' clauses
(each the negation of its cube, what a part's weakened proof ends in) to the empty clause.

Two shapes, one contract:
- by a clause of the query (`by_clause`): one case per literal l of the clause, each the cube (l);
  the closing lemma is the empty clause, from the units -l and the clause itself;
- by a decision tree (`by_tree`): the tree of refuted cubes a shared question was recorded with
  (smtpuzzles.sharing.tree: preorder, k > 0 splits a variable true then false, 0 a leaf), each leaf
  the cube of its path; each inner node at path p splitting v gets the lemma -p from its children's
  -p | -v and -p | v, the root's lemma the empty clause.

Each closing lemma is a plain LRAT step whose hints the checker verifies: a tree that leaves a
case out, or a clause that is not the query's, gives a proof smtpuzzles.trusted.lrat rejects.
Nothing here is trusted; it only writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from smtpuzzles.sharing.tree import leaf_cubes
from smtpuzzles.trusted.dimacs import ProofError


@dataclass(frozen=True)
class Split:
    cases: list[tuple[int, ...]]  # the cubes, in the order their parts are made
    # (each case's clause id, the next free id) -> the closing lemmas' text and the next free id
    closing: Callable[[list[int], int], tuple[bytes, int]]
    words: str  # what the cases are, for the report: "the literals of clause 7 of the query"


def by_clause(clauses: list[list[int]], number: int) -> Split:
    """The query refuted once per literal of its clause `number` (1 for the first)."""
    if not 0 < number <= len(clauses) or not clauses[number - 1]:
        raise ProofError(f"clause {number} of the query is not one to split on", "proof")

    def closing(ids: list[int], next_id: int) -> tuple[bytes, int]:
        return f"{next_id} 0 {' '.join(map(str, ids))} {number} 0\n".encode(), next_id + 1

    return Split([(lit,) for lit in dict.fromkeys(clauses[number - 1])], closing,
                 f"the literals of clause {number} of the query")


def by_tree(tree: Sequence[int], literals: Sequence[int], nvars: int) -> Split:
    """The query refuted leaf by leaf of a decision tree: `tree` in preorder (k > 0 splits the
    literal `literals[k - 1]`, that side first; 0 is a leaf), `literals` the query's literals
    by the tree's numbers. The tree's shape is not trusted: a leaf left out leaves a closing lemma
    whose hints do not refute it, which the checker finds."""
    if any(not 0 < abs(v) <= nvars for v in literals):
        raise ProofError("the cube tree splits a variable the query lacks", "proof")
    if any(not 0 <= t <= len(literals) for t in tree):
        raise ProofError("the cube tree names a variable it does not list", "proof")
    # Each leaf's cube as the audit's re-solve reads it: (the split's literal, its first side or not).
    cases = [tuple(lit if first else -lit for lit, first in cube)
             for cube in leaf_cubes({"variables": list(literals), "tree": list(tree)})]

    def closing(ids: list[int], next_id: int) -> tuple[bytes, int]:
        out: list[str] = []
        leaf = iter(ids)
        path: list[int] = []
        children: list[list[int]] = []  # per inner node on the path, its children's clause ids so far
        for token in tree:
            if token:
                path.append(literals[token - 1])
                children.append([])
                continue
            done = next(leaf)
            while children:
                children[-1].append(done)
                if len(children[-1]) == 1:  # its true branch done: on to the false one
                    path[-1] = -path[-1]
                    break
                true_side, false_side = children.pop()
                path.pop()
                out.append(f"{next_id} {' '.join(str(-lit) for lit in path)}{' ' if path else ''}0 "
                           f"{true_side} {false_side} 0\n")
                done, next_id = next_id, next_id + 1
        return "".join(out).encode(), next_id

    return Split(cases, closing, f"the {len(cases)} leaves of the question's tree of cubes")
