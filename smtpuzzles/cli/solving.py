"""`solve` and `certify`: reading the request, the run with its live view or plain progress lines,
the answer and its pictures, and the proofs.

rich is loaded only where something is drawn (the live display, the pictures, certify's lines on a
terminal): `solve --json` and plain progress lines need none of it (start-up, docs/benchmarks.md)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from smtpuzzles import activity, puzzles, request
from smtpuzzles.errors import InputError
from smtpuzzles.durations import counted
from smtpuzzles.engines import with_fresh_solver
from smtpuzzles.objectives import best_is_value, proves_prefix
from smtpuzzles.inputs import check_new_file, is_url
from smtpuzzles.shown import escaped
from smtpuzzles.ticker import Ticker, pace
from smtpuzzles.cli.common import EXIT, one_line, quiet_stdout, start_up_over, stderr_is_terminal, value_field
from smtpuzzles.cli.parser import puzzle_options_by_name


def solve_words(module, args) -> dict:
    """`solve`'s flags as the request's words (smtpuzzles.request.solve_request): the puzzle's own
    options as given; an option of another puzzle is refused here, where the flags are known (the
    puzzles loaded: `solve PUZZLE` parsed with PUZZLE's options alone had no other's to take)."""
    words = {"input": args.input, "unique": args.unique, "count": args.count, "engine": args.engine,
             "encoding": args.encoding, "time_limit": args.time_limit, "budget": args.budget, "cubes": args.cubes,
             "share": args.share, "split_after": args.split_after, "certify": args.certify, "no_guide": args.no_guide,
             "out": args.out}
    for name, owners in puzzle_options_by_name(puzzles.loaded()).items():
        given = getattr(args, name, None)
        if module.option(name) is not None:
            words[name] = given
        elif given not in (None, False):
            whose = ", ".join(puzzle.NAME for puzzle, _ in owners)
            raise InputError(f"{module.NAME} takes no such option ({whose} does)", owners[0][1].flag)
    return words


def flag_of(key: str) -> str:
    """Where a request's word was given on the command line: INPUT or its flag."""
    return "INPUT" if key == "input" else "--" + key.replace("_", "-")


def command_line_input(key: str | None, value, kind: str) -> request.Input:
    """INPUT or a file option (--clues) as the request's input: a path, `-` for stdin, or a URL."""
    if kind == "none":
        return request.Input("none")
    if is_url(value):
        return request.Input("url", value, "URL", key)
    return request.Input("stdin", None, "stdin", key) if value == "-" else request.Input("file", value, value, key)


def command_line_request(module, args) -> request.SolveRequest:
    """The request `solve`'s flags make, checked as the API and job files check theirs."""
    return request.solve_request(module, solve_words(module, args), flag_of, command_line_input, "stdin")


def resume_fixes() -> list[tuple[str, str]]:
    """(argument, as the user wrote it) for everything a resumed run keeps from its start."""
    return [("input", "INPUT"), *((name, owners[0][1].flag)
                                  for name, owners in puzzle_options_by_name(puzzles.loaded()).items()),
            ("unique", "--unique"), ("count", "--count"), ("engine", "--engine"), ("encoding", "--encoding"),
            ("no_guide", "--no-guide")]


def check_resume(args) -> None:
    """A resumed run keeps its recorded puzzle, instance and options: refuse any that would be ignored."""
    from smtpuzzles.folders.runfolder import read_run_json

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
    err = ErrorConsole()
    progress = ProgressView(module)
    live = None
    if err.is_terminal and not args.json and args.progress != "json":
        from rich.live import Live

        live = Live(progress, console=err.console, refresh_per_second=4, transient=True)
    # Off a terminal (a log, nohup, a pipe), a plain line every --progress-every seconds instead
    # (with --progress json, a JSON object a line, on a terminal too).
    ticker = Ticker(progress.plain_line, pace(args.progress_every, err.is_terminal, args.progress),
                    record=progress.record, form=args.progress)
    with ticker:
        outcome, ledger, module, instance = solve_or_resume(args, module, progress, live)
    return finish_solve(args, module, instance, outcome, ledger, err)


class ErrorConsole:
    """rich's `Console(stderr=True)` as `solve` and `certify` use it, made only when something is
    printed through it: whether stderr is a terminal is decided as rich decides it, without rich."""

    def __init__(self):
        self.is_terminal = stderr_is_terminal()
        self._console = None

    @property
    def console(self):
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        return self._console

    def print(self, *objects, **how) -> None:
        self.console.print(*objects, **how)


def solve_or_resume(args, module, progress, live):
    from smtpuzzles import run as runner

    if args.resume:
        check_resume(args)
        start_up_over()
        if live:
            live.start()
        try:
            outcome, ledger = runner.resume(Path(args.resume), time_limit=args.time_limit, scheduler=args.scheduler,
                                            split_after=args.split_after, cubes=args.cubes or None,
                                            share=request.workers_shared(args.share, args.cubes, flag_of),
                                            on_step=progress.step, on_solution=progress.solution, budget=args.budget,
                                            fresh_solver=args.fresh_solver)
        finally:
            if live:
                live.stop()
        module = puzzles.get(ledger.run["puzzle"])
        instance = module.from_canonical(ledger.run["instance"])
    else:
        asked = command_line_request(module, args)
        start_up_over()
        text = asked.input.read()
        instance = module.load(text, asked.input.source, asked.options)
        if live:
            live.start()
        try:
            outcome, ledger = runner.solve(module, instance, text or "", out_dir=asked.out, engine=asked.engine,
                                           encoding=asked.encoding, time_limit=asked.time_limit, mode=asked.mode,
                                           limit=asked.limit, on_step=progress.step, on_solution=progress.solution,
                                           params=with_fresh_solver(asked.engine, asked.engine_params(),
                                                                    args.fresh_solver),
                                           cubes=asked.cubes, scheduler=args.scheduler,
                                           split_after=asked.split_after, budget=asked.budget, share=asked.share)
        finally:
            if live:
                live.stop()
    return outcome, ledger, module, instance


def finish_solve(args, module, instance, outcome, ledger, err) -> int:
    """After the run is sealed: the proofs when asked (--certify), then the answer."""

    run = ledger.run
    certify_failed = False
    if args.certify and outcome.certificate is not None:
        # After the run is sealed: a proof that fails leaves the answer recorded, and says so.
        try:
            run["proof"] = certify_saying(ledger.dir, err, args.progress_every, quiet=args.json,
                                          encoding=outcome.encoding)["proof"]
        except InputError as exc:  # an arithmetic encoding, a time limit: the answer stands, recorded
            print(f"smtpuzzles: {no_proof_stored(exc)}: {one_line(str(exc))}", file=sys.stderr)
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
    # The pictures only where they are shown: the terminal's, or the SVG of a puzzle without a drawing.
    shown = solve_pictures(module, instance, outcome, payload, run, ledger) if not args.json or args.svg else None
    try:
        if args.json:
            print(json.dumps(payload))
            sys.stdout.flush()
        else:
            from smtpuzzles.render import pipe_console, print_all

            print_all(pipe_console(), shown)
    except BrokenPipeError:  # `--json | head`: the run is recorded; the reader just stopped reading
        quiet_stdout()
    if args.svg:  # the puzzle's own drawing; the terminal picture for a puzzle without `draw`
        from smtpuzzles import pictures

        pictures.save(args.svg, pictures.solve_drawing(module, instance, payload), shown, f"smtpuzzles {module.NAME}")
    return 1 if certify_failed else EXIT.get(outcome.status, 1)


def solve_pictures(module, instance, outcome, payload: dict, run: dict, ledger) -> list:
    """The summary and the pictures of a solve, laid out for 80 columns."""
    from rich.text import Text

    from smtpuzzles.render import status_text, summary_panel

    extra = outcome.extra or {}
    fields = [("status", status_text(outcome.status)), ("value", value_field(payload["value"]))]
    if "unique" in payload:
        fields.append(("unique", "yes" if payload["unique"] else "no: a second solution exists"))
    if "count" in payload:
        fields.append(("solutions", f"{payload['count']}{'' if payload['count_complete'] else ' (limit reached)'}"))
    # steps, not checks: the ledger's lines, bounds and a split's summary included (progress lines
    # count the solver's checks)
    fields += [("steps", f"{counted(run['steps'], 'step')} in the ledger"), ("run", str(ledger.dir))]
    shown = [summary_panel(f"{module.NAME}", fields, outcome.status)]
    if outcome.status in ("unknown", "interrupted"):
        # The command on its own unbroken line, so that it can be copied whole (and fits 80
        # columns with a run folder's usual name under runs/).
        shown.append(Text("resume with:"))
        shown.append(Text(f"  smtpuzzles solve {module.NAME} --resume {ledger.dir}", no_wrap=True, overflow="ignore"))
    if outcome.solution is not None:
        proved = extra.get("proved_digits") if proves_prefix(run.get("objective")) else None
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
        from smtpuzzles.live import brief_where, checks_text

        self.lines()  # the summary of the steps so far
        p = self._summary
        # Whole: a log has no width. Checks counted as every view counts them (smtpuzzles.live).
        where = (brief_where(p) if p is not None and proves_prefix(p.objective) else None) or self.words
        doing = activity.words()  # work whose one step comes at its end: a shared question, fresh solvers
        best = "" if self.best is None else f"; best {self.puzzle.value_json(self.best)}"
        return f"{self.puzzle.NAME}: {checks_text(p) if p is not None else '0 checks'}; {where}" \
               f"{f'; {doing}' if doing else ''}{best}"

    def record(self) -> dict:
        """Where the run stands as one JSON object (`--progress json`)."""
        from smtpuzzles.live import record

        self.lines()
        doing = activity.facts()  # the work under way between steps: a shared question's cubes, fresh solvers
        if self._summary is None:
            return {"stage": "starting", "puzzle": self.puzzle.NAME, "checks": 0, "doing": doing}
        value = (lambda best: self.puzzle.value_json(best)) if best_is_value(self._summary.objective) else None
        return {"puzzle": self.puzzle.NAME, **record(self._summary, value, self.clock() - self.last_step),
                "doing": doing}

    def __rich__(self):
        from rich.console import Group
        from rich.text import Text

        elapsed = self.clock() - self.started
        # One line, cut at the terminal's edge: the words of a 12x12 claim run to 200 characters.
        head = Text(f"{self.puzzle.NAME}  {elapsed:6.1f}s  {counted(self.checks, 'step')}  ", style="bold cyan",
                    no_wrap=True, overflow="ellipsis")
        head.append(self.words, style="")
        shown = [head, *(Text(line) for line in self.lines())]
        doing = activity.words()
        if doing:
            shown.append(Text(doing, no_wrap=True, overflow="ellipsis"))
        if self.best is not None:
            # The proved prefix as the live summary counts it (a refuted cube proves no position).
            proved = self._summary.proved if self._summary is not None else 0
            shown.append(self.puzzle.progress(self.best, proved))
        return Group(*shown)


def no_proof_stored(exc: Exception) -> str:
    """The start of certify's one line when it fails: what is stored, what is not."""
    from smtpuzzles.proofs.proof import ReferenceProofError

    return "the claim's proof is stored, the reference proof is not" if isinstance(exc, ReferenceProofError) \
        else "no proof stored"


def certify_saying(run_dir: Path, err, every: float, timeout: float | None = None, quiet: bool = False,
                   encoding=None) -> dict:
    """`run.certify` telling where it stands: on a terminal each step as a line (none with --json);
    off one, a plain progress line every `every` seconds with the latest step, as a solve does."""
    from smtpuzzles import run as runner

    latest = ["certify: rebuilding the closing query"]

    def say(words: str) -> None:
        latest[0] = f"certify: {words}"
        if err.is_terminal and not quiet:
            err.print(words, highlight=False)

    with Ticker(lambda: latest[0], 0 if err.is_terminal else every):
        return runner.certify(run_dir, timeout=timeout, progress=say, encoding=encoding)


def cmd_certify(args) -> int:

    from smtpuzzles.proofs.proof import ProofError

    err = ErrorConsole()
    try:
        run = certify_saying(Path(args.run_dir), err, args.progress_every, timeout=args.time_limit)
    except ProofError as exc:  # the run is fine; there is just no proof of it (a time limit, say)
        print(f"smtpuzzles: {no_proof_stored(exc)}: {one_line(str(exc))}", file=sys.stderr)
        return 1
    from smtpuzzles.objectives import describe

    proof = run["proof"]
    claim = describe(proof["claim"])
    reference = run.get("reference_proof")
    also = f"\n  and on the reference formula, from the rules alone ({counted(reference['lemmas'], 'lemma')})" \
        if reference else ""
    if "reference_checked_here" in run:
        also = (f"\n  its proof on the reference formula ({counted(run['reference_checked_here'], 'lemma')}) was checked"
                "\n  here, too large to store: audit --proof makes it again")
    print(f"{run['puzzle']}: stored a checked LRAT proof ({counted(proof['lemmas'], 'lemma')})\n"
          f"  refuting: {claim if len(claim) <= 68 else claim[:65] + '...'}{also}\n  in: {escaped(args.run_dir)}")
    return 0
