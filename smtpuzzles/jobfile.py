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
from dataclasses import dataclass, field
from pathlib import Path

from smtpuzzles import puzzles, request
from smtpuzzles.cubes import DEPTHS as CUBE_DEPTHS
from smtpuzzles.engines import check_params
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import RUNS, check_writable_folder, read_text_file, seconds_or_zero

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# key -> accepted types. A job may carry these, plus its puzzle's options and inline input keys
# (`puzzle_keys`); [defaults] the shared subset.
JOB_KEYS = {
    "name": (str,), "puzzle": (str,), "input": (str,), "unique": (bool,), "count": (bool, int),
    "engine": (str,), "encoding": (str,), "time_limit": (int, float), "params": (dict,), "cubes": (int,),
    "split_after": (int, float), "budget": (int, float),
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
    budget: float | None = None  # seconds for the job's whole session (not part of its identity)
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
    if "time_limit" in table:
        request.time_limit(table["time_limit"], f"{where} time_limit")
    if "budget" in table:
        request.time_limit(table["budget"], f"{where} budget")
    if "cubes" in table and table["cubes"] not in CUBE_DEPTHS:
        raise InputError(f"cubes must be a depth of {' or '.join(map(str, CUBE_DEPTHS))}, not {table['cubes']}", where)
    if "split_after" in table:
        seconds_or_zero(table["split_after"], f"{where} split_after")
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
        jobs.extend(_load_job(entry, number, defaults, base, path))
    names = [job.name for job in jobs]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise InputError(f"two jobs are named {duplicate!r}; give them distinct names", str(path))
    for job in jobs:
        job.folder = str(folder / "jobs" / job.name)
    return Batch(jobs, folder, defaults)


def _load_job(entry: dict, number: int, defaults: dict, base: Path, path: Path) -> list[Job]:
    from smtpuzzles.folders.readback import instance_sha

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
    inline = {key.name: key for key in module.INLINE}
    files = {option.name: option for option in module.input_options()}
    given = [k for k in ("input", *files, *inline) if k in entry]
    if len(given) > 1:
        raise InputError(f"give one input, not {' and '.join(given)}", where)
    mode, count_limit = request.mode_and_limit(module, entry.get("unique", False), entry.get("count"), lambda key: where)
    encoding = request.encoding(module, entry.get("encoding"), where) or module.ENCODINGS[0]
    request.check_split(module, encoding, entry.get("cubes", 0), where)
    engine = entry.get("engine", defaults.get("engine"))
    params = {**defaults.get("params", {}), **entry.get("params", {})}
    # Refused here, before anything runs, rather than by the first job that builds an engine.
    check_params(engine or module.DEFAULT_ENGINE, params, f"{where} params")
    # What the run will ask for, the puzzle's measured best included: a job's ledger matches that.
    params = module.engine_params(engine or module.DEFAULT_ENGINE, params)
    limit = entry.get("time_limit", defaults.get("time_limit"))
    budget = entry.get("budget", defaults.get("budget"))
    options = {option.name: option.check(entry[option.name], where) if option.name in entry else option.default
               for option in module.OPTIONS if not option.input_file}

    inputs = _job_inputs(entry, module, given, files, inline, base, label, where)
    jobs = []
    for text, source, suffix in inputs:
        name = entry.get("name") or f"{entry['puzzle']}-{number}"
        if suffix:
            name = check_job_name(f"{name}-{suffix}", f"{where} (named after {source})")
        try:
            instance = module.load(text, source, options)  # validate now, before anything runs
        except InputError as exc:
            raise InputError(str(exc), where) from None
        identity = {
            "puzzle": module.NAME,
            "instance_sha256": instance_sha(module.canonical(instance)),
            "encoding": encoding,
            "engine": engine or module.DEFAULT_ENGINE,
            "mode": mode,
            "limit": count_limit,
            "params": params,
        }
        jobs.append(Job(name, entry["puzzle"], text, source, {**options, "count_limit": count_limit}, mode,
                        engine, encoding, float(limit) if limit is not None else None, dict(params),
                        identity=identity, cubes=entry.get("cubes", 0), split_after=float(entry.get("split_after", 5.0)),
                        budget=float(budget) if budget is not None else None))
    return jobs


def _job_inputs(entry: dict, module, given: list[str], files: dict, inline: dict, base: Path, label: str,
                where: str) -> list[tuple[str | None, str, str]]:
    """(text, source, name suffix) of each input a job names: `input` a glob (each file its own
    job), a file option read as given (never globbed), an inline key, or none where none is needed."""
    inputs: list[tuple[str | None, str, str]] = []
    if "input" in entry:
        files = sorted(glob.glob(str(base / entry["input"])))
        if not files:
            raise InputError(f"input {entry['input']!r} matches no file", where)
        for file in files:
            if Path(file).is_dir():
                raise InputError(f"input {entry['input']!r} matches a folder, {file}", where)
            text = _job_file(file, where, "input")
            inputs.append((text, file, Path(file).stem if len(files) > 1 or "name" not in entry else ""))
    elif given and given[0] in files:  # a file named by one of the puzzle's options: read, never globbed
        key = given[0]
        inputs.append((_job_file(str(base / entry[key]), where, key), entry[key], ""))
    elif given:
        key = given[0]
        inputs.append((inline[key].text(entry[key]), f"job {label} {key}", ""))
    elif not module.INPUT_REQUIRED:
        inputs.append((None, "options", ""))
    else:
        keys = ", ".join(("input", *files, *inline))
        raise InputError(f"missing its input ({keys})", where)
    return inputs


def _job_file(file: str, where: str, key: str) -> str:
    try:
        return read_text_file(file)
    except InputError as exc:
        raise InputError(f"{key}: {exc}", where) from None
