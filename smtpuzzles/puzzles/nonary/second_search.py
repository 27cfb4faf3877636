"""The solver-free certificate the audit checks (the contract's `certificate` hook): a second search for
the most players who can escape, by other code than the positions listing."""

from __future__ import annotations

from .game import EXIT, GROUPS, LIMITS, PLAYERS, START, Game, referee, value

WORK_PER_POSITION = 100  # the search may try 10 million groups in all; issue 17's stall needs 3 to 4 million


def certificate(game: Game, solution: dict) -> tuple[bool, str] | None:
    """Audit hook: a second, independent search for the most players who can escape, by other code
    than `explore` (room labels in tuples, memoised on who stands where and which doors are left,
    equal doors tried once), so a slip in either search shows as a disagreement. None where the
    search would pass LIMITS["positions"] positions or WORK_PER_POSITION groups tried for each (it
    gives up within seconds), and for a solution that breaks the rules, which the audit's models check
    reports."""
    if referee(game, solution):
        return None
    taken = value(game, solution)
    seen: dict = {}
    work = [WORK_PER_POSITION * LIMITS["positions"]]  # groups tried, at most
    doors = game.doors

    def most(where: tuple, left: int) -> int:
        key = (where, left)
        if key in seen:
            return seen[key]
        if len(seen) >= LIMITS["positions"] or work[0] <= 0:
            raise OverflowError
        best = where.count(EXIT)
        tried = set()
        for d in range(len(doors)):
            if not left >> d & 1 or doors[d] in tried:
                continue
            tried.add(doors[d])
            number, origin, target = doors[d]
            here = {p for p, room in zip(PLAYERS, where) if room == origin}
            if len(here) < 3:
                continue
            for group in GROUPS[number % 9]:
                if best == len(PLAYERS):
                    break
                work[0] -= 1
                if here.issuperset(group):
                    moved = tuple(target if p in group else room for p, room in zip(PLAYERS, where))
                    best = max(best, most(moved, left & ~(1 << d)))
                    if origin == target:  # back into its own room: any other group lands the same
                        break
        seen[key] = best
        return best

    try:
        found = most((START,) * len(PLAYERS), (1 << len(doors)) - 1)
    except OverflowError:
        return None
    if found != taken:
        return False, f"an independent search of {len(seen):,} positions finds {found} can escape, not {taken}"
    return True, f"an independent search of {len(seen):,} positions (who stands where, which doors are left) " \
                 f"finds at most {found} can escape"
