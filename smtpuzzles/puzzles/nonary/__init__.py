"""The Nonary Game: how many of the nine players can escape.

Players 1..9 start in room 0. Each door [number, from, to] is one-way and can be passed once, by one
group of 3 to 5 players standing in its room whose numbers sum to the door's number modulo 9. Doors
numbered 9 lead to the exit (-1) and no other door does; whoever passes a 9 escapes.

This package is the puzzle's contract: the game and its referee (game.py), two encodings (chains.py,
positions.py), the plans that steer the solver (plans.py) and the solver-free certificate the audit
checks (second_search.py); the drawing (drawing.py) and the reference encoding (reference.py).
"""

from __future__ import annotations

from dataclasses import replace

from smtpuzzles.contract import InlineKey, examples_in
from smtpuzzles.errors import InputError
from smtpuzzles.encoding import Encoding
from smtpuzzles.puzzles import BUNDLED

# The reference encoding, written from the rules alone (reference.py: it imports nothing of this
# package, and no module here but this one imports it). Imported first, under another name: the
# hook `reference` below takes the package's name `reference` back from the submodule.
from . import reference as _rules

from .second_search import WORK_PER_POSITION, certificate  # noqa: F401 - the contract's hook and its budget
from .chains import CHAINS_VERSION, encode_chains  # noqa: F401
from .game import (EXIT, GROUPS, LIMITS, PLAYERS, START, Game, canonical, describe, escape_sets, from_canonical,  # noqa: F401
                   from_doors, load, referee, replay, room_components, value)
from .plans import all_out_plan, quick_plan  # noqa: F401
from .positions import POSITIONS_VERSION, Listing, encode_positions, explore  # noqa: F401

NAME = "nonary"
SUMMARY = "how many of nine players can escape a map of one-way numbered doors"
INLINE = (InlineKey("doors", list, "the door list itself: [[number, from, to], ...]"),)
# auto: `chains` when the quick plan gets all nine out, else `positions` when the game has at most
# LIMITS["positions"] positions, else `chains` (measured: the CDCL solver stalls on some small maps
# whose positions a search lists in a second, and wins by far on the large ones; see
# encodings/nonary.md).
ENCODINGS = ("auto", "chains", "positions")
DEFAULT_ENGINE = "sat"
MODES = ("optimise",)
AUTO_VERSION = 3  # raised with any change to the choice `auto` makes
# auto lists up to this many positions before anything else (since version 2), stopping at the
# first where all nine are out: either the listing is the whole answer, or a plan freeing all nine
# needs nothing refuted. Both are cheaper than the quick plan's 40 searches of 250 positions (90 ms
# on a 4-door seed map whose positions a listing takes in 0.4 ms) and than the chains formula (0.25
# to 1.8 s on the benchmark's 27- to 40-door maps that a memoised search settles in milliseconds).
# Past it, about 30 ms is all that the try costs a game.
FIRST_LISTING = 5_000
# Then the quick plan's first searches only (version 3): where it frees all nine it does so within
# them (the mixed set: 0 to 52 ms), and its 40 searches cost 0.15 to 0.42 s where it does not, which
# a listing up to the limit spends better (the known stall: 0.19 s for all 37,337 positions).
QUICK_PROBE = 4


def examples():
    """The seed's maps and more, in smtpuzzles/examples/nonary/ (package data), in the chains
    encoding: the exports show the rules as clauses (auto would list these small maps' positions
    instead)."""
    return examples_in(BUNDLED / NAME, load, "chains")


def encode(game: Game, encoding: str = "auto") -> Encoding:
    """`chains` (smtpuzzles.puzzles.nonary.chains), `positions` (.positions), or `auto`: positions
    for a game of at most FIRST_LISTING positions, or of the first plan found among them that frees
    all nine; else chains when the quick plan's first QUICK_PROBE searches get all nine out (nothing
    is left to refute); else positions for a game with at most LIMITS["positions"] of them, or of a
    plan freeing all nine found within as many; else chains. The choice depends on the game alone
    (the quick plan is seeded), so the audit makes the same one."""
    if encoding == "auto":
        listing = Listing(game, all_out=True)  # stopped at FIRST_LISTING, it goes on from there below
        graph = listing.upto(FIRST_LISTING)
        if graph is not None:  # every position, or the moves of a plan that frees all nine
            return encode_positions(game, graph, encoding, AUTO_VERSION)
        if value(game, quick_plan(game, restarts=QUICK_PROBE)) == len(PLAYERS):
            # all out: nothing to refute, and chains confirms the plan at once (the whole quick
            # plan, its guess, stops at the same search: the restarts are seeded alike)
            return replace(encode_chains(game, lambda: quick_plan(game)), name="auto", version=AUTO_VERSION)
        graph = listing.upto(LIMITS["positions"])
        if graph is not None:
            return encode_positions(game, graph, encoding, AUTO_VERSION)
        return replace(encode_chains(game, lambda: quick_plan(game)), name="auto", version=AUTO_VERSION)
    if encoding == "positions":
        graph = explore(game, LIMITS["positions"])
        if graph is None:
            raise InputError(f"over {LIMITS['positions']:,} positions or {LIMITS['moves'] / 1e6:g}M moves; use chains",
                             "--encoding")
        return encode_positions(game, graph, encoding, POSITIONS_VERSION)
    if encoding != "chains":
        raise InputError(f"unknown encoding {encoding!r} ({', '.join(ENCODINGS)})", "--encoding")
    return encode_chains(game, lambda: quick_plan(game))


def value_json(v) -> int:
    return v


def render(game: Game, solution: dict, proved=None):
    """The plan, one move a line, and where everyone stands after it. Rooms are listed only where
    someone stands (at most nine), not one column each, so the table fits 80 columns."""
    from rich.table import Table
    from rich.text import Text

    from smtpuzzles.render import WIDTH

    rooms = [START] + sorted({d[2] for d in game.doors} - {START, EXIT}, key=str) + [EXIT]
    table = Table(title=f"escape plan: {value(game, solution)} of 9 escape", show_lines=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column(Text("door [number] from→to"), overflow="fold")  # Text: no rich markup in labels
    table.add_column("group = sum", overflow="fold")
    table.add_column("room: players after the move", overflow="fold")

    def standing(where: dict) -> Text:
        out = Text()
        for room in rooms:
            players = "".join(str(p) for p in PLAYERS if where[p] == room)
            if players:
                if out:
                    out.append("  ")
                out.append(f"{'exit' if room == EXIT else room}: {players}", style="bold green" if room == EXIT else "")
        return out

    table.add_row("", "start", "", standing({p: START for p in PLAYERS}), style="dim")
    moves = solution["moves"]
    for i, where in replay(game, solution):
        d = moves[i]["door"]
        number, origin, target = game.doors[d]
        group = "+".join(map(str, moves[i]["players"]))
        table.add_row(str(i + 1), Text(f"#{d} [{number}] {origin}→{'exit' if target == EXIT else target}"),
                      f"{group} = {sum(moves[i]['players'])}", standing(where))
    if len(moves) == 0:
        table.caption = "nobody can pass a door"
    table.width = min(WIDTH, _table_width(table))
    return table


def draw(game: Game, solution: dict | None) -> str:
    """The plan as an SVG document, a table of moves (drawing.py)."""
    from . import drawing

    return drawing.draw(game, solution)


def _table_width(table) -> int:
    from smtpuzzles.render import content_width

    table.width = None
    return content_width(table)


def reference(instance, claim: dict) -> str:
    """The claim as a formula written from the rules alone (reference.py), which shares no code
    with `encode`: `certify` and `audit --proof` refute each closing claim on it too."""
    return _rules.reference(instance, claim).dimacs()


def reference_witness(instance, solution: dict) -> list[int]:
    """The literals of the reference formula that say a solution (smtpuzzles.auditing.witness holds
    the reference to the run's own solutions with them)."""
    return _rules.witness(instance, solution)
