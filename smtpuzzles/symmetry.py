"""Symmetry breaking as a lemma checked by machine, never as a hidden assumption.

An encoding may add one symmetry-breaking clause C (the last clause of its CNF) to its base B only
together with a `Lemma`: permutations of named variables, C, and a clause A of B. `check` verifies,
trusting nothing the puzzle says, in the run before any check and again in every audit:

1. each generator p is a bijection of B's named variables that maps B onto itself: every plain
   clause to a plain clause of B, and every at-most-one block (a sequential counter, regenerated here
   and compared clause for clause, its auxiliary variables used nowhere else) to a block over the
   image set. A counter allows exactly "at most one of its literals" whatever their order, so B's
   solutions, read on the named variables, are mapped onto B's solutions;
2. p fixes every variable the objective's terms can mention, so each claim the driver asks (a
   prefix, a digit bound, "beats the best") is mapped to itself and values are kept;
3. every literal l of A is moved into C by some element g of the group the generators generate.

The argument: a model M of B and a claim makes some l of A true; g with g(l) in C turns M into
M o g^-1, again a model of B and the claim (1, 2), in which C holds. So B & C & claim UNSAT implies
B & claim UNSAT: refuting "better" under C refutes it without, and a model found under C is a model
of B. The closing certificate, `audit --resolve` and the clausal proof all speak of B & C; this
module's check is what carries them over to B.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Mapping, Sequence

from smtpuzzles.formula import Term, sequential_amo

GROUP_LIMIT = 64  # far more than a square's 8 symmetries; a larger closure is refused, not searched


@dataclass(frozen=True)
class Lemma:
    generators: tuple[Mapping[str, str], ...]  # name -> name; names not listed are fixed
    breaking: tuple[str, ...]  # C as positive literals by name: the last clause of the CNF
    covered: tuple[str, ...]  # A: a clause of the base, positive literals, one of which every model makes true
    summary: str  # C in the puzzle's words, e.g. "the tour starts in one of 15 of the 81 cells"


def is_auxiliary(name: str) -> bool:
    return name.startswith("_")  # CNF.fresh names: counters, Tseitin literals


def objective_names(objective) -> set[str] | str:
    """Every variable a lexicographic objective's terms can mention, or why none can be listed."""
    if getattr(objective, "kind", None) != "lex":
        return "symmetry breaking is checked for lexicographic objectives only"
    names: set[str] = set()

    def walk(term: Term) -> str | None:
        if term[0] == "lit":
            names.add(term[1])
            return None
        if term[0] == "raw":
            return "the objective has arithmetic terms, which no permutation of Booleans can be checked against"
        for sub in term[1]:
            problem = walk(sub)
            if problem:
                return problem
        return None

    for i in range(objective.length):
        for d in objective.domain:
            problem = walk(objective.greater(i, d)) or walk(objective.equal(i, d))
            if problem:
                return problem
    return names


def check(formula, objective, lemma: Lemma) -> tuple[list[str], str]:
    """(problems, what was verified in words). No problems means the lemma holds for this formula."""
    cnf = formula.cnf
    if cnf is None:
        return ["the formula has no clausal view to check a symmetry against"], ""
    index, names = cnf.index, cnf.names
    if any(n not in index or is_auxiliary(n) for n in lemma.breaking + lemma.covered):
        return ["the breaking or covered clause names a variable the formula lacks"], ""
    breaking = sorted(index[n] for n in lemma.breaking)
    if not cnf.clauses or sorted(cnf.clauses[-1]) != breaking:
        return ["the breaking clause is not the formula's last clause"], ""
    base = cnf.clauses[:-1]

    # The base split into at-most-one blocks (each regenerated) and plain clauses (no auxiliaries).
    problems: list[str] = []
    in_block = bytearray(len(base))
    owner: dict[int, int] = {}
    blocks: set[frozenset[int]] = set()
    for number, (lits, start, end) in enumerate(cnf.amo_blocks):
        aux = [base[start + 3 * i][1] for i in range(len(lits) - 1)] if end <= len(base) and end > start else []
        if not aux or end - start != 3 * len(aux) or base[start:end] != sequential_amo(lits, aux) \
                or any(v <= 0 or not is_auxiliary(names[v]) or v in owner for v in aux):
            return [f"at-most-one block {number} is not a sequential counter with its own auxiliaries"], ""
        owner.update((v, number) for v in aux)
        in_block[start:end] = b"\1" * (end - start)
        blocks.add(frozenset(lits))
    # Plain clauses as sets of literals, each kept as a sorted tuple of literal + offset so that a
    # permutation maps one with C-level calls (list indexing, sorted): the check runs before every
    # run and in every audit, over 100,000 clauses on 9x9.
    offset = len(names)
    auxiliary = {offset + sign * v for v, name in enumerate(names) if v and is_auxiliary(name) for sign in (1, -1)}
    plain: set[tuple[int, ...]] = set()
    for i, clause in enumerate(base):
        if not in_block[i]:
            shifted = {x + offset for x in clause}
            if not auxiliary.isdisjoint(shifted):
                return [f"base clause {i + 1} uses an auxiliary variable outside any checked block"], ""
            plain.add(tuple(sorted(shifted)))
    if tuple(sorted(index[n] + offset for n in set(lemma.covered))) not in plain:
        problems.append("the covered clause is not a clause of the base")

    fixed = objective_names(objective)
    if isinstance(fixed, str):
        return [fixed], ""
    for number, generator in enumerate(lemma.generators, 1):
        problem = _generator_problem(generator, index, names, plain, blocks, fixed)
        if problem:
            problems.append(f"generator {number}: {problem}")
    if problems:
        return problems, ""

    group = closure(lemma.generators)
    if group is None:
        return [f"the generators generate more than {GROUP_LIMIT} permutations"], ""
    target = set(lemma.breaking)
    stranded = [n for n in lemma.covered if not any(g.get(n, n) in target for g in group)]
    if stranded:
        return [f"no symmetry moves {stranded[0]} into the breaking clause ({len(stranded)} such)"], ""
    return [], (f"{len(lemma.generators)} generators (a group of {len(group)}) each map the base's "
                f"{len(plain):,} plain clauses and {len(blocks):,} at-most-one blocks onto themselves and fix its "
                f"{len(fixed):,} objective variables; every case of the covered clause is moved into the "
                f"breaking one, so UNSAT with it is UNSAT without")


def _generator_problem(generator: Mapping[str, str], index, names, plain, blocks, fixed) -> str | None:
    moved = set(generator)
    if set(generator.values()) != moved:
        return "not a permutation (its image is not its domain)"
    if any(n not in index or is_auxiliary(n) for n in moved):
        return "moves a variable the formula lacks or an auxiliary one"
    touched = moved & fixed
    if any(generator[n] != n for n in touched):
        return f"moves objective variable {sorted(n for n in touched if generator[n] != n)[0]}"
    offset = len(names)
    image = list(range(2 * offset))  # literal + offset -> its image + offset
    for name, target in generator.items():
        image[offset + index[name]] = offset + index[target]
        image[offset - index[name]] = offset - index[target]
    lookup = image.__getitem__

    for clause in plain:  # a bijection of literals keeps a clause's literals distinct: no set needed
        if tuple(sorted(map(lookup, clause))) not in plain:
            lits = sorted((x - offset for x in clause), key=abs)
            shown = " ".join(("" if x > 0 else "-") + names[abs(x)] for x in lits)
            return f"maps base clause ({shown[:80]}) outside the base"
    for block in blocks:
        if frozenset(lookup(x + offset) - offset for x in block) not in blocks:
            return "maps an at-most-one block onto no block of the base"
    return None


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


def generating_set(maps: Sequence[Mapping]) -> list:
    """The fewest of `maps` that generate the group of all of them (with the identity): one, else
    two (a square's 8 symmetries: a quarter turn and a reflection), else a greedy pick. The lemma
    check costs one pass over the formula per generator; the check itself never trusts the pick."""
    maps = list(maps)
    if not maps:
        return []
    size = len(closure(maps) or ())
    for count in (1, 2):
        for subset in itertools.combinations(maps, count):
            if len(closure(list(subset)) or ()) == size:
                return list(subset)
    chosen: list = []
    for m in maps:
        if not chosen or m not in closure(chosen):
            chosen.append(m)
    return chosen


def require(encoding) -> None:
    """Refuse an encoding whose symmetry lemma does not hold (a bug in the encoder): its breaking
    clause would make UNSAT answers unsound. Encodings without a lemma pass."""
    if encoding.lemma is None:
        return
    problems, _ = check(encoding.formula, encoding.objective, encoding.lemma)
    if problems:
        raise RuntimeError(f"encoding {encoding.name}: its symmetry lemma fails: {problems[0]}")


# ------------------------------------------------------------------------ on a DIMACS formula
# The reference encodings (smtpuzzles.puzzles.rules) emit DIMACS with no names and no symmetry
# breaking. A puzzle may propose a `FormulaLemma` for one (the `reference_symmetry` hook), and the
# proof is then of F & C, C its breaking clause: `check_formula` verifies the lemma on F itself, so
# the proposal is not trusted, only this check. The claim is part of F, so nothing else need be fixed.

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
