"""Tables of runs: the live board a batch shows while its jobs run, the summary table after it, and
the cells `smtpuzzles results` shares with them (status, value, the answer of a unique or count run).

Both fit an 80-column terminal: borderless tables, one line per job, long names cut with an
ellipsis (summary.json keeps them whole). The live rows are read from the jobs' own ledgers, so the
board looks the same whether the jobs run here or on a cluster sharing the output folder.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from smtpuzzles.durations import counted, duration
from smtpuzzles.render import STATUS_STYLE
from smtpuzzles.shown import escaped
from smtpuzzles.folders.statuses import ANSWERED, UNANSWERED



def short(value, width: int = 16) -> str:
    """A value in one table cell: grids as their row count, long numbers cut."""
    if value is None:
        return ""
    if isinstance(value, list):
        return counted(len(value), "row")
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def answer_fields(run: dict) -> dict:
    """count / count_complete / unique from a run.json, as `solve --json` reports them."""
    extra = run.get("extra") or {}
    status = run.get("status")
    fields: dict = {"count": None, "count_complete": None, "unique": None}
    if run.get("mode") == "count" and status in ANSWERED + UNANSWERED:
        # No solution at all is a complete count of zero (the UNSAT first step proves it).
        fields["count"] = extra.get("count", 0 if status == "infeasible" else None)
        fields["count_complete"] = extra.get("count_complete", status == "infeasible")
    if run.get("mode") == "unique" and "unique" in extra:
        fields["unique"] = extra["unique"]
    return fields


def solutions_text(row: dict) -> str:
    """The count or uniqueness a row answers, in a few characters."""
    if row.get("count") is not None:
        if not row.get("count_complete"):
            return f"{row['count']}+ (limit)"
        return f"{row['count']} solution" + ("" if row["count"] == 1 else "s")
    if row.get("unique") is not None:
        return "unique" if row["unique"] else "not unique"
    return ""


def value_text(row: dict, width: int = 14) -> str:
    """A count or uniqueness job answers that; its first solution is in the ledger."""
    return solutions_text(row) or short(row.get("value"), width)


def status_cell(row: dict) -> Text:
    return Text(row["status"], style=STATUS_STYLE.get(row["status"], "bold red"))


# Each note a job's row can carry: the word in the table, and its meaning once below the table.
NOTES = {
    "done before": ("before", "finished by an earlier run of the batch; its ledger checked intact"),
    "resumed": ("resumed", "continued from its unfinished ledger"),
    "job changed: new run": ("changed", "the job changed since its earlier run: a new run beside the old one"),
    "busy elsewhere": ("busy", "another process is running this job; not run here"),
    "stopped": ("stopped", "the batch was stopped (batch --stop) before this job started"),
}


def compact_table(title: str | None = None) -> Table:
    # No vertical rules and no outer edge: 60-odd characters of content fit 80 columns.
    return Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1), pad_edge=False,
                 collapse_padding=True, title_justify="left")


def _add_columns(table: Table) -> None:
    table.add_column("job", no_wrap=True, overflow="ellipsis", max_width=16)
    table.add_column("puzzle", no_wrap=True, overflow="ellipsis", min_width=6, max_width=10)
    table.add_column("status", no_wrap=True, min_width=7)
    table.add_column("value", no_wrap=True, overflow="ellipsis", max_width=14)
    table.add_column("s", no_wrap=True, justify="right", min_width=3)
    table.add_column("note", no_wrap=True, overflow="ellipsis", max_width=10)


def summary_table(rows: list[dict]) -> Group:
    """The table a batch ends with; what its notes mean, and each failed job's error, below it."""
    table = compact_table("batch summary")
    _add_columns(table)
    for r in rows:
        table.add_row(r["job"], r["puzzle"], status_cell(r), value_text(r), seconds_text(r["seconds"]),
                      NOTES.get(r.get("note") or "", (r.get("note") or "",))[0])
    seen = {r.get("note") for r in rows}
    legend = [Text(f"{word}: {meaning}", style="dim") for note, (word, meaning) in NOTES.items() if note in seen]
    # Each whole on one line, as the command line's errors are (a terminal wraps it; a log keeps it).
    errors = [Text(escaped(f"job {r['job']}: {r['error']}"), style="red", no_wrap=True, overflow="ignore")
              for r in rows if r.get("error")]
    # Solving only: a job finished before costs this batch nothing, however long its run once took.
    total = Text(f"solving in this batch: {duration(sum(r['seconds'] or 0 for r in rows))} "
                 "(s: each job's; a job done before: 0)", style="dim")
    return Group(table, total, *legend, *errors)


def seconds_text(seconds: float | None) -> str:
    """A job's seconds of solving in a table cell, as a short human duration."""
    return "" if seconds is None else f"{seconds:.1f}" if seconds < 60 else duration(seconds)


class ProgressBoard:
    """The live table: one row per job, read from the job's own ledger."""

    def __init__(self, jobs):
        self.jobs = jobs
        self.started = time.perf_counter()
        self.done: dict[str, dict] = {}
        self.seen: dict[str, dict] = {}

    def finish(self, summary: dict) -> None:
        self.done[summary["job"]] = summary

    def poll(self, settled: bool = False) -> None:
        """Each job's row from its newest run's ledger; `settled` (batch --status, from outside):
        a sealed run shows its status, and the job counts as done."""
        for job in self.jobs:
            if job.name in self.done:
                continue
            run_dir = active_run(Path(job.folder))
            if run_dir is None:
                continue
            self.seen[job.name] = read_progress(run_dir)
            if settled and self.seen[job.name]["state"] != "running":
                self.done[job.name] = {"job": job.name, "status": self.seen[job.name]["state"], "seconds": None,
                                       "value": self.seen[job.name]["value"], "note": ""}

    def plain_line(self) -> str:
        """One line for a log (smtpuzzles.ticker): jobs done, and what each running one reports."""
        running = [f"{job.name} {self.seen[job.name].get('progress') or 'running'}" for job in self.jobs
                   if job.name not in self.done and self.seen.get(job.name, {}).get("state") == "running"]
        done = f"batch: {len(self.done)} of {counted(len(self.jobs), 'job')} done"
        return done + (f"; {', '.join(running)}" if running else "")

    def records(self) -> list[dict]:
        """One JSON object per job for `--progress json`: its state, and where a running one stands."""
        out = []
        for job in self.jobs:
            if job.name in self.done:
                r = self.done[job.name]
                out.append({"job": job.name, "state": "done", "status": r["status"], "value": r.get("value"),
                            "seconds": r.get("seconds")})
            else:
                seen = self.seen.get(job.name)
                out.append({"job": job.name, "state": seen["state"] if seen else "waiting",
                            **(seen.get("record") or {} if seen else {})})
        return out

    def __rich__(self) -> Table:
        elapsed = time.perf_counter() - self.started
        table = compact_table(f"batch: {len(self.done)}/{len(self.jobs)} done, {elapsed:.0f}s")
        _add_columns(table)
        for job in self.jobs:
            if job.name in self.done:
                r = self.done[job.name]
                table.add_row(job.name, job.puzzle, status_cell(r), value_text(r), seconds_text(r.get("seconds")),
                              NOTES.get(r.get("note") or "", (r.get("note") or "",))[0])
            else:
                info = self.seen.get(job.name, {"state": "waiting", "best": "", "found": "", "progress": ""})
                table.add_row(job.name, job.puzzle, Text(info["state"], style="cyan" if info["state"] == "running" else "dim"),
                              info["found"] or info["best"], "", info["progress"])
        return table


def active_run(folder: Path) -> Path | None:
    """The run folder being written: the one whose steps changed last."""
    best, best_time = None, -1.0
    for steps in folder.glob("*/steps.jsonl"):
        try:
            mtime = steps.stat().st_mtime
        except OSError:
            continue
        if mtime > best_time:
            best, best_time = steps.parent, mtime
    return best


def read_progress(run_dir: Path) -> dict:
    """A job's row while it runs, through the one reader of run folders (which takes no lock and
    leaves out a half-written last line); a folder not readable yet shows as just running."""
    from smtpuzzles.errors import LedgerError
    from smtpuzzles.live import checks_text, read_live, record

    info = {"state": "running", "best": "", "found": "", "progress": "", "value": None, "record": None}
    try:
        live = read_live(run_dir)
    except (LedgerError, OSError, ValueError):
        return info  # being created; next poll
    progress, saved = live.progress, live.folder.saved
    info["state"] = str(live.folder.run.get("status", "running"))
    if saved is not None:
        info["best"] = short(saved.get("value"))
        info["value"] = saved.get("value")
    if progress.found:
        info["found"] = f"{progress.found} found"
    if progress.length is not None:
        info["progress"] = f"{progress.proved} proved"
    else:
        info["progress"] = checks_text(progress)
    running_for = live.last_write if info["state"] == "running" else None
    info["record"] = {**record(progress, running_for=running_for), "best": info["value"], "run_dir": str(run_dir)}
    return info
