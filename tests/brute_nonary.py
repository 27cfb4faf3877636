"""Brute-force reference for the Nonary Game (tests and benchmark only, never on the answer path):
a memoised search over where every player stands and which doors are left."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations


def most_escapees(doors: list) -> int:
    doors = [tuple(d) for d in doors]

    @lru_cache(maxsize=None)
    def best(where: tuple, left: tuple) -> int:
        escaped = sum(1 for room in where if room == -1)
        top = escaped
        tried = set()
        for i, door in enumerate(left):
            if door in tried:  # equal doors left: trying one is trying all
                continue
            tried.add(door)
            number, origin, target = door
            here = [p for p in range(1, 10) if where[p - 1] == origin]
            rest = left[:i] + left[i + 1:]
            for size in (3, 4, 5):
                for group in combinations(here, size):
                    if sum(group) % 9 == number % 9:
                        moved = tuple(target if p in group else where[p - 1] for p in range(1, 10))
                        top = max(top, best(moved, rest))
                        if top == 9:
                            return 9
        return top

    return best(tuple([0] * 9), tuple(sorted(doors, key=repr)))
