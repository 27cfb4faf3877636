"""A forged Rogue walk of millions of keys (a run folder's solution.json is anyone's data) is refused
by the referee in bounded memory and time: the step-by-step referee, which words what fails, stops
at the first few problems (callers show at most three) and never lists the walk's cells or a message
a bad step. Its words are the first of what the whole walk breaks, in walk order."""

from __future__ import annotations

import time
import tracemalloc

from smtpuzzles.puzzles import rogue
from smtpuzzles.puzzles.rogue import walks
from test_rogue import EXAMPLES

MB = 1 << 20


def dungeon_08() -> rogue.Dungeon:
    # @#.d#$ / $...## / e..... / ..$... / ##..$b / .#..g$ : @ at [0, 0], walls below [1, 0].
    return rogue.load((EXAMPLES / "08.txt").read_text(), "08.txt", {})


def refereed(dungeon: rogue.Dungeon, solution: dict) -> tuple[list[str], float, float]:
    """(problems, seconds, peak MB traced) of one referee call."""
    tracemalloc.start()
    try:
        start = time.perf_counter()
        problems = rogue.referee(dungeon, solution)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()
    return problems, seconds, peak


def test_a_forged_walk_of_six_million_bad_steps_is_refused_in_little_memory_and_time():
    """The audit's reproduction: 6,000,000 keys '2' from @ on 08.txt, off the map from the second
    step on. It took 1.46 GB and 17 s to refuse (a cell list and one message for each bad step)."""
    dungeon = dungeon_08()
    solution = {"moves": "2" * 6_000_000}
    problems, seconds, peak = refereed(dungeon, solution)
    assert peak < 50, f"refereeing a 6 MB walk peaked at {peak:.0f} MB"
    assert seconds < 5, f"refereeing a 6 MB walk took {seconds:.1f} s"
    assert problems == [
        "step 2 enters [2, 0], which is not an empty or gold cell",
        "step 4 enters [4, 0], which is not an empty or gold cell",
        "step 6 enters [6, 0], which is not an empty or gold cell",
    ]
    assert rogue.certificate(dungeon, solution) == (False, "no closed set recorded")


def test_a_long_walk_that_breaks_a_rule_only_at_its_end_is_read_a_step_at_a_time():
    """A million allowed steps back and forth, then one off the map: the fast check refuses it and
    the step-by-step referee reads the whole walk for the words, without a list of its cells."""
    dungeon = dungeon_08()
    solution = {"moves": "28" * 500_000 + "8"}
    problems, seconds, peak = refereed(dungeon, solution)
    assert problems == ["step 1000001 enters [-1, 0], which is not an empty or gold cell"]
    assert peak < 20, f"refereeing a 1 MB walk peaked at {peak:.0f} MB"
    assert seconds < 30
    assert rogue.value(dungeon, solution) == 1  # the gold at [1, 0], counted without a list either


def test_the_referee_words_the_first_three_problems_in_walk_order_then_the_closed_set():
    dungeon = dungeon_08()
    rows = ["100000", "100000", "000000", "000000", "000000", "000000"]  # @ and the gold below: not closed
    unclosed = walks.check_closed(dungeon, {"closed_rows": rows})[1]
    assert unclosed and unclosed.startswith("the closed set is not closed")
    # Many bad steps: the first three, nothing after.
    many = rogue.referee(dungeon, {"moves": "2222222", "closed_rows": rows})
    assert many == [f"step {i} enters [{i}, 0], which is not an empty or gold cell" for i in (2, 4, 6)]
    # Fewer than three: all of them, then what is wrong with the closed set.
    two = rogue.referee(dungeon, {"moves": "222", "closed_rows": rows})
    assert two == ["step 2 enters [2, 0], which is not an empty or gold cell", unclosed]
    # The path form is worded by the same loop.
    path = [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0]]
    assert rogue.referee(dungeon, {"path": path}) == many
    # A clean walk with a bad set: the set's problem alone (the fast path).
    assert rogue.referee(dungeon, {"moves": "28", "closed_rows": rows}) == [unclosed]
    assert walks._every_problem(dungeon, {"moves": "28", "closed_rows": rows}) == [unclosed]


def test_the_replay_of_a_long_clean_walk_takes_its_gold_across_stretches():
    """The all-at-once check replays a walk a stretch at a time: a walk longer than several
    stretches, clean, still counts each gold cell once, and one bad step past the first stretch
    still fails it."""
    dungeon = dungeon_08()
    long = "28" * (3 * walks.STRETCH // 2 + 1)
    walk = walks.Replayed(dungeon, long)
    assert walk.clean and walk.gold == 1
    for at in (walks.STRETCH - 1, walks.STRETCH, walks.STRETCH + 1, len(long) - 1):
        broken = long[:at] + "7" + long[at + 1:]
        assert not walks.Replayed(dungeon, broken).clean, at
        assert walks._every_problem(dungeon, {"moves": broken}) != [], at
    assert walks.Replayed(dungeon, "").clean and walks.Replayed(dungeon, "").gold == 0
