"""The `spans` encoding (the default): each clue's rectangle a row span and a column span through the
clue; a cell is the clue's when both span it, and exactly one clue owns each cell (see
encodings/tatamibari.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from smtpuzzles.formula import CNF, TRUE, Formula, any_of, lit
from smtpuzzles.encoding import Encoding
from smtpuzzles.objectives import Satisfy

from .board import Board, region_boxes, regions_from_rects
from .candidates import fitting_widths, row_spans


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
            cnf.implies(x, [lits[nearer]])


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
                    cnf.add([v] + [-x for x in inside])  # both spans: the cell is the clue's ...
                    for x in inside:
                        cnf.implies(v, [x])  # ... and only then
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
        cnf.implies(both, [x])
        cnf.implies(both, [y])
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
            cnf.at_least_one(across[r, c] + across[r + 1, c] + down[r, c] + down[r, c + 1])


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
