"""Seeded random dungeon maps for the Roguelike benchmark and tests."""

from __future__ import annotations

import random


def random_map(height: int, width: int, seed: int, walls: float = 0.2, monsters: float = 0.03, gold: float = 0.05) -> str:
    rng = random.Random(seed)
    grid = [[" "] * width for _ in range(height)]
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ*&"
    for r in range(height):
        for c in range(width):
            x = rng.random()
            if x < walls:
                grid[r][c] = "#"
            elif x < walls + monsters:
                grid[r][c] = rng.choice(letters)
            elif x < walls + monsters + gold:
                grid[r][c] = "$"
            else:
                grid[r][c] = "."
    # The start: a cell no monster is next to (cleared around if need be).
    r, c = rng.randrange(height), rng.randrange(width)
    for a in range(max(0, r - 1), min(height, r + 2)):
        for b in range(max(0, c - 1), min(width, c + 2)):
            for a2 in range(max(0, a - 1), min(height, a + 2)):
                for b2 in range(max(0, b - 1), min(width, b + 2)):
                    if grid[a2][b2] not in "#$. ":
                        grid[a2][b2] = "."
    grid[r][c] = "@"
    return "\n".join("".join(row) for row in grid) + "\n"
