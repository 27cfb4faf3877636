"""The arguments: one parser, each command's flags in a function of its own, the installed puzzles'
options added as flags, and the tool's error style (one line naming the argument, exit 2; the
parser classes are in smtpuzzles.cli.argparsing).

The installed puzzles are loaded (entry points, their modules and the solvers they import) only when
something needs them: `solve`'s flags and help are added when `solve` is parsed or its help or
usage is shown, and the `convert` line of the top-level help is written when that help is shown.
Building the parser and running any other command loads no puzzle. Each command's flags are added
when that command is parsed or its help or usage is shown (building the parser adds none of them).

`solve PUZZLE ...` is first parsed with that puzzle's options alone (the other puzzles are not
loaded: start-up, docs/benchmarks.md). Whatever that parse would not take as it is (help, a usage
error, a flag it does not know, an abbreviated flag) is parsed again with every puzzle's options,
as before, and only that parse prints anything: the help, the messages and what is accepted stay
the same."""

from __future__ import annotations

import argparse
from argparse import Namespace

from smtpuzzles.version import __version__
from smtpuzzles.bundled import DEFAULT_OUT, JOB_FILE
from smtpuzzles.engines import ENGINES
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import (RUNS, choice_argument, progress_every_argument, split_after_argument, time_limit_argument,
                               whole_number_argument)
from smtpuzzles.request import AUDIT_SOLVERS, PROOF_KINDS
from smtpuzzles.ticker import EVERY
from smtpuzzles.cli.argparsing import Commands, Parser, Retry, TrialParser


def number_or_text(text: str):
    """A number's digits as the int, other words as they are: the request builder checks them, in
    the words the job files and the API get (smtpuzzles.request)."""
    try:
        return int(text)
    except ValueError:
        return text


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="smtpuzzles", description="Optimal puzzle solving on SMT, with proofs you can re-check.")
    parser.add_argument("--version", action="version", version=f"smtpuzzles {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="what to do (each has its own --help)")
    _solve_command(sub)
    _audit_command(sub)
    _proofs_command(sub)
    _certify_command(sub)
    _unpack_command(sub)
    _show_command(sub)
    _export_command(sub)
    _examples_command(sub)
    _convert_command(sub)
    _results_command(sub)
    _serve_command(sub)
    _batch_command(sub)
    parser.commands = Commands(sub.choices)
    parser.late_help.append(lambda: _convert_help(sub))
    return parser


def _solve_command(sub) -> None:
    solve = sub.add_parser("solve", help="solve a puzzle and record the run", description="Solve a puzzle optimally and "
                           "record every solver check in a run folder. Exit 0 an answer, 2 bad input, 3 a time limit "
                           "ran out (unknown), 130 interrupted.")
    solve.fill = _solve_flags
    solve.narrow = _solve_one_puzzle


def _solve_one_puzzle(solve: Parser, args: list, namespace) -> tuple | None:
    """`solve PUZZLE ...` parsed with PUZZLE's options alone, when PUZZLE is the first word and a
    puzzle `get` knows (a built-in loads alone); None when the full parser must parse it."""
    from smtpuzzles import puzzles

    if not args or args[0].startswith("-"):
        return None
    try:
        puzzle = puzzles.get(args[0])
    except InputError:  # unknown, or left out: the full parser and `solve` say so as before
        return None
    trial = TrialParser(prog=solve.prog)
    _solve_flags(trial, only=puzzle)
    try:
        parsed, extras = trial.parse_known_args(args, None if namespace is None else Namespace(**vars(namespace)))
    except Retry:
        return None
    return None if extras else (parsed, extras)


def _solve_flags(solve: Parser, only=None) -> None:
    """`solve`'s arguments, which name the installed puzzles (loaded here, on first use); with
    `only`, that puzzle's options alone and no help (the trial parse of _solve_one_puzzle)."""
    from smtpuzzles import puzzles

    solve.epilog = puzzle_list() if only is None else None
    solve.add_argument("puzzle", metavar="PUZZLE",
                       help="which puzzle: " + ", ".join(puzzles.names()) if only is None else None)
    solve.add_argument("input", nargs="?", metavar="INPUT",
                       help="input file or - for stdin; a URL where the puzzle reads one (see below)")
    solve.add_argument("--out", default=RUNS, metavar="DIR", help="folder for run ledgers")
    solve.add_argument("--json", action="store_true", help="print one JSON object instead of the picture")
    progress_flag(solve)
    solve.add_argument("--time-limit", type=time_limit_argument, metavar="S",
                       help="seconds allowed per solver check, a finite positive number (default: no limit)")
    budget_flag(solve, "the whole run (this session: a resumed run gets its own)")
    solve.add_argument("--resume", metavar="RUN_DIR", help="continue a killed or timed-out run from its ledger")
    solve.add_argument("--engine", type=choice_argument(ENGINES, "engine"), metavar="{z3,sat}",
                       help="solver engine (default: the puzzle's measured best)")
    solve.add_argument("--encoding", metavar="NAME",
                       help="encoding variant (default: the puzzle's first; see below)")
    # The engine parameter `guide` (also a job's params): any encoding may offer a guess.
    solve.add_argument("--no-guide", action="store_true",
                       help="ignore the encoding's quick heuristic answer where it has one; the solver searches "
                            "unaided")
    solve.add_argument("--fresh-solver", metavar="NAME",
                       help="with the sat engine, the solver a check still open after 20 s goes on in, fresh, "
                            "its claim as unit clauses (default: the run's; kissat404 races the run's on a second "
                            "core, in a child process; allowed on --resume; the engine parameter fresh_solver)")
    solve.add_argument("--svg", metavar="FILE", help="also save a drawing of the puzzle and its answer as an SVG file "
                       "(a puzzle without a drawing: the terminal's picture; its folder must exist)")
    solve.add_argument("--cubes", type=int, choices=(1, 2), default=0, metavar="DEPTH",
                       help="split a check the solver does not settle within --split-after seconds into the "
                            "puzzle's cubes (1 or 2 branching levels), each its own step; the audit checks "
                            "that they cover every case (allowed on --resume: a long run can move to a "
                            "cluster)")
    solve.add_argument("--share", type=number_or_text, metavar="WORKERS",
                       help="share a check the solver does not settle within --split-after seconds out to WORKERS "
                            "local processes (on the Dask cluster with --scheduler): cubes chosen by look-ahead, "
                            "split again while open, recorded as one step with its tree of refuted cubes "
                            "(allowed on --resume, where 0 stops sharing; see docs/sharing.md)")
    solve.add_argument("--scheduler", metavar="ADDRESS",
                       help="solve the cubes, or the shared checks' cubes, side by side on a Dask cluster "
                            "(tcp://HOST:PORT)")
    solve.add_argument("--split-after", type=split_after_argument, default=5.0, metavar="S",
                       help="with --cubes or --share, seconds a whole check may take before it is split (0: split "
                            "every check)")
    solve.add_argument("--certify", action="store_true",
                       help="store a checked clausal (LRAT) proof of the closing UNSAT claim in the run "
                            "folder (Boolean encodings; see 'smtpuzzles certify')")
    # Modes, for every puzzle whose MODES has them (checked once the puzzle is known).
    solve.add_argument("--unique", action="store_true",
                       help=None if only else f"prove the solution unique or show a second ({having_mode('unique')})")
    solve.add_argument("--count", nargs="?", type=whole_number_argument(0), const=0, metavar="LIMIT",
                       help=None if only else f"count solutions, up to LIMIT if given, 0 or none: all "
                                              f"({having_mode('count')})")
    add_puzzle_options(solve, only)


def _audit_command(sub) -> None:
    audit = sub.add_parser("audit", help="re-check run folders without trusting them",
                           description="Re-check run folders without trusting anything in them: the claim "
                                       "to refute is derived from the instance and the claimed value, and "
                                       "re-solved queries are built by today's encoder. Exit 0 clean, 1 a "
                                       "claim fails, 2 an unreadable folder, 3 a re-solve undecided, 4 a "
                                       "solver not installed.")
    audit.fill = _audit_flags


def _audit_flags(audit: Parser) -> None:
    audit.add_argument("run_dir", nargs="+", metavar="RUN_DIR",
                       help="run folders to audit (one or more), or folders of runs such as a batch's output: each "
                            "run below them is audited, and a table is printed (with --json, a list)")
    audit.add_argument("--resolve", nargs="?", const="certificate", type=choice_argument(PROOF_KINDS),
                       metavar="{certificate,all}",
                       help="also re-solve the derived refutation (certificate, the default) or every "
                            "recorded UNSAT step (all) with z3 and cvc5, each in a fresh process")
    audit.add_argument("--solver", type=choice_argument(AUDIT_SOLVERS), metavar="{z3,cvc5}", action="append",
                       help="re-solve with this solver only (repeat for both; default: z3 and cvc5)")
    audit.add_argument("--jobs", type=whole_number_argument(1), default=2,
                       help="parallel re-solving processes; 2 or more also makes --proof's two proofs side by side "
                            "(default: 2)")
    audit.add_argument("--time-limit", type=time_limit_argument, metavar="S",
                       help="seconds allowed for each re-solve (default: none)")
    audit.add_argument("--proof", nargs="?", const="certificate", type=choice_argument(PROOF_KINDS),
                       metavar="{certificate,all}",
                       help="check the folder's stored proof of the derived claim against the query today's "
                            "encoder builds, or, with none stored, make one with a proof-logging SAT solver "
                            "and check it, and the same on the puzzle's reference encoding (certificate, the "
                            "default, is both); with all, also prove every recorded UNSAT step (Boolean "
                            "encodings)")
    audit.add_argument("--keep-parts", metavar="DIR",
                       help="keep each part of a proof --proof makes in parts (the largest formulas) in "
                            "DIR, and take the parts found there instead of making them again: an audit of "
                            "hours, stopped, resumes; what is found is checked as what is made")
    audit.add_argument("--checker", metavar="PATH",
                       help="with --proof, hand every proof checked or made to this LRAT checker as well (such "
                            "as cake_lpr, the verified checker; default: cake_lpr when it is on PATH, 'none' "
                            "for none); the report says which checker accepted what")
    audit.add_argument("--checked-parts", metavar="FILE",
                       help="make a proof in parts in stages: each part checked on its own and written to the "
                            "journal FILE as it is (a line a part), the parts FILE lists for the same query and "
                            "checkers taken at its word, not made again; a proof of days goes on from FILE "
                            "alone, on another machine; the report says how many parts rest on FILE's word")
    audit.add_argument("--scheduler", metavar="ADDRESS", help="fan re-solving out to a Dask cluster")
    audit.add_argument("--json", action="store_true", help="print the report as JSON")
    progress_flag(audit)


def _proofs_command(sub) -> None:
    proofs = sub.add_parser("proofs", help="write a run's proofs as DIMACS and LRAT files for any checker",
                            description="Audit a run with --proof and write every proof it checks or makes, of the "
                                        "encoder's query and of the reference formula, as DIMACS and LRAT files in "
                                        "a new folder, with README.txt (what each file claims) and check.sh (the "
                                        "commands that check them with cake_lpr or any LRAT checker). Exit as the "
                                        "audit.")
    proofs.fill = _proofs_flags


def _proofs_flags(proofs: Parser) -> None:
    proofs.add_argument("run_dir", metavar="RUN_DIR", help="a finished run folder")
    proofs.add_argument("--out", required=True, metavar="DIR", help="a new folder for the files")
    proofs.add_argument("--time-limit", type=time_limit_argument, metavar="S",
                        help="seconds allowed for each proof (default: none)")
    proofs.add_argument("--keep-parts", metavar="DIR", help="as audit --keep-parts")
    proofs.add_argument("--checker", metavar="PATH", help="as audit --checker")
    proofs.add_argument("--json", action="store_true", help="print the audit's report as JSON")
    progress_flag(proofs)


def _certify_command(sub) -> None:
    certify = sub.add_parser("certify", help="add a checked proof to a finished run",
                             description="Refute the run's closing UNSAT claim again with a proof-logging SAT "
                                         "solver, check the proof, and store it in the folder as LRAT with the "
                                         "query as DIMACS (both gzip). Exit 0 stored, 1 no proof, 2 bad input.")
    certify.fill = _certify_flags


def _certify_flags(certify: Parser) -> None:
    certify.add_argument("run_dir", metavar="RUN_DIR", help="a finished run folder")
    certify.add_argument("--time-limit", type=time_limit_argument, metavar="S",
                         help="seconds allowed for the proof-logging solver (default: none)")
    progress_flag(certify)


def _unpack_command(sub) -> None:
    unpack = sub.add_parser("unpack", help="a resumable working copy of a published unfinished run",
                            description="Copy a published run folder (its ledger compressed, its base formula "
                                        "perhaps left out) into OUT as a working folder a resume can go on with: "
                                        "the ledger as steps.jsonl and the base formula rebuilt from the recorded "
                                        "instance, kept only when its sha-256 is the one run.json records. The "
                                        "published folder is only read. Exit 0 copied, 2 refused.")
    unpack.fill = _unpack_flags


def _unpack_flags(unpack: Parser) -> None:
    unpack.add_argument("run_dir", metavar="RUN_DIR", help="a published run folder (steps.jsonl.gz)")
    unpack.add_argument("--out", default="runs", metavar="DIR", help="folder to make the copy in (default: runs)")


def _show_command(sub) -> None:
    show = sub.add_parser("show", help="render a recorded run, or where a running one stands",
                          description="Render a run folder. A run still going (or stopped part-way) shows "
                                      "where it stands: the position being decided, the proved prefix, the "
                                      "best value so far, checks per minute, the slowest checks and a rough "
                                      "estimate of what remains. Reads without taking the writer's lock.")
    show.fill = _show_flags


def _show_flags(show: Parser) -> None:
    show.add_argument("run_dir", metavar="RUN_DIR")
    show.add_argument("--svg", metavar="FILE", help="also save a drawing of the puzzle and its answer as an SVG file")
    show.add_argument("--follow", action="store_true",
                      help="read the folder again every few seconds until the run is sealed (Ctrl-C stops)")


def _export_command(sub) -> None:
    export = sub.add_parser("export", help="write the SMT-LIB2 of every puzzle's canonical instances")
    export.fill = _export_flags


def _export_flags(export: Parser) -> None:
    export.add_argument("--out", default="encodings", metavar="DIR", help="folder to write the .smt2 files into")
    export.add_argument("--puzzle", action="append", metavar="NAME",
                        help="only this puzzle's examples (repeat for more; default: every puzzle's)")


def _examples_command(sub) -> None:
    examples = sub.add_parser("examples", help="write the bundled example inputs and the model job file",
                              description="Write every bundled example input (each puzzle's seed cases, with "
                                          "their expected answers in expected.json) and the model job file, "
                                          f"{JOB_FILE}, into a folder; then run them with `smtpuzzles batch "
                                          f"DIR/{JOB_FILE}`. A file already there with other content is never "
                                          "overwritten.")
    examples.fill = _examples_flags


def _examples_flags(examples: Parser) -> None:
    examples.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help="folder to write them into")


def _convert_command(sub) -> None:
    convert = sub.add_parser("convert", help="an input from one form to another")  # the converters: _convert_help
    convert.fill = _convert_flags


def _convert_flags(convert: Parser) -> None:
    convert.add_argument("input", metavar="INPUT", help="an input file, - for stdin, or a URL")
    convert.add_argument("--puzzle", metavar="NAME",
                         help="whose conversion (needed only when more than one puzzle converts)")


def _convert_help(sub) -> None:
    """The top-level help's `convert` line names each puzzle's conversion (loading the puzzles)."""
    from smtpuzzles import puzzles

    converters = [f"{p.NAME}: {p.CONVERTS}" for p in puzzles.all_puzzles() if p.convert]
    for action in sub._choices_actions:
        if action.dest == "convert":
            action.help = "an input from one form to another (" + "; ".join(converters or ["none"]) + ")"


def _results_command(sub) -> None:
    results = sub.add_parser("results", help="a table of every run under a folder")
    results.fill = _results_flags


def _results_flags(results: Parser) -> None:
    results.add_argument("dir", nargs="?", default=RUNS, help=f"a folder of runs (default {RUNS}; results holds the "
                         "published records)")
    results.add_argument("--audit", action="store_true", help="audit each run too (as `smtpuzzles audit` does)")
    results.add_argument("--no-audit", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    results.add_argument("--json", action="store_true")
    results.add_argument("--sort", choices=("started", "run", "status", "time"), default="started",
                         help="order of the rows: start time, run folder name, status, or solver time (longest first)")
    results.add_argument("--html", metavar="FILE",
                         help="also save the runs as one static HTML page (the page `smtpuzzles serve` shows; "
                              "pip install 'smtpuzzles[web]')")
    progress_flag(results)


def _serve_command(sub) -> None:
    serve = sub.add_parser("serve", help="a live web page of every run under a folder",
                           description="Serve a web page of every run under DIR: status, positions proved (or the "
                                       "objective) over solver time, the open question and its age, the drawing and "
                                       "the audit's verdict, read again while runs go on. Reads the folders as "
                                       "`results` does and writes nothing. pip install 'smtpuzzles[web]'.")
    serve.fill = _serve_flags


def _serve_flags(serve: Parser) -> None:
    serve.add_argument("dir", nargs="?", default=RUNS, metavar="DIR", help="a folder of runs")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (another than 127.0.0.1 shows "
                       "your runs to the network)")
    serve.add_argument("--port", type=whole_number_argument(0), default=8050, help="port (0: any free one)")


def _batch_command(sub) -> None:
    batch = sub.add_parser("batch", help="run a TOML job file")
    batch.fill = _batch_flags


def _batch_flags(batch: Parser) -> None:
    batch.add_argument("jobs_file", metavar="JOBS.toml",
                       help=f"the job file (`smtpuzzles examples` writes a model: {DEFAULT_OUT}/{JOB_FILE})")
    batch.add_argument("--jobs", type=whole_number_argument(1), default=2, metavar="N", help="parallel local processes")
    batch.add_argument("--scheduler", metavar="ADDRESS", help="send jobs to a Dask cluster (tcp://HOST:PORT)")
    batch.add_argument("--out", metavar="DIR", help=f"output folder (default: the job file's, else {RUNS})")
    budget_flag(batch, "each job without a budget of its own in the job file")
    watch = batch.add_mutually_exclusive_group()
    watch.add_argument("--status", action="store_true",
                       help="say whether a batch of this job file is running and where each job stands; run nothing")
    watch.add_argument("--stop", action="store_true",
                       help="stop the batches of this job file running here: each job's run is sealed interrupted "
                            "(resumable by running the batch again)")
    progress_flag(batch)


def progress_flag(parser) -> None:
    parser.add_argument("--progress-every", type=progress_every_argument, default=EVERY, metavar="S",
                        help="off a terminal, a progress line every S seconds (0: none)")
    parser.add_argument("--progress", choices=("plain", "json"), default="plain",
                        help="progress off a terminal as plain lines or as one JSON object a line (json: on a "
                             "terminal too, instead of the live display)")


def budget_flag(parser, what: str) -> None:
    parser.add_argument("--budget", type=time_limit_argument, metavar="S",
                        help=f"seconds allowed for {what}; when they run out it is sealed unknown with what "
                             "was proved, and can be resumed (default: none)")


def puzzle_options_by_name(among=None) -> dict[str, list]:
    """Every registered puzzle's options by name: [(puzzle, Option), ...] (the registry has made sure
    that puzzles sharing a name agree on its type); of the puzzles `among` only, if given."""
    from smtpuzzles import puzzles

    found: dict[str, list] = {}
    for puzzle in puzzles.all_puzzles() if among is None else among:
        for option in puzzle.OPTIONS:
            found.setdefault(option.name, []).append((puzzle, option))
    return found


def add_puzzle_options(solve: argparse.ArgumentParser, only=None) -> None:
    """One flag per option name, whichever puzzles declare it (or the puzzle `only`); help says whose it is."""
    for name, owners in puzzle_options_by_name(None if only is None else [only]).items():
        option = owners[0][1]
        helps = "; ".join(f"{puzzle.NAME}: {o.help}" for puzzle, o in owners)
        if option.type is bool:
            solve.add_argument(option.flag, dest=name, action="store_true", default=None, help=helps)
        else:
            convert = whole_number_argument(option.minimum if option.minimum is not None else -(2**63)) \
                if option.type is int else str
            solve.add_argument(option.flag, dest=name, type=convert, metavar=option.metavar or name.upper(), help=helps)


def having_mode(mode: str) -> str:
    from smtpuzzles import puzzles
    return ", ".join(p.NAME for p in puzzles.all_puzzles() if mode in p.MODES) or "no puzzle installed"


def puzzle_list() -> str:
    """The puzzles for `solve --help`: what each asks, its options, its encodings; within 80 columns."""
    import textwrap
    from smtpuzzles import puzzles

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
