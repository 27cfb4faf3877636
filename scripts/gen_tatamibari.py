"""Seeded random Tatamibari puzzles of any size (for the benchmark): a brick layout of bands whose
vertical cuts never line up with the band above, so no four rectangles meet at a corner, then one
clue of the right shape at a random cell of every rectangle."""

from __future__ import annotations

import random


def random_puzzle(height: int, width: int, seed: int) -> str:
    rng = random.Random(seed)
    grid = [["*"] * width for _ in range(height)]
    top, previous_cuts = 0, set()
    while top < height:
        band = min(rng.randint(1, 4), height - top)
        cuts, left = set(), 0
        while left < width:
            size = min(rng.randint(1, 5), width - left)
            while left + size < width and left + size in previous_cuts:
                size += 1  # a cut where the band above has one would make four corners meet
            right = left + size
            r = top + rng.randrange(band)
            c = left + rng.randrange(size)
            grid[r][c] = "+" if band == size else ("|" if band > size else "-")
            if right < width:
                cuts.add(right)
            left = right
        previous_cuts, top = cuts, top + band
    return "\n".join("".join(row) for row in grid) + "\n"
