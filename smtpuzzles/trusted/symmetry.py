"""The check of a symmetry lemma on a DIMACS formula, part of the trust base (docs/trust.md).

The reference encodings (smtpuzzles/puzzles/<name>/reference.py) emit DIMACS with no names and no symmetry
breaking. A puzzle may propose a `FormulaLemma` for one (the `reference_symmetry` hook), and the
proof is then of F & C, C its breaking clause: `check_formula` verifies the lemma on F itself, so
the proposal is not trusted, only this check. The claim is part of F, so nothing else need be fixed.
Nothing here runs a solver or imports the rest of the project.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

GROUP_LIMIT = 64  # far more than a square's 8 symmetries; a larger closure is refused, not searched


def closure(generators: Sequence[Mapping]) -> list[dict] | None:
    """Every product of the generators (with the identity), as maps over the keys they move (names,
    or a board's cells); None past GROUP_LIMIT."""
    domain = sorted(set().union(*(set(g) for g in generators))) if generators else []
    identity = tuple(domain)
    seen = {identity}
    frontier = [identity]
    position = {n: i for i, n in enumerate(domain)}
    while frontier:
        nxt = []
        for element in frontier:
            for g in generators:
                product = tuple(g.get(element[position[n]], element[position[n]]) for n in domain)
                if product not in seen:
                    if len(seen) >= GROUP_LIMIT:
                        return None
                    seen.add(product)
                    nxt.append(product)
        frontier = nxt
    return [dict(zip(domain, element)) for element in seen]



@dataclass(frozen=True)
class FormulaLemma:
    generators: tuple[Mapping[int, int], ...]  # variable -> variable; variables not listed are fixed
    blocks: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # at-most-one ladders: (literals, auxiliaries)
    breaking: tuple[int, ...]  # C, literals: appended to F as its last clause
    covered: tuple[int, ...]  # A, a clause of F (so every model makes one of its literals true)
    summary: str  # C in the puzzle's words


def ladder(lits: Sequence[int], aux: Sequence[int]) -> list[list[int]]:
    """At most one of `lits` as the reference encodings write it for more than a few literals:
    aux[i] holds once one of the first i+1 does (lit i -> aux i, aux i-1 -> aux i), and lit i never
    with aux i-1. Whatever the order of `lits`, exactly their assignments with at most one true
    literal extend to `aux` (tests/test_symmetry_formula.py checks that by enumeration)."""
    clauses = []
    for i, x in enumerate(lits):
        if i < len(aux):
            clauses.append([-x, aux[i]])
        if i > 0:
            clauses.append([-x, -aux[i - 1]])
            if i < len(aux):
                clauses.append([-aux[i - 1], aux[i]])
    return clauses


def lemma_from_json(data, nvars: int) -> FormulaLemma | str:
    """A puzzle's proposal ({"generators": [[[v, image], ...], ...], "blocks": [[lits, aux], ...],
    "breaking": [...], "covered": [...], "summary": "..."}) as a FormulaLemma, or why it is not one."""
    def literal(x) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and 0 < abs(x) <= nvars

    def literals(xs) -> bool:
        return isinstance(xs, (list, tuple)) and all(map(literal, xs))

    if not isinstance(data, dict) or not isinstance(data.get("summary"), str):
        return "the proposal is not an object with a summary"
    if not all(isinstance(data.get(key, []), (list, tuple)) for key in ("generators", "blocks")):
        return "the generators or the blocks are not a list"
    if len(data.get("generators", [])) > GROUP_LIMIT:  # no group this check accepts needs more
        return f"more than {GROUP_LIMIT} generators"
    generators = []
    for g in data.get("generators") or ():
        if not isinstance(g, (list, tuple)) or not all(isinstance(p, (list, tuple)) and len(p) == 2 and all(
                literal(v) and v > 0 for v in p) for p in g):
            return "a generator is not a list of [variable, image] pairs"
        as_map = {v: w for v, w in g if v != w}
        if len(as_map) != sum(1 for v, w in g if v != w):
            return "a generator maps one variable twice"
        if as_map and as_map not in generators:  # the identity and repeats add nothing but work
            generators.append(as_map)
    blocks = []
    for b in data.get("blocks") or ():
        if not (isinstance(b, (list, tuple)) and len(b) == 2 and literals(b[0]) and literals(b[1])
                and all(v > 0 for v in b[1]) and len(b[1]) == len(b[0]) - 1 >= 1):
            return "a block is not [literals, one auxiliary variable fewer]"
        if len(set(b[0])) != len(b[0]):  # a repeated literal is forced false: no longer "at most one of a set"
            return "a block repeats a literal"
        blocks.append((tuple(b[0]), tuple(b[1])))
    if not literals(data.get("breaking")) or not data["breaking"] or not literals(data.get("covered")):
        return "the breaking or covered clause is not a list of literals"
    return FormulaLemma(tuple(generators), tuple(blocks), tuple(data["breaking"]), tuple(data["covered"]),
                        data["summary"])


def check_formula(nvars: int, clauses: Sequence[Sequence[int]], lemma: FormulaLemma) -> tuple[list[str], str]:
    """(problems, what was verified in words) for F (nvars, clauses) and a proposed lemma: no
    problems means F & C has a model whenever F has one, so refuting F & C refutes F.

    1. F is its plain clauses P and the lemma's blocks, each exactly `ladder(lits, aux)` (as a set of
       clauses), their auxiliaries used in no other clause: on the other variables F says P and
       "at most one of each block's literals";
    2. each generator g is a permutation of the non-auxiliary variables mapping P onto P and each
       block's literals onto some block's: a model of F is turned into one (auxiliaries recomputed);
    3. A is a clause of P, and each literal of A is moved into C by an element of the group."""
    aux_owner: dict[int, int] = {}
    for number, (lits, aux) in enumerate(lemma.blocks):
        for v in aux:
            if v in aux_owner:
                return [f"auxiliary variable {v} belongs to two blocks"], ""
            aux_owner[v] = number
    if any(abs(x) in aux_owner for lits, _ in lemma.blocks for x in lits):
        return ["a block's literal is an auxiliary variable"], ""
    plain: set[tuple[int, ...]] = set()
    in_blocks: dict[tuple[int, ...], int] = {}
    for clause in clauses:
        key = tuple(sorted(set(clause)))
        if any(abs(x) in aux_owner for x in key):
            in_blocks[key] = in_blocks.get(key, 0) + 1
        else:
            plain.add(key)
    wanted: dict[tuple[int, ...], int] = {}
    for lits, aux in lemma.blocks:
        for clause in ladder(lits, aux):
            key = tuple(sorted(set(clause)))
            wanted[key] = wanted.get(key, 0) + 1
    if set(in_blocks) != set(wanted):
        return ["the clauses with auxiliary variables are not the blocks' ladders"], ""
    blocks = {frozenset(lits) for lits, _ in lemma.blocks}
    if tuple(sorted(set(lemma.covered))) not in plain:
        return ["the covered clause is not a clause of the formula"], ""

    for number, g in enumerate(lemma.generators, 1):
        if set(g.values()) != set(g):
            return [f"generator {number} is not a permutation (its image is not its domain)"], ""
        if any(v in aux_owner for v in g):
            return [f"generator {number} moves an auxiliary variable"], ""

        def image(x: int, g=g) -> int:
            return g.get(x, x) if x > 0 else -g.get(-x, -x)

        moved = set(g)
        for clause in plain:
            if not moved.isdisjoint(map(abs, clause)) and tuple(sorted(map(image, clause))) not in plain:
                return [f"generator {number} maps clause {list(clause)[:8]} outside the formula"], ""
        for block in blocks:
            if frozenset(map(image, block)) not in blocks:
                return [f"generator {number} maps an at-most-one block onto none"], ""

    group = closure(lemma.generators)
    if group is None:
        return [f"the generators generate more than {GROUP_LIMIT} permutations"], ""
    target = set(lemma.breaking)

    def moved_in(x: int) -> bool:
        return any((g.get(x, x) if x > 0 else -g.get(-x, -x)) in target for g in group)

    stranded = [x for x in lemma.covered if not moved_in(x)]
    if stranded:
        return [f"no symmetry moves literal {stranded[0]} into the breaking clause ({len(stranded)} such)"], ""
    return [], (f"{len(lemma.generators)} generators (a group of {len(group)}) map the formula's {len(plain):,} "
                f"plain clauses and {len(blocks):,} at-most-one ladders onto themselves, and every case of a clause "
                f"of it is moved into the breaking clause ({lemma.summary}): refuting the formula with that clause "
                "refutes it without")
