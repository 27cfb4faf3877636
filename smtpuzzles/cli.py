"""The command line: arguments, output and exit codes.

Exit codes: 0 an answer (optimal, solved, infeasible; audit clean), 1 an audit claim failed,
2 bad input (one line on stderr, nothing recorded is touched), 3 unknown (a time limit), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from smtpuzzles import __version__, puzzles
from smtpuzzles.driver import RefereeRejected
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import time_limit_argument
from smtpuzzles.render import STATUS_STYLE, number_text, status_text, summary_panel

EXIT = {"optimal": 0, "solved": 0, "infeasible": 0, "unknown": 3, "interrupted": 130}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smtpuzzles", description="Optimal puzzle solving on SMT, with proofs you can re-check.")
    parser.add_argument("--version", action="version", version=f"smtpuzzles {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="solve a puzzle and record the run")
    solve.add_argument("puzzle", help=", ".join(puzzles.NAMES))
    solve.add_argument("input", nargs="?", help="input file, or - for stdin (King's tour: a clue grid, optional)")
    solve.add_argument("--out", default="results", help="folder for run ledgers (default: results)")
    solve.add_argument("--json", action="store_true", help="print one JSON object instead of the picture")
    solve.add_argument("--time-limit", type=float, help="seconds allowed per solver check")
    solve.add_argument("--resume", metavar="RUN_DIR", help="continue a killed or timed-out run from its ledger")
    solve.add_argument("--engine", choices=("z3", "sat"), help="solver engine (default: the puzzle's measured best)")
    solve.add_argument("--encoding", help="encoding variant (kingtour: onehot, posted)")
    solve.add_argument("--no-guide", action="store_true",
                       help="ignore the puzzle's quick heuristic answer; the solver searches unaided (Nonary)")
    solve.add_argument("--svg", metavar="FILE", help="also save the rendering as an SVG picture")
    solve.add_argument("--size", type=int, help="King's tour: board size N")
    solve.add_argument("--box", help="King's tour: box shape RxC")
    solve.add_argument("--clues", metavar="FILE", help="King's tour: clue grid ('.' for empty)")
    solve.add_argument("--unique", action="store_true", help="Tatamibari: prove the solution unique or show a second")
    solve.add_argument("--count", nargs="?", type=int, const=0, metavar="LIMIT", help="Tatamibari: count solutions (up to LIMIT)")

    audit = sub.add_parser("audit", help="re-check run folders without trusting them",
                           description="Re-check run folders without trusting anything in them: the claim "
                                       "to refute is derived from the instance and the claimed value, and "
                                       "re-solved queries are built by today's encoder. Exit 0 clean, 1 a "
                                       "claim fails, 2 an unreadable folder, 3 a re-solve undecided, 4 a "
                                       "solver not installed.")
    audit.add_argument("run_dir", nargs="+", metavar="RUN_DIR", help="run folders to audit (one or more)")
    audit.add_argument("--resolve", nargs="?", const="certificate", choices=("certificate", "all"),
                       help="also re-solve the derived refutation (certificate, the default) or every "
                            "recorded UNSAT step (all) with z3 and cvc5, each in a fresh process")
    audit.add_argument("--solver", choices=("z3", "cvc5"), action="append",
                       help="re-solve with this solver only (repeat for both; default: z3 and cvc5)")
    audit.add_argument("--jobs", type=int, default=2, help="parallel re-solving processes (default: 2)")
    audit.add_argument("--time-limit", type=time_limit_argument, metavar="S",
                       help="seconds allowed for each re-solve (default: none)")
    audit.add_argument("--scheduler", metavar="ADDRESS", help="fan re-solving out to a Dask cluster")
    audit.add_argument("--json", action="store_true", help="print the report as JSON")

    show = sub.add_parser("show", help="render a recorded run")
    show.add_argument("run_dir")
    show.add_argument("--svg", metavar="FILE")

    export = sub.add_parser("export", help="write the SMT-LIB2 of every puzzle's canonical instances")
    export.add_argument("--out", default="encodings")

    convert = sub.add_parser("convert", help="Tatamibari: text grid <-> puzz.link URL")
    convert.add_argument("input", help="a file, - for stdin, or a URL")

    results = sub.add_parser("results", help="a table of every run under a folder")
    results.add_argument("dir", nargs="?", default="results")
    results.add_argument("--no-audit", action="store_true", help="skip auditing each run")
    results.add_argument("--json", action="store_true")

    batch = sub.add_parser("batch", help="run a TOML job file")
    batch.add_argument("jobs_file")
    batch.add_argument("--jobs", type=int, default=2, help="parallel local processes")
    batch.add_argument("--scheduler", metavar="ADDRESS", help="send jobs to a Dask cluster (tcp://HOST:PORT)")
    batch.add_argument("--out", help="output folder (default: the job file's, else results)")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except InputError as exc:
        print(f"smtpuzzles: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("smtpuzzles: interrupted", file=sys.stderr)
        return 130
    except RefereeRejected as exc:  # an encoding bug: never shown as an answer
        print(f"smtpuzzles: internal error: {exc}", file=sys.stderr)
        return 1


def read_input(path: str | None) -> tuple[str | None, str]:
    if path is None:
        return None, "input"
    if path == "-":
        return sys.stdin.read(), "stdin"
    try:
        return Path(path).read_text(encoding="utf-8"), path
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except (IsADirectoryError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc.__class__.__name__})", path) from None


def puzzle_options(args) -> dict:
    options = {"size": args.size, "box": args.box}
    return options


def cmd_solve(args) -> int:
    from smtpuzzles import run as runner

    console = Console(record=bool(args.svg))
    err = Console(stderr=True)
    progress = ProgressView(args.puzzle)
    live = Live(progress, console=err, refresh_per_second=4, transient=True) if (err.is_terminal and not args.json) else None
    if args.resume:
        if not Path(args.resume, "run.json").exists():
            raise InputError("not a run folder (no run.json)", args.resume)
        if live:
            live.start()
        try:
            outcome, ledger = runner.resume(Path(args.resume), time_limit=args.time_limit, on_step=progress.step, on_solution=progress.solution)
        finally:
            if live:
                live.stop()
        module = puzzles.get(ledger.run["puzzle"])
        instance = module.from_canonical(ledger.run["instance"])
    else:
        module = puzzles.get(args.puzzle)
        if args.clues and args.input:
            raise InputError("give the clue grid once: as INPUT or with --clues", "--clues")
        text, source = read_input(args.input or args.clues)
        options = puzzle_options(args)
        instance = module.load(text, source, options)
        mode = "optimise"
        if args.unique:
            mode = "unique"
        if args.count is not None:
            mode = "count"
        if mode != "optimise" and mode not in module.MODES:
            raise InputError(f"{module.NAME} has no {mode} mode", "--unique" if mode == "unique" else "--count")
        if mode == "optimise" and "optimise" not in module.MODES:
            mode = module.MODES[0]
        if live:
            live.start()
        try:
            outcome, ledger = runner.solve(module, instance, text or "", out_dir=Path(args.out), engine=args.engine,
                                           encoding=args.encoding, time_limit=args.time_limit, mode=mode,
                                           limit=args.count or None, on_step=progress.step, on_solution=progress.solution,
                                           params={"guide": False} if args.no_guide else None)
        finally:
            if live:
                live.stop()
    run = ledger.run
    payload = {
        "puzzle": module.NAME,
        "status": outcome.status,
        "value": module.value_json(outcome.value) if outcome.value is not None else None,
        "solution": outcome.solution,
        "run_dir": str(ledger.dir),
    }
    extra = outcome.extra or {}
    if "unique" in extra:
        payload["unique"] = extra["unique"]
    if run.get("mode") == "count":
        # No solution at all is a complete count of zero (the UNSAT first step proves it).
        payload["count"] = extra.get("count", 0)
        payload["count_complete"] = extra.get("count_complete", outcome.status == "infeasible")
    if args.json:
        print(json.dumps(payload))
    else:
        shown = payload["value"]
        shown = "\n".join(shown) if isinstance(shown, list) else ("—" if shown is None else shown)
        fields = [("status", status_text(outcome.status)), ("value", shown)]
        if "unique" in payload:
            fields.append(("unique", "yes" if payload["unique"] else "no: a second solution exists"))
        if "count" in payload:
            fields.append(("solutions", f"{payload['count']}{'' if payload['count_complete'] else ' (limit reached)'}"))
        fields += [("steps", f"{run['steps']} checks recorded"), ("run", str(ledger.dir))]
        if outcome.status in ("unknown", "interrupted"):
            fields.append(("resume", f"smtpuzzles solve {module.NAME} --resume {ledger.dir}"))
        console.print(summary_panel(f"{module.NAME}", fields, outcome.status))
        if outcome.solution is not None:
            proved = extra.get("proved_digits") if run.get("objective") == "lex" else None
            console.print(module.render(instance, outcome.solution, proved))
        if "other" in extra:
            console.print(Text("a second solution:", style="bold yellow"))
            console.print(module.render(instance, extra["other"], None))
    if args.svg:
        console.save_svg(args.svg, title=f"smtpuzzles {module.NAME}")
    return EXIT.get(outcome.status, 1)


class ProgressView:
    """The live display: current check, proved digits or closed bounds, elapsed time."""

    def __init__(self, puzzle: str):
        self.puzzle = puzzle
        self.started = time.perf_counter()
        self.words = "building the formula"
        self.checks = 0
        self.best = None
        self.proved = 0

    def step(self, step: dict) -> None:
        self.checks += 1
        claim = step["claim"]
        self.words = f"{step['words']}: {step['result']}"
        if claim["op"] == "exceed" and step["result"] == "unsat":
            self.proved = claim["pos"] + 1

    def solution(self, solution, value) -> None:
        self.best = value

    def __rich__(self):
        elapsed = time.perf_counter() - self.started
        head = Text(f"{self.puzzle}  {elapsed:6.1f}s  {self.checks} checks  ", style="bold cyan")
        head.append(self.words, style="")
        if isinstance(self.best, list):
            return Group(head, number_text(self.best, self.proved))
        if self.best is not None:
            return Group(head, Text(f"best so far: {self.best}", style="bold"))
        return head


def cmd_audit(args) -> int:
    from smtpuzzles.auditview import run_audit_command

    return run_audit_command(args)


def cmd_show(args) -> int:
    from smtpuzzles.audit import Rules
    from smtpuzzles.run import recorded_instance
    from smtpuzzles.runfolder import open_run

    folder = open_run(Path(args.run_dir))  # checked like the audit reads it: schema, caps, chain
    run, steps = folder.run, folder.steps
    module, instance = recorded_instance(run, str(folder.path / "run.json"))
    console = Console(record=bool(args.svg))
    counts: dict[str, int] = {}
    for s in steps:
        counts[s["result"]] = counts.get(s["result"], 0) + 1
    seconds = sum(s.get("seconds", 0) for s in steps)
    fields = [("status", status_text(run["status"])), ("value", run.get("value")),
              ("encoding", f"{run['encoding']['name']} v{run['encoding']['version']}"),
              ("engine", f"{run['engine']['name']} {run['engine'].get('version', '')}"),
              ("steps", ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none"),
              ("solver time", f"{seconds:.1f}s"), ("started", run.get("started")), ("ended", run.get("ended") or "—")]
    console.print(summary_panel(f"{run['puzzle']} run {folder.path.name}", fields, run["status"]))
    if folder.solution is not None:
        # Only a solution that passes the referee is drawn: a folder is anyone's data.
        problems, _ = Rules(module, instance).judge(folder.solution, str(folder.path / "solution.json"))
        if problems:
            console.print(Text(f"solution.json breaks the rules: {problems[0]}", style="bold red"))
        else:
            proved = None
            if run.get("objective") == "lex":
                proved = max([s["claim"]["pos"] + 1 for s in steps if s["claim"]["op"] == "exceed" and s["result"] == "unsat"], default=0)
            console.print(module.render(instance, folder.solution, proved))
    if args.svg:
        console.save_svg(args.svg, title=f"smtpuzzles {run['puzzle']}")
    return 0


def cmd_export(args) -> int:
    from smtpuzzles.export import export_all

    written = export_all(check_writable_folder(args.out, "--out"))
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_convert(args) -> int:
    from smtpuzzles.puzzles import tatamibari

    text, source = read_input(args.input)
    print(tatamibari.convert(text, source))
    return 0


def cmd_results(args) -> int:
    from smtpuzzles.batch import collect_results, results_table

    if args.json:
        print(json.dumps(collect_results(Path(args.dir), with_audit=not args.no_audit)))
    else:
        Console().print(results_table(Path(args.dir), with_audit=not args.no_audit))
    return 0


def cmd_batch(args) -> int:
    from smtpuzzles.batch import run_batch_cli

    return run_batch_cli(args)


COMMANDS = {"solve": cmd_solve, "audit": cmd_audit, "show": cmd_show, "export": cmd_export,
            "convert": cmd_convert, "results": cmd_results, "batch": cmd_batch}
