"""The one formula language every puzzle, engine and ledger shares.

A `Formula` is a base problem in portable SMT-LIB2 (declarations and assertions), optionally with a
clausal view (`CNF`) that SAT engines load directly. Conditions the driver adds on top of it (a digit
bound, a count bound, a blocking clause) are small `Term` trees: they print as SMT-LIB2 for z3, cvc5
and the ledger, and turn into clauses for a SAT engine. Nothing here knows any puzzle.

Only standard SMT-LIB2 is written: `declare-fun`, `and`/`or`/`not`/`=>`, `ite` sums for cardinality,
and an explicit `set-logic` (z3's own printer writes `pbeq`/`pble` terms that cvc5 rejects).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

# --------------------------------------------------------------------------------------------- terms
# A term is a tuple: ("lit", name, positive) | ("and", (t, ...)) | ("or", (t, ...)) | ("raw", text).
# Tuples hash and compare by value, so equal conditions share one activation literal in an engine.
Term = tuple
TRUE: Term = ("and", ())
FALSE: Term = ("or", ())


def lit(name: str, positive: bool = True) -> Term:
    return ("lit", name, positive)


def neg(term: Term) -> Term:
    kind = term[0]
    if kind == "lit":
        return ("lit", term[1], not term[2])
    if kind == "and":
        return ("or", tuple(neg(t) for t in term[1]))
    if kind == "or":
        return ("and", tuple(neg(t) for t in term[1]))
    return ("raw", f"(not {term[1]})")


def all_of(terms: Iterable[Term]) -> Term:
    terms = tuple(terms)
    return terms[0] if len(terms) == 1 else ("and", terms)


def any_of(terms: Iterable[Term]) -> Term:
    terms = tuple(terms)
    return terms[0] if len(terms) == 1 else ("or", terms)


def raw(text: str) -> Term:
    """An SMT-LIB2 term over the base formula's symbols (arithmetic: z3 and cvc5 only, no CNF)."""
    return ("raw", text)


def smt2(term: Term) -> str:
    kind = term[0]
    if kind == "lit":
        return term[1] if term[2] else f"(not {term[1]})"
    if kind == "raw":
        return term[1]
    parts = term[1]
    if not parts:
        return "true" if kind == "and" else "false"
    if len(parts) == 1:
        return smt2(parts[0])
    return f"({kind} {' '.join(smt2(t) for t in parts)})"


def is_boolean(term: Term) -> bool:
    kind = term[0]
    if kind == "lit":
        return True
    if kind == "raw":
        return False
    return all(is_boolean(t) for t in term[1])


# ----------------------------------------------------------------------------------------------- CNF
class CNF:
    """Clauses over named Boolean variables (DIMACS numbering inside, names outside)."""

    def __init__(self) -> None:
        self.names: list[str] = [""]
        self.index: dict[str, int] = {}
        self.clauses: list[list[int]] = []
        # Each at-most-one written as a sequential counter: (its literals in order, first clause,
        # end): the symmetry lemma (smtpuzzles/symmetry.py) regenerates and compares each block.
        self.amo_blocks: list[tuple[tuple[int, ...], int, int]] = []

    def var(self, name: str) -> int:
        found = self.index.get(name)
        if found is None:
            found = self.index[name] = len(self.names)
            self.names.append(name)
        return found

    def numbering(self) -> "CNF":
        """A CNF with a copy of this one's names and no clauses: `term_literal` on it allocates
        fresh variables there, so a search or a query never changes the numbering of the formula
        that other engines and later queries share."""
        view = CNF()
        view.names = list(self.names)
        view.index = dict(self.index)
        return view

    def fresh(self, prefix: str = "k") -> int:
        return self.var(f"_{prefix}{len(self.names)}")

    def add(self, clause: Sequence[int]) -> None:
        self.clauses.append(list(clause))

    # The words encoders state their rules in; each is a few clauses, written out here once.
    def require(self, a: int) -> None:
        """`a` holds."""
        self.clauses.append([a])

    def implies(self, a: int, options: Sequence[int]) -> None:
        """If `a`, then at least one of `options` (none given: `a` is false)."""
        self.clauses.append([-a, *options])

    def when(self, conditions: Sequence[int], then: int) -> None:
        """If every one of `conditions`, then `then`."""
        self.clauses.append([*(-c for c in conditions), then])

    def when_each(self, a: int, conditions: Sequence[int], thens: Sequence[int]) -> None:
        """If `a` and `conditions[i]`, then `thens[i]`, for each i (`when` for each pair, in order)."""
        self.clauses.extend([[-a, -c, then] for c, then in zip(conditions, thens)])

    def not_both(self, a: int, b: int) -> None:
        self.clauses.append([-a, -b])

    def same(self, a: int, b: int) -> None:
        """`a` exactly when `b`."""
        self.clauses.extend(([-a, b], [a, -b]))

    def any_of(self, a: int, options: Sequence[int]) -> None:
        """`a` exactly when at least one of `options` holds."""
        self.clauses.append([-a, *options])
        self.clauses.extend([-o, a] for o in options)

    def at_least_one(self, lits: Sequence[int]) -> None:
        self.clauses.append(list(lits))

    def at_most_one(self, lits: Sequence[int]) -> None:
        # Pairwise is best for short lists (binary clauses propagate cheapest); a sequential counter
        # keeps long ones linear in size.
        n = len(lits)
        if n <= 6:
            for i in range(n):
                for j in range(i + 1, n):
                    self.clauses.append([-lits[i], -lits[j]])
            return
        start = len(self.clauses)
        self.clauses.extend(sequential_amo(lits, [self.fresh("s") for _ in range(n - 1)]))
        self.amo_blocks.append((tuple(lits), start, len(self.clauses)))

    def exactly_one(self, lits: Sequence[int]) -> None:
        self.at_least_one(lits)
        self.at_most_one(lits)

    def constant(self, value: bool) -> int:
        """A literal fixed to `value` (one variable serves every constant)."""
        if "_true" not in self.index:
            self.clauses.append([self.var("_true")])
        top = self.index["_true"]
        return top if value else -top

    def counter(self, lits: Sequence[int]) -> list[int]:
        """Literals `out[j]` that hold exactly when at least j of `lits` hold (out[0] is true):
        a sequential counter defined in both directions, so a bound on it is a cardinality claim
        for SAT and UNSAT answers alike."""
        row = [self.constant(True)]
        for i, x in enumerate(lits, 1):
            nxt = [row[0]]
            for j in range(1, i + 1):
                carry = row[j] if j < len(row) else None  # at least j among the first i-1
                below = row[j - 1]  # at least j-1 among the first i-1
                out = self.fresh("u")
                if carry is not None:
                    self.clauses.append([-carry, out])
                self.clauses.append([-below, -x, out])
                self.clauses.append([-out, below] + ([carry] if carry is not None else []))
                self.clauses.append([-out, x] + ([carry] if carry is not None else []))
                nxt.append(out)
            row = nxt
        return row

    def residue(self, weighted: Sequence[tuple[int, int]], modulus: int) -> list[int]:
        """One-hot literals `out[r]`: the sum of the weights of the true literals is r modulo
        `modulus`. Built as a balanced tree of partial sums: chains of partial sums are long
        parity-like paths that CDCL solvers cross slowly; a tree keeps them logarithmic."""
        def leaf(x: int, w: int) -> dict[int, int]:
            w %= modulus
            return {0: self.constant(True)} if w == 0 else {0: -x, w: x}

        def node(parts: list[dict[int, int]]) -> dict[int, int]:
            if len(parts) == 1:
                return parts[0]
            left, right = node(parts[: len(parts) // 2]), node(parts[len(parts) // 2:])
            out = {r: self.fresh("r") for r in range(modulus)}
            for a, la in left.items():
                for b, lb in right.items():
                    self.clauses.append([-la, -lb, out[(a + b) % modulus]])
            self.exactly_one(list(out.values()))
            return out

        total = node([leaf(x, w) for x, w in weighted]) if weighted else {0: self.constant(True)}
        return [total.get(r, self.constant(False)) for r in range(modulus)]

    def term_literal(self, term: Term, clauses: list[list[int]], cache: dict) -> int:
        """A literal that implies `term` (Tseitin, one direction), new clauses into `clauses`."""
        if term in cache:
            return cache[term]
        kind = term[0]
        if kind == "lit":
            if term[1] not in self.index:
                raise KeyError(f"unknown variable {term[1]}")
            out = self.index[term[1]] * (1 if term[2] else -1)
        elif kind == "raw":
            raise ValueError("an arithmetic term has no clausal form; use the z3 engine")
        else:
            subs = [self.term_literal(t, clauses, cache) for t in term[1]]
            out = self.fresh("t")
            if kind == "and":
                clauses.extend([-out, s] for s in subs)
            else:
                clauses.append([-out] + subs)
        cache[term] = out
        return out

    def smt2_lines(self) -> Iterable[str]:
        names = self.names
        for v in range(1, len(names)):
            yield f"(declare-fun {names[v]} () Bool)"
        # One text per literal, looked up by index (negatives wrap around from the end): large
        # bases spend their export time in this loop.
        text = names + [f"(not {names[v]})" for v in range(len(names) - 1, 0, -1)]
        for clause in self.clauses:  # two and three literals, the most common, without a join
            size = len(clause)
            if size == 3:
                a, b, c = clause
                yield f"(assert (or {text[a]} {text[b]} {text[c]}))"
            elif size == 2:
                a, b = clause
                yield f"(assert (or {text[a]} {text[b]}))"
            elif size > 1:
                yield f"(assert (or {' '.join([text[l] for l in clause])}))"
            else:
                yield f"(assert {text[clause[0]]})" if clause else "(assert false)"


def sequential_amo(lits: Sequence[int], aux: Sequence[int]) -> list[list[int]]:
    """At most one of `lits`, with `aux[i-1]` meaning "one of the first i holds": three clauses per
    literal after the first. Whatever the order of `lits`, the clauses allow exactly the assignments
    of `lits` with at most one true literal (each extendable to `aux` in one way)."""
    clauses = []
    prev = lits[0]
    for x, s in zip(lits[1:], aux):
        clauses += [[-prev, s], [-x, s], [-prev, -x]]
        prev = s
    return clauses


# ------------------------------------------------------------------------------------------- formula
# An SMT-LIB2 simple symbol: what every solver reads as a variable's name without quoting.
SIMPLE_SYMBOL = re.compile(r"[A-Za-z~!@$%^&*_+=<>.?/-][A-Za-z0-9~!@$%^&*_+=<>.?/-]*")


def unreadable_name(names) -> str | None:
    """The first of `names` that is not an SMT-LIB2 simple symbol (solvers would refuse the query
    the audit builds from it), or None."""
    return next((name for name in names if not SIMPLE_SYMBOL.fullmatch(name)), None)


@dataclass
class Formula:
    """A base problem: SMT-LIB2 text (always) and a clausal view (when purely Boolean)."""

    logic: str
    text: str  # declarations and assertions, no set-logic and no check-sat
    cnf: CNF | None = None
    decls: dict[str, str] = field(default_factory=dict)  # name -> sort, for parsing conditions
    # Which z3 solver family suits it (e.g. "QF_FD" for Booleans, cardinalities and bounded ints);
    # a solving hint only, never written into the portable text.
    z3_solver: str | None = None

    @classmethod
    def from_cnf(cls, cnf: CNF) -> "Formula":
        text = "\n".join(cnf.smt2_lines()) + "\n"
        return cls(logic="QF_UF", text=text, cnf=cnf, decls={n: "Bool" for n in cnf.names[1:]}, z3_solver="QF_FD")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.document().encode()).hexdigest()

    def document(self) -> str:
        """The base formula as a file: logic, declarations, assertions."""
        return f"(set-logic {self.logic})\n{self.text}"

    def query(self, assumptions: Sequence[Term]) -> str:
        """A standalone SMT-LIB2 query: the base plus each assumption asserted, then check-sat."""
        extra = "".join(f"(assert {smt2(t)})\n" for t in assumptions)
        return f"{self.document()}{extra}(check-sat)\n(exit)\n"


class SmtBuilder:
    """Writes an arithmetic base formula as portable SMT-LIB2 text, one declaration at a time."""

    def __init__(self, logic: str = "QF_LIA") -> None:
        self.logic = logic
        self.lines: list[str] = []
        self.decls: dict[str, str] = {}

    def declare(self, name: str, sort: str) -> str:
        if name not in self.decls:
            self.decls[name] = sort
            self.lines.append(f"(declare-fun {name} () {sort})")
        return name

    def bool(self, name: str) -> str:
        return self.declare(name, "Bool")

    def int(self, name: str, lo: int | None = None, hi: int | None = None) -> str:
        self.declare(name, "Int")
        if lo is not None:
            self.assert_(f"(<= {lo} {name})")
        if hi is not None:
            self.assert_(f"(<= {name} {hi})")
        return name

    def assert_(self, text: str) -> None:
        self.lines.append(f"(assert {text})")

    def formula(self, z3_solver: str | None = None) -> Formula:
        return Formula(logic=self.logic, text="\n".join(self.lines) + "\n", decls=dict(self.decls), z3_solver=z3_solver)


def count_true(bools: Sequence[str]) -> str:
    """Portable cardinality: a sum of `ite`s (never z3's `pbeq`/`pble`)."""
    if not bools:
        return "0"
    parts = [f"(ite {b} 1 0)" for b in bools]
    return parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"


def sum_of(parts: Sequence[str]) -> str:
    if not parts:
        return "0"
    return parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"
