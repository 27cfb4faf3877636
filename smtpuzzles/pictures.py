"""What `--svg` saves and a notebook shows: the puzzle's own drawing (its `draw` hook) under a title
and the run's status, or, for a puzzle without one, rich's recording of the terminal picture.

The title is `smtpuzzles PUZZLE: description` (the puzzle's `describe`), and for `show` a second
line with the run folder's name; every string, the folder's name included, is escaped by
smtpuzzles.drawing on its way into the document.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from smtpuzzles.drawing import titled
from smtpuzzles.folders.statuses import RESUMABLE

STATUS_WORDS = {
    "optimal": "optimal (proved best)",
    "solved": "solved",
    "infeasible": "infeasible: no solution exists",
    "unknown": "unknown: stopped before the answer was proved",
    "interrupted": "interrupted: stopped before the answer was proved",
    "running": "still going",
    "failed": "failed",
}
LONGEST_VALUE = 48  # a longer value (81 digits, a grid of rows) is in the drawing, not the caption


def headings(module, instance, run_name: str | None = None) -> list[str]:
    description = module.describe(instance)
    first = f"smtpuzzles {module.NAME}" + (f": {description}" if description else "")
    return [first] + ([f"run {run_name}"] if run_name else [])


def caption(status: str, value, extra: dict, drawn: bool) -> list[str]:
    """The status in words, a short value, whether the answer is unique or how many there are."""
    lines = [f"status: {STATUS_WORDS.get(status, status)}"]
    if value is not None and not isinstance(value, (list, dict)) and len(str(value)) <= LONGEST_VALUE:
        lines.append(f"value: {value}")
    if extra.get("unique") is not None:
        lines.append("unique: yes" if extra["unique"] else "unique: no, a second solution exists")
    if extra.get("count") is not None:
        lines.append(f"solutions: {extra['count']}{'' if extra.get('count_complete', True) else ' (limit reached)'}")
    if not drawn:
        lines.append("no solution: the instance alone is drawn")
    elif status in RESUMABLE:
        lines.append("drawn: the best solution found so far")
    return lines


def drawing(module, instance, solution: dict | None, head: Sequence[str], foot: Sequence[str]) -> str | None:
    """The puzzle's drawing as a titled document, or None when the puzzle has no `draw` hook (or one
    whose document has no svg root or viewBox)."""
    if module.draw is None:
        return None
    try:
        return titled(module.draw(instance, solution), head, foot)
    except ValueError as exc:  # a plug-in's drawing that is not a usable SVG document: the answer still shows
        print(f"smtpuzzles: {module.NAME}'s drawing is not used: {exc}; the terminal picture stands in", file=sys.stderr)
        return None


def solve_drawing(module, instance, payload: dict) -> str | None:
    """`solve --svg`: the drawing of the answer `solve --json` would print (`payload`)."""
    extra = {key: payload.get(key) for key in ("unique", "count", "count_complete")}
    solution = payload.get("solution")
    return drawing(module, instance, solution, headings(module, instance),
                   caption(payload["status"], payload.get("value"), extra, solution is not None))


def show_drawing(run_dir: Path) -> str | None:
    """`show --svg`: the run folder read again through the checked reader, its solution drawn only
    when it passes the referee (a folder is anyone's data), else the instance alone."""
    from smtpuzzles.live import read_live
    from smtpuzzles.auditing.readback import Referee, recorded_instance

    folder = read_live(run_dir).folder
    run = folder.run
    module, instance = recorded_instance(run, str(folder.path / "run.json"))
    if module.draw is None:
        return None
    solution = folder.solution
    if solution is not None and Referee(module, instance).judge(solution, str(folder.path / "solution.json"))[0]:
        solution = None
    return drawing(module, instance, solution, headings(module, instance, folder.path.name),
                   caption(run["status"], run.get("value"), run.get("extra") or {}, solution is not None))


def save(path: str, drawn: str | None, renderables: Sequence, title: str) -> None:
    """Write the drawing, or (None: a puzzle without `draw`) the terminal picture as rich records it."""
    if drawn is None:
        from smtpuzzles.render import save_svg

        save_svg(renderables, path, title)
    else:
        write(path, drawn)


def write(path: str, document: str) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write(document)
