"""Shared rich helpers: boxed grids, colour ramps, summaries. Puzzles build their pictures from these.

Pictures are laid out for an 80-column terminal whatever the terminal's real width, so that the same
run always looks the same; saved SVGs are drawn at the width their content needs (`save_svg`).
"""

from __future__ import annotations

import io
import math
from typing import Callable, Sequence

from rich.color import Color
from rich.console import Console, Group
from rich.measure import Measurement
from rich.panel import Panel
from rich.protocol import rich_cast
from rich.style import Style
from rich.table import Table
from rich.text import Text

from smtpuzzles.shown import escaped

STATUS_STYLE = {
    "optimal": "bold green", "solved": "bold green", "infeasible": "bold yellow",
    "unknown": "bold red", "interrupted": "bold red", "running": "bold cyan", "failed": "bold red",
}
WIDTH = 80  # the terminal width every picture is laid out for


def content_width(renderable) -> int:
    """Columns the renderable needs when nothing forces it to wrap."""
    console = Console(width=100_000, file=io.StringIO(), color_system=None)
    return Measurement.get(console, console.options, renderable).maximum


def print_all(console: Console, renderables: Sequence) -> None:
    """Print in order. A Text marked no_wrap (a map wider than the terminal, a command to copy) keeps
    its lines whole: rich's print would otherwise re-flow it (it joins texts into a new Text that
    forgets no_wrap) and crop it at the console's width. A renderable made only when shown (rich's
    `__rich__`: a large map drawn only if printed) is made here first, so that the same holds of it."""
    for renderable in map(rich_cast, renderables):
        if isinstance(renderable, Group):  # its parts in turn, so that a no_wrap Text inside keeps too
            print_all(console, renderable.renderables)
        elif isinstance(renderable, Text) and renderable.no_wrap:
            console.print(renderable, no_wrap=True, overflow="ignore", crop=False)
        else:
            console.print(renderable)


def pipe_console() -> Console:
    """A console for stdout that raises BrokenPipeError when the reader goes away (rich's own
    handling exits with status 1), so the command can still save its files and exit as it should."""
    console = Console()

    def broken_pipe() -> None:
        raise BrokenPipeError

    console.on_broken_pipe = broken_pipe
    return console


def save_svg(renderables: Sequence, path: str, title: str) -> None:
    """The renderables as an SVG drawn at their own width (never the terminal's: no "…" cut-offs)."""
    width = max([content_width(r) for r in renderables] + [20])
    console = Console(record=True, width=width, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    print_all(console, renderables)
    console.save_svg(path, title=title)


def group_lines(text: str, group: int, width: int) -> list[str]:
    """A long word cut into groups of `group` characters, the same number of groups on every line
    (the most that fit in `width` and divide the groups evenly), so rows of a board line up."""
    groups = [text[i:i + group] for i in range(0, len(text), group)]
    if len(text) <= width:
        return [" ".join(groups)] if len(" ".join(groups)) <= width else [text]
    fit = max(1, (width + 1) // (group + 1))
    per_line = max(k for k in range(1, fit + 1) if len(groups) % k == 0 or k == 1)
    return [" ".join(groups[i:i + per_line]) for i in range(0, len(groups), per_line)]


def digit_group(length: int) -> int:
    """A number of N*N digits (an N x N board read cell by cell) reads in groups of N; anything else
    in groups of 10."""
    root = math.isqrt(length)
    return root if root * root == length and root > 1 else 10


def ramp(fraction: float) -> Style:
    """A colour from deep blue (start) through green to red (end) for a fraction in [0, 1]."""
    fraction = min(max(fraction, 0.0), 1.0)
    stops = [(40, 90, 220), (40, 180, 120), (230, 200, 40), (220, 60, 50)]
    pos = fraction * (len(stops) - 1)
    i = min(int(pos), len(stops) - 2)
    f = pos - i
    rgb = [round(a + (b - a) * f) for a, b in zip(stops[i], stops[i + 1])]
    return Style(color=Color.from_rgb(*rgb), bold=True)


def boxed_grid(rows: int, cols: int, cell: Callable[[int, int], Text], box_rows: int, box_cols: int, width: int) -> Text:
    """A grid of equal-width cells with rules between boxes (box_rows x box_cols)."""
    out = Text()
    for r in range(rows):
        if r and r % box_rows == 0:
            out.append(_rule(cols, box_cols, width), style="dim")
            out.append("\n")
        for c in range(cols):
            if c and c % box_cols == 0:
                out.append(" │", style="dim")
            out.append(" ")
            out.append_text(cell(r, c))
        if r < rows - 1:
            out.append("\n")
    return out


def _rule(cols: int, box_cols: int, width: int) -> str:
    block = "─" * ((width + 1) * box_cols)
    return "─┼".join(block for _ in range(cols // box_cols))


def side_by_side(*renderables) -> Table:
    grid = Table.grid(padding=(0, 3))
    for _ in renderables:
        grid.add_column()
    grid.add_row(*renderables)
    return grid


def summary_panel(title: str | Text, fields: Sequence[tuple[str, object]], status: str | None = None) -> Panel:
    """Key-value lines in a panel at most WIDTH wide: a long unbroken value (a number of 81 digits) is
    cut into groups; anything else too long folds onto further lines instead of ending in "…"."""
    keys = max([len(str(key)) for key, _ in fields] + [1])
    room = WIDTH - 4 - 2 - keys  # borders and padding, the gap, the key column
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in fields:
        if not isinstance(value, Text):
            value = "\n".join(escaped(line) for line in str(value).split("\n"))  # may come from a folder
            if len(value) > room and "\n" not in value and " " not in value and value.isalnum():
                value = "\n".join(group_lines(value, digit_group(len(value)), room))
            value = Text(value)
        table.add_row(key, value)
    return Panel(table, title=title, border_style=STATUS_STYLE.get(status or "", "blue"), expand=False)


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, ""))
