"""The batch job file: read and validated as a whole before anything runs.

Every problem is one `InputError` naming the file, the job and the key; nothing is written until the
whole file has passed. A job's identity (puzzle, canonical instance, encoding, engine, mode and
parameters) is fixed here, so that a later run of the batch can tell whether a job has changed
since its ledger was written.
"""

from __future__ import annotations

import glob
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from smtpuzzles import puzzles, request
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import RUNS, check_writable_folder, read_text_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# key -> accepted types. A job may carry these, plus its puzzle's options and inline input keys
# (`puzzle_keys`); [defaults] the shared subset.
JOB_KEYS = {
    "name": (str,), "puzzle": (str,), "input": (str,), "unique": (bool,), "count": (bool, int),
    "engine": (str,), "encoding": (str,), "time_limit": (int, float), "params": (dict,), "cubes": (int,),
    "split_after": (int, float), "budget": (int, float), "share": (int,),
}
DEFAULT_KEYS = {"time_limit": (int, float), "out": (str,), "engine": (str,), "params": (dict,), "budget": (int, float)}


def puzzle_keys(puzzle) -> dict[str, tuple]:
    """The keys a job of this puzzle may carry beyond JOB_KEYS, with their accepted types."""
    keys = {option.name: (option.type,) for option in puzzle.OPTIONS}
    keys.update({key.name: (key.type,) for key in puzzle.INLINE})
    return keys

# A job name becomes a folder under OUT/jobs/: one plain path component, never `..`, a separator or
# an absolute path, and no leading dot (hidden, and `.`/`..` themselves).
NAME_RULE = "letters, digits, '-', '_' and '.' (not first), at most 100 characters"
NAME_PATTERN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")


@dataclass
class Job:
    name: str
    puzzle: str
    text: str | None
    source: str
    options: dict
    mode: str
    engine: str | None
    encoding: str | None
    time_limit: float | None
    params: dict
    folder: str = ""
    cubes: int = 0  # checks split into the puzzle's cubes of this depth (smtpuzzles.cubes)
    split_after: float = 5.0
    share: int | None = None  # workers a hard check is shared out to (smtpuzzles.sharing; None: not shared)
    budget: float | None = None  # seconds for the job's whole session (not part of its identity)
    request: request.SolveRequest | None = None  # what the job asks, as the command line and the API ask it
    # What a ledger must hold to count as this job's: see `identity` and `batch.matches`.
    identity: dict = field(default_factory=dict)

    def spec(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Batch:
    jobs: list[Job]
    out: Path
    defaults: dict = field(default_factory=dict)


def check_job_name(name: str, where: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        shown = name if len(name) <= 60 else name[:57] + "..."
        raise InputError(f"job name {shown!r} is not allowed: use {NAME_RULE}", where)
    return name


def _type_name(types) -> str:
    return " or ".join({"str": "a string", "int": "an integer", "float": "a number", "bool": "true/false",
                        "list": "a list", "dict": "a table"}[t.__name__] for t in types)


def _check(table: dict, allowed: dict, where: str) -> None:
    for key, value in table.items():
        if key not in allowed:
            raise InputError(f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})", where)
        types = allowed[key]
        if isinstance(value, bool) and bool not in types:
            raise InputError(f"{key} must be {_type_name(types)}, not {value!r}", where)
        if not isinstance(value, types):
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise InputError(f"{key} must be {_type_name(types)}, not {type(value).__name__} {shown}", where)


def _check_defaults(table: dict, where: str) -> None:
    """[defaults]' values, checked as a job's are (smtpuzzles.request), naming [defaults]."""
    if "time_limit" in table:
        request.time_limit(table["time_limit"], f"{where} time_limit")
    if "budget" in table:
        request.time_limit(table["budget"], f"{where} budget")
    if "engine" in table:
        request.engine(table["engine"], where)


def load_batch(path: Path, out: str | None = None) -> Batch:
    """Read and validate the whole job file before anything runs."""
    path = Path(path)
    text = read_text_file(str(path))  # capped, UTF-8, folders refused; names the file
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", str(path)) from None
    unknown = set(data) - {"defaults", "job"}
    if unknown:
        raise InputError(f"unknown top-level key {sorted(unknown)[0]!r} (expected [defaults] and [[job]])", str(path))
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise InputError("[defaults] must be a table", str(path))
    _check(defaults, DEFAULT_KEYS, f"{path} [defaults]")
    _check_defaults(defaults, f"{path} [defaults]")
    entries = data.get("job", [])
    if not isinstance(entries, list):
        raise InputError("job must be written [[job]] (a list of tables)", str(path))
    if not entries:
        raise InputError("no [[job]] entries", str(path))
    base = path.resolve().parent
    folder = Path(out) if out else (base / defaults["out"] if "out" in defaults else Path(RUNS))
    check_writable_folder(str(folder), "--out" if out else f"{path} [defaults] out")
    jobs: list[Job] = []
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise InputError(f"job #{number} must be a table ([[job]] with keys), not {type(entry).__name__}", str(path))
        jobs.extend(_load_job(entry, number, defaults, base, path, folder))
    names = [job.name for job in jobs]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise InputError(f"two jobs are named {duplicate!r}; give them distinct names", str(path))
    for job in jobs:
        job.folder = str(folder / "jobs" / job.name)
    return Batch(jobs, folder, defaults)


def _load_job(entry: dict, number: int, defaults: dict, base: Path, path: Path, out: Path) -> list[Job]:
    from smtpuzzles.auditing.readback import instance_sha

    label = entry.get("name") if isinstance(entry.get("name"), str) else f"#{number}"
    where = f"{path} job {label if len(label) <= 60 else label[:57] + '...'}"
    if "puzzle" not in entry:
        raise InputError("missing key 'puzzle'", where)
    _check({"puzzle": entry["puzzle"]}, JOB_KEYS, where)
    if entry["puzzle"] not in puzzles.names():
        raise InputError(f"puzzle {entry['puzzle']!r} is not one of {', '.join(puzzles.names())}", where)
    module = puzzles.get(entry["puzzle"])
    _check(entry, {**JOB_KEYS, **puzzle_keys(module)}, where)
    if "name" in entry:
        check_job_name(entry["name"], where)
    # [defaults] fill what the job leaves out; its params lie under the job's own.
    words = {**{key: defaults[key] for key in ("engine", "time_limit", "budget") if key in defaults}, **entry,
             "params": {**defaults.get("params", {}), **entry.get("params", {})}, "out": out}
    asked = request.solve_request(module, words, lambda key: where if key in JOB_WHERE else f"{where} {key}",
                                  lambda key, value, kind: _job_input(key, value, kind, base, label))
    encoding = asked.encoding or module.ENCODINGS[0]
    engine = asked.engine or module.DEFAULT_ENGINE
    # What the run will ask for, the puzzle's measured best included: a job's ledger matches that.
    params = module.engine_params(engine, asked.params)
    jobs = []
    for each, suffix in _each_input(asked, module, entry, base, where):
        name = entry.get("name") or f"{entry['puzzle']}-{number}"
        if suffix:
            name = check_job_name(f"{name}-{suffix}", f"{where} (named after {each.input.source})")
        text = _job_file(each.input.value, where, each.input.key) if each.input.kind == "file" else each.input.read()
        try:
            instance = module.load(text, each.input.source, asked.options)  # validate now, before anything runs
        except InputError as exc:
            raise InputError(str(exc), where) from None
        identity = {"puzzle": module.NAME, "instance_sha256": instance_sha(module.canonical(instance)),
                    "encoding": encoding, "engine": engine, "mode": asked.mode, "limit": asked.limit, "params": params}
        jobs.append(Job(name, entry["puzzle"], text, each.input.source, {**asked.options, "count_limit": asked.limit},
                        asked.mode, asked.engine, encoding, asked.time_limit, dict(params), identity=identity,
                        cubes=asked.cubes, split_after=asked.split_after, share=asked.share, budget=asked.budget,
                        request=each))
    return jobs


# The keys whose errors name the job alone, as they always have (the rest name the job and the key).
JOB_WHERE = ("unique", "count", "encoding", "engine", "cubes")


def _job_input(key: str | None, value, kind: str, base: Path, label: str) -> request.Input:
    """A job's input as the request's: `input` a glob beside the job file, a file option a file there
    (read as given, never globbed), an inline key's text."""
    if kind == "none":
        return request.Input("none")
    if kind == "inline":
        return request.Input("inline", value, f"job {label} {key}", key)
    if key == "input":
        return request.Input("glob", value, value, key)
    return request.Input("file", str(base / value), value, key)


def _each_input(asked: request.SolveRequest, module, entry: dict, base: Path,
                where: str) -> list[tuple[request.SolveRequest, str]]:
    """(the request of each job, its name's suffix): a glob's every file its own job, named after the
    file where it matches several or the job has no name; a job without a needed input refused."""
    if asked.input.kind == "none" and module.INPUT_REQUIRED:
        keys = ", ".join(("input", *(o.name for o in module.input_options()), *(k.name for k in module.INLINE)))
        raise InputError(f"missing its input ({keys})", where)
    if asked.input.kind != "glob":
        return [(asked, "")]
    pattern = asked.input.value
    files = sorted(glob.glob(str(base / pattern)))
    if not files:
        raise InputError(f"input {pattern!r} matches no file", where)
    for file in files:
        if Path(file).is_dir():
            raise InputError(f"input {pattern!r} matches a folder, {file}", where)
    named = len(files) > 1 or "name" not in entry
    return [(replace(asked, input=request.Input("file", file, file, "input")), Path(file).stem if named else "")
            for file in files]


def _job_file(file: str, where: str, key: str) -> str:
    try:
        return read_text_file(file)
    except InputError as exc:
        raise InputError(f"{key}: {exc}", where) from None
