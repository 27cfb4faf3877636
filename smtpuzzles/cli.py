"""The command line: arguments, output and exit codes.

Exit codes: 0 an answer (optimal, solved, infeasible; audit clean), 1 an audit claim failed,
2 bad input (one line on stderr, nothing recorded is touched), 3 unknown (a time limit), 130 interrupted.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import time
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.text import Text

from smtpuzzles import __version__, puzzles, request
from smtpuzzles.bundled import DEFAULT_OUT, JOB_FILE
from smtpuzzles.driver import RefereeRejected
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import (RUNS, check_new_file, check_writable_folder, is_url, progress_every_argument, read_input,
                                split_after_argument, time_limit_argument, whole_number_argument)
from smtpuzzles.shown import escaped, plain
from smtpuzzles.ticker import EVERY, Ticker
from smtpuzzles.render import pipe_console, print_all, status_text, summary_panel

EXIT = {"optimal": 0, "solved": 0, "infeasible": 0, "unknown": 3, "interrupted": 130}


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that shows each option's default where it has a real one (not None or False)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in text \
                and "default:" not in text and (action.option_strings or action.nargs == "?"):
            text += " (default: %(default)s)"
        return text

    def _fill_text(self, text, width, indent):
        """Text laid out in lines already (the list of puzzles) is kept as it is."""
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


class Parser(argparse.ArgumentParser):
    """argparse with the tool's error style: one line naming the argument, exit 2; a mistyped flag
    also shows the subcommand's usage and the nearest valid flag."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)
        self.commands: dict[str, "Parser"] = {}

    def parse_args(self, args=None, namespace=None):
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            target = self.commands.get(getattr(namespace, "command", None) or "", self)
            target.unrecognized(extras)
        return namespace

    def unrecognized(self, extras: list[str]) -> None:
        word = extras[0]
        flags = [flag for action in self._actions for flag in action.option_strings if flag.startswith("--")]
        near = difflib.get_close_matches(word.split("=", 1)[0], flags, n=1, cutoff=0.5) if word.startswith("-") else []
        hint = f"; did you mean {near[0]}?" if near else f"; see {self.prog} --help"
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: unrecognized argument {word!r}{hint}\n")

    def error(self, message: str):
        if "invalid choice" in message:  # argparse 3.11 lists the choices but does not guess
            bad = message.split("invalid choice: ", 1)[-1].split(" (", 1)[0].strip("'")
            choices = [c for action in self._actions for c in (action.choices or ())]
            near = difflib.get_close_matches(bad, [str(c) for c in choices], n=1, cutoff=0.5)
            if near:
                message += f"; did you mean {near[0]}?"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="smtpuzzles", description="Optimal puzzle solving on SMT, with proofs you can re-check.")
    parser.add_argument("--version", action="version", version=f"smtpuzzles {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="what to do (each has its own --help)")

    solve = sub.add_parser("solve", help="solve a puzzle and record the run", description="Solve a puzzle optimally and "
                           "record every solver check in a run folder. Exit 0 an answer, 2 bad input, 3 a time limit "
                           "ran out (unknown), 130 interrupted.", epilog=puzzle_list())
    solve.add_argument("puzzle", metavar="PUZZLE", help="which puzzle: " + ", ".join(puzzles.names()))
    solve.add_argument("input", nargs="?", metavar="INPUT",
                       help="input file or - for stdin; a URL where the puzzle reads one (see below)")
    solve.add_argument("--out", default=RUNS, metavar="DIR", help="folder for run ledgers")
    solve.add_argument("--json", action="store_true", help="print one JSON object instead of the picture")
    progress_flag(solve)
    solve.add_argument("--time-limit", type=time_limit_argument, metavar="S",
                       help="seconds allowed per solver check, a finite positive number (default: no limit)")
    solve.add_argument("--resume", metavar="RUN_DIR", help="continue a killed or timed-out run from its ledger")
    solve.add_argument("--engine", choices=("z3", "sat"), help="solver engine (default: the puzzle's measured best)")
    solve.add_argument("--encoding", metavar="NAME",
                       help="encoding variant (default: the puzzle's first; see below)")
    # The engine parameter `guide` (also a job's params): any encoding may offer a guess.
    solve.add_argument("--no-guide", action="store_true",
                       help="ignore the encoding's quick heuristic answer where it has one; the solver searches "
                            "unaided")
    solve.add_argument("--svg", metavar="FILE", help="also save a drawing of the puzzle and its answer as an SVG file "
                       "(a puzzle without a drawing: the terminal's picture; its folder must exist)")
    solve.add_argument("--cubes", type=int, choices=(1, 2), default=0, metavar="DEPTH",
                       help="split a check the solver does not settle within --split-after seconds into the "
                            "puzzle's cubes (1 or 2 branching levels), each its own step; the audit checks "
                            "that they cover every case (allowed on --resume: a long run can move to a "
                            "cluster)")
    solve.add_argument("--scheduler", metavar="ADDRESS",
                       help="solve the cubes side by side on a Dask cluster (tcp://HOST:PORT)")
    solve.add_argument("--split-after", type=split_after_argument, default=5.0, metavar="S",
                       help="with --cubes, seconds a whole check may take before it is split (0: split every "
                            "check)")
    solve.add_argument("--certify", action="store_true",
                       help="store a checked clausal (LRAT) proof of the closing UNSAT claim in the run "
                            "folder (Boolean encodings; see 'smtpuzzles certify')")
    # Modes, for every puzzle whose MODES has them (checked once the puzzle is known).
    solve.add_argument("--unique", action="store_true",
                       help=f"prove the solution unique or show a second ({having_mode('unique')})")
    solve.add_argument("--count", nargs="?", type=whole_number_argument(0), const=0, metavar="LIMIT",
                       help=f"count solutions, up to LIMIT if given, 0 or none: all ({having_mode('count')})")
    add_puzzle_options(solve)

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
    audit.add_argument("--proof", nargs="?", const="certificate", choices=("certificate", "all"),
                       help="check the folder's stored proof of the derived claim against the query today's "
                            "encoder builds, or, with none stored, make one with a proof-logging SAT solver "
                            "and check it; with all, also prove every recorded UNSAT step (Boolean encodings)")
    audit.add_argument("--scheduler", metavar="ADDRESS", help="fan re-solving out to a Dask cluster")
    audit.add_argument("--json", action="store_true", help="print the report as JSON")
    progress_flag(audit)

    certify = sub.add_parser("certify", help="add a checked proof to a finished run",
                             description="Refute the run's closing UNSAT claim again with a proof-logging SAT "
                                         "solver, check the proof, and store it in the folder as LRAT with the "
                                         "query as DIMACS (both gzip). Exit 0 stored, 1 no proof, 2 bad input.")
    certify.add_argument("run_dir", metavar="RUN_DIR", help="a finished run folder")
    certify.add_argument("--time-limit", type=time_limit_argument, metavar="S",
                         help="seconds allowed for the proof-logging solver (default: none)")

    show = sub.add_parser("show", help="render a recorded run, or where a running one stands",
                          description="Render a run folder. A run still going (or stopped part-way) shows "
                                      "where it stands: the position being decided, the proved prefix, the "
                                      "best value so far, checks per minute, the slowest checks and a rough "
                                      "estimate of what remains. Reads without taking the writer's lock.")
    show.add_argument("run_dir", metavar="RUN_DIR")
    show.add_argument("--svg", metavar="FILE", help="also save a drawing of the puzzle and its answer as an SVG file")
    show.add_argument("--follow", action="store_true",
                      help="read the folder again every few seconds until the run is sealed (Ctrl-C stops)")

    export = sub.add_parser("export", help="write the SMT-LIB2 of every puzzle's canonical instances")
    export.add_argument("--out", default="encodings", metavar="DIR", help="folder to write the .smt2 files into")
    export.add_argument("--puzzle", action="append", metavar="NAME",
                        help="only this puzzle's examples (repeat for more; default: every puzzle's)")

    examples = sub.add_parser("examples", help="write the bundled example inputs and the model job file",
                              description="Write every bundled example input (each puzzle's seed cases, with "
                                          "their expected answers in expected.json) and the model job file, "
                                          f"{JOB_FILE}, into a folder; then run them with `smtpuzzles batch "
                                          f"DIR/{JOB_FILE}`. A file already there with other content is never "
                                          "overwritten.")
    examples.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help="folder to write them into")

    converters = [f"{p.NAME}: {p.CONVERTS}" for p in puzzles.all_puzzles() if p.convert]
    convert = sub.add_parser("convert", help="an input from one form to another (" + "; ".join(converters or ["none"]) + ")")
    convert.add_argument("input", metavar="INPUT", help="an input file, - for stdin, or a URL")
    convert.add_argument("--puzzle", metavar="NAME",
                         help="whose conversion (needed only when more than one puzzle converts)")

    results = sub.add_parser("results", help="a table of every run under a folder")
    results.add_argument("dir", nargs="?", default=RUNS, help=f"a folder of runs (default {RUNS}; results holds the "
                         "published records)")
    results.add_argument("--audit", action="store_true", help="audit each run too (as `smtpuzzles audit` does)")
    results.add_argument("--no-audit", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    results.add_argument("--json", action="store_true")
    progress_flag(results)

    batch = sub.add_parser("batch", help="run a TOML job file")
    batch.add_argument("jobs_file", metavar="JOBS.toml",
                       help=f"the job file (`smtpuzzles examples` writes a model: {DEFAULT_OUT}/{JOB_FILE})")
    batch.add_argument("--jobs", type=whole_number_argument(1), default=2, metavar="N", help="parallel local processes")
    batch.add_argument("--scheduler", metavar="ADDRESS", help="send jobs to a Dask cluster (tcp://HOST:PORT)")
    batch.add_argument("--out", metavar="DIR", help=f"output folder (default: the job file's, else {RUNS})")
    progress_flag(batch)
    parser.commands = dict(sub.choices)
    return parser


def progress_flag(parser) -> None:
    parser.add_argument("--progress-every", type=progress_every_argument, default=EVERY, metavar="S",
                        help=f"off a terminal, a progress line every S seconds (default {EVERY:g}; 0: none)")


def main(argv=None) -> int:
    if getattr(sys.stdout, "encoding", "utf-8").lower().replace("-", "") != "utf8" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")  # an ASCII terminal gets '?' for arrows, not a traceback
    try:
        # Building the parser loads the installed puzzles: a Ctrl-C during it is a Ctrl-C like any other.
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error already reported in one line
            return exc.code if isinstance(exc.code, int) else 2
        return COMMANDS[args.command](args)
    except InputError as exc:
        print(f"smtpuzzles: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `smtpuzzles ... | head`: the reader left; nothing more to say
        quiet_stdout()
        return 0
    except OSError as exc:
        if exc.filename is None:
            raise
        print(f"smtpuzzles: error: {escaped(exc.filename)}: {exc.strerror or exc.__class__.__name__}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("smtpuzzles: interrupted", file=sys.stderr)
        return 130
    except RefereeRejected as exc:  # an encoding bug: never shown as an answer
        print(f"smtpuzzles: internal error: {one_line(str(exc))}", file=sys.stderr)
        return 1


def one_line(text: str) -> str:
    """A message as one line: newlines and other control characters shown escaped."""
    return escaped(text)


def quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the exit flush raises nothing either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture stdout)
        pass


# ------------------------------------------------------------------------------ the puzzles' options
def puzzle_options_by_name() -> dict[str, list]:
    """Every registered puzzle's options by name: [(puzzle, Option), ...] (the registry has made sure
    that puzzles sharing a name agree on its type)."""
    found: dict[str, list] = {}
    for puzzle in puzzles.all_puzzles():
        for option in puzzle.OPTIONS:
            found.setdefault(option.name, []).append((puzzle, option))
    return found


def add_puzzle_options(solve: argparse.ArgumentParser) -> None:
    """One flag per option name, whichever puzzles declare it; help says whose it is."""
    for name, owners in puzzle_options_by_name().items():
        option = owners[0][1]
        helps = "; ".join(f"{puzzle.NAME}: {o.help}" for puzzle, o in owners)
        if option.type is bool:
            solve.add_argument(option.flag, dest=name, action="store_true", default=None, help=helps)
        else:
            convert = whole_number_argument(option.minimum if option.minimum is not None else -(2**63)) \
                if option.type is int else str
            solve.add_argument(option.flag, dest=name, type=convert, metavar=option.metavar or name.upper(), help=helps)


def having_mode(mode: str) -> str:
    return ", ".join(p.NAME for p in puzzles.all_puzzles() if mode in p.MODES) or "no puzzle installed"


def puzzle_list() -> str:
    """The puzzles for `solve --help`: what each asks, its options, its encodings; within 80 columns."""
    import textwrap

    lines = ["puzzles:"]
    for puzzle in puzzles.all_puzzles():
        about = [puzzle.SUMMARY]
        inputs = "INPUT optional" if not puzzle.INPUT_REQUIRED else ("INPUT or a URL" if puzzle.ACCEPTS_URLS else "")
        flags = ", ".join(o.flag for o in puzzle.OPTIONS)
        detail = "; ".join(x for x in (inputs, flags, "encodings " + ", ".join(puzzle.ENCODINGS)
                                                                   if len(puzzle.ENCODINGS) > 1 else "") if x)
        if detail:
            about.append(f"({detail})")
        wrapped = textwrap.wrap(" ".join(about), 64)
        lines.append(f"  {puzzle.NAME:<12}{wrapped[0]}" if len(puzzle.NAME) < 12 else f"  {puzzle.NAME}")
        lines += [" " * 14 + line for line in wrapped[(1 if len(puzzle.NAME) < 12 else 0):]]
    for name, why in puzzles.registry().failed.items():
        lines += [" " * 2 + line for line in textwrap.wrap(f"{name}: left out, {why}", 76)]
    return "\n".join(lines) + "\n"


def puzzle_options(module, args) -> tuple[dict, str | None]:
    """(the options `module.load` gets, the input path): each of the puzzle's options as given or its
    default, a file option read as the input; an option of another puzzle is refused."""
    options, input_path = {}, args.input
    for name, owners in puzzle_options_by_name().items():
        given = getattr(args, name, None)
        option = module.option(name)
        if option is None:
            if given not in (None, False):
                whose = ", ".join(puzzle.NAME for puzzle, _ in owners)
                raise InputError(f"{module.NAME} takes no such option ({whose} does)", owners[0][1].flag)
            continue
        if option.input_file:
            if given is not None:
                if args.input:
                    raise InputError(f"give the {name} once: as INPUT or with {option.flag}", option.flag)
                input_path = given
            continue
        options[name] = option.default if given is None else option.check(given, option.flag)
    return options, input_path


def resume_fixes() -> list[tuple[str, str]]:
    """(argument, as the user wrote it) for everything a resumed run keeps from its start."""
    return [("input", "INPUT"), *((name, owners[0][1].flag) for name, owners in puzzle_options_by_name().items()),
            ("unique", "--unique"), ("count", "--count"), ("engine", "--engine"), ("encoding", "--encoding"),
            ("no_guide", "--no-guide")]


def check_resume(args) -> None:
    """A resumed run keeps its recorded puzzle, instance and options: refuse any that would be ignored."""
    from smtpuzzles.runfolder import read_run_json

    run = read_run_json(Path(args.resume))  # the checked reader: caps, no symlinks, a schema
    recorded = run["puzzle"]
    if recorded != args.puzzle:
        raise InputError(f"this is a {recorded} run, not {args.puzzle}: resume it with "
                         f"'smtpuzzles solve {recorded} --resume'", args.resume)
    for attribute, flag in resume_fixes():
        if getattr(args, attribute, None) not in (None, False):
            raise InputError("a resumed run keeps the instance and options it was started with; leave it out", flag)


def cmd_solve(args) -> int:

    module = puzzles.get(args.puzzle)  # an unknown name is refused before anything else
    if args.svg:
        check_new_file(args.svg, "--svg")  # before solving, not after minutes of it
    err = Console(stderr=True)
    progress = ProgressView(module)
    live = Live(progress, console=err, refresh_per_second=4, transient=True) if (err.is_terminal and not args.json) else None
    # Off a terminal (a log, nohup, a pipe), a plain line every --progress-every seconds instead.
    ticker = Ticker(progress.plain_line, 0 if err.is_terminal else args.progress_every)
    with ticker:
        outcome, ledger, module, instance = solve_or_resume(args, module, progress, live)
    return finish_solve(args, module, instance, outcome, ledger, err)


def solve_or_resume(args, module, progress, live):
    from smtpuzzles import run as runner

    if args.resume:
        check_resume(args)
        if live:
            live.start()
        try:
            outcome, ledger = runner.resume(Path(args.resume), time_limit=args.time_limit, scheduler=args.scheduler,
                                            split_after=args.split_after, cubes=args.cubes or None,
                                            on_step=progress.step, on_solution=progress.solution)
        finally:
            if live:
                live.stop()
        module = puzzles.get(ledger.run["puzzle"])
        instance = module.from_canonical(ledger.run["instance"])
    else:
        options, input_path = puzzle_options(module, args)
        if is_url(input_path) and not module.ACCEPTS_URLS:
            raise InputError(f"{module.NAME} reads a file or stdin, not a URL", "INPUT")
        check_writable_folder(args.out, "--out")
        text, source = read_input(input_path)
        instance = module.load(text, source, options)
        mode, limit = request.mode_and_limit(module, args.unique, args.count, lambda key: f"--{key}")
        request.check_split(module, args.encoding, args.cubes, "--cubes")
        if live:
            live.start()
        try:
            outcome, ledger = runner.solve(module, instance, text or "", out_dir=Path(args.out), engine=args.engine,
                                           encoding=args.encoding, time_limit=args.time_limit, mode=mode,
                                           limit=limit, on_step=progress.step, on_solution=progress.solution,
                                           params={"guide": False} if args.no_guide else None, cubes=args.cubes,
                                           scheduler=args.scheduler, split_after=args.split_after)
        finally:
            if live:
                live.stop()
    return outcome, ledger, module, instance


def finish_solve(args, module, instance, outcome, ledger, err) -> int:
    """After the run is sealed: the proofs when asked (--certify), then the answer."""
    from smtpuzzles import run as runner

    run = ledger.run
    certify_failed = False
    if args.certify and outcome.certificate is not None:
        # After the run is sealed: a proof that fails leaves the answer recorded, and says so.
        say = (lambda words: err.print(words, highlight=False)) if (err.is_terminal and not args.json) else None
        try:
            run["proof"] = runner.certify(ledger.dir, progress=say)["proof"]
        except InputError as exc:  # an arithmetic encoding, a time limit: the answer stands, recorded
            print(f"smtpuzzles: no proof stored: {one_line(str(exc))}", file=sys.stderr)
            certify_failed = True
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
    shown = solve_pictures(module, instance, outcome, payload, run, ledger)
    try:
        if args.json:
            print(json.dumps(payload))
            sys.stdout.flush()
        else:
            print_all(pipe_console(), shown)
    except BrokenPipeError:  # `--json | head`: the run is recorded; the reader just stopped reading
        quiet_stdout()
    if args.svg:  # the puzzle's own drawing; the terminal picture for a puzzle without `draw`
        from smtpuzzles import pictures

        pictures.save(args.svg, pictures.solve_drawing(module, instance, payload), shown, f"smtpuzzles {module.NAME}")
    return 1 if certify_failed else EXIT.get(outcome.status, 1)


def solve_pictures(module, instance, outcome, payload: dict, run: dict, ledger) -> list:
    """The summary and the pictures of a solve, laid out for 80 columns."""
    extra = outcome.extra or {}
    value = payload["value"]
    if isinstance(value, list):
        value = "\n".join(value) if max(map(len, value), default=0) <= 50 else "the regions drawn below"
    fields = [("status", status_text(outcome.status)), ("value", "—" if value is None else value)]
    if "unique" in payload:
        fields.append(("unique", "yes" if payload["unique"] else "no: a second solution exists"))
    if "count" in payload:
        fields.append(("solutions", f"{payload['count']}{'' if payload['count_complete'] else ' (limit reached)'}"))
    fields += [("steps", f"{run['steps']} checks recorded"), ("run", str(ledger.dir))]
    shown = [summary_panel(f"{module.NAME}", fields, outcome.status)]
    if outcome.status in ("unknown", "interrupted"):
        # Its own unbroken line, so that it can be copied whole.
        shown.append(Text(f"resume: smtpuzzles solve {module.NAME} --resume {ledger.dir}", no_wrap=True, overflow="ignore"))
    if outcome.solution is not None:
        proved = extra.get("proved_digits") if run.get("objective") == "lex" else None
        shown.append(module.render(instance, outcome.solution, proved))
    if "other" in extra:
        shown.append(Text("a second solution:", style="bold yellow"))
        shown.append(module.render(instance, extra["other"], None))
    return shown


class ProgressView:
    """The live display: the current check, then where the run stands as `show` tells it (position
    and proved prefix, checks per minute, slowest checks, a rough estimate), then the best value so
    far as the puzzle shows it, the proved leading positions of a lexicographic objective bright."""

    def __init__(self, puzzle, clock=time.perf_counter):
        self.puzzle = puzzle
        self.clock = clock
        self.started = clock()
        self.last_step = self.started  # when the last step came: the current check began then
        self.words = "building the formula"
        self.checks = 0
        self.best = None
        self.steps: list[dict] = []
        self._summary = None  # the progress of `steps`, made again only when a step comes

    def step(self, step: dict) -> None:
        self.checks += 1
        self.steps.append(step)
        self._summary = None
        self.last_step = self.clock()
        self.words = f"{step['words']}: {step['result']}"

    def solution(self, solution, value) -> None:
        self.best = value

    def lines(self) -> list[str]:
        """Where the run stands, in lines that fit 80 columns (empty before the first check)."""
        from smtpuzzles.live import summarise, view_lines

        if not self.steps:
            return []
        if self._summary is None:
            try:
                self._summary = summarise(self.steps)
            except InputError as exc:  # a resumed folder's odd value: the display says so, the run goes on
                return [one_line(str(exc))[:80]]
        return view_lines(self._summary, self.clock() - self.last_step)

    def plain_line(self) -> str:
        """One line of where the run stands, for a log (smtpuzzles.ticker): checks, position, best."""
        self.lines()  # the summary of the steps so far
        p = self._summary
        if p is None:
            where = self.words
        elif p.objective == "lex" and p.length is not None:
            where = (f"position {p.position} of {p.length}, {p.proved} proved" if p.position is not None
                     else f"all {p.length} positions proved")
        else:
            where = f"{self.words[:40]}"
        best = ""
        if self.best is not None:
            shown = str(self.puzzle.value_json(self.best))
            best = f"; best {shown if len(shown) <= 24 else shown[:21] + '...'}"
        return f"{self.puzzle.NAME}: {self.checks} checks; {where}{best}"

    def __rich__(self):
        elapsed = self.clock() - self.started
        # One line, cut at the terminal's edge: the words of a 12x12 claim run to 200 characters.
        head = Text(f"{self.puzzle.NAME}  {elapsed:6.1f}s  {self.checks} steps  ", style="bold cyan",
                    no_wrap=True, overflow="ellipsis")
        head.append(self.words, style="")
        shown = [head, *(Text(line) for line in self.lines())]
        if self.best is not None:
            # The proved prefix as the live summary counts it (a refuted cube proves no position).
            proved = self._summary.proved if self._summary is not None else 0
            shown.append(self.puzzle.progress(self.best, proved))
        return Group(*shown)


def cmd_audit(args) -> int:
    from smtpuzzles.auditview import run_audit_command

    return run_audit_command(args)


def cmd_certify(args) -> int:
    from smtpuzzles import run as runner

    from smtpuzzles.proof import ProofError

    err = Console(stderr=True)
    try:
        run = runner.certify(Path(args.run_dir), timeout=args.time_limit,
                             progress=lambda words: err.print(words, highlight=False) if err.is_terminal else None)
    except ProofError as exc:  # the run is fine; there is just no proof of it (a time limit, say)
        print(f"smtpuzzles: no proof stored: {one_line(str(exc))}", file=sys.stderr)
        return 1
    from smtpuzzles.objective import describe

    proof = run["proof"]
    claim = describe(proof["claim"])
    reference = run.get("reference_proof")
    also = f"\n  and on the reference formula, from the rules alone ({reference['lemmas']:,} lemmas)" if reference else ""
    print(f"{run['puzzle']}: stored a checked LRAT proof ({proof['lemmas']:,} lemmas)\n"
          f"  refuting: {claim if len(claim) <= 68 else claim[:65] + '...'}{also}\n  in: {escaped(args.run_dir)}")
    return 0


def cmd_show(args) -> int:
    if args.follow:
        follow_show(Path(args.run_dir), Console())
    console = Console(record=bool(args.svg))  # the SVG holds the final picture, not the frames before it
    print_all(console, show_pictures(Path(args.run_dir))[2])
    if args.svg:  # the puzzle's own drawing; for a puzzle without `draw`, the terminal's picture as rich records it
        from smtpuzzles import pictures

        drawn = pictures.show_drawing(Path(args.run_dir))
        if drawn is None:
            console.save_svg(args.svg, title=f"smtpuzzles {escaped(Path(args.run_dir).name)}")
        else:
            pictures.write(args.svg, drawn)
    return 0


def show_pictures(run_dir: Path, compact: bool = False) -> tuple[dict, object, list]:
    """(the run record, its progress, what `show` prints): a run still going or stopped part-way gets its
    progress (where, best so far, checks per minute, slowest checks, estimate), a finished one its
    result and one progress line. `compact` (a live display): the panel and the best value only."""
    from smtpuzzles.live import UNFINISHED, duration, fields as progress_fields, read_live, summary_line
    from smtpuzzles.readback import Rules, recorded_instance

    live = read_live(run_dir)  # checked like the audit reads it (schema, caps, chain), with no lock taken
    folder, progress = live.folder, live.progress
    run, steps = folder.run, folder.steps
    module, instance = recorded_instance(run, str(folder.path / "run.json"))
    counts: dict[str, int] = {}
    for s in steps:
        counts[s["result"]] = counts.get(s["result"], 0) + 1
    status = status_text(run["status"])
    if run["status"] == "running" and not steps:
        status.append(" (no step written yet)", style="")
    elif run["status"] == "running" and live.last_write is not None:
        # A killed writer leaves a run `running` too: how long ago the last step came tells them apart.
        status.append(f" (last step written {duration(live.last_write)} ago)", style="")
    about = [("encoding", f"{run['encoding']['name']} v{run['encoding']['version']}"),
             ("engine", f"{run['engine']['name']} {run['engine'].get('version', '')}"),
             ("steps", ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "none"),
             ("started", run.get("started")), ("ended", run.get("ended") or "—")]
    unfinished = run["status"] in UNFINISHED
    if unfinished:
        show_value = module.value_json if progress.objective in ("lex", "max") else None
        shown_fields = [("status", status), *progress_fields(progress, show_value)]
        if not show_value:
            shown_fields.insert(1, ("value", run.get("value")))
        fields = shown_fields + ([] if compact else about)
    else:
        seconds = sum(s.get("seconds", 0) for s in steps)
        fields = [("status", status), ("value", run.get("value")), *about[:3], ("solver time", f"{seconds:.1f}s"),
                  *about[3:]]
    shown = [summary_panel(plain(f"{run['puzzle']} run {folder.path.name}"), fields, run["status"])]
    if not unfinished:
        shown.append(Text(summary_line(progress)))
    proved = progress.proved if run.get("objective") == "lex" else None
    if compact:
        if progress.best is not None and progress.objective in ("lex", "max"):
            shown.append(module.progress(progress.best, proved))
    elif folder.solution is not None:
        # Only a solution that passes the referee is drawn: a folder is anyone's data.
        problems, _ = Rules(module, instance).judge(folder.solution, str(folder.path / "solution.json"))
        if problems:
            shown.append(Text(f"solution.json breaks the rules: {problems[0]}", style="bold red"))
        else:
            shown.append(module.render(instance, folder.solution, proved))
    return run, progress, shown


def follow_show(run_dir: Path, console: Console) -> None:
    """`show --follow` until the run is sealed: the picture read again every few seconds (a run
    whose writer was killed stays `running`: Ctrl-C stops watching it). On a terminal it is redrawn
    in place; elsewhere a line is printed each time it changes. The caller prints the whole
    picture after."""
    from smtpuzzles import live as progress
    from smtpuzzles.locking import writer_active

    def going(run) -> bool:  # sealed but locked: a resume has just taken the folder, and will unseal it
        return run["status"] == "running" or writer_active(run_dir)

    run, now, shown = show_pictures(run_dir, compact=True)
    if console.is_terminal:
        with Live(Group(*shown), console=console, auto_refresh=False, transient=True) as view:
            while going(run):
                progress.pause(progress.FOLLOW_SECONDS)
                run, now, shown = show_pictures(run_dir, compact=True)
                view.update(Group(*shown), refresh=True)
    else:
        said = None
        while going(run):
            line = progress.summary_line(now)
            if line != said:
                console.print(Text(line), soft_wrap=True)
                said = line
            progress.pause(progress.FOLLOW_SECONDS)
            run, now, shown = show_pictures(run_dir, compact=True)


def cmd_export(args) -> int:
    from smtpuzzles.export import export_all

    written = export_all(check_writable_folder(args.out, "--out"), args.puzzle)
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_examples(args) -> int:
    from smtpuzzles.bundled import write_examples

    out = check_writable_folder(args.out, "--out")
    written = write_examples(out)
    print(f"wrote {len(written)} files to {escaped(str(out))}/; run them with: "
          f"smtpuzzles batch {escaped(str(out / JOB_FILE))}")
    return 0


def cmd_convert(args) -> int:
    if args.puzzle:
        module = puzzles.get(args.puzzle)
        if module.convert is None:
            raise InputError(f"{module.NAME} has no other input form to convert to", "--puzzle")
    else:
        converters = [p for p in puzzles.all_puzzles() if p.convert]
        if len(converters) != 1:
            names = " or ".join(p.NAME for p in converters) or "none installed"
            raise InputError(f"name the puzzle whose input this is ({names})", "--puzzle")
        module = converters[0]
    text, source = read_input(args.input)
    print(module.convert(text, source))
    return 0


def cmd_results(args) -> int:
    from smtpuzzles.batch import collect_results, results_table

    # Reading every folder is fast; auditing each is not (the 12x12 record's symmetry lemma alone takes
    # seconds), so the audit is asked for with --audit, with a progress line off a terminal.
    current: list[str] = []
    every = 0 if Console(stderr=True).is_terminal else args.progress_every
    with Ticker(lambda: current[0] if current else "results: looking for run folders", every):
        rows = collect_results(Path(args.dir), with_audit=args.audit, progress=current)
    if args.json:
        print(json.dumps(rows))
    else:
        Console().print(results_table(Path(args.dir), rows=rows))
    return 0


def cmd_batch(args) -> int:
    from smtpuzzles.batch import run_batch_cli

    return run_batch_cli(args)


COMMANDS = {"solve": cmd_solve, "certify": cmd_certify, "audit": cmd_audit, "show": cmd_show, "export": cmd_export,
            "examples": cmd_examples, "convert": cmd_convert, "results": cmd_results, "batch": cmd_batch}
