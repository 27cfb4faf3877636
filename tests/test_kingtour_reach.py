"""An answer to one lexicographic question in two parts (puzzles/kingtour/reach.py): the Sudoku with
the tour's first steps, then a way through the cells left. Checked against brute force over every
Sudoku (4x4, each box shape) or every completion of a clued 6x6, and against a depth-first search
for the ways through; every answer it gives must pass the referee."""

from __future__ import annotations

import random
import time

import pytest

from brute_kingtour import best_overall, reachable, sudokus
from smtpuzzles.puzzles import kingtour
from smtpuzzles.puzzles.kingtour import encodings, reach

SOON = 60.0  # seconds no question here comes near


def later() -> float:
    return time.thread_time() + SOON


def order(board, answer):
    return sorted(board.cells, key=lambda cell: answer["tour"][cell[0]][cell[1]])


def readings(board, grids, count: int, seed: int) -> list[list[int]]:
    """Numbers some answers read: the snake's, and walks of random king moves that happen to
    cover the board, on grids brute force made."""
    rng = random.Random(seed)
    found = [kingtour.value(board, kingtour.snake_solution(board))]
    n = board.size
    while len(found) < count:
        grid = rng.choice(grids)
        cell, seen = rng.choice(board.cells), []
        while cell is not None:
            seen.append(cell)
            free = [x for x in board.neighbours(*cell) if x not in seen]
            cell = rng.choice(free) if free else None
        if len(seen) == n * n:
            found.append([grid[r][c] for r, c in seen])
    return found


def assert_answers(board, answer, prefix, at_least, starts):
    assert kingtour.referee(board, answer) == []
    digits = kingtour.value(board, answer)
    assert digits[:len(prefix)] == prefix and digits[len(prefix)] >= at_least
    assert order(board, answer)[0] in starts


def clued_6x6(seed: int, blanks: int):
    """A 6x6 board with 2x3 boxes whose clues leave a few completions, and every one of them."""
    rng = random.Random(seed)
    full = next(iter(sudokus(6, 2, 3)))
    empty = set(rng.sample([(r, c) for r in range(6) for c in range(6)], blanks))
    clues = [[0 if (r, c) in empty else full[r][c] for c in range(6)] for r in range(6)]
    text = "\n".join("".join(str(d) if d else "." for d in row) for row in clues)
    return kingtour.parse(6, "2x3", text), list(sudokus(6, 2, 3, clues))


CASES = [("4x4, 2x2 boxes", lambda: (kingtour.parse(4, "2x2", None), list(sudokus(4, 2, 2)))),
         ("4x4, 1x4 boxes", lambda: (kingtour.parse(4, "1x4", None), list(sudokus(4, 1, 4)))),
         ("4x4, 4x1 boxes", lambda: (kingtour.parse(4, "4x1", None), list(sudokus(4, 4, 1)))),
         ("6x6 clued", lambda: clued_6x6(1, 24))]


@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_an_answer_exists_exactly_when_brute_force_finds_one(name, make):
    """For prefixes of numbers some answers read (cut at every length), a slightly changed digit,
    and every digit asked next, from every cell and from the symmetry lemma's starts: `Reach`
    answers with a refereed answer that reads the prefix and at least the digit asked exactly when
    brute force finds one, and says None (never "unsure") when it finds none."""
    board, grids = make()
    assert 1 < len(grids)
    n = board.size
    lemma_starts = sorted({min([x] + [m[x] for m in encodings.board_symmetries(board)]) for x in board.cells})
    asked = found = 0
    for number in readings(board, grids, 3 if n == 4 else 2, seed=n):
        for length in range(0, n * n - 1, 2 if n == 4 else 6):
            prefixes = [number[:length]]
            if length:
                changed = number[:length]
                changed[-1] = changed[-1] % n + 1
                prefixes.append(changed)
            for prefix in prefixes:
                for starts in (board.cells, lemma_starts):
                    question = reach.Reach(board, prefix, starts)
                    try:
                        for at_least in range(1, n + 1):
                            answer = question.answer(at_least, later())
                            expected = reachable(grids, n, prefix, at_least, starts)
                            asked += 1
                            if expected:
                                found += 1
                                assert isinstance(answer, dict), (prefix, at_least, answer)
                                assert_answers(board, answer, prefix, at_least, starts)
                            else:
                                assert answer is None, (prefix, at_least)
                    finally:
                        question.close()
    assert 0 < found < asked  # both kinds of question were asked


def brute_way(board, left: set, end) -> bool:
    def cut_off(cell, seen) -> bool:  # a cell left out of reach: only saves time
        reached, todo = {cell}, [cell]
        while todo:
            for nxt in board.neighbours(*todo.pop()):
                if nxt in left and nxt not in seen and nxt not in reached:
                    reached.add(nxt)
                    todo.append(nxt)
        return len(reached) - 1 < len(left) - len(seen)

    def go(cell, seen):
        if len(seen) == len(left):
            return True
        if cut_off(cell, seen):
            return False
        for nxt in board.neighbours(*cell):
            if nxt in left and nxt not in seen:
                seen.add(nxt)
                if go(nxt, seen):
                    return True
                seen.discard(nxt)
        return False

    return go(end, set())


@pytest.mark.parametrize("size,rule", [(4, True), (5, True), (5, False)])
def test_a_way_through_exists_exactly_when_a_search_finds_one(monkeypatch, size, rule):
    """Random sets of cells left on small boards, and a random end: `way_through` gives a path of
    king moves from a neighbour of the end through each cell once exactly when depth-first search
    finds one (cycles cut as they appear never cut a path away), with Warnsdorff's rule first or,
    so that the cuts answer every case, without it."""
    if not rule:
        monkeypatch.setattr(reach, "probe", lambda *args: None)
    board = kingtour.parse(size, f"1x{size}", None)
    rng = random.Random(size)
    kinds = set()
    for _ in range(300):
        cells = board.cells
        end = rng.choice(cells)
        left = {x for x in cells if x != end and rng.random() < 0.7}
        path = reach.way_through(board, left, end, later())
        expected = brute_way(board, left, end)
        kinds.add(expected)
        if expected:
            assert sorted(path) == sorted(left)
            for a, b in zip([end] + path, path):
                assert b in board.neighbours(*a)
        else:
            assert path is None
    assert kinds == {True, False}


def walks(board, length: int, count: int, rng) -> list[list[tuple[int, int]]]:
    """Random first steps: king walks of `length` cells, none twice."""
    found = []
    while len(found) < count:
        walk = [rng.choice(board.cells)]
        while len(walk) < length:
            free = [x for x in board.neighbours(*walk[-1]) if x not in walk]
            if not free:
                break
            walk.append(rng.choice(free))
        if len(walk) == length:
            found.append(walk)
    return found


@pytest.mark.parametrize("size", [4, 5])
def test_an_obstacle_is_found_only_where_no_way_through_exists(size):
    """`obstacle` (cells left apart, two dead ends) against depth-first search: each it names has
    no way through; cells left apart are always found; and both kinds are met."""
    board = kingtour.parse(size, f"1x{size}", None)
    rng = random.Random(size)
    kinds = set()
    for _ in range(400):
        end = rng.choice(board.cells)
        left = {x for x in board.cells if x != end and rng.random() < 0.6}
        kind, cells = reach.obstacle(board, left, end)
        kinds.add(kind)
        if kind is not None:
            assert cells and cells <= left and not brute_way(board, left, end), (sorted(left), end, kind)
        assert (kind == "apart") == (bool(left) and not connected(board, left)), (sorted(left), end, kind)
    assert kinds == {None, "apart", "dead ends"}


def connected(board, cells: set) -> bool:
    reached, todo = set(), [min(cells)]
    while todo:
        cell = todo.pop()
        reached.add(cell)
        todo += [x for x in board.neighbours(*cell) if x in cells and x not in reached]
    return reached == cells


@pytest.mark.parametrize("size", [5, 6])
def test_an_exclusion_rules_out_only_first_steps_with_no_way_through(size):
    """The clauses `Reach.exclusions` adds for one first steps' obstacle speak of covered cells and
    the last step only, so they rule out others too: every first steps of the same length that
    falsify one must have no way through (depth-first search), and the first steps they were made
    for are among them. The others: random walks, and the same cells covered with each of them as
    the last step (the clauses hold for those too: a dead end next to the last step has one more way
    in)."""
    board = kingtour.parse(size, f"1x{size}", None)
    rng = random.Random(size)
    length = size * size // 2
    question = reach.Reach(board, [1] * (length - 1), board.cells)
    try:
        others = [(set(w), w[-1]) for w in walks(board, length, 150, rng)]
        kinds, ruled_out = set(), 0
        for walk in walks(board, length, 150, rng):
            left = set(board.cells) - set(walk)
            clauses = question.exclusions(left, walk[-1])
            kinds.add(reach.obstacle(board, left, walk[-1])[0])
            if not clauses:
                continue

            def falsified(covered, end) -> bool:  # some clause has every literal false for these first steps
                true = {question.covered[c] for c in covered} | {question.visit[length - 1, end[0], end[1]]}
                return any(all((lit > 0) != (abs(lit) in true) for lit in clause) for clause in clauses)

            assert falsified(set(walk), walk[-1])
            for covered, end in others + [(set(walk), cell) for cell in walk]:
                if falsified(covered, end):
                    ruled_out += 1
                    assert not brute_way(board, set(board.cells) - covered, end), (walk, sorted(covered), end)
        assert {"apart", "dead ends"} <= kinds and ruled_out > 0
    finally:
        question.close()


def test_each_raised_step_reads_the_largest_digit_brute_force_allows():
    """reach.improve from the snake: the digits before the focus are kept, and each step it went
    through reads the largest digit any answer with the digits before it reads there, so the whole
    number is the optimum brute force finds."""
    board = kingtour.parse(4, "2x2", None)
    grids = list(sudokus(4, 2, 2))
    snake = kingtour.snake_solution(board)
    for focus in (1, 3, 8):
        raised, stopped = reach.improve(board, snake, focus, board.cells, later())
        assert stopped == 16
        assert kingtour.referee(board, raised) == []
        digits = kingtour.value(board, raised)
        assert digits[:focus] == kingtour.value(board, snake)[:focus]
        for step in range(focus, 16):
            largest = max(k for k in range(1, 5) if reachable(grids, 4, digits[:step], k, board.cells))
            assert digits[step] == largest, (focus, step)
    assert kingtour.value(board, reach.improve(board, snake, 1, board.cells, later())[0]) == best_overall(4, 2, 2)


def test_every_part_stops_at_its_deadline():
    """Past the deadline each part says "timeout" at once, and improve() returns what it had and
    the step it stopped at, so a polish never holds up a proof."""
    board = kingtour.parse(9, "3x3", None)
    snake = kingtour.snake_solution(board)
    now = time.thread_time()
    question = reach.Reach(board, kingtour.value(board, snake)[:20], board.cells)
    try:
        assert question.answer(9, now) == "timeout"
    finally:
        question.close()
    assert reach.way_through(board, set(board.cells[1:]), board.cells[0], now) == "timeout"
    assert reach.raise_at(board, snake, 5, board.cells, now) == "timeout"
    assert reach.improve(board, snake, 5, board.cells, now) == (None, 5)
    assert time.thread_time() - now < 2


def test_a_ctrl_c_waiting_stops_every_part_as_its_deadline_would():
    """The driver holds the first Ctrl-C (or SIGTERM) until the next solver call; a polish or a
    second guess by reach must not keep the run going meanwhile (a 16x16 run took a minute and a
    half to stop)."""
    from smtpuzzles import engines

    board = kingtour.parse(9, "3x3", None)
    snake = kingtour.snake_solution(board)
    prefix = kingtour.value(board, snake)[:20]
    assert isinstance(reach.search(board, prefix, [1], [board.cells], later()), dict)  # answered, unstopped
    engines._ctrl_c.set()  # as the driver's handler leaves it
    try:
        assert engines.ctrl_c_pressed()
        assert reach.search(board, prefix, [1], [board.cells], later()) == "timeout"
        assert reach.improve(board, snake, 5, board.cells, later()) == (None, 5)
    finally:
        engines._ctrl_c.clear()


def test_first_steps_set_aside_undecided_make_the_answer_unsure(monkeypatch):
    """A way through that runs out of its own time sets its first steps aside; if no other first
    steps are left the question is "unsure", not "no answer", and raise_at goes on to smaller
    digits, finding none here."""
    board = kingtour.parse(4, "2x2", None)
    monkeypatch.setattr(reach, "way_through", lambda board, left, end, deadline: "timeout")
    question = reach.Reach(board, [4], board.cells)
    try:
        assert question.answer(1, later()) == "unsure"
        assert question.answer(4, later()) == "unsure"
    finally:
        question.close()
    assert reach.raise_at(board, kingtour.snake_solution(board), 1, board.cells, later()) is None


@pytest.mark.parametrize("size,box", [(4, "2x2"), (6, "2x3")])
def test_a_run_polished_by_reach_finds_the_optimum(cli, monkeypatch, size, box):
    """With the polish raising by `reach` from the first board size up (as on 14x14 and larger), a
    whole proof still ends on brute force's optimum (4x4) or the seed's (6x6), guided answers among
    its SAT steps."""
    from conftest import SEED_CASES
    import json
    from pathlib import Path

    monkeypatch.setattr(encodings, "REACH_FROM_CELLS", 16)
    result = cli.solve_json("kingtour", "--size", size, "--box", box)
    assert result["status"] == "optimal"
    if size == 4:
        assert [int(d) for d in result["value"]] == best_overall(4, 2, 2)
    else:
        assert result["value"].startswith(SEED_CASES["kingtour"]["best_prefix_6x6"])
    steps = [json.loads(line) for line in (Path(result["run_dir"]) / "steps.jsonl").read_text().splitlines()]
    assert any(s["result"] == "sat" and s.get("stats", {}).get("guided") for s in steps[1:])


def test_the_second_guess_answers_the_claim_asked_or_says_none(monkeypatch):
    """From REACH_FROM_CELLS up, a check undecided for 5 s asks the encoding for an answer to its
    own claim: for "position i can exceed d" after a prefix, literals of an answer that the engine
    then finds by propagation alone (a guided SAT answer that meets the claim) exactly when brute
    force finds one; None where it finds none and for other claims. Below it there is none."""
    from smtpuzzles.engines import make_engine
    from smtpuzzles.objectives import claim_terms

    board = kingtour.parse(4, "2x2", None)
    assert not kingtour.encode(board).advice.on("second_guess")
    monkeypatch.setattr(encodings, "REACH_FROM_CELLS", 16)
    encoding = kingtour.encode(board)
    assert encoding.advice.second_guess_each_check
    grids = list(sudokus(4, 2, 2))
    lemma_starts = sorted({min([x] + [m[x] for m in encodings.board_symmetries(board)]) for x in board.cells})
    engine = make_engine("sat", encoding.formula)
    seen = set()
    for number in readings(board, grids, 4, seed=3):
        for pos, change in [(2, 0), (5, 0), (9, 0), (5, 1), (9, 2)]:
            prefix = number[:pos]
            prefix[-1] = (prefix[-1] + change - 1) % 4 + 1
            for than in range(0, 4):
                claim = {"op": "exceed", "pos": pos, "prefix": prefix, "than": than}
                terms = encoding.advice.second_guess(None, claim)
                expected = reachable(grids, 4, prefix, than + 1, lemma_starts)
                seen.add(expected)
                if not expected:
                    assert terms is None, claim
                    continue
                engine.guide(lambda: terms)
                answer = engine.check(claim_terms(encoding.objective, claim), None)
                assert answer.status == "sat" and answer.stats.get("guided") == 1, claim
                solution = encoding.decode(answer.model)
                assert kingtour.referee(board, solution) == []
                digits = kingtour.value(board, solution)
                assert digits[:pos] == prefix and digits[pos] > than
    assert seen == {True, False}
    assert encoding.advice.second_guess(None, {"op": "beats", "best": [4] * 16}) is None


def warnsdorff_as_written(around, free, ways, end, tie):
    """The probe's rule spelt out, one cell at a time, for the fast one to be checked against."""
    free, ways, taken, p = bytearray(free), list(ways), [], end
    while True:
        moves = [q for q in around[p] if free[q]]
        if not moves:
            return taken if not any(free) else None
        p = min(moves, key=lambda q: (ways[q], tie(q)))
        free[p] = 0
        for u in around[p]:
            ways[u] -= 1
        taken.append(p)


@pytest.mark.parametrize("size", [4, 6, 8, 9, 10, 12])
def test_the_probe_finds_the_path_warnsdorff_s_rule_finds(size):
    """The probe (one number a move, kept up to date) takes the path the rule takes under its
    first tie-break that gets through, and leaves its arguments as they were."""
    board = kingtour.parse(size, None, None)
    ids = {cell: i for i, cell in enumerate(board.cells)}
    around = [[ids[x] for x in board.neighbours(*cell)] for cell in board.cells]
    side = size - 1
    edge = [min(r, c, side - r, side - c) for r, c in board.cells]
    ties = (lambda q: q, lambda q: -q, lambda q: (edge[q], q))
    rng, found = random.Random(size), 0
    for _ in range(300):
        free, ways = bytearray([1] * len(around)), [len(a) for a in around]
        p = rng.randrange(len(around))
        reach.take(around, free, ways, p)
        for _ in range(rng.randrange(len(around))):  # a random king walk, then a few holes
            moves = [q for q in around[p] if free[q]]
            if not moves:
                break
            p = rng.choice(moves)
            reach.take(around, free, ways, p)
        for q in rng.sample(range(len(around)), rng.randrange(3)):
            if free[q]:
                reach.take(around, free, ways, q)
        before = (bytes(free), list(ways))
        expected = next((path for path in (warnsdorff_as_written(around, free, ways, p, tie) for tie in ties)
                         if path is not None), None)
        assert reach.probe(around, free, ways, p) == expected
        assert (bytes(free), list(ways)) == before
        found += expected is not None
    assert found > 20  # the paths found were compared too, not only the failures
