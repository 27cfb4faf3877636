"""A hostile review of smtpuzzles.trusted.symmetry.check_formula and lemma_from_json: the proposals it found
that gave a false verdict, a traceback or quadratic work, each now refused or bounded."""

from __future__ import annotations

import pytest
from pysat.solvers import Solver

from smtpuzzles.trusted.symmetry import GROUP_LIMIT, closure, ladder, lemma_from_json


def sat(clauses) -> bool:
    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        return solver.solve()


def test_a_block_with_a_repeated_literal_gives_no_false_verdict():
    # Variables: y=1, z=2, aux 3, 4. The ladder of (y, y, z) is the multiset "at most one": y counts
    # twice, so it forces -y; the check keeps the block as frozenset {y, z} ("at most one of y, z"),
    # which the swap y<->z keeps. F = ladder & (y | z) is -y & z: SAT; C = (y) makes it UNSAT.
    clauses = ladder((1, 1, 2), (3, 4)) + [[1, 2]]
    proposal = {"generators": [[[1, 2], [2, 1]]], "blocks": [[[1, 1, 2], [3, 4]]],
                "breaking": [1], "covered": [1, 2], "summary": "y"}
    assert sat(clauses) and not sat(clauses + [proposal["breaking"]])
    assert lemma_from_json(proposal, 4) == "a block repeats a literal"


@pytest.mark.parametrize("field", ["generators", "blocks"])
@pytest.mark.parametrize("junk", [5, 2.5, True, -1])
def test_a_non_iterable_list_field_is_one_line_not_a_traceback(field, junk):
    # `data.get(field) or ()` lets any truthy non-iterable through to a for loop: TypeError.
    proposal = {"summary": "s", "breaking": [1], "covered": [1], field: junk}
    try:
        result = lemma_from_json(proposal, 4)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"lemma_from_json raised {exc!r} instead of returning a one-line problem")
    assert isinstance(result, str)


class CountingMap(dict):
    calls = 0

    def get(self, *args):
        CountingMap.calls += 1
        return super().get(*args)


def test_repeated_generators_cost_no_more_work():
    """lemma_from_json drops repeats and the identity, and refuses more than GROUP_LIMIT generators;
    closure's work is then bounded by the group's size times the generators' few."""
    proposal = {"summary": "s", "breaking": [1], "covered": [1], "generators": [[[1, 2], [2, 1]]] * 50 + [[]] * 10}
    lemma = lemma_from_json(proposal, 4)
    assert len(lemma.generators) == 1
    assert "more than" in lemma_from_json(dict(proposal, generators=[[]] * (GROUP_LIMIT + 1)), 4)


def test_closure_work_is_the_group_times_its_generators():
    # GROUP_LIMIT bounds the group, not the work: every element is multiplied by every listed
    # generator over the whole domain, so K copies of the identity ("[]" in the JSON, 3 bytes
    # each) next to one permutation of order 64 on D variables cost 64 * K * D steps
    # (D = 1024, K = 400: about 3 s for a 24 kB proposal; K = 10**5: tens of minutes).
    domain = 64
    cycle = CountingMap({v: v % domain + 1 for v in range(1, domain + 1)})
    copies = 1  # what lemma_from_json leaves of any number of copies
    CountingMap.calls = 0
    group = closure([cycle] + [CountingMap() for _ in range(copies)])
    assert group is not None and len(group) == GROUP_LIMIT
    # work proportional to distinct generators would be about 64 * 2 * 64 lookups
    assert CountingMap.calls <= 10 * GROUP_LIMIT * domain, f"{CountingMap.calls:,} lookups for a group of 64"
