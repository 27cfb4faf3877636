"""`smtpuzzles results`: one row per run folder found under a folder, audited unless told not to."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Group

from smtpuzzles import puzzles
from smtpuzzles.durations import counted, duration
from smtpuzzles.tables import answer_fields, compact_table, status_cell, value_text
from smtpuzzles.errors import InputError
from smtpuzzles.folders.runfolder import find_runs, relative_name, run_folders, run_name  # noqa: F401 - as results names them
from smtpuzzles.shown import escaped, plain


SORTS = {  # --sort: the key, and the words the table's title states it in
    "started": (None, "in the order they started"),
    "run": (lambda row: row["run"], "by run folder"),
    "status": (lambda row: (row["status"], row["run"]), "by status"),
    "time": (lambda row: (-row["seconds"], row["run"]), "by solver time, longest first"),
}


def sorted_rows(rows: list[dict], sort: str = "started") -> list[dict]:
    """The rows in the order --sort names (`started`: as collect_results finds them)."""
    key = SORTS[sort][0]
    return list(rows) if key is None else sorted(rows, key=key)


def results_table(folder: Path, with_audit: bool = True, rows: list[dict] | None = None, sort: str = "started",
                  whole: bool = False) -> Group:
    """On a terminal the table fits 80 columns: the run is named by its folder (the job's, in a
    batch) and its start time; the full path is in `results --json`. `whole` (a log, a pipe: no
    width) writes every cell whole. Unreadable runs are explained below it."""
    table = compact_table(plain(f"runs under {folder}, {SORTS[sort][1]}"))
    cut = {} if whole else {"overflow": "ellipsis"}
    # Widths that add up to 80 with the gaps, a run of hours and the longest status and verdict.
    table.add_column("run", no_wrap=True, **cut, max_width=None if whole else RUN_WIDTH)
    table.add_column("instance", no_wrap=True, **cut, max_width=None if whole else 13)
    table.add_column("status", no_wrap=True, min_width=7)
    table.add_column("value", no_wrap=True, **cut, max_width=None if whole else 11)
    table.add_column("solver", no_wrap=True, justify="right", min_width=3)
    table.add_column("audit", no_wrap=True, min_width=10)  # "consistent" whole: the point of --audit
    notes = []
    rows = sorted_rows(collect_results(folder, with_audit) if rows is None else rows, sort)
    for row in rows:
        verdict = row["audit"]
        if verdict is None:  # read, not audited (results --audit does)
            cell = plain("—", style="dim")
        else:
            shown = verdict if len(verdict) <= 10 else verdict.split(":")[0]
            if shown != verdict:
                notes.append(plain(f"{row['run']}: {verdict}", style="red"))
            cell = plain(shown, style="green" if verdict in ("clean", "consistent") else "bold red")
        label = row["run"] if whole else run_label(row["run"])
        table.add_row(plain(label), plain(row["instance"]), status_cell(row),
                      plain(value_text(row, 10**9 if whole else 11)), seconds_cell(row["seconds"]), cell)
    if any(row["audit"] is None for row in rows):
        notes.append(plain("audit —: read and hash-checked, not audited; add --audit to audit each run", style="dim"))
    return Group(table, *notes)


def seconds_cell(seconds: float) -> str:
    """Solver time as a person reads it (`6h 27m`), in at most seven characters, so that a record
    run of hours leaves the audit verdict whole."""
    return duration(seconds)


RUN_WIDTH = 18


def run_label(relative: str, width: int = RUN_WIDTH) -> str:
    """`jobs/NAME/PUZZLE-HASH-STAMP` as `NAME HHMMSS`; a bare run folder as `PUZZLE HHMMSS`; a name
    too long for `width` terminal cells (once escaped, as it is shown) is cut before its time,
    which tells one job's runs apart."""
    from rich.cells import cell_len, set_cell_size

    parts = Path(relative).parts or (relative,)
    owner = [p for p in parts[:-1] if p != "jobs"]
    named = run_name(parts[-1])
    if named is None:  # a folder named otherwise: that name
        return escaped("/".join(owner[-1:] + [parts[-1]]))
    puzzle, _, time_of_day, number = named
    # the time of day (and the same second's number) tell runs of one job apart
    stamp = escaped(time_of_day if number == 1 else f"{time_of_day}-{number}")
    head = escaped(owner[-1] if owner else puzzle)  # the job's name; the batch's folder is the table's title
    room = width - cell_len(stamp) - 1
    if cell_len(head) > room > 1:
        head = set_cell_size(head, room - 1).rstrip() + "…"
    return f"{head} {stamp}"


def collect_results(folder: Path, with_audit: bool = True, progress: list | None = None) -> list[dict]:
    """One row per run folder found under `folder`: what it solved, its status, whether it audits."""
    from smtpuzzles.auditing.auditor import audit
    from smtpuzzles.errors import LedgerError
    from smtpuzzles.folders.runfolder import open_run

    if not folder.exists():
        raise InputError("no such folder", str(folder))
    if not folder.is_dir():
        raise InputError("is a file, not a folder of runs", str(folder))
    rows = []
    found, unreadable = find_runs(folder)
    for run_dir, why in unreadable:  # never read: said so, not left out
        rows.append(_row(relative_name(run_dir, folder), audit=f"unreadable: the folder cannot be read ({why})"))
    for number, run_dir in enumerate(found, 1):
        if progress is not None:  # for a log's progress line: which run of how many
            progress[:] = [f"results: run {number} of {len(found)}, {relative_name(run_dir, folder)}"]
        row = _row(relative_name(run_dir, folder))
        rows.append(row)
        try:  # the one reader of run folders: a bad folder is marked, the others are listed
            run_folder = open_run(run_dir)
        except LedgerError as exc:
            row["audit"] = f"unreadable: {exc.message}"
            continue
        run = run_folder.run
        row["seconds"] = sum(float(s.get("seconds", 0.0)) for s in run_folder.steps)
        row.update(puzzle=run["puzzle"], instance=_describe(run), status=run["status"], value=run.get("value"),
                   **answer_fields(run))
        if with_audit:
            try:
                row["audit"] = audit(run_dir).verdict
            except LedgerError as exc:
                row["audit"] = f"unreadable: {exc.message}"
            except Exception as exc:  # noqa: BLE001 - one folder never stops the table for the others
                row["audit"] = f"unreadable: the audit stopped ({exc.__class__.__name__})"
    return rows


def _row(run: str, audit: str | None = None) -> dict:
    return {"run": run, "puzzle": "?", "instance": "", "status": "unreadable", "value": None, "count": None,
            "count_complete": None, "unique": None, "seconds": 0.0, "audit": audit}


def _describe(run: dict) -> str:
    try:
        module = puzzles.get(run.get("puzzle", "?"))
        return module.describe(module.from_canonical(run["instance"]))
    except (InputError, KeyError, TypeError, ValueError, AttributeError):
        return "?"


def run_results_command(args) -> int:
    """`smtpuzzles results`: the table (on a terminal within 80 columns, elsewhere whole lines), or
    --json; --html also saves the runs as one static page (smtpuzzles.web)."""
    import json

    from rich.console import Console

    from smtpuzzles.ticker import Ticker, pace

    if args.html:
        from smtpuzzles.inputs import check_new_file
        from smtpuzzles.web import require_web

        require_web("--html")
        check_new_file(args.html, "--html")
    # Reading every folder is fast; auditing each is not (the 12x12 record's symmetry lemma alone takes
    # seconds), so the audit is asked for with --audit, with a progress line off a terminal.
    current: list[str] = []
    folder = Path(args.dir)
    with Ticker(lambda: current[0] if current else "results: looking for run folders",
                pace(args.progress_every, Console(stderr=True).is_terminal), stage="results"):
        rows = collect_results(folder, with_audit=args.audit, progress=current)
    rows = sorted_rows(rows, args.sort)
    if args.json:
        print(json.dumps(rows))
    else:
        terminal = Console().is_terminal
        table = results_table(folder, rows=rows, sort=args.sort, whole=not terminal)
        if terminal:
            Console().print(table)
        else:  # a log has no width: whole lines, without the padding a table's widest cell gives the rest
            console = Console(width=100_000)
            with console.capture() as captured:
                console.print(table)
            sys.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))
    if args.html:
        from smtpuzzles.web import Audits, write_report

        count = write_report(folder, args.html, Audits() if args.audit else None)
        print(f"saved {counted(count, 'run')} as {escaped(args.html)}", file=sys.stderr)
    return 0
