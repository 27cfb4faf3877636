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
import operator
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from smtpuzzles.formula import Term, sequential_amo
from smtpuzzles.trusted.symmetry import GROUP_LIMIT, closure  # noqa: F401 - the lemma's group, as the trust base builds it



@dataclass(frozen=True)
class Lemma:
    generators: tuple[Mapping[str, str], ...]  # name -> name; names not listed are fixed
    breaking: tuple[str, ...]  # C as positive literals by name: the last clause of the CNF
    covered: tuple[str, ...]  # A: a clause of the base, positive literals, one of which every model makes true
    summary: str  # C in the puzzle's words, e.g. "the tour starts in one of 15 of the 81 cells"


# Whether a name is an auxiliary variable's (CNF.fresh names: counters, Tseitin literals), called at
# C speed by map() over a formula's names.
is_auxiliary = operator.methodcaller("startswith", "_")


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
                or min(aux) <= 0 or not all(map(is_auxiliary, map(names.__getitem__, aux))) \
                or not owner.keys().isdisjoint(aux):
            return [f"at-most-one block {number} is not a sequential counter with its own auxiliaries"], ""
        owner.update(zip(aux, itertools.repeat(number)))
        in_block[start:end] = b"\1" * (end - start)
        blocks.add(frozenset(lits))
    auxiliary = set(itertools.compress(range(len(names)), map(is_auxiliary, names))) - {0}
    plain = _PlainClauses(list(itertools.compress(base, map(operator.not_, in_block))))
    used = plain.variables.union(*map(map, itertools.repeat(abs), blocks))
    if used and not 0 < min(used) <= max(used) < len(names):
        return ["a base clause has a variable the formula does not name"], ""
    if not auxiliary.isdisjoint(plain.variables):
        i = next(i for i, clause in enumerate(base) if not in_block[i] and not auxiliary.isdisjoint(map(abs, clause)))
        return [f"base clause {i + 1} uses an auxiliary variable outside any checked block"], ""
    if tuple(sorted(index[n] for n in set(lemma.covered))) not in plain.keys:
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

    # Where the group takes each case of the covered clause: its orbit, followed generator by
    # generator (the whole group over every name it moves cost 16x16 a second). The group's size,
    # for the words, is that of its action on those orbits.
    orbits = {n: _orbit(n, lemma.generators) for n in set(lemma.covered)}
    group = closure([{n: g.get(n, n) for n in set().union(*orbits.values())} for g in lemma.generators])
    if group is None:
        return [f"the generators generate more than {GROUP_LIMIT} permutations"], ""
    target = set(lemma.breaking)
    stranded = [n for n in lemma.covered if orbits[n].isdisjoint(target)]
    if stranded:
        return [f"no symmetry moves {stranded[0]} into the breaking clause ({len(stranded)} such)"], ""
    return [], (f"{len(lemma.generators)} generators (a group of {len(group)}) each map the base's "
                f"{len(plain.keys):,} plain clauses and {len(blocks):,} at-most-one blocks onto themselves and fix its "
                f"{len(fixed):,} objective variables; every case of the covered clause is moved into the "
                f"breaking one, so UNSAT with it is UNSAT without")


def _orbit(name: str, generators) -> set[str]:
    """Every name the generators take `name` to, applied any number of times (a finite group's
    orbit: no inverses needed)."""
    seen, frontier = {name}, [name]
    while frontier:
        frontier = [m for m in {g.get(n, n) for n in frontier for g in generators} if m not in seen]
        seen.update(frontier)
    return seen


def _generator_problem(generator: Mapping[str, str], index, names, plain, blocks, fixed) -> str | None:
    moved = set(generator)
    if set(generator.values()) != moved:
        return "not a permutation (its image is not its domain)"
    if not moved <= index.keys() or any(map(is_auxiliary, moved)):
        return "moves a variable the formula lacks or an auxiliary one"
    touched = moved & fixed
    if any(generator[n] != n for n in touched):
        return f"moves objective variable {sorted(n for n in touched if generator[n] != n)[0]}"
    # Each literal's image at the literal's own index: a negative one counts from the list's end
    # (every variable of the base is below len(names), which `check` made sure of).
    image = list(range(len(names))) + list(range(1 - len(names), 0))
    for name, target in generator.items():
        image[index[name]], image[-index[name]] = index[target], -index[target]
    lookup = image.__getitem__
    if not plain.mapped_into_itself(lookup):
        for clause in plain.clauses:  # the first clause mapped outside, for the message
            if plain.key(map(lookup, clause)) not in plain.keys:
                shown = " ".join(("" if x > 0 else "-") + names[abs(x)] for x in sorted(set(clause), key=abs))
                return f"maps base clause ({shown[:80]}) outside the base"
    for block in blocks:
        if frozenset(map(lookup, block)) not in blocks:
            return "maps an at-most-one block onto no block of the base"
    return None


class _PlainClauses:
    """The base's plain clauses as a set, each clause as the sorted tuple of its literals, as a set
    of literals: the check runs before every run and in every audit, and each generator is checked
    against the whole set (72,576 clauses on 9x9), its images made and sorted by C-level maps."""

    def __init__(self, clauses: list[list[int]]):
        self.clauses = clauses
        self.variables = set(map(abs, itertools.chain.from_iterable(clauses)))
        # A literal twice in a clause (which a bijection keeps so) would make its tuple no set:
        # such a base has each clause's literals made a set first.
        self.repeats = list(map(len, map(set, clauses))) != list(map(len, clauses))
        self.keys: set[tuple[int, ...]] = set(self._keys(clauses))

    def _keys(self, clauses: Iterable[Iterable[int]]) -> Iterable[tuple[int, ...]]:
        return map(tuple, map(sorted, map(set, clauses) if self.repeats else clauses))

    def key(self, clause: Iterable[int]) -> tuple[int, ...]:
        return tuple(sorted(set(clause)))

    def mapped_into_itself(self, lookup) -> bool:
        """Whether the literal map `lookup`, a bijection, maps every clause to a clause of the set."""
        return self.keys.issuperset(self._keys(map(map, itertools.repeat(lookup), self.clauses)))


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
