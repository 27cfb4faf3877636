"""Seeded random Nonary Game maps for the benchmark and tests."""

from __future__ import annotations

import random


def random_game(seed: int, rooms: int, doors: int, nine_share: float = 0.2) -> list[list[int]]:
    """`rooms` rooms 0..rooms-1 besides the exit, `doors` doors, at least one of them a 9."""
    rng = random.Random(seed)
    out = []
    for i in range(doors):
        origin = rng.randrange(rooms)
        if i == 0 or rng.random() < nine_share:
            out.append([9, origin, -1])
        else:
            target = rng.choice([r for r in range(rooms) if r != origin] or [origin])
            out.append([rng.randint(1, 8), origin, target])
    rng.shuffle(out)
    return out
