"""A claim a shared question refuted cube by cube is proved the same way: one LRAT proof of the whole
query joined from its cubes' parts (each cube's proof weakened by the cube, then one lemma per inner
node of the tree), which a checker verifies against the query alone, so the tree's coverage is
checked too and nothing of the joining is trusted. Checked here by smtpuzzles.trusted.lrat and by
cake_lpr, the verified checker, where it can be built."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from test_outside_checker import LRAT_STAND_IN, built_cake_lpr, run_check_script, stand_in
from test_sharing_audit import forged, shared_run, tree_steps  # noqa: F401 - fixtures
from smtpuzzles.proofs import proof as proofs
from smtpuzzles.proofs.splits import by_tree
from smtpuzzles.trusted.dimacs import Dimacs, ProofError, dimacs_of
from smtpuzzles.trusted.lrat import check_lrat


def pigeons(n: int) -> tuple[int, list[list[int]]]:
    """n + 1 pigeons in n holes: every pigeon in a hole, no two in one (unsatisfiable)."""
    var = {(p, h): 1 + p * n + h for p in range(n + 1) for h in range(n)}
    clauses = [[var[p, h] for h in range(n)] for p in range(n + 1)]
    clauses += [[-var[p, h], -var[q, h]] for h in range(n) for p, q in itertools.combinations(range(n + 1), 2)]
    return len(var), clauses


def models(nvars: int, clauses: list[list[int]]) -> int:
    return sum(all(any((x > 0) == bits[abs(x) - 1] for x in c) for c in clauses)
               for bits in itertools.product((False, True), repeat=nvars))


def random_tree(rng: random.Random, variables: list[int], depth: int) -> tuple[list[int], list[int]]:
    """(preorder tree, its variables by number): a complete tree, each path splitting distinct variables."""
    chosen: list[int] = []
    tree: list[int] = []

    def grow(free: list[int], left: int) -> None:
        if not left or not free or rng.random() < 0.3:
            tree.append(0)
            return
        v = rng.choice(free)
        if v not in chosen:
            chosen.append(v)
        tree.append(chosen.index(v) + 1)
        rest = [x for x in free if x != v]
        grow(rest, left - 1)
        grow(rest, left - 1)

    grow(variables, depth)
    return tree, chosen


def test_the_pigeons_are_unsatisfiable_by_brute_force():
    nvars, clauses = pigeons(3)
    assert models(nvars, clauses) == 0


@pytest.mark.parametrize("seed", range(12))
def test_a_complete_tree_of_cubes_joins_into_a_proof_of_the_query_alone(seed, tmp_path):
    nvars, clauses = pigeons(3)
    query = dimacs_of(nvars, clauses)
    rng = random.Random(seed)
    tree, variables = random_tree(rng, list(range(1, nvars + 1)), 4)
    signed = [v if rng.random() < 0.5 else -v for v in variables]  # a split's "true" side may be a negative literal
    split = by_tree(tree, signed, nvars)
    assert len(split.cases) == tree.count(0)
    made = proofs.certify_query(query, split=split)
    assert made.lrat and f"in {tree.count(0)} parts" in made.solver
    assert check_lrat(nvars, clauses, made.lrat).ok
    cake = built_cake_lpr(tmp_path) if seed == 0 else None
    if cake is not None:  # the verified checker on the joined proof, against the query alone
        from smtpuzzles.proofs.external import ExternalChecker, check
        ok, line = check(ExternalChecker(str(cake)), query, made.lrat, 60)
        assert ok is True, line


@pytest.mark.parametrize("tree,variables", [
    ([1, 0], [1]),  # the false branch left out
    ([1, 2, 0, 0], [1, 2]),  # an inner node's false branch left out
    ([1, 2, 0, 0, 2, 0], [1, 2]),  # the last leaf missing
])
def test_a_tree_that_leaves_a_case_out_gives_no_proof(tree, variables):
    nvars, clauses = pigeons(3)
    with pytest.raises(ProofError, match="rejected"):
        proofs.certify_query(dimacs_of(nvars, clauses), split=by_tree(tree, variables, nvars))


def test_a_satisfiable_query_has_no_proof_by_any_tree():
    nvars, clauses = pigeons(3)
    clauses = clauses[1:]  # one pigeon free to fly: satisfiable
    assert models(nvars, clauses) > 0
    with pytest.raises(ProofError, match="satisfiable"):
        proofs.certify_query(dimacs_of(nvars, clauses), split=by_tree([1, 0, 0], [1], nvars))


def test_a_tree_naming_a_variable_the_query_lacks_is_refused():
    nvars, clauses = pigeons(2)
    with pytest.raises(ProofError, match="lacks"):
        by_tree([1, 0, 0], [nvars + 1], nvars)
    assert isinstance(dimacs_of(nvars, clauses), Dimacs)


def test_the_audit_proves_a_shared_claim_a_cube_at_a_time(shared_run, cli, tmp_path):  # noqa: F811
    """The 4x4 run whose closing claim was shared out: `audit --proof` proves it by the tree's
    cubes, and cake_lpr accepts every part; `--proof all` does the same for every shared step."""
    steps = [json.loads(line) for line in (shared_run / "steps.jsonl").read_text().splitlines()]
    closing, _ = tree_steps(steps)
    leaves = closing["tree"]["tree"].count(0)
    code, out, err = cli("audit", shared_run, "--proof", "--json")
    report = json.loads(out)
    proved = [f["text"] for f in report["findings"] if f["section"] == "proof"]
    assert code == 0 and report["verdict"] == "clean", err
    assert any(f"in {leaves} parts" in text for text in proved), proved
    cake = built_cake_lpr(tmp_path)
    if cake is not None:
        code, out, _ = cli("audit", shared_run, "--proof", "all", "--checker", cake, "--json")
        report = json.loads(out)
        texts = " ".join(f["text"] for f in report["findings"])
        assert code == 0 and report["verdict"] == "clean", texts
        assert f"the cases are the {leaves} leaves of the question's tree of cubes" in texts
        assert "shared questions, by an LRAT proof joined from their cubes' parts" in texts


def test_proofs_of_a_shared_claim_are_written_cube_by_cube_and_check_with_no_python(shared_run, cli, tmp_path):  # noqa: F811
    out = tmp_path / "proofs"
    code, _, err = cli("proofs", shared_run, "--out", out)
    assert code == 0, err
    readme = " ".join((out / "README.txt").read_text().split())  # wrapped to 80 columns
    assert "the leaves" in readme and "tree of cubes" in readme
    checker = built_cake_lpr(tmp_path) or stand_in(tmp_path, "lrat_stand_in", LRAT_STAND_IN)
    done = run_check_script(out, checker)
    assert done.returncode == 0 and done.stdout.strip().endswith("all proofs here verified"), done
    # One cube's proof broken: the script names it and fails.
    part = sorted((out / "encoder-parts").iterdir())[0]
    lines = part.read_bytes().splitlines()
    part.write_bytes(b"\n".join(lines[:-1]) + b"\n")
    done = run_check_script(out, checker)
    assert done.returncode == 1 and f"NOT VERIFIED: encoder-parts/{part.name}" in done.stdout


def test_certify_stores_one_proof_joined_from_the_cubes_that_the_verified_checker_takes_whole(
        shared_run, cli, tmp_path):  # noqa: F811
    """`certify` proves a shared claim by its tree too, and stores the joined proof: one LRAT proof
    of the query alone, so the checker that reads it needs no word of ours that the cubes cover."""
    import shutil

    folder = tmp_path / "run"
    shutil.copytree(shared_run, folder)
    leaves = tree_steps([json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()])[0]
    code, _, err = cli("certify", folder)
    assert code == 0, err
    stored = json.loads((folder / "run.json").read_text())["proof"]
    assert stored["solver"].endswith(f"in {leaves['tree']['tree'].count(0)} parts")
    checker = built_cake_lpr(tmp_path) or stand_in(tmp_path, "lrat_stand_in", LRAT_STAND_IN)
    code, out, _ = cli("audit", folder, "--proof", "--checker", checker, "--json")
    texts = [f["text"] for f in json.loads(out)["findings"] if f["section"] == "proof"]
    assert code == 0 and any("the same proof" in t and "s VERIFIED UNSAT" in t for t in texts), texts


def test_a_tree_of_more_leaves_than_a_proof_takes_in_parts_is_proved_whole(forged, cli):  # noqa: F811
    """A forged tree of 2,048 leaves passes the tree check (it is complete, and the claim true), but
    a part a leaf would cost a solver's start each (half a million: about a day): past TREE_PARTS
    the claim is proved as if there were no tree."""
    from smtpuzzles.auditing.derivations import TREE_PARTS

    folder, steps, rewrite = forged
    closing, _ = tree_steps(steps)
    depth = 11
    assert 2 ** depth > TREE_PARTS

    def complete(level: int) -> list[int]:
        return [0] if level == depth else [level + 1, *complete(level + 1), *complete(level + 1)]

    names = [f"v3_{k // 4}_{k % 4}" for k in range(depth)]
    tree = complete(0)
    rewrite(lambda _: closing["tree"].update(variables=names, tree=tree, results="u" * 2 ** depth,
                                             conflicts=[0] * 2 ** depth))
    code, out, err = cli("audit", folder, "--proof", "--checker", "none", "--json")
    report = json.loads(out)
    proved = [f["text"] for f in report["findings"] if f["section"] == "proof"]
    assert code == 0 and report["verdict"] == "clean", (report["findings"], err)
    assert not any("parts" in text for text in proved), proved
