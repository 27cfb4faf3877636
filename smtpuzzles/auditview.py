"""`smtpuzzles audit`: one folder or many, live progress while re-solving, a verdict per folder.

Exit status: 0 every folder audits clean; 1 a claim fails in some folder; 2 a folder is unreadable,
malformed or tampered (one line each on stderr); 3 a re-solve could not decide (time limit,
`unknown`); 4 a solver the audit needs is not installed. With several folders the most serious
wins, in the order 1, 2, 4, 3, 0.
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
import threading
import time
from pathlib import Path

from rich import box
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from smtpuzzles.auditing.auditor import audit
from smtpuzzles.auditing.report import EXIT_MISSING_SOLVER, EXIT_UNDECIDED, Report
from smtpuzzles.durations import counted
from smtpuzzles.errors import InputError
from smtpuzzles.request import audit_asked
from smtpuzzles.shown import escaped, plain
from smtpuzzles.ticker import EVERY, Ticker, say_line

SEVERITY = (1, 2, EXIT_MISSING_SOLVER, EXIT_UNDECIDED, 0)
VERDICT_STYLE = {"clean": "bold green", "consistent": "bold green", "FAILED": "bold red", "undecided": "bold yellow",
                 "incomplete": "bold yellow", "unreadable": "bold red"}
MARK = {True: Text("✓", style="green"), False: Text("✗", style="bold red"), None: Text("?", style="bold yellow")}


class ResolveProgress:
    """What is being re-solved right now, for a live display (or one line per event off a terminal)."""

    def __init__(self, folder: str, lines_to=None):
        self.folder = folder
        self.running: dict[tuple[str, str], float] = {}
        self.stages: dict[tuple[str, str], str] = {}
        self.done: list[dict] = []
        self.lines_to = lines_to
        self.lock = threading.Lock()

    def __call__(self, event: dict) -> None:
        key = (event["query"], event["solver"])
        with self.lock:
            if event["state"] == "stage":  # where a long check stands (a proof made in parts): shown, not printed
                if key in self.running:
                    self.stages[key] = str(event.get("words", ""))
                return
            self.stages.pop(key, None)
            if event["state"] == "started":
                self.running[key] = time.monotonic()
                if self.lines_to:
                    say_line(f"audit: {event.get('verb', 're-solving')} {escaped(event['query'])} with "
                             f"{event['solver']}...", self.lines_to)
            else:
                self.running.pop(key, None)
                self.done.append(event)
                if self.lines_to:
                    verb = "answered" if event["answer"] in ("sat", "unsat", "unknown") else "was"
                    say_line(f"audit: {escaped(event['query'])}: {event['solver']} {verb} {escaped(event['answer'])} "
                             f"in {event['seconds']:.1f} s", self.lines_to)
                    if event.get("why"):  # a log read hours later must say why, not only at the report's end
                        # one write: the ticker's line never lands inside the reason
                        say_line("\n".join(f"  {line}" for line in textwrap.wrap(escaped(event["why"]), 78)),
                                 self.lines_to)

    def plain_line(self) -> str:
        """One line for a log (smtpuzzles.ticker): the folder, and what is being checked now."""
        with self.lock:
            now = time.monotonic()
            busy = [self._busy(q, s, now - t) for (q, s), t in sorted(self.running.items())]
            done = len(self.done)
        news = ", ".join(text for text, _ in busy) + (" parts" if busy and busy[-1][1] else "")
        return f"audit {_brief(Path(self.folder).name)}: " + (news or "reading and checking") + \
            (f"; {done} done" if done else "")

    def _busy(self, query: str, solver: str, seconds: float) -> tuple[str, bool]:
        """(a few words on one query being checked, whether they are a count of parts)."""
        stage = self.stages.get((query, solver))
        if stage is None:
            return f"{query} with {solver} {seconds:.0f}s", False
        part = re.match(r"part (\d+/\d+)", stage)
        if part and len(self.running) > 1:  # two proofs in parts side by side, both in 80 columns:
            return f"{query} {part[1]}", True  # "certificate 150/211, reference 112/196 parts"
        return f"{query}: {stage} {seconds:.0f}s", False

    def __rich__(self):
        with self.lock:
            now = time.monotonic()
            lines = [plain(f"re-solving queries of {Path(self.folder).name}", style="bold cyan")]
            for (query, solver), started in sorted(self.running.items()):
                stage = self.stages.get((query, solver))
                lines.append(plain(f"  {query} with {solver}: {now - started:5.0f} s" + (f" ({stage})" if stage else "")))
            for event in self.done[-4:]:
                style = "green" if event["answer"] in ("unsat", "checked") else "bold red"
                lines.append(plain(f"  {event['query']} with {event['solver']}: ", style="dim")
                             + plain(event["answer"][:30], style=style) + Text(f" in {event['seconds']:.1f} s", style="dim"))
            return Group(*lines)


def report_view(report: Report):
    """The findings of one folder, its re-solved queries and its verdict, within 80 columns."""
    findings = Table.grid(padding=(0, 1))
    findings.add_column(no_wrap=True)
    findings.add_column(style="bold", no_wrap=True)
    findings.add_column(overflow="fold")
    for f in report.findings:
        findings.add_row(MARK[f.ok], plain(f.section), plain(f.text))
    parts = [plain(f"audit of {report.run_dir}", style="bold")]
    if report.instance:
        shown = report.instance
        parts.append(plain(f"instance: {shown['puzzle']} {shown['description']}".rstrip()
                           + f", sha-256 {shown['sha256'][:16]}", style="dim"))
    parts.append(findings)
    if report.rests_on:
        parts.append(plain("the claim's checked proofs refute it on: " + "; ".join(report.rests_on), style="dim"))
    if report.resolved:
        solved = Table.grid(padding=(0, 2))
        for _ in range(4):
            solved.add_column()
        for r in report.resolved:
            style = "green" if r["answer"] == "unsat" else "bold red"
            solved.add_row(plain(r["query"]), plain(r["solver"]), plain(r["answer"][:40], style=style), f"{r['seconds']:.1f} s")
        parts += [Text("re-solved here, from queries built by today's encoder:", style="bold"), solved]
    parts.append(verdict_line(report))
    return Group(*parts)


def verdict_line(report: Report) -> Text:
    value = _short(report.value, 30) if report.value is not None else ""
    answer = f" ({report.answer})" if report.answer else ""
    text = plain(f"{report.puzzle} {report.status}{answer} {value}".rstrip() + f": audit {report.verdict}",
                style=VERDICT_STYLE[report.verdict])
    if report.verdict == "consistent":
        fix = "add --proof to check the stored proof, or --resolve" if report.proof_stored else "add --resolve"
        text.append(f"\n(its UNSAT answer was taken from the ledger, not re-checked: {fix})", style="yellow")
    if report.missing:
        text.append(f"\n(install {', '.join(report.missing)} to finish it: pip install 'smtpuzzles[audit]')", style="")
    return text


AUDIT_FLAGS = {"proof": "--proof", "resolve": "--resolve", "solvers": "--solver", "time_limit": "--time-limit",
               "jobs": "--jobs", "keep_parts": "--keep-parts", "checker": "--checker",
               "checked_parts": "--checked-parts"}


def run_audit_command(args, sinks=(), reports: list | None = None) -> int:
    """`smtpuzzles audit`; `sinks` are more places every proof goes (the `proofs` command's files),
    and `reports`, when given, receives each report printed."""
    # Checked as the Python API checks them (smtpuzzles.request), in the same words.
    asked = audit_asked(args.proof, args.resolve, args.solver, args.time_limit, args.jobs, args.keep_parts,
                        AUDIT_FLAGS.__getitem__, args.checker, getattr(args, "checked_parts", None))
    parts_dir = asked.parts_dir
    checkers = (*asked.checkers, *sinks)
    named = _folders_named(args.run_dir)
    # One run folder named: its report (in JSON, one object); anything else is a table (a list).
    single = len(args.run_dir) == 1 and len(named) == 1 and named[0][0] == Path(args.run_dir[0])
    solvers = asked.solvers
    console = Console()
    err = Console(stderr=True)
    rows: list[tuple[Path, Report | None, str, str]] = []
    current: list[ResolveProgress] = []
    every = 0 if err.is_terminal else getattr(args, "progress_every", EVERY)
    with Ticker(lambda: current[-1].plain_line() if current else "starting", every):
        for folder, label, unreadable in named:
            if unreadable:  # never read, so never audited: a row that says so, and exit 2
                error = f"{folder}: the folder cannot be read ({unreadable})"
                print(f"smtpuzzles: error: {escaped(error)}", file=sys.stderr)
                rows.append((folder, None, error, label))
                continue
            progress = ResolveProgress(str(folder), None if err.is_terminal or args.json else sys.stderr)
            current.append(progress)
            rows.append((*_audit_one(args, folder, progress, err, solvers, single, parts_dir, checkers,
                                    asked.journal), label))
    if reports is not None:
        reports += [report for _, report, _, _ in rows if report is not None]
    return _print_audits(args, rows, console, single)


def run_proofs_command(args) -> int:
    """`smtpuzzles proofs RUN_DIR --out DIR`: the audit with --proof, its proofs written to DIR."""
    import argparse

    from smtpuzzles.folders.runfolder import open_run
    from smtpuzzles.inputs import new_folder
    from smtpuzzles.proofs.exported import ProofFiles

    if not args.run_dir or not (Path(args.run_dir) / "run.json").is_file():
        raise InputError("is not a run folder (proofs takes one run)", f"RUN_DIR {escaped(args.run_dir)}")
    open_run(Path(args.run_dir))  # unreadable or tampered: one line, before any folder is made
    files = ProofFiles(new_folder(args.out))
    audit_args = argparse.Namespace(**{**vars(args), "run_dir": [args.run_dir], "proof": "certificate", "resolve": None,
                                       "solver": None, "jobs": 2, "scheduler": None})
    reports: list[Report] = []
    try:
        code = run_audit_command(audit_args, sinks=(files,), reports=reports)
    except KeyboardInterrupt:  # what was written stays, for a look, but it is no set of proofs to check
        print(escaped(f"{files.folder} is incomplete: no README.txt or check.sh;"), file=sys.stderr)
        print("remove it to ask again", file=sys.stderr)
        raise
    written = files.finish(reports[-1], args.run_dir) if reports else 0
    # Two lines, each within 80 columns but for a long folder name.
    print(escaped(f"wrote {written} files to {files.folder}"), file=sys.stderr)
    print("README.txt there says what each claims; sh check.sh checks them with cake_lpr", file=sys.stderr)
    return code


def _brief(name: str) -> str:
    """A run folder's name in a progress line of 80 columns: as `results` names a run (PUZZLE
    HHMMSS), which leaves the line room for what is being checked; another name cut."""
    from smtpuzzles.results import run_label

    label = run_label(name, width=24)
    return label if len(label) <= 24 else label[:23] + "…"


def _folders_named(names: list[str]) -> list[tuple[Path, str, str]]:
    """(folder, its name in the table, why it cannot be read or "") for each run folder named, and
    for a named folder that is not one but holds runs (a batch's output, `runs/`) each run below it
    and each folder below it that could not be read, as `smtpuzzles results` finds them; each real
    folder once. Anything else as named, for the audit to refuse in its own words."""
    from smtpuzzles.folders.runfolder import find_runs, relative_name

    found: list[tuple[Path, str, str]] = []
    seen: set[str] = set()
    for name in names:
        if not name:
            raise InputError("an empty name where a run folder goes", "RUN_DIR")
        folder = Path(name)
        if folder.is_dir() and not (folder / "run.json").exists():
            runs, unreadable = find_runs(folder)
            below = [(run, relative_name(run, folder), "") for run in runs]
            below += [(place, relative_name(place, folder), why) for place, why in unreadable]
            entries = below or [(folder, name, "")]
        else:
            entries = [(folder, folder.name or name, "")]
        for entry in entries:
            real = os.path.realpath(entry[0])  # never raises, a loop of links included
            if real not in seen:
                seen.add(real)
                found.append(entry)
    return found


def _audit_one(args, folder: Path, progress, err, solvers, single: bool, parts_dir: Path | None = None, checkers=(),
               journal=None):
    """(folder, report or None, error) of one folder; an unreadable one among several is a row."""
    busy = args.resolve or args.proof
    live = Live(progress, console=err, refresh_per_second=4, transient=True) \
        if (busy and err.is_terminal and not args.json) else None
    try:
        if live:
            live.start()
        try:
            report = audit(folder, resolve=args.resolve, solvers=solvers, jobs=args.jobs, scheduler=args.scheduler,
                           timeout=args.time_limit, progress=progress if busy else None, proof=args.proof,
                           parts_dir=parts_dir, checkers=checkers, journal=journal)
        finally:
            if live:
                live.stop()
    except InputError as exc:
        if single:
            raise
        print(f"smtpuzzles: error: {escaped(str(exc))}", file=sys.stderr)
        return folder, None, str(exc)
    return folder, report, ""


def _print_audits(args, rows, console, single: bool) -> int:
    codes = [report.exit_code if report else 2 for _, report, _, _ in rows]
    code = next(c for c in SEVERITY if c in codes)
    if args.json:
        out = [report.as_json() if report else {"run_dir": str(folder), "verdict": "unreadable", "exit": 2, "error": error}
               for folder, report, error, _ in rows]
        print(json.dumps(out[0] if single else out))
        return code
    if single:
        console.print(report_view(rows[0][1]))
        return code
    console.print(summary_view(rows))
    for folder, report, _, _ in rows:
        if report is not None and report.exit_code:
            console.print(report_view(report))
    return code


def summary_view(rows):
    table = Table(title=f"audit of {counted(len(rows), 'run folder')}", title_justify="left", box=box.SIMPLE_HEAD,
                  padding=(0, 1), pad_edge=False)
    # Fixed widths (padding included) that add up to 76 of 80 columns; a longer folder name goes on
    # over a second line rather than lose its end (the time of day tells one board's runs apart).
    table.add_column("run", overflow="fold", width=34)
    table.add_column("puzzle", no_wrap=True, width=12)
    table.add_column("claim", no_wrap=True, width=18)
    table.add_column("audit", no_wrap=True, width=12)
    for folder, report, error, label in rows:
        name = plain(label)
        if report is None:
            table.add_row(name, "?", "", Text("unreadable", style=VERDICT_STYLE["unreadable"]))
        else:
            claim = f"{report.status} {_short(report.value, 16) if report.value is not None else ''}".rstrip()
            table.add_row(name, plain(report.puzzle), plain(_short(claim, 16)),
                          Text(report.verdict, style=VERDICT_STYLE[report.verdict]))
    parts = [table]
    if any(report is not None and report.verdict == "consistent" for _, report, _, _ in rows):
        parts.append(Text("UNSAT answers were taken from the ledgers, not re-solved here: add --resolve",
                          style="yellow"))
    return Group(*parts)


def _short(value, width: int) -> str:
    text = "\n".join(value) if isinstance(value, list) and all(isinstance(v, str) for v in value) else str(value)
    text = text.splitlines()[0] + ("..." if "\n" in text else "") if text else text
    return text if len(text) <= width else text[: width - 3] + "..."
