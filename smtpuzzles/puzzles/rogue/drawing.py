"""A Rogue map as an SVG drawing: walls, monsters and the cells next to them, the rogue's start and
the end of its walk, the walk as one line, and the gold: taken as filled discs, left as hollow rings,
so the two differ in shape, not only in colour. A legend says which is which and counts them.

Geometry: cell (r, c) spans `cell_size(dungeon)` units from (MARGIN + c * size, MARGIN + r * size);
cells shrink with the map (a 1000 x 1000 map is drawn 2 units a cell). Walls and shaded cells are
drawn as one path of row runs each, so the document grows with the runs, not the cells.
"""

from __future__ import annotations

from typing import Callable

from smtpuzzles.drawing import INK, MONO, Drawing, number, text_width
from smtpuzzles.puzzles.rogue import dungeon as rogue, walks  # the rules; the face imports this drawing

MARGIN = 16
LARGEST_CELL, SMALLEST_CELL, MAP_UNITS = 28, 2, 960
FLOOR, WALL, DANGER, MONSTER = "#f4f1ea", "#4d535e", "#f5cfc8", "#c0392b"
GOLD, GOLD_EDGE, ROGUE_GREEN, WALK = "#f0b400", "#7a5800", "#1e8449", "#2471a3"
LEGEND_ROW, LEGEND_SIZE = 22, 13


def cell_size(dungeon: rogue.Dungeon) -> int:
    """Units a cell: as large as fits MAP_UNITS across the longer side, within the two bounds."""
    return max(SMALLEST_CELL, min(LARGEST_CELL, MAP_UNITS // max(dungeon.width, dungeon.height, 1)))


def draw(dungeon: rogue.Dungeon, solution: dict | None) -> str:
    """The map, with the solution's walk and gold taken when there is one (None: the map alone)."""
    size = cell_size(dungeon)
    walk = walks.walk_of(dungeon, solution)[0] if solution else [dungeon.start]
    taken = set(walk) & set(dungeon.gold)
    entries = _legend(size, solution is not None, len(taken), len(dungeon.gold) - len(taken), len(walk) - 1)
    map_w, map_h = dungeon.width * size, dungeon.height * size
    width = max(map_w, max(LEGEND_ROW + 6 + text_width(words, LEGEND_SIZE) for _, words in entries)) + 2 * MARGIN
    height = map_h + 2 * MARGIN + 10 + len(entries) * LEGEND_ROW
    drawing = Drawing(width, height, title=f"smtpuzzles rogue: {rogue.describe(dungeon)}")
    drawing.rect(MARGIN, MARGIN, map_w, map_h, fill=FLOOR, class_="floor")
    drawing.path(_runs(dungeon, size, _is_danger(dungeon)), fill=DANGER, class_="danger")
    drawing.path(_runs(dungeon, size, lambda r, c, ch: ch == "#"), fill=WALL, class_="walls")
    _monsters(drawing, dungeon, size)
    drawing.rect(MARGIN, MARGIN, map_w, map_h, fill="none", stroke=INK, stroke_width=1.5, class_="frame")
    if solution and len(walk) > 1:
        drawing.polyline([_centre(p, size) for p in walk], stroke=WALK, stroke_width=max(1.0, size * 0.2),
                         stroke_linejoin="round", stroke_linecap="round", stroke_opacity=0.85, class_="walk")
    _gold(drawing, dungeon.gold, taken, size)
    _start(drawing, _centre(dungeon.start, size), size)
    if solution:
        _end(drawing, _centre(walk[-1], size), size)
    drawing.legend(MARGIN, map_h + MARGIN + 10, entries, row=LEGEND_ROW, size=LEGEND_SIZE)
    return drawing.document()


def _centre(p: tuple[int, int], size: float) -> tuple[float, float]:
    return MARGIN + (p[1] + 0.5) * size, MARGIN + (p[0] + 0.5) * size


def _is_danger(dungeon: rogue.Dungeon) -> Callable[[int, int, str], bool]:
    """Walkable cells next to a monster (a step between two of them next to the same one wakes it)."""
    near, index = dungeon.grid.near, dungeon.grid.index
    return lambda r, c, ch: ch in rogue.WALKABLE and bool(near[index((r, c))])


def _runs(dungeon: rogue.Dungeon, size: float, marked: Callable[[int, int, str], bool]) -> str:
    """Path data covering the marked cells, one rectangle a run of them along a row."""
    parts = []
    for r, row in enumerate(dungeon.rows):
        c = 0
        while c < len(row):
            if not marked(r, c, row[c]):
                c += 1
                continue
            start = c
            while c < len(row) and marked(r, c, row[c]):
                c += 1
            x, y, run = MARGIN + start * size, MARGIN + r * size, (c - start) * size
            parts.append(f"M{number(x)} {number(y)}h{number(run)}v{number(size)}h{number(-run)}z")
    return "".join(parts)


def _monsters(drawing: Drawing, dungeon: rogue.Dungeon, size: float) -> None:
    """Monsters as red squares, with their letter on them where the cells are large enough to read."""
    cells = [(r, c, ch) for r, row in enumerate(dungeon.rows) for c, ch in enumerate(row) if rogue.MONSTER.fullmatch(ch)]
    drawing.path(_runs(dungeon, size, lambda r, c, ch: bool(rogue.MONSTER.fullmatch(ch))), fill=MONSTER, class_="monsters")
    if size >= 12:
        with drawing.group(class_="monster-letters", font_size=size * 0.7, font_family=MONO, font_weight="bold",
                           text_anchor="middle", fill="#ffffff"):
            for r, c, ch in cells:
                x, y = _centre((r, c), size)
                drawing.text(x, y + size * 0.25, ch)


def _gold(drawing: Drawing, gold: list, taken: set, size: float) -> None:
    radius = max(0.8, size * 0.3)
    with drawing.group(class_="gold-taken", fill=GOLD, stroke=GOLD_EDGE, stroke_width=max(0.4, size * 0.06)):
        for p in gold:
            if p in taken:
                drawing.circle(*_centre(p, size), radius)
    with drawing.group(class_="gold-left", fill="none", stroke=GOLD_EDGE, stroke_width=max(0.5, size * 0.1)):
        for p in gold:
            if p not in taken:
                drawing.circle(*_centre(p, size), radius * 0.85)


def _start(drawing: Drawing, at: tuple[float, float], size: float) -> None:
    x, y = at
    half = max(size * 0.42, 5)  # findable on a map of small cells
    drawing.rect(x - half, y - half, 2 * half, 2 * half, fill=ROGUE_GREEN, class_="start")
    if size >= 12:
        drawing.text(x, y + size * 0.25, "@", font_size=size * 0.7, font_family=MONO, font_weight="bold",
                     text_anchor="middle", fill="#ffffff")


def _end(drawing: Drawing, at: tuple[float, float], size: float) -> None:
    """A hollow diamond round the cell the walk ends on (often a gold cell, which stays visible)."""
    x, y = at
    reach = max(size * 0.62, 8)
    points = [(x, y - reach), (x + reach, y), (x, y + reach), (x - reach, y)]
    drawing.element("polygon", points=" ".join(f"{number(a)},{number(b)}" for a, b in points), fill="none",
                    stroke=ROGUE_GREEN, stroke_width=max(1.5, size * 0.1), class_="end")


def _legend(size: float, solved: bool, taken: int, left: int, steps: int) -> list:
    """(marker, words) rows for the legend; the markers are drawn at legend size, not the map's."""
    s = 16

    def square(fill: str) -> Callable[[Drawing, float, float], None]:
        return lambda d, x, y: d.rect(x - s / 2, y - s / 2, s, s, fill=fill)

    def start(d, x, y):
        _start(d, (x, y), s)

    def disc(d, x, y):
        d.circle(x, y, s * 0.3, fill=GOLD, stroke=GOLD_EDGE, stroke_width=1)

    def ring(d, x, y):
        d.circle(x, y, s * 0.26, fill="none", stroke=GOLD_EDGE, stroke_width=1.6)

    rows = [(start, "@ the rogue's start")]
    if solved:
        rows += [(lambda d, x, y: _end(d, (x, y), s), "where the walk ends"),
                 (lambda d, x, y: d.line(x - 8, y, x + 8, y, stroke=WALK, stroke_width=3.5, stroke_linecap="round"),
                  f"the walk, {steps} steps")]
        rows.append((disc, f"gold taken: {taken}"))
    rows += [(ring, f"gold left: {left}" if solved else f"gold: {left}"), (square(WALL), "wall"), (square(MONSTER), "monster"),
             (square(DANGER), "next to a monster (never two turns running)")]
    return rows
