"""Shared rich helpers: boxed grids, colour ramps, summaries. Puzzles build their pictures from these."""

from __future__ import annotations

from typing import Callable, Sequence

from rich.color import Color
from rich.console import Group
from rich.panel import Panel
from rich.style import Style
from rich.table import Table
from rich.text import Text

STATUS_STYLE = {
    "optimal": "bold green", "solved": "bold green", "infeasible": "bold yellow",
    "unknown": "bold red", "interrupted": "bold red", "running": "bold cyan", "failed": "bold red",
}


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


def summary_panel(title: str, fields: Sequence[tuple[str, object]], status: str | None = None) -> Panel:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    for key, value in fields:
        table.add_row(key, value if isinstance(value, Text) else Text(str(value)))
    return Panel(table, title=title, border_style=STATUS_STYLE.get(status or "", "blue"), expand=False)


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, ""))


# ---------------------------------------------------------------------------------------- King's tour
def kingtour_view(board, solution: dict, digits: Sequence[int], proved: int | None = None):
    from smtpuzzles.objective import digits_text

    n = board.size
    total = n * n
    grid, tour = solution["grid"], solution["tour"]

    def digit_cell(r, c):
        style = "bold" if board.clues[r][c] else ""
        return Text(digits_text([grid[r][c]]), style=style or "white")

    def tour_cell(r, c):
        t = tour[r][c]
        return Text(f"{t:>{len(str(total))}}", style=ramp((t - 1) / max(total - 1, 1)))

    sudoku = boxed_grid(n, n, digit_cell, board.box_rows, board.box_cols, 1)
    walk = boxed_grid(n, n, tour_cell, board.box_rows, board.box_cols, len(str(total)))
    return Group(side_by_side(Panel(sudoku, title="Sudoku", expand=False), Panel(walk, title="King's tour", expand=False)),
                 number_text(digits, proved))


def number_text(digits: Sequence[int], proved: int | None) -> Text:
    """The number read along the tour; the proved prefix bright, the rest dim."""
    from smtpuzzles.objective import digits_text

    text = digits_text(digits)
    k = len(text) if proved is None else proved
    out = Text("number  ", style="bold")
    out.append(text[:k], style="bold green")
    out.append(text[k:], style="dim")
    if proved is not None and proved < len(text):
        out.append(f"   ({proved}/{len(text)} digits proved)", style="italic")
    return out
