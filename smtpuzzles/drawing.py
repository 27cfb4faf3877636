"""SVG drawings in pure Python: what `--svg` saves and a notebook shows for a puzzle with a `draw` hook.

A `Drawing` collects elements (lines, polylines, rectangles, circles, paths, text, a legend) in user
units, one unit a CSS pixel, and `document()` writes them as one standalone SVG document: the SVG
namespace, a viewBox, generic font families only (sans-serif, monospace), no scripts, no style
sheets, no links, nothing fetched. `titled` puts a puzzle's document under heading lines and above
a caption, which is how the core adds the title and the run's status.

Every string that reaches the document goes through `text`/`attribute`: characters that do not
print (controls, format characters such as U+202E) are shown as their Python escapes, as on the
terminal (smtpuzzles.shown), then `& < > "` are escaped, so a folder's name or a room label can
neither break the XML nor hide in it (`]]>` becomes `]]&gt;`).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence
from unicodedata import east_asian_width
from xml.sax.saxutils import escape

SVG_NS = "http://www.w3.org/2000/svg"
SANS = "sans-serif"  # generic families: whatever the viewer has, nothing fetched
MONO = "monospace"
INK = "#222222"  # text and heavy rules
RULE = "#9a9a9a"  # thin rules
# A colour ramp for an order (a tour from its start to its end): blue, cyan, green, yellow, orange, red.
# More hues than the terminal's ramp (smtpuzzles.render.ramp), so that steps far apart on a long tour
# still look different.
RAMP_STOPS = ((35, 70, 200), (20, 160, 210), (40, 170, 90), (215, 195, 30), (240, 120, 30), (200, 30, 40))


def printable(value: object) -> str:
    """`value` as one printable line: what does not print as its Python escape (`\\x1b`, `\\u202e`),
    as smtpuzzles.shown does for the terminal (not imported: this module needs nothing but Python)."""
    words = str(value)
    return words if words.isprintable() else "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in words)


def text(value: object) -> str:
    """`value` as XML character data: one printable line, markup characters escaped."""
    return escape(printable(value))


def attribute(value: object) -> str:
    """`value` for a double-quoted XML attribute."""
    return escape(printable(value), {'"': "&quot;"})


def number(value: float) -> str:
    """A coordinate as short text: at most two decimals, no trailing zeros."""
    shown = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if shown in ("", "-0") else shown


def ramp_rgb(fraction: float) -> tuple[int, int, int]:
    """The ramp's colour at `fraction` in [0, 1] (0 the start, 1 the end)."""
    fraction = min(max(fraction, 0.0), 1.0)
    pos = fraction * (len(RAMP_STOPS) - 1)
    i = min(int(pos), len(RAMP_STOPS) - 2)
    f = pos - i
    return tuple(round(a + (b - a) * f) for a, b in zip(RAMP_STOPS[i], RAMP_STOPS[i + 1]))


def ramp(fraction: float) -> str:
    return "#%02x%02x%02x" % ramp_rgb(fraction)


# Advance widths in ems, rounded up from DejaVu Sans (wider than most sans-serif faces), by class.
ADVANCE = {**dict.fromkeys(" iIjl.,:;|!'/", 0.34), **dict.fromkeys("ftr-[](){}", 0.42),
           **dict.fromkeys("mwMW@", 1.0), **dict.fromkeys("+=<>~#%&\u2192", 0.84)}


def text_width(words: str, size: float, mono: bool = False, bold: bool = False) -> float:
    """About how wide `words` come out at font size `size`, for laying out a drawing whose fonts the
    viewer chooses: generous, so that a column is never narrower than its words."""
    words = printable(words)  # as it will be shown
    if mono:
        ems = sum(1.2 if east_asian_width(ch) in "WF" else 0.61 for ch in words)
    else:
        ems = sum(ADVANCE.get(ch) or (0.62 if ch.islower() else 0.74 if ch.isascii() else
                                      1.0 if east_asian_width(ch) in "WF" else 0.8) for ch in words)
    return ems * size * (1.08 if bold else 1.0)


@dataclass(frozen=True)
class Cell:
    """One entry of a `Drawing.table`: its words, and a background and weight where it stands out."""

    words: str
    fill: str | None = None
    bold: bool = False
    colour: str = INK


def _attributes(attrs: dict) -> str:
    """`stroke_width=2` as ` stroke-width="2"`; `class_` is `class`; None leaves an attribute out."""
    out = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = "class" if key == "class_" else key.replace("_", "-")
        shown = number(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else attribute(value)
        out.append(f' {name}="{shown}"')
    return "".join(out)


class Drawing:
    """Elements in drawing order (later ones on top) on a `width` x `height` canvas."""

    def __init__(self, width: float, height: float, title: str = ""):
        self.width, self.height, self.title = width, height, title
        self.parts: list[str] = []

    def element(self, tag: str, content: str | None = None, **attrs) -> None:
        """One element; `content` is markup already escaped (use `text()` for words)."""
        start = f"<{tag}{_attributes(attrs)}"
        self.parts.append(f"{start}/>" if content is None else f"{start}>{content}</{tag}>")

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs) -> None:
        self.element("line", x1=x1, y1=y1, x2=x2, y2=y2, **attrs)

    def polyline(self, points: Iterable[tuple[float, float]], **attrs) -> None:
        shown = " ".join(f"{number(x)},{number(y)}" for x, y in points)
        self.element("polyline", points=shown, fill=attrs.pop("fill", "none"), **attrs)

    def rect(self, x: float, y: float, width: float, height: float, **attrs) -> None:
        self.element("rect", x=x, y=y, width=width, height=height, **attrs)

    def circle(self, cx: float, cy: float, r: float, **attrs) -> None:
        self.element("circle", cx=cx, cy=cy, r=r, **attrs)

    def path(self, d: str, **attrs) -> None:
        if d:  # an empty d is an error in some viewers
            self.element("path", d=d, **attrs)

    def text(self, x: float, y: float, words: object, **attrs) -> None:
        """Words whose baseline starts (or, with text_anchor="middle", is centred) at (x, y)."""
        self.element("text", text(words), x=x, y=y, **attrs)

    @contextlib.contextmanager
    def group(self, **attrs) -> Iterator[None]:
        """Elements added inside the block share the group's attributes (a class, a stroke)."""
        self.parts.append(f"<g{_attributes(attrs)}>")
        yield
        self.parts.append("</g>")

    def grid(self, x: float, y: float, rows: int, cols: int, cell: float, every: tuple[int, int] = (1, 1),
             skip: tuple[int, int] = (0, 0), **attrs) -> int:
        """The inner rules of a rows x cols grid of square cells from (x, y): every `every` rows and
        columns, leaving out those on a multiple of `skip` (drawn heavier elsewhere). The count drawn."""
        drawn = 0
        for axis, (count, step, gap) in enumerate(((rows, every[0], skip[0]), (cols, every[1], skip[1]))):
            for k in range(step, count, step):
                if gap and k % gap == 0:
                    continue
                if axis == 0:
                    self.line(x, y + k * cell, x + cols * cell, y + k * cell, **attrs)
                else:
                    self.line(x + k * cell, y, x + k * cell, y + rows * cell, **attrs)
                drawn += 1
        return drawn

    def legend(self, x: float, y: float, entries: Sequence[tuple[Callable[[Drawing, float, float], None], str]],
               row: float = 22, size: float = 13) -> float:
        """One entry a row from (x, y): its marker drawn centred in a `row`-sized square by the
        entry's function, then its words. Returns the y below the last row."""
        with self.group(class_="legend"):
            for i, (marker, words) in enumerate(entries):
                top = y + i * row
                marker(self, x + row / 2, top + row / 2)
                self.text(x + row + 6, top + row / 2 + size * 0.35, words, font_size=size, fill=INK)
        return y + len(entries) * row

    def table(self, x: float, y: float, header: Sequence[str], rows: Sequence[Sequence[str | Cell]],
              size: float = 13, pad: float = 8) -> tuple[float, float]:
        """A table from (x, y): a bold header row over a rule, then the rows, each column as wide
        as its widest entry. Returns its (width, height)."""
        rows = [[cell if isinstance(cell, Cell) else Cell(str(cell)) for cell in row] for row in rows]
        widths = [max([text_width(header[k], size, bold=True)]
                      + [text_width(row[k].words, size, bold=row[k].bold) for row in rows]) + 2 * pad
                  for k in range(len(header))]
        height = size * 1.9
        lefts = [x + sum(widths[:k]) for k in range(len(widths))]
        with self.group(class_="table", font_size=size, fill=INK):
            for k, words in enumerate(header):
                self.text(lefts[k] + pad, y + height * 0.68, words, font_weight="bold", class_="header")
            self.line(x, y + height, x + sum(widths), y + height, stroke=INK, stroke_width=1.2)
            for i, row in enumerate(rows):
                top = y + (i + 1) * height
                for k, cell in enumerate(row):
                    if cell.fill:
                        self.rect(lefts[k] + 1, top + 1, widths[k] - 2, height - 2, fill=cell.fill, rx=3)
                    self.text(lefts[k] + pad, top + height * 0.68, cell.words, fill=cell.colour,
                              font_weight="bold" if cell.bold else None, class_="cell")
        return sum(widths), (len(rows) + 1) * height

    def document(self) -> str:
        """The whole SVG document (no XML declaration: UTF-8 is the default)."""
        title = f"<title>{text(self.title)}</title>" if self.title else ""
        # Its title is its alt text too: a notebook or a page showing the SVG inline names it by it.
        label = f' role="img" aria-label="{attribute(self.title)}"' if self.title else ""
        w, h = number(self.width), number(self.height)
        head = (f'<svg xmlns="{SVG_NS}" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
                f'font-family="{SANS}"{label}>')
        background = f'<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>'
        return "\n".join([head + title, background, *self.parts, "</svg>"]) + "\n"


# ------------------------------------------------------------------------------------ titled documents
ROOT_TAG = re.compile(r"""\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<svg\b((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*>""",
                      re.S)
ATTRIBUTE = re.compile(r"""([\w:.-]+)\s*=\s*("[^"]*"|'[^']*')""")
HEADING_SIZE, CAPTION_SIZE, LINE = 16, 13, 1.45


def view_box(document: str) -> tuple[dict[str, str], float, float, int]:
    """(the root element's attributes as written, its width and height from the viewBox, where the
    content after the root's start tag begins); ValueError if this is not an SVG document."""
    found = ROOT_TAG.match(document)
    if not found:
        raise ValueError("the drawing is not an SVG document (no <svg> root element)")
    attrs = {name: value[1:-1] for name, value in ATTRIBUTE.findall(found.group(1))}
    if attrs.get("xmlns") != SVG_NS:
        raise ValueError("the drawing's root element is not in the SVG namespace")
    try:
        _, _, width, height = (float(v) for v in attrs.get("viewBox", "").replace(",", " ").split())
    except ValueError:
        raise ValueError("the drawing has no viewBox of four numbers") from None
    return attrs, width, height, found.end()


def quoted(value: str) -> str:
    """An attribute value as it was written (already escaped), in quotes it cannot hold."""
    return f"'{value}'" if '"' in value else f'"{value}"'


def titled(document: str, headings: Sequence[str], caption: Sequence[str] = ()) -> str:
    """`document` (a whole SVG document) under `headings` and above `caption`, as one document:
    the original is nested whole, at its own size, below the headings and left-aligned with them."""
    attrs, width, height, body = view_box(document)
    margin = 16  # the built-in drawings' own margin, so the words line up with them
    heading_h = margin + len(headings) * HEADING_SIZE * LINE
    caption_h = len(caption) * CAPTION_SIZE * LINE + (margin / 2 if caption else 0)
    words = [text_width(h, HEADING_SIZE, bold=True) for h in headings] + [text_width(c, CAPTION_SIZE) for c in caption]
    total_w = max([width] + [w + 2 * margin for w in words])
    total_h = heading_h + height + caption_h
    outer = Drawing(total_w, total_h, title=" ".join([*headings, *caption]))
    for i, heading in enumerate(headings):
        outer.text(margin, margin + (i + 0.8) * HEADING_SIZE * LINE, heading, font_size=HEADING_SIZE,
                   font_weight="bold" if i == 0 else None, fill=INK, class_="heading")
    for i, line in enumerate(caption):
        outer.text(margin, heading_h + height + (i + 0.5) * CAPTION_SIZE * LINE, line, font_size=CAPTION_SIZE,
                   fill=INK, class_="caption")
    kept = [(k, v) for k, v in attrs.items() if k not in ("x", "y", "width", "height", "xmlns")]
    start = "<svg" + "".join(f" {k}={quoted(v)}" for k, v in kept) + _attributes(
        {"x": 0, "y": heading_h, "width": width, "height": height}) + ">"
    outer.parts.append(start + document[body:].rstrip())
    return outer.document()
