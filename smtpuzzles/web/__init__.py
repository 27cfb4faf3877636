"""The web view of a folder of runs: `smtpuzzles serve DIR` (live) and `results --html FILE` (the
same page, saved once).

Each run under DIR is read through the one reader of run folders (smtpuzzles.folders.runfolder, by
way of `runfolder.find_runs` and `live.read_live`): nothing in a folder is trusted. Every string from
it reaches the page through Jinja2 with autoescaping on, and the pictures (the chart of progress,
the puzzle's drawing) are SVG documents shown as `<img>` from data URIs, where no script in them
runs. The chart is drawn on the server by pygal, with no script, so the page fetches nothing from
anywhere: the live page reads its own `/runs` fragment again every few seconds.

Nothing is written: the audit shown is the default one (the ledger read and checked, no solver),
kept in memory per folder state.

Flask and pygal are optional (`pip install 'smtpuzzles[web]'`); without them `serve` and
`results --html` stop with one line.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from smtpuzzles.durations import duration
from smtpuzzles.errors import InputError

NEEDS_WEB = "needs Flask and pygal: pip install 'smtpuzzles[web]'"
POLL_SECONDS = 3  # how often the live page reads its runs again
CHART_POINTS = 60  # the chart's points at most: the progress is summarised at this many steps


def require_web(where: str) -> None:
    """One line, before anything runs, when the optional packages are missing."""
    try:
        import flask  # noqa: F401
        import pygal  # noqa: F401
    except ImportError:
        raise InputError(NEEDS_WEB, where) from None


@dataclass
class RunView:
    """One run as the page shows it: strings and numbers only, from the checked reader."""

    name: str  # the folder below DIR
    puzzle: str = "?"
    instance: str = ""
    status: str = "unreadable"
    value: str = ""
    checks: str = ""
    solver_time: str = ""
    where: str = ""
    estimate: str = ""
    open_question: str = ""
    open_age: str = ""
    last_step: str = ""
    chart: str = ""  # a data URI of an SVG chart, or ""
    chart_label: str = ""
    drawing: str = ""  # a data URI of the puzzle's SVG drawing, or ""
    verdict: str = ""
    rests_on: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    problem: str = ""  # why the folder could not be read
    # What the times shown are reckoned from when the page is made (the folder is read only when
    # its files change): the progress, and when its steps were last written (epoch seconds).
    progress: object = None
    written: float | None = None


def data_uri(svg: str | bytes) -> str:
    raw = svg.encode() if isinstance(svg, str) else svg
    return "data:image/svg+xml;base64," + base64.b64encode(raw).decode("ascii")


def series(steps: list[dict], objective: str | None) -> tuple[str, list[tuple[float, float]]]:
    """(what is charted, [(solver seconds, value)]): the positions proved of a lexicographic run,
    else the best value (a maximum), else the solutions found; at most CHART_POINTS points, each
    the progress of the steps up to there as `show` counts it. Steps carry solver time only, so
    that is the time axis."""
    from smtpuzzles.live import summarise

    if not steps:
        return "", []
    every = max(1, -(-len(steps) // CHART_POINTS))  # rounded up: at most CHART_POINTS + 1 points
    marks = sorted({*range(every, len(steps) + 1, every), len(steps)})
    points, label = [], ""
    for end in marks:
        p = summarise(steps[:end], objective)
        if p.length is not None:
            label, y = "positions proved", p.proved
        elif isinstance(p.best, (int, float)) and not isinstance(p.best, bool):
            label, y = "best value", p.best
        else:
            label, y = "solutions found", p.found
        points.append((round(p.solver_seconds, 3), y))
    return label, points


def chart_svg(label: str, points: list[tuple[float, float]], title: str) -> bytes:
    """The progress as a line over solver time (seconds, minutes or hours, as fits its length),
    drawn by pygal with no script (nothing fetched)."""
    import pygal
    from pygal.style import CleanStyle

    seconds = points[-1][0] if points else 0.0
    unit, per = ("seconds", 1) if seconds < 120 else ("minutes", 60) if seconds < 7200 else ("hours", 3600)
    chart = pygal.XY(width=560, height=260, show_legend=False, js=[], style=CleanStyle, dots_size=2,
                     title=title, x_title=f"solver {unit}", y_title=label, truncate_label=-1)
    chart.add(label, [(round(x / per, 3), y) for x, y in points])
    return chart.render()


AUDITING = "auditing…"


class Audits:
    """The default audit of each folder (read and checked, no solver), kept while the folder's
    files stay as they were: a run going on is audited again when it writes a step.

    `background`: audits run one at a time in a thread of their own and the page shows "auditing…"
    meanwhile (a large record's audit takes most of a minute; the live page must not wait for it);
    otherwise each is made when asked (the saved report)."""

    def __init__(self, background: bool = False):
        self.background = background
        self._kept: dict[str, tuple[tuple, tuple[str, list[str], list[str]]]] = {}
        self._asked: dict[str, tuple] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def of(self, run_dir: Path) -> tuple[str, list[str], list[str]]:
        state = _state(run_dir)
        key = str(run_dir)
        with self._lock:
            kept = self._kept.get(key)
            if kept and kept[0] == state:
                return kept[1]
            if self.background:
                self._asked[key] = state
                if self._thread is None:
                    self._thread = threading.Thread(target=self._work, name="audits", daemon=True)
                    self._thread.start()
                self._wake.set()
                return (AUDITING if kept is None else f"{kept[1][0]} ({AUDITING})", [], [])
        found = _audited(run_dir)
        with self._lock:
            self._kept[key] = (state, found)
        return found

    def _work(self) -> None:
        while True:
            self._wake.wait()
            with self._lock:
                if not self._asked:
                    self._wake.clear()
                    continue
                key, state = self._asked.popitem()
            found = _audited(Path(key))
            with self._lock:
                self._kept[key] = (state, found)


def _audited(run_dir: Path) -> tuple[str, list[str], list[str]]:
    from smtpuzzles.auditing.auditor import audit
    from smtpuzzles.errors import LedgerError

    try:
        report = audit(run_dir)
        return report.verdict, list(report.rests_on), list(report.evidence)
    except LedgerError as exc:
        return f"unreadable: {exc.message}", [], []
    except Exception as exc:  # noqa: BLE001 - one folder never stops the page for the others
        return f"unreadable: the audit stopped ({exc.__class__.__name__})", [], []


def _state(run_dir: Path) -> tuple:
    """The folder's files as they stand (size and time of each), to tell when to audit again."""
    out = []
    try:
        with os.scandir(run_dir) as listing:
            for entry in sorted(listing, key=lambda e: e.name):
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                out.append((entry.name, st.st_size, st.st_mtime_ns))
    except OSError:
        pass
    return tuple(out)


def run_view(run_dir: Path, name: str, now: float | None = None) -> RunView:
    """One run read for the page; a folder that cannot be read is shown with why."""
    from smtpuzzles import pictures, puzzles
    from smtpuzzles.errors import LedgerError
    from smtpuzzles.live import checks_text, read_live, where_text
    from smtpuzzles.tables import answer_fields, value_text

    view = RunView(name)
    try:
        live = read_live(run_dir, now=now)
    except (LedgerError, OSError, ValueError) as exc:
        view.problem = getattr(exc, "message", None) or str(exc)
        return view
    run, p = live.folder.run, live.progress
    view.puzzle, view.status = str(run.get("puzzle", "?")), str(run.get("status", "?"))
    try:
        module = puzzles.get(view.puzzle)
        view.instance = module.describe(module.from_canonical(run["instance"]))
    except (InputError, KeyError, TypeError, ValueError, AttributeError):
        view.instance = "?"
    # a run going on keeps its best so far in solution.json until it is sealed
    best = run.get("value") if run.get("value") is not None else (live.folder.saved or {}).get("value")
    view.value = value_text({"value": best, **answer_fields(run)}, 10_000)
    view.checks = checks_text(p)
    view.solver_time = duration(p.solver_seconds)
    view.where = where_text(p)
    view.progress = p
    if live.last_write is not None:
        view.written = (time.time() if now is None else now) - live.last_write
    label, points = series(live.folder.steps, run.get("objective"))
    if points:
        view.chart_label = label
        view.chart = data_uri(chart_svg(label, points, f"{view.puzzle}: {label}"))
    try:
        drawn = pictures.show_drawing(run_dir)
    except Exception:  # noqa: BLE001 - a drawing that fails leaves the rest of the page
        drawn = None
    if drawn:
        view.drawing = data_uri(drawn)
    return view


def timed(view: RunView, now: float) -> RunView:
    """The view with what depends on the time now: the open question's age, when the last step was
    written, and the estimate (which says unknown once the open question outlives it)."""
    from smtpuzzles.live import UNFINISHED, estimate_text, outlived

    p = view.progress
    if p is None or view.status not in UNFINISHED:
        return view
    running = view.status == "running"
    since = max(0.0, now - view.written) if running and view.written is not None else 0.0
    shown = dataclasses.replace(view)
    ticking = dataclasses.replace(p)
    outlived(ticking, since)
    shown.estimate = estimate_text(ticking)
    if p.open_question or running:
        shown.open_question = p.open_question or "(being asked: written when it is answered)"
        shown.open_age = duration(p.open_seconds + since)
    if running and view.written is not None:
        shown.last_step = f"{duration(since)} ago"
    return shown


class Runs:
    """The runs under a folder, each read again only when its files change (a large ledger takes a
    second or two to read and draw); audited by `audits` (None: not audited)."""

    def __init__(self, folder: Path, audits: Audits | None = None):
        self.folder, self.audits = folder, audits
        self._kept: dict[str, tuple[tuple, RunView]] = {}

    def views(self) -> list[RunView]:
        from smtpuzzles.folders.runfolder import find_runs, relative_name

        folder = self.folder
        if not folder.is_dir():
            raise InputError("no such folder" if not folder.exists() else "is a file, not a folder of runs",
                             str(folder))
        found, unreadable = find_runs(folder)
        views = [RunView(relative_name(d, folder), problem=f"the folder cannot be read ({why})") for d, why in unreadable]
        now = time.time()
        for run_dir in found:
            state, key = _state(run_dir), str(run_dir)
            kept = self._kept.get(key)
            if kept is None or kept[0] != state:
                kept = (state, run_view(run_dir, relative_name(run_dir, folder), now))
                self._kept[key] = kept
            view = timed(kept[1], now)
            if self.audits is not None:
                view = dataclasses.replace(view)
                view.verdict, view.rests_on, view.evidence = self.audits.of(run_dir)
            views.append(view)
        return views


def collect(folder: Path, audits: Audits | None = None) -> list[RunView]:
    """Every run under `folder`, in the order they started (as `results` finds them)."""
    return Runs(folder, audits).views()


def page(folder: Path, views: list[RunView], live: bool) -> str:
    """The whole page: live (it reads `/runs` again every few seconds) or a static report."""
    return _templates().get_template("page").render(folder=str(folder), runs=views, live=live, poll=POLL_SECONDS,
                                                     made=time.strftime("%Y-%m-%d %H:%M:%S %z"))


def fragment(views: list[RunView]) -> str:
    """The runs alone, as the live page replaces them."""
    return _templates().get_template("runs").render(runs=views)


def write_report(folder: Path, path: str, audits: Audits | None = None) -> int:
    """`results --html FILE`: the page as one file, nothing fetched by it; the number of runs."""
    from smtpuzzles.folders.durable import write_atomic

    require_web("--html")
    views = collect(folder, audits)
    write_atomic(Path(path), page(folder, views, live=False))
    return len(views)


_ENV = None


def _templates():
    global _ENV
    if _ENV is None:
        import jinja2

        from smtpuzzles.web.pages import PAGE, RUNS

        # autoescape on every template: a folder's strings are anyone's
        _ENV = jinja2.Environment(loader=jinja2.DictLoader({"page": PAGE, "runs": RUNS}), autoescape=True,
                                  undefined=jinja2.StrictUndefined)
    return _ENV
