"""The Python API: `smtpuzzles.solve` and `smtpuzzles.audit`, what the command line does, as values.

    result = smtpuzzles.solve(PUZZLE, source)    # source: a path, text, a URL or a dict of options
    result.status, result.value                   # ('optimal', ...), as `smtpuzzles solve` prints
    smtpuzzles.audit(result.run_dir, proof=True).verdict    # 'clean'

(The README's "Using from Python" has examples for each puzzle, run by tests/test_api.py.)

Every answer has passed the puzzle's referee and every claim rests on its recorded ledger, exactly
as on the command line. A solve keeps its run folder in a temporary directory unless `out` names a
folder; `Result.save(folder)` keeps it for good. Both objects draw themselves in rich and in a
notebook: a Result as the puzzle's SVG drawing where the puzzle has one (`_repr_svg_`), else as
rich's picture in HTML.
"""

from __future__ import annotations

import dataclasses
import io
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smtpuzzles import puzzles, request
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import is_url

__all__ = ["solve", "audit", "Result", "AuditResult"]


def _one_line(function):
    """An InputError out of the API is one printable line, as the command line prints it: a path
    the caller gave (a newline or an escape in a folder's name) is shown escaped."""
    import functools

    from smtpuzzles.shown import escaped

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except InputError as exc:
            exc.message = escaped(exc.message)
            exc.where = None if exc.where is None else escaped(exc.where)
            raise
    return call


@_one_line
def solve(puzzle: str, source: str | Path | dict | None = None, *, unique: bool = False, count: int | bool | None = None,
          time_limit: float | None = None, out: str | Path | None = None, engine: str | None = None,
          encoding: str | None = None, certify: bool = False, budget: float | None = None, cubes: int = 0,
          split_after: float = 5.0, no_guide: bool = False, share: int | None = None, **options: Any) -> Result:
    """Solve one instance of `puzzle` and return its `Result`.

    `source` is a file path, the input text itself, a URL (for a puzzle that reads them), or a dict
    of the puzzle's options and inline job keys (`smtpuzzles solve --help` lists them); keyword
    `options` are the same keys. `unique` asks whether the
    solution is unique, `count` for every solution (True or 0) or up to that many; `time_limit` bounds
    each solver check in seconds (a run that runs out is `unknown`, never `optimal`); `budget` bounds
    the whole solve the same way (resumable: `smtpuzzles solve PUZZLE --resume RUN_DIR`). `certify`
    stores checked LRAT proofs of the closing claim; `cubes`, `split_after` and `no_guide` are
    `--cubes`, `--split-after` and `--no-guide` (the cubes solved here, one by one); `share` is
    `--share`, a hard check shared out to that many local processes (smtpuzzles.sharing). Bad input raises
    `InputError` naming the place.
    """
    if not isinstance(puzzle, str):  # puzzles.get would hash a list (TypeError)
        raise InputError(f"a puzzle's name, not {type(puzzle).__name__}", "solve(puzzle=...)")
    module = puzzles.get(puzzle)
    given = {**(source if isinstance(source, dict) else {}), **options}
    known = [o.name for o in module.OPTIONS] + [k.name for k in module.INLINE]
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InputError(f"{module.NAME} takes no option {unknown[0]!r} (it takes {', '.join(known) or 'none'})",
                         "solve()")
    words = {**given, "input": None if isinstance(source, dict) else source, "unique": unique, "count": count,
             "time_limit": time_limit, "budget": budget, "engine": engine, "encoding": encoding, "certify": certify,
             "cubes": cubes, "share": share, "split_after": split_after, "no_guide": no_guide, "out": out}
    # Every argument checked as the command line and job files check theirs, in the same words.
    asked = request.solve_request(module, words, _argument, _api_input)
    text = asked.input.read()
    instance = module.load(text, asked.input.source, asked.options)
    keep = None
    out = asked.out
    if out is None:  # the run folder lives as long as the Result, unless saved
        keep = tempfile.TemporaryDirectory(prefix="smtpuzzles-")
        out = Path(keep.name)
    from smtpuzzles import run as runner

    outcome, ledger = runner.solve(module, instance, text or "", out_dir=out, engine=asked.engine,
                                   encoding=asked.encoding, time_limit=asked.time_limit, mode=asked.mode,
                                   limit=asked.limit, params=asked.engine_params(), cubes=asked.cubes,
                                   split_after=asked.split_after, budget=asked.budget, share=asked.share)
    if asked.certify and outcome.certificate is not None:
        runner.certify(ledger.dir, encoding=outcome.encoding)
    return Result._of(module, instance, outcome, ledger.dir, keep)


@_one_line
def audit(run_dir: str | Path, *, proof: bool | str = False, resolve: bool | str = False, solvers=("z3", "cvc5"),
          time_limit: float | None = None, jobs: int = 2, keep_parts: str | Path | None = None,
          checker: str | None = None, checked_parts: str | Path | None = None) -> AuditResult:
    """Audit a run folder without trusting it (`smtpuzzles audit`): `proof` checks the stored
    LRAT proofs (or makes them), `resolve` re-solves the claim with z3 and cvc5 (each True, or
    "all" for every recorded UNSAT step too); `solvers`, `jobs`, `keep_parts` and `checker` are
    `--solver`, `--jobs`, `--keep-parts` and `--checker` (an LRAT checker such as cake_lpr, used as
    the command uses it: found on PATH unless "none"); `checked_parts` is `--checked-parts` (a
    journal file: a proof in parts made in stages, the parts it lists taken at its word). An unreadable or tampered folder, a bad
    argument, or a `keep_parts` folder that cannot keep parts, raises `InputError` naming the file
    and the place."""
    from smtpuzzles.auditing.auditor import audit as audit_folder

    if not isinstance(run_dir, (str, Path)) or not str(run_dir):
        raise InputError(f"names no run folder ({type(run_dir).__name__})", "audit(run_dir=...)")
    asked = request.audit_asked(proof, resolve, solvers, time_limit, jobs, keep_parts, lambda key: f"audit({key}=...)",
                                checker, checked_parts)
    report = audit_folder(Path(run_dir), resolve=asked.resolve, solvers=asked.solvers, timeout=asked.time_limit,
                          proof=asked.proof, jobs=asked.jobs, parts_dir=asked.parts_dir, checkers=asked.checkers,
                          journal=asked.journal)
    return AuditResult(report)


def _argument(key: str) -> str:
    """Where the API was given a request's word: its keyword (the input is `source`)."""
    return f"solve({'source' if key == 'input' else key}=...)"


def _api_input(key: str | None, value, kind: str) -> request.Input:
    """`source`, a file option or an inline key as the request's input: a path, the text itself or a URL."""
    if kind == "none":
        return request.Input("none")
    if kind == "inline":
        return request.Input("inline", value, f"solve() {key}", key)
    if key == "input" and not isinstance(value, (str, Path)):
        raise InputError(f"source must be a path, text, a URL or a dict, not {type(value).__name__}", "solve()")
    if key == "input" and isinstance(value, str) and is_url(value) and not _is_file(value):
        return request.Input("url", value, "URL", key)
    found = _file_or_text(value, key)
    if key != "input":
        return dataclasses.replace(found, source=key)  # a file option's errors name the option
    return dataclasses.replace(found, source="text") if found.kind == "text" else found


def _is_file(text: str) -> bool:
    """`text` names a file: False for text no path can be (longer than a name may be, say), which
    is then read as the puzzle's text or URL."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def _names_a_file(text: str) -> bool:
    """A one-word line with a folder separator or a file suffix: a path, never a puzzle's text."""
    word = text.strip()
    return bool(word) and "\n" not in word and " " not in word and (
        "/" in word or Path(word).suffix.lower() in (".txt", ".json", ".toml", ".csv", ".puz"))


def _file_or_text(value, key: str) -> request.Input:
    """A file path or the text itself. A one-word path that is not there is "no such file", as the
    command line says it, not puzzle text that fails on its '/'."""
    if isinstance(value, Path) or (isinstance(value, str) and "\n" not in value and _is_file(value)):
        return request.Input("file", str(value), str(value), key)
    if isinstance(value, str) and _names_a_file(value) and not is_url(value):
        raise InputError("no such file", value)
    if isinstance(value, str):
        return request.Input("text", value, key, key)
    raise InputError(f"{key} must be a file path or its text, not {type(value).__name__}", "solve()")


@dataclass
class Result:
    """A solve's outcome: `status` (optimal, solved, infeasible, unknown, interrupted), `value` as
    the command line prints it, `solution` (JSON, refereed), `run_dir` (its ledger), `evidence`
    (what backs the claim, in words), and `unique` / `count` when asked, with `count_complete`
    False when the count stopped at its limit (as `--json` says)."""

    puzzle: str
    status: str
    value: Any
    solution: dict | None
    run_dir: Path
    evidence: list[str] = field(default_factory=list)
    unique: bool | None = None
    count: int | None = None
    count_complete: bool | None = None
    _module: Any = field(default=None, repr=False)
    _instance: Any = field(default=None, repr=False)
    _keep: Any = field(default=None, repr=False)  # the temporary folder, while unsaved

    @classmethod
    def _of(cls, module, instance, outcome, run_dir: Path, keep) -> Result:
        import json

        run = json.loads((Path(run_dir) / "run.json").read_text())
        extra = outcome.extra or {}
        evidence = []
        if "certificate" in run:
            from smtpuzzles.objectives import describe

            evidence.append(f"recorded UNSAT step {run['certificate']['step']}: {describe(run['certificate']['claim'])}")
        for key, words in (("proof", "a checked LRAT proof of it on the encoder's formula"),
                           ("reference_proof", "a checked LRAT proof of it on the reference formula, from the rules")):
            if key in run:
                evidence.append(words)
        if outcome.solution is not None:
            evidence.append(f"the solution passed the {module.NAME} referee")
        value = module.value_json(outcome.value) if outcome.value is not None else None
        from smtpuzzles.tables import answer_fields

        counted = answer_fields(run)  # as `solve --json` and the batch summary report a count
        return cls(module.NAME, outcome.status, value, outcome.solution, Path(run_dir), evidence,
                   extra.get("unique"), counted["count"], counted["count_complete"], module, instance, keep)

    def save(self, folder: str | Path) -> Path:
        """Copy the run folder into `folder` (made if need be) and point `run_dir` at the copy."""
        target = Path(folder) / self.run_dir.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(self.run_dir, target, ignore=shutil.ignore_patterns(".lock"))
        self.run_dir, self._keep = target, None
        return target

    def audit(self, **options) -> AuditResult:
        return audit(self.run_dir, **options)

    def __rich__(self):
        from rich.console import Group
        from rich.text import Text

        from smtpuzzles.render import status_text

        head = Text(f"{self.puzzle} ").append_text(status_text(self.status))
        if self.value is not None:
            head.append(f"  {self.value}")
        if self.solution is None:
            return head
        return Group(head, self._module.render(self._instance, self.solution, None))

    def _repr_svg_(self) -> str | None:
        """The puzzle's drawing of the answer (or of the instance, with the status, when there is none);
        None for a puzzle without a `draw` hook."""
        from smtpuzzles import pictures

        if self._module is None:
            return None
        extra = {"unique": self.unique, "count": self.count}
        return pictures.drawing(self._module, self._instance, self.solution, pictures.headings(self._module, self._instance),
                                pictures.caption(self.status, self.value, extra, self.solution is not None))

    def _repr_html_(self) -> str | None:
        # A notebook shows HTML before SVG when both are offered: a puzzle that draws itself offers
        # the drawing alone (its caption holds the status and value), the others rich's picture.
        if self._module is not None and self._module.draw is not None and self._repr_svg_() is not None:
            return None
        return _html(self)


@dataclass
class AuditResult:
    """An audit's report: `verdict` (clean, consistent, FAILED, undecided, incomplete), `ok`,
    `exit_code`, `findings`, `evidence`, `instance` and `rests_on`; `as_json()` as `--json`."""

    report: Any

    def __getattr__(self, name: str):
        return getattr(self.report, name)

    def __repr__(self) -> str:
        # One line: a notebook shows the report once, as HTML; this is the plain form beside it.
        return f"<AuditResult {self.report.verdict}: {self.report.puzzle} {self.report.status} {self.report.run_dir}>"

    def __rich__(self):
        from smtpuzzles.auditview import report_view

        return report_view(self.report)

    def _repr_html_(self) -> str:
        return _html(self)


def _html(renderable) -> str:
    from rich.console import Console

    console = Console(record=True, width=80, file=io.StringIO(), force_terminal=True)
    console.print(renderable)
    return console.export_html(inline_styles=True, code_format="<pre style=\"font-family:monospace\">{code}</pre>")
