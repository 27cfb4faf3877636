"""The CNF view's SMT-LIB2 text and its words, held to independent writings of the same thing."""

from __future__ import annotations

import random

from smtpuzzles.formula import CNF


def test_each_clause_is_written_as_one_assert_of_its_literals_in_order():
    rng = random.Random(47)
    cnf = CNF()
    for i in range(1, 8):
        cnf.var(f"x{i}")
    clauses = [[rng.choice((1, -1)) * rng.randint(1, 7) for _ in range(size)] for size in (0, 1, 1, 2, 2, 3, 3, 4, 9)]
    for clause in clauses:
        cnf.add(clause)

    def literal(x: int) -> str:
        return f"x{x}" if x > 0 else f"(not x{-x})"

    expected = [f"(declare-fun x{i} () Bool)" for i in range(1, 8)]
    for clause in clauses:
        if not clause:
            expected.append("(assert false)")
        elif len(clause) == 1:
            expected.append(f"(assert {literal(clause[0])})")
        else:
            expected.append("(assert (or " + " ".join(literal(x) for x in clause) + "))")
    assert list(cnf.smt2_lines()) == expected


def test_when_each_is_when_for_each_pair_in_order():
    one, many = CNF(), CNF()
    a, conditions, thens = 5, [1, -2, 3], [4, 6, -7]
    for c, then in zip(conditions, thens):
        one.when([a, c], then)
    many.when_each(a, conditions, thens)
    assert many.clauses == one.clauses == [[-5, -1, 4], [-5, 2, 6], [-5, -3, -7]]
