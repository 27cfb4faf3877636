"""The reference encodings (smtpuzzles/puzzles/<name>/reference.py), solved with python-sat and held against brute
force (never against the main encoders): optima, plan values and solution counts must agree, and
every decoded model must pass the puzzle's referee. The CNF helpers are checked on every assignment
of a few variables."""

from __future__ import annotations

from importlib import import_module
import ast
import itertools
import json
import random
import sys
from pathlib import Path

import pytest
from pysat.solvers import Solver

import brute_kingtour
import brute_tatamibari
from brute_nonary import most_escapees
from conftest import DATA, SEED_CASES
from smtpuzzles.puzzles import get, kingtour, nonary, tatamibari
from smtpuzzles.trusted import cnf

rules_kingtour = import_module("smtpuzzles.puzzles.kingtour.reference")  # not `from`: the package's `reference` is its hook
rules_nonary = import_module("smtpuzzles.puzzles.nonary.reference")  # not `from`: the package's `reference` is its hook
rules_tatamibari = import_module("smtpuzzles.puzzles.tatamibari.reference")  # not `from`: the package's `reference` is its hook


def solve(ref: cnf.Reference, assumptions=()):
    """A model (list of signed literals) or None when the formula is unsatisfiable."""
    with Solver(name="glucose4", bootstrap_with=ref.clauses) as solver:
        return solver.get_model() if solver.solve(assumptions=list(assumptions)) else None


def all_assignments(n: int):
    return itertools.product((False, True), repeat=n)


def literals(xs, bits):
    return [x if b else -x for x, b in zip(xs, bits)]


# ------------------------------------------------------------------------------------------ cnf.py
@pytest.mark.parametrize("n", range(0, 6))
def test_at_most_one_exactly_one_at_least_one(n):
    for helper, accepts in (("at_most_one", lambda k: k <= 1), ("exactly_one", lambda k: k == 1),
                            ("at_least_one", lambda k: k >= 1)):
        ref = cnf.Reference()
        xs = [ref.var(f"x{i}") for i in range(n)]
        getattr(ref, helper)(xs)
        assert ref.nvars == n  # no auxiliary variables
        for bits in all_assignments(n):
            assert (solve(ref, literals(xs, bits)) is not None) == accepts(sum(bits)), (helper, bits)


@pytest.mark.parametrize("n", range(6, 10))
def test_at_most_one_over_many_literals_is_a_ladder_that_allows_exactly_zero_or_one(n):
    """Past five literals at-most-one is a ladder of auxiliary steps: every assignment of the
    literals must extend to a model exactly when at most one holds (and exactly-one likewise)."""
    for helper, accepts in (("at_most_one", lambda k: k <= 1), ("exactly_one", lambda k: k == 1)):
        ref = cnf.Reference()
        xs = [ref.var(f"x{i}") for i in range(n)]
        getattr(ref, helper)(xs)
        assert ref.nvars == 2 * n - 1 and len(ref.clauses) < n * (n - 1) // 2 + 1  # steps, not pairs
        with Solver(name="glucose4", bootstrap_with=ref.clauses) as solver:
            for bits in all_assignments(n):
                assert solver.solve(assumptions=literals(xs, bits)) == accepts(sum(bits)), (helper, bits)


@pytest.mark.parametrize("n", range(0, 6))
def test_counter_defines_at_least_j_both_ways(n):
    ref = cnf.Reference()
    xs = [ref.var(f"x{i}") for i in range(n)]
    out = ref.count(xs, "c")
    assert len(out) == n + 1
    for bits in all_assignments(n):
        for j in range(n + 1):
            holds = sum(bits) >= j
            assert (solve(ref, literals(xs, bits) + [out[j]]) is not None) == holds, (bits, j)
            assert (solve(ref, literals(xs, bits) + [-out[j]]) is not None) == (not holds), (bits, j)


@pytest.mark.parametrize("n", range(0, 5))
def test_at_least_and_at_most(n):
    for k in range(-1, n + 2):
        for helper, accepts in (("at_least", lambda s: s >= k), ("at_most", lambda s: s <= k)):
            ref = cnf.Reference()
            xs = [ref.var(f"x{i}") for i in range(n)]
            getattr(ref, helper)(xs, k, "c")
            for bits in all_assignments(n):
                assert (solve(ref, literals(xs, bits)) is not None) == accepts(sum(bits)), (helper, k, bits)


def test_names_clauses_and_dimacs():
    ref = cnf.Reference()
    a, b = ref.var("a"), ref.var("b")
    assert (a, b) == (1, 2) and ref.names == {"a": 1, "b": 2}
    with pytest.raises(ValueError):
        ref.var("a")
    for bad in ([0], [3], [a, -3], [True]):
        with pytest.raises(ValueError):
            ref.add(bad)
    ref.add([a, -b])
    ref.exactly_one([a, b])
    lines = ref.dimacs().splitlines()
    assert lines[0] == f"p cnf 2 {len(ref.clauses)}" and len(lines) == 1 + len(ref.clauses)
    assert [[int(x) for x in line.split()] for line in lines[1:]] == [clause + [0] for clause in ref.clauses]
    assert cnf.true_vars([1, -2, 3]) == {1, 3} and cnf.true_vars({2}) == {2}


PUZZLES = Path(kingtour.__file__).resolve().parents[1]  # smtpuzzles/puzzles/
REFERENCES = sorted(PUZZLES.glob("*/reference.py"))


def imported(path: Path) -> list[tuple[int, str]]:
    """Every import of a module as (level, dotted name): `from . import x` is (1, "x"), `from .a import
    b` (1, "a.b"), `import a.b` (0, "a.b"), `from a import b` (0, "a.b")."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            out += [(node.level, f"{base}.{alias.name}".lstrip(".")) for alias in node.names]
        elif isinstance(node, ast.Import):
            out += [(0, alias.name) for alias in node.names]
    return out


def test_no_shared_code():
    """Each puzzle's reference encoding (puzzles/<name>/reference.py) imports nothing but the standard
    library and the trust base's CNF builder (smtpuzzles.trusted.cnf, which imports nothing of the
    project: tests/test_trust_base.py): not its own package's other modules, not formula.py, nor any
    module by a dynamic import."""
    assert {path.parent.name for path in REFERENCES} >= {"kingtour", "nonary", "tatamibari"}
    for path in REFERENCES:
        text = path.read_text()
        assert "__import__" not in text and "import_module" not in text and "importlib" not in text, path
        for level, name in imported(path):
            assert level == 0, (path, name)  # no relative import: the package's other modules are the encoder's
            assert name.split(".")[0] in sys.stdlib_module_names or name in (
                "smtpuzzles.trusted.cnf", "smtpuzzles.trusted.cnf.Reference", "smtpuzzles.trusted.cnf.true_vars"), \
                (path, name)


def test_brute_force_searches_import_only_the_standard_library():
    """The brute-force searches (puzzles/<name>/brute.py), which the crosscheck holds the solver to, are
    written from the rules alone like the references: standard library only, no solver, no encoder."""
    for path in sorted(PUZZLES.glob("*/brute.py")):
        for level, name in imported(path):
            assert level == 0 and name.split(".")[0] in sys.stdlib_module_names, (path, name)


def test_only_the_hook_imports_the_reference():
    """No module of a puzzle's package but its __init__.py (the `reference` hooks) imports reference.py,
    nor does the rest of smtpuzzles/: the encoder, its helpers and the symmetry proposal get the
    reference's numbering only as the hook hands it over."""
    for path in sorted(PUZZLES.parent.rglob("*.py")):
        if path.name == "reference.py" or path.name == "__init__.py" and path.parent.parent == PUZZLES:
            continue
        package = path.parent.name if path.parent.parent == PUZZLES else None
        for level, name in imported(path):
            parts = name.split(".")
            assert not (level == 1 and package and parts[0] == "reference"), (path, name)
            assert not (level > 1 and "reference" in parts), (path, name)
            assert not (level == 0 and parts[:2] == ["smtpuzzles", "puzzles"] and parts[3:4] == ["reference"]), \
                (path, name)
            assert "rules" not in parts[:3] or parts[:2] != ["smtpuzzles", "puzzles"], (path, name)  # the old folder


def test_the_hook_keeps_its_name():
    """`reference` on each puzzle package is the hook (a function), not the submodule reference.py: the
    package imports the submodule first, under another name, so a later import of it leaves the hook."""
    for path in REFERENCES:
        package = import_module(f"smtpuzzles.puzzles.{path.parent.name}")
        submodule = import_module(f"smtpuzzles.puzzles.{path.parent.name}.reference")
        assert callable(package.reference) and package.reference is not submodule, path
        assert callable(get(path.parent.name).reference), path


# ------------------------------------------------------------------------------------- King's tour
def kt_best_reading(grid) -> list[int]:
    """brute_kingtour.best_reading with two cuts that keep it exhaustive, fast enough for 6x6 grids:
    neighbours tried largest digit first, and a branch dropped once the unvisited cells cannot be
    one path from the current cell (not connected to it, or two of them with one way in)."""
    n = len(grid)
    cells = [(r, c) for r in range(n) for c in range(n)]
    near = {x: sorted((y for y in cells if max(abs(x[0] - y[0]), abs(x[1] - y[1])) == 1), key=lambda y: -grid[y[0]][y[1]])
            for x in cells}
    best: list[int] = []
    seq: list[int] = []
    seen: set = set()

    def can_finish(cur) -> bool:
        free = [x for x in cells if x not in seen]
        ends = 0
        for x in free:
            ways = sum(1 for y in near[x] if y not in seen or y == cur)
            ends += ways <= 1
            if ways == 0 or ends > 1:
                return False
        reach, stack = {cur}, [cur]
        while stack:
            for y in near[stack.pop()]:
                if y not in seen and y not in reach:
                    reach.add(y)
                    stack.append(y)
        return len(reach) == len(free) + 1

    def go(cur):
        nonlocal best
        if best and seq < best[:len(seq)]:
            return
        if len(seq) == n * n:
            best = max(best, seq[:])
            return
        if not can_finish(cur):
            return
        for y in near[cur]:
            if y not in seen:
                seen.add(y)
                seq.append(grid[y[0]][y[1]])
                go(y)
                seen.discard(y)
                seq.pop()

    for x in sorted(cells, key=lambda y: -grid[y[0]][y[1]]):
        seen.add(x)
        seq.append(grid[x[0]][x[1]])
        go(x)
        seen.discard(x)
        seq.pop()
    return best


def kt_sudokus(n: int, br: int, bc: int, clues):
    """Every Sudoku agreeing with the clues (rows of ints, 0 where empty)."""
    grid = [[0] * n for _ in range(n)]

    def ok(r, c, d):
        top, left = r - r % br, c - c % bc
        return d not in grid[r] and all(grid[i][c] != d for i in range(n)) and \
            all(grid[i][j] != d for i in range(top, top + br) for j in range(left, left + bc))

    def fill(k):
        if k == n * n:
            yield [row[:] for row in grid]
            return
        r, c = divmod(k, n)
        for d in [clues[r][c]] if clues[r][c] else range(1, n + 1):
            if ok(r, c, d):
                grid[r][c] = d
                yield from fill(k + 1)
                grid[r][c] = 0

    yield from fill(0)


def kt_brute_optimum(n, br, bc, clues):
    return max((kt_best_reading(g) for g in kt_sudokus(n, br, bc, clues)), default=None)


def kt_board(n: int, box: str, clues: dict | None = None):
    return kingtour.parse(n, box, None if clues is None else brute_kingtour.clue_text(n, clues))


def kt_solution(board, claim):
    model = solve(rules_kingtour.reference(board, claim))
    if model is None:
        return None
    solution = rules_kingtour.decode(board, model)
    assert kingtour.referee(board, solution) == [], solution
    return solution


def kt_optimum(board):
    """The best number, by claiming "greater than the last" on the reference until it is refuted."""
    best, claim = None, {"op": "first"}
    while (solution := kt_solution(board, claim)) is not None:
        number = kingtour.value(board, solution)
        assert best is None or number > best
        best, claim = number, {"op": "lex_greater", "best": number}
    return best


def just_below(number: list[int], n: int) -> list[int]:
    """The largest digit string of the same length below `number` (digits 1..n)."""
    i = max(i for i, d in enumerate(number) if d > 1)
    return number[:i] + [number[i] - 1] + [n] * (len(number) - i - 1)


def check_kt_optimum(board, expected):
    """The iterated optimum is the brute force's; "greater than it" is refuted; "greater than just
    below it" holds, and only the optimum itself is greater."""
    assert kt_optimum(board) == expected
    if expected is None:
        return
    assert kt_solution(board, {"op": "lex_greater", "best": expected}) is None
    if max(expected) == 1:
        return  # nothing is below 1...1
    below = kt_solution(board, {"op": "lex_greater", "best": just_below(expected, board.size)})
    assert kingtour.value(board, below) == expected


def test_fast_brute_force_agrees_with_brute_kingtour():
    """The pruned search of this file against the plain one of brute_kingtour: on a sample of 4x4
    Sudokus, and the best over all of them."""
    grids = list(brute_kingtour.sudokus(4, 2, 2))
    for grid in random.Random(5).sample(grids, 16):
        assert kt_best_reading(grid) == brute_kingtour.best_reading(grid), grid
    assert max(kt_best_reading(grid) for grid in grids) == brute_kingtour.best_overall(4, 2, 2)


@pytest.mark.parametrize("n,box", [(1, "1x1"), (2, "1x2"), (2, "2x1"), (3, "1x3"), (3, "3x1"), (4, "2x2"), (4, "1x4")])
def test_kingtour_small_empty_boards(n, box):
    br, bc = kingtour.parse_box(box, n)
    check_kt_optimum(kt_board(n, box), brute_kingtour.best_overall(n, br, bc))


KT_CLUES_4 = [{(0, 0): 1}, {(0, 0): 4, (3, 3): 4}, {(1, 1): 3, (2, 2): 4, (0, 3): 2}, {(0, 1): 4, (1, 0): 4},
              {(0, 0): 1, (0, 1): 1}, {(0, 0): 2, (1, 1): 2}, {(0, 0): 1, (3, 3): 2, (1, 2): 4}]


@pytest.mark.parametrize("clues", KT_CLUES_4, ids=[f"clues{i}" for i in range(len(KT_CLUES_4))])
def test_kingtour_4x4_with_clues(clues):
    grid = [[clues.get((r, c), 0) for c in range(4)] for r in range(4)]
    expected = brute_kingtour.best_with_clues(4, 2, 2, grid) or None
    check_kt_optimum(kt_board(4, "2x2", clues), expected)


def test_kingtour_4x4_unsolvable_clues():
    for clues in ({(0, 0): 1, (0, 1): 1}, {(0, 0): 2, (1, 1): 2}):
        assert kt_solution(kt_board(4, "2x2", clues), {"op": "first"}) is None


def test_kingtour_4x4_full_grids():
    """Every digit given: the tour alone is searched, against the best reading of that grid."""
    grids = list(brute_kingtour.sudokus(4, 2, 2))
    for grid in random.Random(4).sample(grids, 10):
        clues = {(r, c): grid[r][c] for r in range(4) for c in range(4)}
        check_kt_optimum(kt_board(4, "2x2", clues), kt_best_reading(grid))


def kt_random_clues(n, br, bc, seed, blanks):
    """A random Sudoku (the first one, digits, bands and stacks shuffled) with `blanks` cells emptied."""
    rng = random.Random(seed)
    grid = next(iter(brute_kingtour.sudokus(n, br, bc)))
    names = list(range(1, n + 1))
    rng.shuffle(names)
    bands = [b for b in range(n // br)]
    rng.shuffle(bands)
    rows = [grid[b * br + i] for b in bands for i in range(br)]
    cells = [(r, c) for r in range(n) for c in range(n)]
    given = set(rng.sample(cells, n * n - blanks))
    return {(r, c): names[rows[r][c] - 1] for r, c in given}


# (box, seed): clue sets of 14 digits whose 3 or 4 completions the brute force searches in well
# under a second (on some grids it takes minutes: its cuts help little when many tours tie for long).
@pytest.mark.parametrize("box,seed", [("2x3", 2), ("3x2", 4)])
def test_kingtour_6x6_with_clues(box, seed):
    br, bc = kingtour.parse_box(box, 6)
    clues = kt_random_clues(6, br, bc, seed, blanks=22)
    grid = [[clues.get((r, c), 0) for c in range(6)] for r in range(6)]
    assert len(list(kt_sudokus(6, br, bc, grid))) >= 3
    expected = kt_brute_optimum(6, br, bc, grid)
    check_kt_optimum(kt_board(6, box, clues), expected)


def test_kingtour_6x6_seed_example():
    """The seed's 6x6 grid as clues: its tour is one the reference allows, and the best tour over
    that grid beats it (the seed found one starting 65656446556)."""
    example = SEED_CASES["kingtour"]["example_6x6"]
    clues = {(r, c): int(ch) for r, row in enumerate(example["grid"]) for c, ch in enumerate(row)}
    board = kt_board(6, example["box"], clues)
    expected = kt_best_reading([[int(ch) for ch in row] for row in example["grid"]])
    assert expected[:11] == [6, 5, 6, 5, 6, 4, 4, 6, 5, 5, 6]
    check_kt_optimum(board, expected)
    seed = {"grid": [[int(ch) for ch in row] for row in example["grid"]], "tour": example["tour"]}
    seed_number = [int(ch) for ch in example["number"]]
    assert kingtour.value(board, seed) == seed_number
    for claim, holds in (({"op": "first"}, True), ({"op": "lex_greater", "best": just_below(seed_number, 6)}, True),
                         ({"op": "lex_greater", "best": seed_number}, False)):
        ref = rules_kingtour.reference(board, claim)
        assert (solve(ref, kt_literals(ref, seed)) is not None) == holds, claim


def kt_literals(ref, solution) -> list[int]:
    """A solution's digits and visits as assumptions on the reference's variables (by name)."""
    names, n = ref.names, len(solution["grid"])
    return [names[f"digit r{r} c{c} = {solution['grid'][r][c]}"] for r in range(n) for c in range(n)] + \
        [names[f"step {solution['tour'][r][c] - 1} at r{r} c{c}"] for r in range(n) for c in range(n)]


def test_kingtour_9x9_record_is_a_model():
    """The 9x9 record satisfies the rules, and beats the number just below it (no search: the
    assumptions fix every digit and visit)."""
    record = SEED_CASES["kingtour"]["record_9x9"]
    board = kt_board(9, record["box"])
    solution = {"grid": [[int(ch) for ch in row] for row in record["grid"]], "tour": record["tour"]}
    number = [int(ch) for ch in record["number"]]
    assert kingtour.referee(board, solution) == [] and kingtour.value(board, solution) == number
    below = rules_kingtour.reference(board, {"op": "lex_greater", "best": just_below(number, 9)})
    model = solve(below, kt_literals(below, solution))
    assert model is not None and rules_kingtour.decode(board, model) == solution
    at = rules_kingtour.reference(board, {"op": "lex_greater", "best": number})
    assert solve(at, kt_literals(at, solution)) is None


@pytest.mark.parametrize("box", ["2x3", "3x2"])
def test_kingtour_6x6_empty_best_prefix(box):
    """The seed states 666655546 as the best first nine digits of an empty 6x6 (2x3 boxes; 3x2 is
    its transpose): nothing starts higher, and something starts with it."""
    board = kt_board(6, box)
    prefix = [int(ch) for ch in SEED_CASES["kingtour"]["best_prefix_6x6"]]
    assert kt_solution(board, {"op": "lex_greater", "best": prefix + [6] * 27}) is None
    found = kt_solution(board, {"op": "lex_greater", "best": prefix + [1] * 27})
    assert kingtour.value(board, found)[:9] == prefix


def test_kingtour_claims_checked():
    board = kt_board(4, "2x2")
    for claim in ({"op": "at_least", "k": 3}, {"op": "lex_greater", "best": [4] * 15}, {}):
        with pytest.raises((ValueError, KeyError)):
            rules_kingtour.reference(board, claim)
    # the claim's variables come after the rules', so decode reads any claim's model
    plain = rules_kingtour.reference(board, {"op": "first"})
    claimed = rules_kingtour.reference(board, {"op": "lex_greater", "best": [1] * 16})
    assert all(claimed.names[name] == v for name, v in plain.names.items())
    assert claimed.clauses[:len(plain.clauses)] == plain.clauses


# ------------------------------------------------------------------------------------------ Nonary
def nonary_game(doors):
    return nonary.load(json.dumps(doors), "test", {})


def check_nonary(doors, expected: int, ks=range(0, 11)):
    """"At least k" holds exactly for k up to the brute-force maximum (for each k of `ks`, or only
    the maximum and one more); its plans pass the referee and get at least k out."""
    game = nonary_game(doors)
    for k in ks or (expected, expected + 1):
        model = solve(rules_nonary.reference(game, {"op": "at_least", "k": k}))
        assert (model is not None) == (k <= expected), (doors, k)
        if model is not None:
            plan = rules_nonary.decode(game, model)
            assert nonary.referee(game, plan) == [], (doors, plan)
            assert k <= nonary.value(game, plan) <= expected
    plan = rules_nonary.decode(game, solve(rules_nonary.reference(game, {"op": "first"})))
    assert nonary.referee(game, plan) == []


@pytest.mark.parametrize("case", range(len(SEED_CASES["nonary"])))
def test_nonary_seed_cases(case):
    doors, answer = SEED_CASES["nonary"][case]["doors"], SEED_CASES["nonary"][case]["answer"]
    assert most_escapees(doors) == answer
    check_nonary(doors, answer, ks=range(0, answer + 2))


def random_map(rng: random.Random) -> list:
    """2 to 4 rooms (labels mixed: ints and strings), 2 to 6 doors, doors back and forth and to the exit."""
    labels = [0] + rng.sample([1, 2, "hall", "b", 7], rng.randint(1, 3))
    out, size = [[9, rng.choice(labels), -1]], rng.randint(2, 6)
    while len(out) < size:
        origin = rng.choice(labels)
        if rng.random() < 0.3:
            out.append([9, origin, -1])
        else:
            out.append([rng.randint(1, 8), origin, rng.choice([x for x in labels if x != origin])])
    rng.shuffle(out)
    return out


def test_nonary_random_maps():
    rng = random.Random(9)
    values = []
    for _ in range(36):
        doors = random_map(rng)
        values.append(most_escapees(doors))
        check_nonary(doors, values[-1], ks=None)
    assert len(set(values)) >= 4  # the sample reaches several different answers


# Two-room maps whose plans must walk a cycle (0 -> 1 -> 0 ...), in order.
NONARY_CYCLES = [
    [[6, 0, 1], [9, 0, -1], [9, 1, -1], [6, 1, 0], [8, 0, 1], [9, 1, -1], [8, 1, 0]],
    [[9, 0, -1], [9, 1, -1], [7, 0, 1], [4, 0, 1], [1, 1, 0], [1, 1, 0]],
    [[3, 0, 1], [9, 1, -1], [6, 1, 0], [3, 0, 1]],
    [[1, 0, 1], [2, 1, 0], [3, 0, 1], [4, 1, 0], [9, 0, -1]],
    [[5, 1, 2], [9, 0, -1], [5, 0, 1], [9, 2, -1]],
]


@pytest.mark.parametrize("doors", NONARY_CYCLES, ids=[f"cycle{i}" for i in range(len(NONARY_CYCLES))])
def test_nonary_cycles(doors):
    check_nonary(doors, most_escapees(doors), ks=None)


def test_nonary_order_matters():
    """A door out of room 1 is only usable after the group got there: the plan's order is the rules'."""
    doors = [[9, 1, -1], [3, 0, 1]]  # players 1+2+9 = 12 = 3 mod 9 go to room 1, then 0 mod 9 out
    game = nonary_game(doors)
    best = most_escapees(doors)
    plan = rules_nonary.decode(game, solve(rules_nonary.reference(game, {"op": "at_least", "k": best})))
    assert [m["door"] for m in plan["moves"]] == [1, 0] and nonary.referee(game, plan) == []
    assert nonary.value(game, plan) == best == 4


def test_nonary_claims_checked():
    game = nonary_game([[9, 0, -1]])
    for claim in ({"op": "lex_greater", "best": []}, {"op": "at_least", "k": True}, {"op": "at_least"}, {}):
        with pytest.raises(ValueError):
            rules_nonary.reference(game, claim)


# -------------------------------------------------------------------------------------- Tatamibari
def tt_board(rows):
    return tatamibari.load("\n".join(rows), "test", {})


tt_rects = brute_tatamibari.rectangles


def tt_all_solutions(board, limit=500) -> list[dict]:
    """Every solution, by blocking each one found until the reference is refuted."""
    found: list[dict] = []
    while len(found) < limit:
        model = solve(rules_tatamibari.reference(board, {"op": "block", "solutions": found}))
        if model is None:
            break
        solution = rules_tatamibari.decode(board, model)
        assert tatamibari.referee(board, solution) == [], solution
        assert tt_rects(solution["regions"]) not in {tt_rects(s["regions"]) for s in found}
        found.append(solution)
    return found


def check_tatamibari(rows, limit=500):
    board = tt_board(rows)
    expected = set(brute_tatamibari.solutions(list(board.rows), limit + 1))
    assert len(expected) <= limit, "board too loose for the test"
    found = tt_all_solutions(board, limit + 1)
    assert {tt_rects(s["regions"]) for s in found} == expected, rows
    assert (solve(rules_tatamibari.reference(board, {"op": "first"})) is None) == (not expected)
    return len(expected)


def test_brute_tatamibari_on_the_seeds():
    """The brute force finds each seed's printed solution, and alone where the seed says "Solution:"."""
    for case in SEED_CASES["tatamibari"]:
        rows = [row.replace("*", ".") for row in case["puzzle"]]
        found = brute_tatamibari.solutions(rows)
        assert tt_rects(case["solution"]) in found
        if case["puzzle"] in (["|-*", "*+|", "*-*"], ["+***", "**|*", "*+**", "***-"]):
            assert len(found) == 1


@pytest.mark.parametrize("case", range(len(SEED_CASES["tatamibari"])))
def test_tatamibari_seed_cases(case):
    check_tatamibari(SEED_CASES["tatamibari"][case]["puzzle"])


def test_tatamibari_published_puzzles():
    """Ten janko.at puzzles: each has one solution, the published one."""
    for puzzle in json.loads((DATA / "tatamibari_janko_sample.json").read_text())["puzzles"]:
        board = tt_board(puzzle["puzzle"])
        found = tt_all_solutions(board)
        assert [tt_rects(s["regions"]) for s in found] == [tt_rects(puzzle["solution"])], puzzle["name"]


def tt_random_rows(rng: random.Random, h: int, w: int) -> list[str]:
    return ["".join(rng.choice("????+-|") if rng.random() < 0.4 else "*" for _ in range(w)) for _ in range(h)]


def test_tatamibari_random_boards():
    rng = random.Random(3)
    counts = []
    for i in range(48):
        h, w = 3 + i % 3, 3 + (i // 3) % 3
        counts.append(check_tatamibari(tt_random_rows(rng, h, w)))
    assert counts.count(0) >= 5 and sum(1 for c in counts if c > 1) >= 5, counts  # unsolvable and loose boards both met


TINY = [(["?"], 1), (["*"], 0), (["+"], 1), (["-"], 0), (["*?*"], 1), (["?", "?"], 1), (["??", "??"], 0),
        (["**", "*+"], 1), (["-*"], 1), (["|*"], 0), (["|", "*"], 1), (["++", "++"], 0), (["?*?", "*?*", "?*?"], 18),
        (["??*", "*??", "?*?"], 4), (["*-*", "*|*"], 0)]


@pytest.mark.parametrize("rows,count", TINY, ids=["/".join(rows) for rows, _ in TINY])
def test_tatamibari_tiny_boards(rows, count):
    assert check_tatamibari(rows) == count


def test_tatamibari_block_ignores_region_ids():
    """A solution blocked under other region ids is blocked; a grid that is no partition into
    allowed rectangles blocks nothing."""
    case = SEED_CASES["tatamibari"][1]
    board = tt_board(case["puzzle"])
    relabelled = [[10 * int(ch) + 3 for ch in row] for row in case["solution"]]
    assert solve(rules_tatamibari.reference(board, {"op": "block", "solutions": [{"regions": relabelled}]})) is None
    not_rectangles = [[1, 1, 2, 2], [1, 2, 2, 2], [3, 3, 2, 2], [3, 3, 4, 4]]
    model = solve(rules_tatamibari.reference(board, {"op": "block", "solutions": [{"regions": not_rectangles}]}))
    assert tt_rects(rules_tatamibari.decode(board, model)["regions"]) == tt_rects(case["solution"])
    with pytest.raises(ValueError):
        rules_tatamibari.reference(board, {"op": "block", "solutions": [{"regions": [[1]]}]})
    with pytest.raises(ValueError):
        rules_tatamibari.reference(board, {"op": "unique"})
