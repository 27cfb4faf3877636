"""Tatamibari: partition the grid into rectangles, each holding exactly one clue; `+` in a square,
`|` in a rectangle taller than wide, `-` in one wider than tall, `?` in any; no four rectangles meet
at one corner.

Input: a text grid (`+ - | ?` clues; `*`, `.` or `_` empty) or a puzz.link / pzv.jp URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

from smtpuzzles.contract import InlineKey, examples_in, whole
from smtpuzzles.errors import InputError
from smtpuzzles.formula import CNF, TRUE, Formula, any_of, lit
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import Satisfy
from smtpuzzles.puzzles import BUNDLED

NAME = "tatamibari"
SUMMARY = "a partition of the grid into rectangles, one clue each, no four meeting at a corner"
INLINE = (InlineKey("grid", str, "the text grid itself"), InlineKey("url", str, "a puzz.link or pzv.jp URL"))
CONVERTS = "text grid <-> puzz.link URL"
ENCODINGS = ("spans", "rectangles")
DEFAULT_ENGINE = "sat"
MODES = ("solve", "unique", "count")
ACCEPTS_URLS = True  # `solve` and `convert` take a puzz.link / pzv.jp address where a file would go
CLUES = "+-|?"
EMPTY = "*._"
REGION_CHARS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
URL = re.compile(r"^https?://(?:puzz\.link/p|pzv\.jp/p(?:\.html)?)\?tatamibari/(\d+)/(\d+)/([0-9a-z.]*)/?$", re.IGNORECASE)
URL_CLUE = {"1": "|", "2": "-", "3": "+", ".": "?"}
# The `rectangles` encoding's memory follows the cells of all candidate rectangles (1.7 million on a
# generated 100x100, 0.83 GB; one clue amid 20x20 empty cells already has 1.3 million, 0.44 GB), so
# both are bounded at load, whichever encoding is asked for (`spans` on that 100x100: 0.18 GB).
LIMITS = {"cells": 10_000, "rectangle_cells": 2_000_000}


@dataclass(frozen=True)
class Board:
    rows: tuple[str, ...]  # one character per cell: a clue or '.'

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @cached_property
    def clues(self) -> list[tuple[int, int, str]]:
        return [(r, c, ch) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch in CLUES]

    @cached_property
    def _prefix(self) -> list[list[int]]:
        h, w = self.height, self.width
        table = [[0] * (w + 1) for _ in range(h + 1)]
        for r in range(h):
            for c in range(w):
                table[r + 1][c + 1] = table[r][c + 1] + table[r + 1][c] - table[r][c] + (self.rows[r][c] in CLUES)
        return table

    def clues_in(self, top: int, left: int, bottom: int, right: int) -> int:
        t = self._prefix
        return t[bottom + 1][right + 1] - t[top][right + 1] - t[bottom + 1][left] + t[top][left]


def shape_fits(clue: str, height: int, width: int) -> bool:
    return clue == "?" or (clue == "+" and height == width) or (clue == "|" and height > width) \
        or (clue == "-" and width > height)


# --------------------------------------------------------------------------------------------- parse
def load(text: str | None, source: str, options: dict) -> Board:
    if text is None:
        raise InputError("a puzzle is needed (a text grid or a puzz.link URL)", "input")
    stripped = text.strip()
    if stripped.lower().startswith(("http://", "https://")):
        return from_url(stripped, source)
    return from_text(text, source)


def _check_cells(height: int, width: int, source: str) -> None:
    if height * width > LIMITS["cells"]:
        raise InputError(f"a {width}x{height} grid has {height * width} cells, more than the {LIMITS['cells']} accepted", source)


def check_limits(board: Board, source: str) -> Board:
    """Refuses a board whose candidate rectangles would make the formula too large, before encoding."""
    _check_cells(board.height, board.width, source)
    total = 0
    for cr, cc, clue in board.clues:
        for top, bottom, first, last in row_spans(board, cr, cc):
            total += candidate_cells(clue, cc, bottom - top + 1, first, last)
            if total > LIMITS["rectangle_cells"]:
                raise InputError(f"the clues allow rectangles covering more than {LIMITS['rectangle_cells']} cells "
                                 "in all (too few clues for the grid); refused", source)
    return board


def from_text(text: str, source: str = "input") -> Board:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    numbered = [(i + 1, line.strip()) for i, line in enumerate(lines) if line.strip()]
    if not numbered:
        raise InputError("the puzzle is empty", source)
    width = len(numbered[0][1])
    _check_cells(len(numbered), width, source)
    rows = []
    for number, line in numbered:
        if len(line) != width:
            raise InputError(f"{len(line)} cells where the first row has {width} (ragged grid)", f"{source} line {number}")
        for c, ch in enumerate(line):
            if ch not in CLUES and ch not in EMPTY:
                raise InputError(f"unknown symbol {ch!r} (clues + - | ?, empty * . _)", f"{source} line {number} column {c + 1}")
        rows.append("".join(ch if ch in CLUES else "." for ch in line))
    return check_limits(Board(tuple(rows)), source)


def from_url(url: str, source: str = "input") -> Board:
    match = URL.match(url)
    if not match:
        raise InputError("not a puzz.link tatamibari URL (https://puzz.link/p?tatamibari/COLS/ROWS/BODY)", source)
    if len(match.group(1)) > 6 or len(match.group(2)) > 6:  # no int() of a thousand digits
        raise InputError(f"a grid of {match.group(1)[:12]} by {match.group(2)[:12]} cells is far too large", source)
    cols, rows, body = int(match.group(1)), int(match.group(2)), match.group(3)
    if cols < 1 or rows < 1:
        raise InputError(f"a {cols}x{rows} grid is empty", source)
    _check_cells(rows, cols, source)  # before any cell is made
    cells: list[str] = []
    for i, ch in enumerate(body):
        if ch in URL_CLUE:
            cells.append(URL_CLUE[ch])
        elif "g" <= ch <= "z":
            cells.extend("." * (ord(ch) - ord("f")))
        else:
            raise InputError(f"character {ch!r} at position {i + 1} of the URL body is not a tatamibari code", source)
        if len(cells) > cols * rows:
            raise InputError(f"the URL body describes more than {cols}x{rows} cells (from position {i + 1} on)", source)
    cells.extend("." * (cols * rows - len(cells)))  # puzz.link may leave trailing empties out
    return check_limits(Board(tuple("".join(cells[r * cols:(r + 1) * cols]) for r in range(rows))), source)


def to_url(board: Board) -> str:
    body, run = [], 0
    reverse = {v: k for k, v in URL_CLUE.items()}
    for ch in "".join(board.rows):
        if ch == ".":
            run += 1
            if run == 20:
                body.append("z")
                run = 0
            continue
        if run:
            body.append(chr(ord("f") + run))
            run = 0
        body.append(reverse[ch])
    if run:
        body.append(chr(ord("f") + run))
    return f"https://puzz.link/p?tatamibari/{board.width}/{board.height}/{''.join(body)}"


def to_text(board: Board) -> str:
    return "\n".join(row.replace(".", "*") for row in board.rows) + "\n"


def convert(text: str, source: str) -> str:
    """URL in, text grid out; text grid in, URL out."""
    board = load(text, source, {})
    return to_text(board).rstrip("\n") if text.strip().startswith("http") else to_url(board)


def canonical(board: Board) -> dict:
    return {"grid": list(board.rows)}


def from_canonical(data: dict) -> Board:
    return from_text("\n".join(data["grid"]), "instance")


def examples():
    """The seed's puzzles, in smtpuzzles/examples/tatamibari/ (package data)."""
    return examples_in(BUNDLED / NAME, load, ENCODINGS[0])


# -------------------------------------------------------------------------------------------- encode
def rects_with_clue(board: Board) -> list[tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """Every rectangle (top, left, bottom, right) holding exactly one clue, of that clue's shape,
    with that clue's cell."""
    return list(candidate_rects(board))


def candidate_rects(board: Board) -> Iterator[tuple[tuple[int, int, int, int], tuple[int, int]]]:
    """rects_with_clue one at a time, grown outwards from each clue: rows up, then down, then
    columns left, then right (the rectangles encoding numbers its variables in this order)."""
    for cr, cc, clue in board.clues:
        for top, bottom, first, last in row_spans(board, cr, cc):
            for left in range(cc, first - 1, -1):
                for right in range(cc, last + 1):
                    if shape_fits(clue, bottom - top + 1, right - left + 1):
                        yield (top, left, bottom, right), (cr, cc)


def row_spans(board: Board, cr: int, cc: int) -> Iterator[tuple[int, int, int, int]]:
    """(top, bottom, first, last) for each run of rows top..bottom through the clue at (cr, cc)
    that holds no other clue in the clue's column: first..last are the columns a rectangle on those
    rows may stretch over before a second clue comes in. Tops go up from the clue, bottoms down."""
    for top in range(cr, -1, -1):
        if board.clues_in(top, cc, cr, cc) > 1:
            break
        first = last = cc
        while first > 0 and board.clues_in(top, first - 1, cr, cc) == 1:
            first -= 1
        while last + 1 < board.width and board.clues_in(top, cc, cr, last + 1) == 1:
            last += 1
        for bottom in range(cr, board.height):
            if board.clues_in(top, cc, bottom, cc) > 1:
                break
            while board.clues_in(top, first, bottom, cc) > 1:  # a lower bottom only narrows the run
                first += 1
            while board.clues_in(top, cc, bottom, last) > 1:
                last -= 1
            yield top, bottom, first, last


def fitting_widths(clue: str, height: int, room: int) -> range:
    """The widths the clue's shape allows a rectangle of this height within `room` columns."""
    if clue == "+":
        return range(height, height + 1) if height <= room else range(0)
    if clue == "|":
        return range(1, min(height - 1, room) + 1)
    if clue == "-":
        return range(height + 1, room + 1)
    return range(1, room + 1)


def candidate_cells(clue: str, cc: int, height: int, first: int, last: int) -> int:
    """The cells of all candidates of this height over columns first..last through column cc:
    each width the shape allows, times the places it fits over the clue's column."""
    return sum(height * width * (min(cc, last - width + 1) - max(first, cc - width + 1) + 1)
               for width in fitting_widths(clue, height, last - first + 1))


def rect_name(rect) -> str:
    return "q{}_{}_{}_{}".format(*rect)


def encode(board: Board, encoding: str = "spans") -> Encoding:
    """The formula of one of ENCODINGS (encodings/tatamibari.md says what each is and why)."""
    if encoding == "spans":
        return encode_spans(board)
    if encoding == "rectangles":
        return encode_rectangles(board)
    raise InputError(f"unknown encoding {encoding!r} ({', '.join(ENCODINGS)})", "--encoding")


def encode_rectangles(board: Board) -> Encoding:
    """One Boolean per candidate rectangle; exactly one covers each cell; at every interior grid
    point, not all four cells around it may be corners of their rectangles there (that is four
    rectangles meeting). Clauses are built straight into a CNF: large grids spend their time here."""
    h, w = board.height, board.width
    cnf = CNF()
    rects = [rect for rect, _ in rects_with_clue(board)]
    covering: list[list[list[int]]] = [[[] for _ in range(w)] for _ in range(h)]
    # corner[k][r][c]: the rectangle covering (r, c) has its corner k there (0 top-left, 1 top-right,
    # 2 bottom-left, 3 bottom-right): only rectangles force these flags, and the rule forbids them.
    corner = [[[0] * w for _ in range(h)] for _ in range(4)]

    def flag(k: int, r: int, c: int) -> int:
        if not corner[k][r][c]:
            corner[k][r][c] = cnf.var(f"k{k}_{r}_{c}")
        return corner[k][r][c]

    # claim[(r, c, clue)]: the cell belongs to a rectangle of that clue. Two rectangles of one clue
    # already exclude each other at the clue's own cell, so a cell only needs "at most one clue",
    # over the few clues that can reach it, instead of "at most one rectangle" over hundreds.
    claims: list[list[dict]] = [[{} for _ in range(w)] for _ in range(h)]
    for rect, clue in rects_with_clue(board):
        top, left, bottom, right = rect
        v = cnf.var(rect_name(rect))
        for r in range(top, bottom + 1):
            row = covering[r]
            for c in range(left, right + 1):
                row[c].append(v)
                owner = claims[r][c].get(clue)
                if owner is None:
                    owner = claims[r][c][clue] = cnf.var(f"c{r}_{c}_{clue[0]}_{clue[1]}")
                cnf.add([-v, owner])
        for k, (r, c) in enumerate(((top, left), (top, right), (bottom, left), (bottom, right))):
            cnf.add([-v, flag(k, r, c)])
    for r in range(h):
        for c in range(w):
            if not covering[r][c]:
                cnf.add([])  # no rectangle can cover this cell: no solution
            else:
                cnf.at_least_one(covering[r][c])
                cnf.at_most_one(list(claims[r][c].values()))
    for cr, cc, _ in board.clues:
        cnf.at_most_one(covering[cr][cc])
    for r in range(h - 1):
        for c in range(w - 1):
            around = (corner[3][r][c], corner[2][r][c + 1], corner[1][r + 1][c], corner[0][r + 1][c + 1])
            if all(around):
                cnf.add([-x for x in around])

    def decode(model) -> dict:
        chosen = [rect for rect in rects if model[rect_name(rect)]]
        return {"regions": regions_from_rects(h, w, chosen)}

    def block(solution: dict):
        return any_of([lit(rect_name(rect), False) for rect in rects_from_regions(solution["regions"])])

    return Encoding("rectangles", 2, Formula.from_cnf(cnf), Satisfy(block), decode, engines=("sat", "z3"))


# ------------------------------------------------------------------------------------ encode: spans
# Where a literal would stand, True and False stand for what holds in every solution or in none:
# a clue's rectangle always spans the clue's own row and column and holds its cell.
def _clause(cnf: CNF, *lits) -> None:
    """Add the clause over literals some of which may be True (the clause holds) or False (left out)."""
    if not any(x is True for x in lits):
        cnf.add([x for x in lits if x is not False])


def _not(x):
    return (not x) if isinstance(x, bool) else -x


@dataclass
class Spans:
    """One clue's rectangle as a row span and a column span, each a run of lines through the clue."""

    clue: tuple[int, int]
    shape: str
    rows: dict  # row -> literal "the rectangle spans this row", for the rows some candidate spans
    cols: dict  # column -> literal "the rectangle spans this column"
    reach: dict  # row -> (first, last): the columns some candidate covers in that row

    def rectangle(self, model, names: list[str]) -> tuple[int, int, int, int]:
        """(top, left, bottom, right) in a model: each span runs out from the clue while its literals hold."""
        def end(lits: dict, at: int, step: int) -> int:
            while at + step in lits and model[names[lits[at + step]]]:
                at += step
            return at

        (r, c) = self.clue
        return end(self.rows, r, -1), end(self.cols, c, -1), end(self.rows, r, 1), end(self.cols, c, 1)

    def is_rect(self, rect, names: list[str]) -> list[tuple[str, bool]] | None:
        """The literals (name, value) that all hold exactly when this clue's rectangle is `rect`:
        each side's line spanned, the line past it not, where that is not settled anyway; None when
        the rectangle can never be this clue's."""
        top, left, bottom, right = rect
        found = []
        for lits, side, past in ((self.rows, top, top - 1), (self.rows, bottom, bottom + 1),
                                 (self.cols, left, left - 1), (self.cols, right, right + 1)):
            for line, value in ((side, True), (past, False)):
                x = lits.get(line, False)
                if isinstance(x, bool):
                    if x is not value:
                        return None
                else:
                    found.append((names[x], value))
        return found


def clue_spans(board: Board, cnf: CNF) -> dict:
    """Each clue's Spans, from its candidate rectangles (one clue inside, of its shape): a rectangle
    spans only lines some candidate spans and covers only cells some candidate covers."""
    out = {}
    for cr, cc, shape in board.clues:
        reach: dict = {}  # row -> the columns some candidate covers there
        for top, bottom, first, last in row_spans(board, cr, cc):
            widths = fitting_widths(shape, bottom - top + 1, last - first + 1)
            if widths:  # the widest candidates on these rows cover what any narrower one does
                left, right = max(first, cc - widths[-1] + 1), min(last, cc + widths[-1] - 1)
                for r in range(top, bottom + 1):
                    was = reach.get(r, (left, right))
                    reach[r] = (min(was[0], left), max(was[1], right))
        rows = {r: True if r == cr else cnf.var(f"y{cr}_{cc}_{r}") for r in sorted(set(reach) | {cr})}
        first = min((f for f, _ in reach.values()), default=cc)
        last = max((l for _, l in reach.values()), default=cc)
        columns = {c: True if c == cc else cnf.var(f"x{cr}_{cc}_{c}") for c in range(first, last + 1)}
        out[(cr, cc)] = Spans((cr, cc), shape, rows, columns, reach)
    return out


def contiguous(cnf: CNF, lits: dict, centre: int) -> None:
    """A span is a run through the clue: a line spanned means every line between it and the clue is."""
    for i, x in lits.items():
        nearer = i + 1 if i < centre else i - 1
        if abs(i - centre) > 1:
            cnf.add([-x, lits[nearer]])


class SpanLength:
    """Literals "the span is at least k lines long" (k >= 2) over one of a clue's spans, each tied to
    where the span starts and ends only in the directions a shape rule asks: `reached(k)` holds
    whenever the span is that long, `only_if(k)` makes it that long (asked both ways, one literal is
    tied both ways). Constants beyond the lengths the span can have."""

    def __init__(self, cnf: CNF, name: str, lits: dict, centre: int):
        self.cnf, self.name, self.lits, self.centre = cnf, name, lits, centre
        self.lo, self.hi = min(lits), max(lits)
        self.longest = self.hi - self.lo + 1
        self.made: dict = {}
        self.tied: set = set()

    def _starts_by(self, i):  # the span's first line is i or before
        return True if i >= self.centre else self.lits.get(i, False)

    def _ends_from(self, j):  # its last line is j or after
        return True if j <= self.centre else self.lits.get(j, False)

    def _literal(self, k: int, way: str):
        if k <= 1 or k > self.longest:
            return k <= 1
        if k not in self.made:
            self.made[k] = self.cnf.var(f"{self.name}{k}")
        g = self.made[k]
        if (k, way) not in self.tied:
            self.tied.add((k, way))
            for i in range(self.lo - 1, self.centre + 1):
                if way == "reached":  # from i to i+k-1 or beyond
                    _clause(self.cnf, _not(self._starts_by(i)), _not(self._ends_from(i + k - 1)), g)
                else:  # long enough and starting after i: it ends at i+k or after
                    _clause(self.cnf, -g, self._starts_by(i), self._ends_from(i + k))
        return g

    def reached(self, k: int):
        return self._literal(k, "reached")

    def only_if(self, k: int):
        return self._literal(k, "only_if")


def shape_rule(cnf: CNF, shape: str, tall: SpanLength, wide: SpanLength) -> None:
    """`+` as high as wide, `|` higher than wide, `-` wider than high, over the length literals."""
    if shape == "+":
        for k in range(2, tall.longest + 1):
            _clause(cnf, -tall.reached(k), wide.only_if(k))
        for k in range(2, wide.longest + 1):
            _clause(cnf, -wide.reached(k), tall.only_if(k))
    elif shape == "|":  # each width k it reaches, its height passes
        for k in range(1, wide.longest + 1):
            _clause(cnf, _not(wide.reached(k)), tall.only_if(k + 1))
    elif shape == "-":
        for k in range(1, tall.longest + 1):
            _clause(cnf, _not(tall.reached(k)), wide.only_if(k + 1))


def cell_name(cell: tuple[int, int], clue: tuple[int, int]) -> str:
    """The spans encoding's variable "this cell lies in that clue's rectangle"."""
    return "c{}_{}_{}_{}".format(*cell, *clue)


def cell_owners(board: Board, cnf: CNF, spans: dict) -> list[list[dict]]:
    """owners[r][c]: clue -> literal "the cell lies in that clue's rectangle", which holds exactly
    when the rectangle spans the cell's row and column. A cell no candidate of the clue covers is
    kept out of its rectangle."""
    owners: list[list[dict]] = [[{} for _ in range(board.width)] for _ in range(board.height)]
    for s in spans.values():
        for r, (first, last) in s.reach.items():
            for c in s.cols:
                inside = [x for x in (s.rows[r], s.cols[c]) if x is not True]
                if not first <= c <= last:
                    cnf.add([-x for x in inside])
                elif not inside:
                    owners[r][c][s.clue] = True
                else:
                    v = owners[r][c][s.clue] = cnf.var(cell_name((r, c), s.clue))
                    cnf.add([v] + [-x for x in inside])
                    for x in inside:
                        cnf.add([-v, x])
    return owners


def held_together(cnf: CNF, owners, a: tuple[int, int], b: tuple[int, int], name: str) -> list:
    """One literal per clue that may hold both neighbouring cells a and b: "its rectangle holds both"."""
    out = []
    for clue, x in owners[a[0]][a[1]].items():
        y = owners[b[0]][b[1]].get(clue)
        if y is None:
            continue
        if x is True or y is True:  # one of the two is the clue's cell
            out.append(y if x is True else x)
            continue
        both = cnf.var(f"{name}{a[0]}_{a[1]}_{clue[0]}_{clue[1]}")
        cnf.add([-both, x])
        cnf.add([-both, y])
        out.append(both)
    return out


def no_four_meet(cnf: CNF, board: Board, owners) -> None:
    """At every inner grid point one rectangle holds two of the four cells around it, side by side
    (with rectangles, that is the same as not four regions around it)."""
    h, w = board.height, board.width
    across = {(r, c): held_together(cnf, owners, (r, c), (r, c + 1), "eh") for r in range(h) for c in range(w - 1)}
    down = {(r, c): held_together(cnf, owners, (r, c), (r + 1, c), "ev") for r in range(h - 1) for c in range(w)}
    for r in range(h - 1):
        for c in range(w - 1):
            cnf.add(across[r, c] + across[r + 1, c] + down[r, c] + down[r, c + 1])


def encode_spans(board: Board) -> Encoding:
    """Each clue's rectangle as a row span and a column span through the clue; a cell lies in it
    when both its row and its column are spanned; exactly one rectangle holds each cell; the spans'
    lengths compare as the clue's shape says; no four rectangles meet at a point."""
    cnf = CNF()
    spans = clue_spans(board, cnf)
    for (cr, cc), s in spans.items():
        contiguous(cnf, s.rows, cr)
        contiguous(cnf, s.cols, cc)
        if s.shape != "?":
            tall, wide = SpanLength(cnf, f"h{cr}_{cc}_", s.rows, cr), SpanLength(cnf, f"w{cr}_{cc}_", s.cols, cc)
            shape_rule(cnf, s.shape, tall, wide)
    owners = cell_owners(board, cnf, spans)
    for row in owners:
        for claims in row:
            if True not in claims.values():  # a clue's own cell: no other clue's candidate reaches it
                cnf.exactly_one(list(claims.values()))  # a cell no candidate covers: the empty clause
    no_four_meet(cnf, board, owners)
    h, w = board.height, board.width

    def decode(model) -> dict:
        return {"regions": regions_from_rects(h, w, [s.rectangle(model, cnf.names) for s in spans.values()])}

    def block(solution: dict):
        """Some clue's rectangle is not the one its region spans in the solution: one of the literals
        that fix them fails. A solution no model can be (a region without a clue, or one no clue's
        rectangle can be) blocks nothing."""
        regions = solution["regions"]
        clue_in = {regions[r][c]: (r, c) for r, c, _ in board.clues}
        fixing = []
        for region, rect in region_boxes(regions).items():
            literals = spans[clue_in[region]].is_rect(rect, cnf.names) if region in clue_in else None
            if literals is None:
                return TRUE
            fixing += [lit(name, not value) for name, value in literals]
        return any_of(fixing)

    return Encoding("spans", 1, Formula.from_cnf(cnf), Satisfy(block), decode, engines=("sat", "z3"))



def regions_from_rects(h: int, w: int, rects) -> list[list[int]]:
    grid = [[0] * w for _ in range(h)]
    for top, left, bottom, right in rects:
        for r in range(top, bottom + 1):
            for c in range(left, right + 1):
                grid[r][c] = -1 - (top * w + left)  # temporary id, renumbered below
    return renumber(grid)


def renumber(grid) -> list[list[int]]:
    """Region ids 1, 2, ... in reading order of each region's first cell (the seed's numbering)."""
    ids: dict = {}
    return [[ids.setdefault(v, len(ids) + 1) for v in row] for row in grid]


def rects_from_regions(regions) -> list[tuple[int, int, int, int]]:
    return sorted(region_boxes(regions).values())


def region_boxes(regions) -> dict:
    """Each region id's bounding box (top, left, bottom, right): the region itself where it is a rectangle."""
    boxes: dict = {}
    for r, row in enumerate(regions):
        for c, v in enumerate(row):
            top, left, bottom, right = boxes.get(v, (r, c, r, c))
            boxes[v] = (min(top, r), min(left, c), max(bottom, r), max(right, c))
    return boxes


# ------------------------------------------------------------------------------------------- referee
def referee(board: Board, solution: dict) -> list[str]:
    regions = solution.get("regions")
    h, w = board.height, board.width
    if not isinstance(regions, list) or len(regions) != h or any(not isinstance(row, list) or len(row) != w for row in regions):
        return [f"regions is not a {h}x{w} grid"]
    problems = []
    cells: dict = {}
    for r in range(h):
        for c in range(w):
            if not whole(regions[r][c]):  # ids are indices: 1, 1.0 and true would be one region
                return [f"r{r + 1}c{c + 1}'s region {regions[r][c]!r} is not a whole-number id"]
            cells.setdefault(regions[r][c], []).append((r, c))
    for rid, members in cells.items():
        top, left, bottom, right = (min(m[0] for m in members), min(m[1] for m in members),
                                    max(m[0] for m in members), max(m[1] for m in members))
        if len(members) != (bottom - top + 1) * (right - left + 1):
            problems.append(f"region {rid} (from r{top + 1}c{left + 1}) is not a rectangle")
            continue
        clues = [(r, c) for r, c in members if board.rows[r][c] in CLUES]
        if len(clues) != 1:
            problems.append(f"region {rid} (r{top + 1}c{left + 1} to r{bottom + 1}c{right + 1}) holds {len(clues)} clues, not 1")
            continue
        clue = board.rows[clues[0][0]][clues[0][1]]
        if not shape_fits(clue, bottom - top + 1, right - left + 1):
            problems.append(f"region {rid} is {bottom - top + 1} tall and {right - left + 1} wide, wrong for its "
                            f"{clue!r} at r{clues[0][0] + 1}c{clues[0][1] + 1}")
    for r in range(h - 1):
        for c in range(w - 1):
            four = {regions[r][c], regions[r][c + 1], regions[r + 1][c], regions[r + 1][c + 1]}
            if len(four) == 4:
                problems.append(f"four regions meet at the corner below and right of r{r + 1}c{c + 1}")
    return problems


def value(board: Board, solution: dict) -> list[str]:
    """The solution as the seed prints it: one character per region."""
    grid = renumber(solution["regions"])
    return ["".join(REGION_CHARS[(v - 1) % len(REGION_CHARS)] for v in row) for row in grid]


def value_json(v):
    return v


def same_solution(board: Board, a: dict, b: dict) -> bool:
    return renumber(a["regions"]) == renumber(b["regions"])


def render(board: Board, solution: dict, proved=None):
    from rich.text import Text

    from smtpuzzles.render import WIDTH

    regions = solution["regions"]
    h, w = board.height, board.width
    palette = ["on #3b4f7a", "on #6b3b5e", "on #3d6b4a", "on #7a5a2e", "on #4a3d7a", "on #2e6b6b", "on #6b2e2e"]
    colour = _colouring(regions, len(palette))
    if 4 * w - 1 > WIDTH:
        # Too wide for ruled cells at 80 columns: regions told apart by colour alone, one or two
        # columns a cell; wider than 80 cells, rows are never broken (read the saved SVG).
        cell = 2 if 2 * w <= WIDTH else 1
        out = Text(no_wrap=True, overflow="ignore")
        for r in range(h):
            for c in range(w):
                ch = board.rows[r][c]
                out.append(f"{ch if ch != '.' else ' ':<{cell}}", style=f"bold white {palette[colour[regions[r][c]]]}")
            out.append("\n")
        return out
    out = Text()
    for r in range(h):
        for c in range(w):
            style = palette[colour[regions[r][c]]]
            ch = board.rows[r][c]
            out.append(f" {ch if ch != '.' else ' '} ", style=f"bold white {style}")
            if c + 1 < w:
                same = regions[r][c + 1] == regions[r][c]
                out.append(" " if same else "│", style=style if same else "bold white")
        out.append("\n")
        if r + 1 < h:
            for c in range(w):
                same = regions[r + 1][c] == regions[r][c]
                out.append("   " if same else "───", style=palette[colour[regions[r][c]]] if same else "bold white")
                if c + 1 < w:
                    a, b, d, e = regions[r][c], regions[r][c + 1], regions[r + 1][c], regions[r + 1][c + 1]
                    joint = JOINTS[(a != b, d != e, a != d, b != e)]
                    out.append(joint, style=palette[colour[a]] if joint == " " else "bold white")
            out.append("\n")
    return out


def draw(board: Board, solution: dict | None) -> str:
    """The board as an SVG document, each region a rectangle (smtpuzzles.puzzles.drawings.tatamibari)."""
    from smtpuzzles.puzzles.drawings import tatamibari as drawing

    return drawing.draw(board, solution)


# Box-drawing joint from which borders meet there: (up, down, left, right).
JOINTS = {
    (False, False, False, False): " ", (True, True, False, False): "│", (False, False, True, True): "─",
    (True, True, True, True): "┼", (True, False, True, True): "┴", (False, True, True, True): "┬",
    (True, True, True, False): "┤", (True, True, False, True): "├", (True, False, True, False): "┘",
    (True, False, False, True): "└", (False, True, True, False): "┐", (False, True, False, True): "┌",
    (True, False, False, False): "╵", (False, True, False, False): "╷", (False, False, True, False): "╴",
    (False, False, False, True): "╶",
}


def _colouring(regions, colours: int) -> dict:
    """Greedy colouring so that touching regions differ where the palette allows."""
    touching: dict = {}
    h, w = len(regions), len(regions[0])
    for r in range(h):
        for c in range(w):
            touching.setdefault(regions[r][c], set())
            for a, b in ((r + 1, c), (r, c + 1)):
                if a < h and b < w and regions[a][b] != regions[r][c]:
                    touching[regions[r][c]].add(regions[a][b])
                    touching.setdefault(regions[a][b], set()).add(regions[r][c])
    out: dict = {}
    for region in sorted(touching):
        taken = {out[o] for o in touching[region] if o in out}
        out[region] = next((k for k in range(colours) if k not in taken), region % colours)
    return out


def describe(board: Board) -> str:
    return f"{board.width}x{board.height}, {len(board.clues)} clues"


def reference(instance, claim: dict) -> str:
    """The claim as a formula written from the rules alone (smtpuzzles.puzzles.rules.tatamibari), which
    shares no code with `encode`: `certify` and `audit --proof` refute each closing claim on it too."""
    from smtpuzzles.puzzles.rules import tatamibari as rules

    return rules.reference(instance, claim).dimacs()


def brute_force(instance, limit: int) -> list | None:
    """Every solution, by a search written from the rules (smtpuzzles.puzzles.search.tatamibari),
    or None past `limit` rectangles tried: `smtpuzzles.crosscheck` holds the solver to it."""
    from smtpuzzles.puzzles.search import tatamibari as search

    return search.solutions(instance.rows, limit)
