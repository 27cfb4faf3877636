"""The contract between the core and a puzzle: every hook the core and the commands call, with types.

A puzzle is any object, usually a module, that defines the required names below; it is found
through the entry-point group `smtpuzzles.puzzles` (see `smtpuzzles.puzzles`), the built-ins
included. The core never touches that object directly: `Puzzle` wraps it, delegates each required
hook to it, and gives every optional hook a default, so a puzzle that leaves one out still works in
every command. `problems(source)` lists what a candidate gets wrong; the contract test runs it over
every registered puzzle.

Required:

  NAME: str                                 the puzzle's name on the command line and in run folders
  ENCODINGS: tuple[str, ...]                encoding variants, the default first
  DEFAULT_ENGINE: str                       "z3" or "sat" (the measured best for the default encoding)
  MODES: tuple[str, ...]                    what `solve` may be asked: "optimise" (a maximum) or
                                            "solve" (any solution), then "unique", "count"; the first
                                            is what a plain `solve` does
  LIMITS: dict[str, int]                    the largest instance `load` accepts, measured
  load(text, source, options) -> instance   parse and validate (one InputError naming the place)
  canonical(instance) -> dict               the instance as JSON, what a run folder records ...
  from_canonical(data) -> instance          ... and back, validated as `load` would
  encode(instance, encoding) -> Encoding    base formula, objective and model decoder
  referee(instance, solution) -> [str]      every broken rule, in words; pure Python, never a solver
  value(instance, solution) -> value        the objective value of a refereed solution
  value_json(value) -> JSON                 that value as `solve --json` and run.json show it
  render(instance, solution, proved)        a rich renderable, laid out for 80 columns; `proved` is
                                            the count of proved leading positions (lex objectives)

Optional (default in brackets):

  SUMMARY: str                              one line for `solve --help` [the docstring's first line]
  OPTIONS: tuple[Option, ...]               flags on `solve`, keys in a job file [none]
  INLINE: tuple[InlineKey, ...]             job-file keys that hold the input itself [none]
  INPUT_REQUIRED: bool                      whether INPUT (or an inline key) must be given [True]
  ACCEPTS_URLS: bool                        whether INPUT may be an http(s) address [False]
  SPLITS: tuple[str, ...]                   encodings whose checks `solve --cubes` may split: their
                                            Advice.cubes proposes cubes, the core checks them [none]
  ENGINE_PARAMS: dict[str, dict]            engine name -> the parameters measured best for this
                                            puzzle, under any a user or job gives [none]
  describe(instance) -> str                 a few words for `smtpuzzles results` [""]
  same_solution(instance, a, b) -> bool     two solutions are the same answer [equal as JSON]
  progress(value, proved) -> renderable     the best value so far in the live display [its JSON]
  examples() -> Iterable[Example]           bundled instances: `export` writes their formulas and
                                            the contract test solves the first one [none]
  certificate(instance, solution)           a solver-free certificate of optimality the audit
                                            checks, or None where the instance has none [absent: None]
  convert(text, source) -> str              `smtpuzzles convert`, one input form to another, with
  CONVERTS: str                             what it converts, in words [absent: None]
  reference(instance, claim) -> str         DIMACS text of a formula written from the rules alone,
                                            sharing no code with `encode`, that is satisfiable
                                            exactly when `claim` holds (a solution beats the best,
                                            reaches k, differs from those found, exists); `certify`
                                            and `audit --proof` refute each closing claim on it too,
                                            so a claim rests on the rules, not on the encoder. Claims
                                            are the ledger's: {"op": "lex_greater", "best": [...]},
                                            {"op": "at_least", "k": k}, {"op": "block", "solutions":
                                            [...]}, {"op": "first"}; None where it has none [absent:
                                            the audit says the claim rests on the encoder]. One that
                                            can take long reads `reference_deadline()` while it
                                            builds and raises TimeoutError past it
  reference_witness(instance, solution)     required with `reference`: the literals of the formula
    -> list[int]                            `reference(instance, {"op": "first"})` that say this
                                            (refereed) solution, its variables for what the rules
                                            speak of; the audit checks that formula has a model
                                            holding them before a reference proof counts, so a
                                            reference stricter than the rules (or unsatisfiable)
                                            fails the audit instead of backing any claim
  reference_symmetry(instance, claim)       a symmetry lemma for that formula F, proposed, never
    -> dict | None                          trusted: {"generators": [[[var, image], ...], ...],
                                            "blocks": [[literals, auxiliaries], ...] (its at-most-one
                                            ladders), "breaking": [literals], "covered": [literals],
                                            "summary": words}; smtpuzzles.trusted.symmetry.check_formula
                                            verifies it on F, and the reference proof is then of F
                                            and the breaking clause; "parts": true, or a clause of
                                            F, advises refuting it one literal of C (or of that
                                            clause) at a time [absent: F alone]
  brute_force(instance, limit) -> list      every solution, or None past `limit` steps of search,
                                            by a search from the rules: `smtpuzzles.auditing.crosscheck`
                                            holds solve, unique, count and the optimum (the largest
                                            `value`) to it; the contract test runs it on every
                                            example, a plug-in's tests on boards they generate
                                            [absent: not checked]
  draw(instance, solution) -> str           the board as a whole SVG document (smtpuzzles.drawing:
                                            svg namespace, viewBox, generic fonts, nothing fetched),
                                            the solution drawn on it, or the instance alone when
                                            `solution` is None; `--svg` and a notebook show it under
                                            the title and the run's status [absent: `--svg` saves
                                            rich's recording of the terminal picture]
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator

from smtpuzzles.engines import ENGINES, check_params
from smtpuzzles.errors import InputError

GENERIC_FLAGS = {"out", "json", "time_limit", "resume", "engine", "encoding", "no_guide", "svg", "certify",
                 "unique", "count", "help", "input", "puzzle", "cubes", "split_after", "scheduler"}
# Job-file keys every puzzle has; a puzzle's options and inline keys may not reuse them.
GENERIC_JOB_KEYS = {"name", "puzzle", "input", "unique", "count", "engine", "encoding", "time_limit", "params", "cubes",
                    "split_after"}
MODE_NAMES = ("optimise", "solve", "unique", "count")
TYPE_WORDS = {bool: "true/false", int: "an integer", str: "a string", list: "a list", dict: "a table"}


# When a reference formula asked for under a time limit must be built by (a time.monotonic()
# instant), or None: the audit's --time-limit bounds building it as it bounds proving it.
_REFERENCE_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("reference_deadline", default=None)


def reference_deadline() -> float | None:
    """The instant by which the `reference` hook being called must return, or None (no limit)."""
    return _REFERENCE_DEADLINE.get()


@contextlib.contextmanager
def reference_time_limit(seconds: float | None):
    """`reference` hooks called inside are given `seconds` from now to build (None: no limit)."""
    token = _REFERENCE_DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _REFERENCE_DEADLINE.reset(token)


def whole(value: object) -> bool:
    """A real int, as a referee must demand where the rules speak of digits, counts or indices:
    JSON's `4.0` and `true` compare equal to 4 and 1 in Python, and are neither."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Option:
    """One option a puzzle takes: a flag on `solve` and a key in a job file, from this one declaration."""

    name: str  # a Python identifier: the job-file key, and --NAME (underscores as dashes) on `solve`
    type: type  # int, str or bool (a bool is a flag on the command line, true/false in a job file)
    help: str
    default: Any = None
    metavar: str | None = None
    minimum: int | None = None  # ints: the smallest value accepted, in both places
    # Further validation of a well-typed value: the problem in words, or None. The puzzle's `load`
    # still sees every option, so checks that need the whole instance belong there.
    validate: Callable[[Any], str | None] | None = None
    # The value names a file whose text is the puzzle's input, given instead of INPUT where a name
    # such as --clues reads better than a bare INPUT. It never reaches `load` as an option.
    input_file: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def check(self, value, where: str):
        """A value from a job file or the command line: its type, minimum and `validate`, else one
        InputError naming `where` and the key."""
        if self.type is bool:
            ok = isinstance(value, bool)
        elif self.type is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, self.type)
        if not ok:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise InputError(f"{self.name} must be {TYPE_WORDS.get(self.type, self.type.__name__)}, "
                             f"not {type(value).__name__} {shown}", where)
        if self.minimum is not None and value < self.minimum:
            raise InputError(f"{self.name} must be at least {self.minimum}, not {value}", where)
        problem = self.validate(value) if self.validate else None
        if problem:
            raise InputError(f"{self.name}: {problem}", where)
        return value


@dataclass(frozen=True)
class InlineKey:
    """A job-file key that holds the input itself (a map as a string, a door list as a list)."""

    name: str
    type: type  # str: handed to `load` as the text; list or dict: handed over as JSON text
    help: str

    def text(self, value) -> str:
        return value if isinstance(value, str) else json.dumps(value)


@dataclass(frozen=True)
class Example:
    """A bundled instance: `export` writes its base formula as `NAME/STEM.smt2`. `options` are the
    puzzle options it was loaded with (the keys a job file gives them under)."""

    stem: str
    instance: Any
    encoding: str
    options: dict = field(default_factory=dict)


def examples_in(folder, load: Callable, encoding: str, options: dict | None = None) -> Iterator[Example]:
    """Every input file in `folder` (its expected answers, expected.json, left out), in name order,
    each loaded with `options` (a mapping of file stem to options, for examples that need some).
    `folder` is a Path or a package's folder as importlib.resources gives it (`files(pkg) / "x"`)."""
    if isinstance(folder, str):
        folder = Path(folder)
    if not folder.is_dir():
        raise InputError("the bundled examples are missing from this installation (reinstall it)", str(folder))
    for path in sorted(folder.iterdir(), key=lambda p: p.name):
        if path.name != "expected.json" and path.is_file():
            stem = path.name.rsplit(".", 1)[0]
            given = dict((options or {}).get(stem, {}))
            yield Example(stem, load(path.read_text(encoding="utf-8"), path.name, given), encoding, given)


REQUIRED = {
    "NAME": str, "ENCODINGS": tuple, "DEFAULT_ENGINE": str, "MODES": tuple, "LIMITS": dict,
    "load": 3, "canonical": 1, "from_canonical": 1, "encode": 2, "referee": 2, "value": 2, "value_json": 1,
    "render": 3,
}
OPTIONAL = {
    "SUMMARY": str, "OPTIONS": tuple, "INLINE": tuple, "INPUT_REQUIRED": bool, "ACCEPTS_URLS": bool, "SPLITS": tuple,
    "ENGINE_PARAMS": dict, "CONVERTS": str, "describe": 1, "same_solution": 3, "progress": 2, "examples": 0,
    "certificate": 2, "certify": 2, "convert": 2, "reference": 2, "reference_witness": 2, "reference_symmetry": 2,
    "brute_force": 2, "draw": 2,
}


def _takes(function, count: int) -> bool:
    """Whether `function` can be called with `count` positional arguments."""
    try:
        inspect.signature(function).bind(*range(count))
    except TypeError:
        return False
    except ValueError:  # no signature to read (a builtin): trust it
        return True
    return True


def problems(source: object) -> list[str]:
    """What `source` gets wrong as a puzzle, in words (empty: it keeps the contract)."""
    found = []
    for name, kind in {**REQUIRED, **OPTIONAL}.items():
        if not hasattr(source, name):
            if name in REQUIRED:
                found.append(f"{name} is missing")
            continue
        item = getattr(source, name)
        if isinstance(kind, type):
            if not isinstance(item, kind):
                found.append(f"{name} must be a {kind.__name__}, not {type(item).__name__}")
        elif not callable(item):
            found.append(f"{name} must be a function")
        elif not _takes(item, kind):
            found.append(f"{name} must take {kind} argument{'s' if kind != 1 else ''}")
    if found:
        return found
    name = source.NAME
    if not name.isidentifier() or not name.islower():
        found.append(f"NAME {name!r} must be a lower-case identifier")
    if not source.ENCODINGS or not all(isinstance(e, str) for e in source.ENCODINGS):
        found.append("ENCODINGS must name at least one encoding")
    if source.DEFAULT_ENGINE not in ("z3", "sat"):
        found.append(f"DEFAULT_ENGINE {source.DEFAULT_ENGINE!r} is not z3 or sat")
    if not source.MODES or source.MODES[0] not in ("optimise", "solve") or not set(source.MODES) <= set(MODE_NAMES):
        found.append(f"MODES {source.MODES!r}: the first must be optimise or solve, the rest unique or count")
    if not all(isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in source.LIMITS.items()):
        found.append("LIMITS must map names to whole numbers")
    keys: set[str] = set()
    for option in getattr(source, "OPTIONS", ()):
        if not isinstance(option, Option):
            found.append(f"OPTIONS holds {option!r}, not an Option")
            continue
        if option.type not in (int, str, bool):
            found.append(f"option {option.name}: type must be int, str or bool")
        if not option.name.isidentifier() or option.name in GENERIC_FLAGS | GENERIC_JOB_KEYS or option.name in keys:
            found.append(f"option {option.name!r} clashes with a command's own flag or key, or is not an identifier")
        if not option.help:
            found.append(f"option {option.name} has no help")
        if option.type is bool and option.default not in (None, False):
            found.append(f"option {option.name}: a bool option is a flag, off unless given (default False)")
        keys.add(option.name)
    for key in getattr(source, "INLINE", ()):
        if not isinstance(key, InlineKey):
            found.append(f"INLINE holds {key!r}, not an InlineKey")
            continue
        if key.type not in (str, list, dict) or not key.name.isidentifier():
            found.append(f"inline key {key.name!r}: a str, list or dict under an identifier")
        if key.name in GENERIC_JOB_KEYS or key.name in keys:
            found.append(f"inline key {key.name!r} clashes with another key")
        keys.add(key.name)
    for engine, params in getattr(source, "ENGINE_PARAMS", {}).items():
        if engine not in ENGINES:
            found.append(f"ENGINE_PARAMS names no engine {engine!r} (one of {', '.join(ENGINES)})")
            continue
        try:
            check_params(engine, params)
        except InputError as exc:
            found.append(f"ENGINE_PARAMS[{engine!r}]: {exc.message}")
    if callable(getattr(source, "reference", None)) and not callable(getattr(source, "reference_witness", None)):
        found.append("reference needs reference_witness, the literals of its formula that say a solution "
                     "(the audit holds the reference to the run's own solutions with it)")
    if callable(getattr(source, "convert", None)) and not getattr(source, "CONVERTS", None):
        found.append("convert needs CONVERTS, what it converts in words")
    return found


class Puzzle:
    """A registered puzzle as the core and the commands use it: the required hooks delegated to the
    puzzle's own object, the optional ones filled with their defaults."""

    def __init__(self, source: object):
        wrong = problems(source)
        if wrong:
            label = getattr(source, "NAME", None) or getattr(source, "__name__", repr(source))
            raise ContractError(f"{label}: " + "; ".join(wrong))
        self.source = source
        self.NAME: str = source.NAME
        self.ENCODINGS: tuple[str, ...] = tuple(source.ENCODINGS)
        self.DEFAULT_ENGINE: str = source.DEFAULT_ENGINE
        self.MODES: tuple[str, ...] = tuple(source.MODES)
        self.LIMITS: dict[str, int] = dict(source.LIMITS)
        doc = ((source.__doc__ or "") if isinstance(source, ModuleType) else "").strip().split("\n\n")[0]
        self.SUMMARY: str = getattr(source, "SUMMARY", None) or " ".join(doc.split()) or self.NAME
        self.OPTIONS: tuple[Option, ...] = tuple(getattr(source, "OPTIONS", ()))
        self.INLINE: tuple[InlineKey, ...] = tuple(getattr(source, "INLINE", ()))
        self.INPUT_REQUIRED: bool = getattr(source, "INPUT_REQUIRED", True)
        self.ACCEPTS_URLS: bool = getattr(source, "ACCEPTS_URLS", False)
        self.SPLITS: tuple[str, ...] = tuple(getattr(source, "SPLITS", ()))
        self.ENGINE_PARAMS: dict[str, dict] = {k: dict(v) for k, v in getattr(source, "ENGINE_PARAMS", {}).items()}
        # Hooks that are absent stay None: the audit checks a certificate only where a puzzle has one.
        # `certify`, the hook's name before the command of that name, is still read for older plug-ins.
        self.certificate: Callable[[Any, dict], tuple[bool, str] | None] | None = (
            getattr(source, "certificate", None) or getattr(source, "certify", None))
        self.convert: Callable[[str, str], str] | None = getattr(source, "convert", None)
        self.reference: Callable[[Any, dict], str | None] | None = getattr(source, "reference", None)
        self.reference_witness: Callable[[Any, dict], list[int]] | None = getattr(source, "reference_witness", None)
        self.reference_symmetry: Callable[[Any, dict], dict | None] | None = getattr(source, "reference_symmetry", None)
        self.brute_force: Callable[[Any, int], list | None] | None = getattr(source, "brute_force", None)
        self.draw: Callable[[Any, dict | None], str] | None = getattr(source, "draw", None)
        self.CONVERTS: str | None = getattr(source, "CONVERTS", None)
        # Hooks with a default behind a method of the same name, read once like the rest.
        self._describe: Callable[[Any], str] | None = getattr(source, "describe", None)
        self._same_solution: Callable[[Any, dict, dict], bool] | None = getattr(source, "same_solution", None)
        self._progress: Callable[[Any, int | None], Any] | None = getattr(source, "progress", None)
        self._examples: Callable[[], Iterable[Example]] | None = getattr(source, "examples", None)

    def __repr__(self) -> str:
        return f"<puzzle {self.NAME} from {getattr(self.source, '__name__', self.source)!r}>"

    # ------------------------------------------------------------------------------------ required
    def load(self, text: str | None, source: str, options: dict) -> Any:
        return self.source.load(text, source, options)

    def canonical(self, instance) -> dict:
        return self.source.canonical(instance)

    def from_canonical(self, data: dict) -> Any:
        return self.source.from_canonical(data)

    def encode(self, instance, encoding: str | None = None):
        return self.source.encode(instance, encoding or self.ENCODINGS[0])

    def referee(self, instance, solution: dict) -> list[str]:
        return self.source.referee(instance, solution)

    def value(self, instance, solution: dict) -> Any:
        return self.source.value(instance, solution)

    def value_json(self, value) -> Any:
        return self.source.value_json(value)

    def render(self, instance, solution: dict, proved: int | None = None):
        return self.source.render(instance, solution, proved)

    # ------------------------------------------------------------------------------------ optional
    def describe(self, instance) -> str:
        return self._describe(instance) if self._describe else ""

    def same_solution(self, instance, a: dict, b: dict) -> bool:
        if self._same_solution is None:
            return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
        return bool(self._same_solution(instance, a, b))

    def progress(self, value, proved: int | None):
        if self._progress is not None:
            return self._progress(value, proved)
        from rich.text import Text

        shown = self.value_json(value)
        if isinstance(shown, list):
            shown = "\n".join(map(str, shown))
        return Text(f"best so far: {shown}", style="bold")

    def examples(self) -> Iterable[Example]:
        return self._examples() if self._examples else ()

    def engine_params(self, engine: str, given: dict | None = None) -> dict:
        """The parameters a run on `engine` asks for: the puzzle's measured best, under `given`."""
        return {**self.ENGINE_PARAMS.get(engine, {}), **(given or {})}

    # --------------------------------------------------------------------------------------- options
    def option(self, name: str) -> Option | None:
        return next((o for o in self.OPTIONS if o.name == name), None)

    def input_options(self) -> tuple[Option, ...]:
        return tuple(o for o in self.OPTIONS if o.input_file)


class ContractError(Exception):
    """A puzzle that does not keep the contract: a bug in the puzzle's package, not bad input."""


def adopt(puzzle: object) -> Puzzle:
    """A `Puzzle` for either a `Puzzle` or the object it would wrap (a puzzle module)."""
    return puzzle if isinstance(puzzle, Puzzle) else Puzzle(puzzle)
