"""The one reader of run folders: everything in a folder is untrusted data until it passes here.

A run folder may come from anyone (the ledgers people audit are often someone else's), so reading
one is bounded and checked before any of it is used:
- only the folder's own regular files are opened, by fixed names: a symlink, a device, a FIFO or a
  name with a path in it is refused, so nothing outside the folder is ever read;
- every file has a size cap, checked before reading, and compressed files are read as a stream with
  a cap on what they expand to, so a gzip bomb or a huge sparse file costs neither memory nor time;
- every JSON value is checked against a schema (keys, types, claim shapes), so later code may index
  it without guarding each access;
- every problem becomes a `LedgerError` naming the file and the place (one line, exit 2).

The reader knows no puzzle: the instance and solutions it returns are plain JSON, for the puzzle's
own `from_canonical` and referee to judge. Nothing here runs a solver or parses SMT-LIB2.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from smtpuzzles.canonical import is_sha256_hex
from smtpuzzles.cubes import DEPTHS as CUBE_DEPTHS, MAX_CUBE
from smtpuzzles.advice import ORDERS
from smtpuzzles.objectives import claim_fields, integer_list_fields
from smtpuzzles.engines import check_params
from smtpuzzles.folders.bounded import (MiB, GzLines, check_text, gz_digest, json_values, open_regular, parse_json,
                                 read_capped, read_gz)
from smtpuzzles.errors import InputError, LedgerError
from smtpuzzles.folders.statuses import STATUSES
from smtpuzzles.sharing.tree import malformed as malformed_tree

# File names are fixed: run.json may name its files, but only these names are accepted, so a
# recorded path can never point outside the folder.
RUN, STEPS, SOLUTION, BASE, CERTIFICATE, INPUT = (
    "run.json", "steps.jsonl", "solution.json", "base.smt2.gz", "certificate.smt2.gz", "input.txt")
# A finished run's ledger may be published gzip-compressed in its place (the same lines: the hash
# chain and the seal hash the text, never the bytes), so that results/ holds more records; such a
# ledger is read like the plain one, under the same caps, and never written to.
STEPS_GZ = "steps.jsonl.gz"
# A stored clausal proof of the certificate's claim (`smtpuzzles certify`): the query as DIMACS and
# an LRAT proof, both gzip.
DIMACS, PROOF = "certificate.cnf.gz", "proof.lrat.gz"
# The same claim refuted on the puzzle's reference encoding (written from the rules alone): that
# formula as DIMACS and its LRAT proof.
REFERENCE_DIMACS, REFERENCE_PROOF = "reference.cnf.gz", "reference.lrat.gz"
PROOF_FILES = {"proof": (PROOF, DIMACS), "reference_proof": (REFERENCE_PROOF, REFERENCE_DIMACS)}

# Caps on what is read. The largest run published or produced by the tests is far below each one
# (the 9x9 record: run.json 2.4 KB, steps.jsonl 0.22 MB; a 50x50 grid-partition base expands to about
# 60 MB); a folder beyond them is refused rather than read.
MAX_RUN_JSON = 64 * MiB
MAX_SOLUTION_JSON = 64 * MiB
# Steps are held as Python objects, about 7 bytes of memory per byte of file: 64 MiB keeps a folder
# at the cap under half a GiB.
MAX_STEPS_FILE = 64 * MiB
MAX_STEP_LINE = 16 * MiB

GENESIS = "0" * 64
RESULTS = ("sat", "unsat", "unknown", "interrupted")

# How `Ledger.create` names a run folder: PUZZLE-HASH-YYYYmmdd-HHMMSS, with -2, -3 ... for a second
# run started in the same second. Read from the right: a puzzle's name may hold '-'.
_RUN_NAME = re.compile(r"(?P<puzzle>.+)-[0-9a-f]{10}-(?P<date>[0-9]{8})-(?P<time>[0-9]{6})(?:-(?P<n>[0-9]{1,4}))?")


def run_name(name: str) -> tuple[str, str, str, int] | None:
    """(puzzle, date, time of day, the same second's number, 1 for the first) of a folder named as
    `Ledger.create` names runs; None for any other name (a folder a user renamed, say)."""
    match = _RUN_NAME.fullmatch(name)
    if match is None:
        return None
    return match["puzzle"], match["date"], match["time"], int(match["n"] or 1)


MAX_JSON_VALUES = {RUN: 1_000_000, SOLUTION: 2_000_000, STEPS: 8_000_000}  # steps: the whole file
MAX_STEP_VALUES = 2_000_000  # one step line

# ------------------------------------------------------------------------------------------ schema
def _is_name(value: str) -> bool:
    """A variable name as encoders write them: letters, digits and underscores, at most 64."""
    return 0 < len(value) <= 64 and value.isascii() and value.replace("_", "a").isalnum()


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _require(ok: bool, message: str, where: str) -> None:
    if not ok:
        raise LedgerError(message, where)


def check_claim(claim, where: str) -> dict:
    """A claim's shape (op and field types); its ranges are the encoder's to judge."""
    _require(isinstance(claim, dict), "claim must be an object", where)
    op = claim.get("op")
    fields = claim_fields(op) if isinstance(op, str) else None  # each objective kind names its claims
    _require(fields is not None, f"unknown claim op {str(op)[:40]!r}", where)
    if "cube" in claim:  # one cube of a split check (smtpuzzles.cubes): a few variable names
        cube = claim["cube"]
        _require(isinstance(cube, list) and 1 <= len(cube) <= MAX_CUBE and all(isinstance(n, str) and _is_name(n) for n in cube),
                 f"claim field cube must hold 1..{MAX_CUBE} variable names", where)
        fields = {**fields, "cube": list}
    _require(set(claim) == {"op", *fields}, f"claim {op} must have exactly the fields {', '.join(['op', *fields])}", where)
    for key, kind in fields.items():
        value = claim[key]
        _require(isinstance(value, kind) and not isinstance(value, bool), f"claim field {key} must be {kind.__name__}", where)
    for key in integer_list_fields(op):
        if key in claim:
            _require(all(_is_int(d) for d in claim[key]), f"claim field {key} must hold integers", where)
    if op == "block":
        _require(all(isinstance(s, dict) for s in claim["solutions"]), "claim field solutions must hold objects", where)
    return claim


RUN_KEYS = {
    "format": int, "puzzle": str, "instance": object, "instance_sha256": str, "encoding": dict, "engine": dict,
    "objective": str, "mode": str, "limit": (int, type(None)), "time_limit": (int, float, type(None)),
    "base": dict, "host": dict, "started": (str, type(None)), "ended": (str, type(None)), "status": str,
    "value": object, "steps": int, "last_step_sha256": str, "resumed": list, "certificate": dict, "extra": dict,
    "proof": dict, "reference_proof": dict, "cubes": int, "search": str, "share": int,
}
PROOF_KEYS = {
    "format": str, "file": str, "sha256": str, "dimacs": str, "dimacs_sha256": str, "claim": dict,
    "variables": int, "clauses": int, "lemmas": int, "bytes": int, "solver": str,
    "symmetry": str,  # a reference proof of the formula with a symmetry lemma's breaking clause: its words
}
PROOF_REQUIRED = tuple(k for k in PROOF_KEYS if k != "symmetry")
RUN_REQUIRED = ("format", "puzzle", "instance", "instance_sha256", "encoding", "engine", "base", "status", "steps",
                "last_step_sha256")
STEP_KEYS = {
    "index": int, "prev": str, "claim": dict, "words": str, "assumptions": list, "result": str, "by": str,
    "engine": str, "seconds": (int, float), "stats": dict, "solution": dict, "value": object, "core": list,
    "reason": str, "cubes": list, "cases": list, "tree": dict,
}
STEP_REQUIRED = ("index", "prev", "claim", "assumptions", "result")


def _check_keys(data: dict, keys: dict, required, where: str) -> None:
    for key in required:
        _require(key in data, f"has no {key!r}", where)
    for key, value in data.items():
        _require(key in keys, f"unknown key {str(key)[:40]!r}", where)
        kind = keys[key]
        if kind is object:
            continue
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        _require(ok, f"{key} has the wrong type ({type(value).__name__})", where)


def check_run(run, where: str) -> dict:
    _require(isinstance(run, dict), f"must be a JSON object, not {type(run).__name__}", where)
    _check_keys(run, RUN_KEYS, RUN_REQUIRED, where)
    _require(run["format"] == 1, f"format {run['format']} is not one this version reads (1)", where)
    _require(is_sha256_hex(run["instance_sha256"]), "instance_sha256 is not a sha-256", where)
    _require(is_sha256_hex(run["last_step_sha256"]), "last_step_sha256 is not a sha-256", where)
    _require(run["status"] in STATUSES, f"unknown status {run['status'][:40]!r}", where)
    _require(run["steps"] >= 0, "steps is negative", where)
    _require(run.get("search", "climb") in ORDERS, f"unknown search {str(run.get('search'))[:40]!r}", where)
    _require(run.get("cubes", 1) in CUBE_DEPTHS, f"cubes must be a depth of {' or '.join(map(str, CUBE_DEPTHS))}", where)
    _require(run.get("share", 1) >= 1, "share must be a whole number of workers, at least 1", where)
    enc = run["encoding"]
    _require(isinstance(enc.get("name"), str) and _is_int(enc.get("version")) and {"name", "version"} <= set(enc)
             and set(enc) <= {"name", "version", "lemma"} and isinstance(enc.get("lemma", ""), str),
             "encoding must be {name: string, version: integer, lemma: string (optional)}", where)
    engine = run["engine"]
    _require(isinstance(engine.get("name"), str) and isinstance(engine.get("params", {}), dict)
             and isinstance(engine.get("version", ""), str) and set(engine) <= {"name", "params", "version"},
             "engine must be {name, params, version}", where)
    try:  # only known parameters with checked values may ever reach a solver
        check_params(engine["name"], engine.get("params", {}), "engine.params")
    except InputError as exc:
        raise LedgerError(str(exc), where) from None
    base = run["base"]
    _require(base.get("file") == BASE and is_sha256_hex(base.get("sha256")) and set(base) == {"file", "sha256"},
             f"base must be {{file: {BASE}, sha256}}", where)
    if "certificate" in run:
        cert = run["certificate"]
        _require(cert.get("file") == CERTIFICATE and is_sha256_hex(cert.get("sha256")) and _is_int(cert.get("step"))
                 and set(cert) == {"file", "claim", "step", "sha256"},
                 f"certificate must be {{file: {CERTIFICATE}, claim, step, sha256}}", where)
        check_claim(cert["claim"], f"{where} certificate")
    for key, (proof_file, dimacs_file) in PROOF_FILES.items():
        if key in run:
            check_proof_record(run[key], f"{where} {key.replace('_', ' ')}", proof_file, dimacs_file)
    if run.get("limit") is not None:
        _require(run["limit"] >= 1, "limit must be at least 1", where)
    if run.get("time_limit") is not None:
        _require(_is_number(run["time_limit"]) and run["time_limit"] > 0, "time_limit must be a positive number", where)
    _require(all(isinstance(r, str) for r in run.get("resumed", [])), "resumed must hold strings", where)
    check_extra(run.get("extra", {}), run["status"], where)
    check_text(run, where)
    return run


def check_proof_record(record, where: str, proof_file: str = PROOF, dimacs_file: str = DIMACS) -> dict:
    """The run's record of a stored proof: fixed file names, hashes, sizes; what it proves."""
    _require(isinstance(record, dict), "must be an object", where)
    _check_keys(record, PROOF_KEYS, PROOF_REQUIRED, where)
    _require(record["format"] == "lrat", f"format {record['format'][:20]!r} is not one this version reads (lrat)", where)
    _require(record["file"] == proof_file and record["dimacs"] == dimacs_file,
             f"the proof files must be {proof_file} and {dimacs_file}", where)
    _require(is_sha256_hex(record["sha256"]) and is_sha256_hex(record["dimacs_sha256"]), "a file hash is not a sha-256", where)
    _require(all(record[k] >= 0 for k in ("variables", "clauses", "lemmas", "bytes")), "a count is negative", where)
    check_claim(record["claim"], where)
    return record


EXTRA_KEYS = {"proved_digits": int, "unique": bool, "other": dict, "count": int, "count_complete": bool}


def check_extra(extra: dict, status: str, where: str) -> None:
    """What a run adds to its status; uniqueness and complete counts only on a solved run."""
    for key, value in extra.items():
        _require(key in EXTRA_KEYS, f"extra has an unknown key {str(key)[:40]!r}", where)
        kind = EXTRA_KEYS[key]
        _require(isinstance(value, kind) and (kind is bool or not isinstance(value, bool)),
                 f"extra.{key} must be {kind.__name__}", where)
        if kind is int:
            _require(value >= 0, f"extra.{key} must be >= 0", where)
    if status != "solved":
        for key in ("unique", "count_complete", "other"):
            _require(key not in extra, f"extra.{key} belongs to a solved run, not a {status} one", where)


def check_step(step, number: int, where: str) -> dict:
    place = f"{where} line {number}"
    _require(isinstance(step, dict), "must be a JSON object", place)
    _check_keys(step, STEP_KEYS, STEP_REQUIRED, place)
    _require(step["result"] in RESULTS, f"unknown result {step['result'][:40]!r}", place)
    _require(all(isinstance(a, str) for a in step["assumptions"]), "assumptions must be strings", place)
    _require(all(_is_int(i) for i in step.get("core", [])), "core must hold integers", place)
    if "seconds" in step:
        _require(_is_number(step["seconds"]) and step["seconds"] >= 0, "seconds must be a number >= 0", place)
    if step["result"] == "sat":
        _require("solution" in step and "value" in step, "a sat step must carry its solution and value", place)
    check_claim(step["claim"], place)
    for by in ("cubes", "cases"):  # a step resting on earlier ones lists them under its `by`
        if by in step or step.get("by") == by:
            listed = step.get(by)
            _require(step.get("by") == by and isinstance(listed, list) and step["result"] == "unsat"
                     and (by != "cubes" or "cube" not in step["claim"])  # a cube is not split again
                     and all(_is_int(i) and 0 <= i < step["index"] for i in listed) and len(set(listed)) == len(listed),
                     f"a step by {by} must be unsat and list distinct earlier steps in {by}", place)
    if "tree" in step or step.get("by") == "tree":  # a question shared out: its refuted cubes' tree
        _require(step.get("by") == "tree" and "tree" in step and step["result"] == "unsat"
                 and "cube" not in step["claim"], "a step by tree must be unsat, carry its tree and claim no cube", place)
        problem = malformed_tree(step["tree"])  # its size and depth capped, as all the reader takes
        _require(problem is None, f"malformed: {problem}", place)
    check_text(step, place)
    return step


def check_saved_solution(saved, where: str) -> dict:
    _require(isinstance(saved, dict) and set(saved) == {"value", "solution"} and isinstance(saved["solution"], dict),
             "must be an object {value, solution} with an object as solution", where)
    check_text(saved, where)
    return saved


# ------------------------------------------------------------------------------------------- steps
@dataclass
class StepsRead:
    steps: list[dict]
    last_hash: str
    torn_tail: bool  # the last line was cut off mid-write (a kill), not edited; it is left out


def steps_name(folder: Path) -> str:
    """The ledger's file name: steps.jsonl, or a published run's steps.jsonl.gz (never both)."""
    if (folder / STEPS_GZ).exists() or (folder / STEPS_GZ).is_symlink():
        if (folder / STEPS).exists() or (folder / STEPS).is_symlink():
            raise LedgerError(f"holds both {STEPS} and {STEPS_GZ}; a run has one ledger", str(folder))
        return STEPS_GZ
    return STEPS


def _plain_lines(folder: Path, where: str):
    """(line without its newline, whether the newline was there) of steps.jsonl, capped."""
    handle = open_regular(folder, STEPS, "steps.jsonl")
    if handle is None:
        raise LedgerError("file is missing", where)
    with handle:
        if os.fstat(handle.fileno()).st_size > MAX_STEPS_FILE:
            raise LedgerError(f"larger than {MAX_STEPS_FILE // MiB} MiB; refusing to read it", where)
        total = 0
        for number in range(1, 1 << 62):
            line = handle.readline(MAX_STEP_LINE + 1)
            if not line:
                return
            total += len(line)
            if total > MAX_STEPS_FILE:
                raise LedgerError(f"larger than {MAX_STEPS_FILE // MiB} MiB; refusing to read it", where)
            if not line.endswith(b"\n"):
                if len(line) > MAX_STEP_LINE:
                    raise LedgerError(f"line {number} is longer than {MAX_STEP_LINE // MiB} MiB", where)
                yield line, False
                return
            yield line[:-1], True


def _gz_lines(folder: Path, where: str):
    """The same of steps.jsonl.gz, read as a stream under the same caps on its text."""
    lines = GzLines(folder, STEPS_GZ, MAX_STEPS_FILE, MAX_STEP_LINE, "steps.jsonl.gz")
    if lines.missing:
        raise LedgerError("file is missing", where)
    held = None
    for line in lines:
        if held is not None:
            yield held, True
        held = line
    if held is not None:
        yield held, not lines.unterminated


def read_steps(folder: Path, genesis: str) -> StepsRead:
    """steps.jsonl (or a published run's steps.jsonl.gz), its hash chain checked from `genesis`
    and every line against the schema."""
    name = steps_name(folder)
    where = str(folder / name)
    steps, prev, torn = [], genesis, False
    budget = MAX_JSON_VALUES[STEPS]
    lines = _plain_lines(folder, where) if name == STEPS else _gz_lines(folder, where)
    for number, (line, ended) in enumerate(lines, 1):
        if not ended:
            torn = True  # no newline at the end: the writer died inside this line
            break
        budget -= json_values(line)
        if budget < 0:
            raise LedgerError(f"holds more than {MAX_JSON_VALUES[STEPS]:,} JSON values; refusing to read on "
                              f"(line {number})", where)
        step = check_step(parse_json(line, f"{where} line {number}", MAX_STEP_VALUES), number, where)
        if step["prev"] != prev:
            raise LedgerError(f"line {number}: hash chain broken (step edited, removed or moved)", where)
        if step["index"] != number - 1:
            raise LedgerError(f"line {number}: step index {step['index']} where {number - 1} was due", where)
        steps.append(step)
        prev = hashlib.sha256(line).hexdigest()
    return StepsRead(steps, prev, torn)


SEALED = ("run.json seals {sealed} steps but the file holds {held} or ends differently (steps cut off, appended "
          "or edited)")


def seal_problem(run: dict, read: StepsRead) -> str | None:
    """A run that stopped on its own (any status but `running`, which only a kill leaves behind)
    sealed its step count and last hash in run.json: a cut-off or extended tail shows here."""
    if run["status"] == "running":
        return None
    if run["steps"] != len(read.steps) or run["last_step_sha256"] != read.last_hash:
        return SEALED.format(sealed=run["steps"], held=len(read.steps))
    return None


def chain_end(folder: Path, genesis: str) -> tuple[int, str, bool]:
    """(complete lines, the last one's sha-256, whether a torn line follows) of steps.jsonl: what
    the writer seals, counted from the file as it is on disk, by the writer itself under its lock."""
    handle = open_regular(folder, STEPS, "steps.jsonl")
    if handle is None:
        raise LedgerError("file is missing", str(folder / STEPS))
    count, last, torn = 0, genesis, False
    with handle:
        for line in handle:
            if not line.endswith(b"\n"):
                torn = True
                break
            count, last = count + 1, hashlib.sha256(line[:-1]).hexdigest()
    return count, last, torn


# ------------------------------------------------------------------------------------------ folder
@dataclass
class RunFolder:
    path: Path
    run: dict
    steps: list[dict]
    last_hash: str
    torn_tail: bool
    saved: dict | None = None  # solution.json: {value, solution}
    problems: list[str] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.run["status"] != "running"

    @property
    def steps_where(self) -> str:
        """The ledger's path, as messages name it."""
        return str(self.path / steps_name(self.path))

    @property
    def solution(self) -> dict | None:
        return self.saved["solution"] if self.saved else None

    def gz_digest(self, name: str, max_text: int, what: str):
        return gz_digest(self.path, name, max_text, what)

    def read_gz(self, name: str, max_text: int, what: str) -> bytes | None:
        return read_gz(self.path, name, max_text, what)

    def gz_lines(self, name: str, max_text: int, max_line: int, what: str) -> GzLines:
        return GzLines(self.path, name, max_text, max_line, what)


def read_run_json(folder: Path) -> dict:
    folder = Path(folder)
    if not folder.is_dir():
        raise LedgerError("not a run folder (no run.json)", str(folder))
    data = read_capped(folder, RUN, MAX_RUN_JSON, "run.json", required=False)
    if data is None:
        raise LedgerError("not a run folder (no run.json)", str(folder))
    return check_run(parse_json(data, str(folder / RUN)), str(folder / RUN))


def open_run(folder: Path) -> RunFolder:
    """Read and check a whole run folder (not the compressed formulas: see `gz_digest`).

    A finished run (any status but `running`) must be sealed: run.json's step count and last hash
    name the file's last line, so a cut-off, extended or edited tail shows."""
    folder = Path(folder)
    run = read_run_json(folder)
    read = read_steps(folder, run["instance_sha256"])
    if run["status"] != "running" and (read.torn_tail or seal_problem(run, read)):
        raise LedgerError(SEALED.format(sealed=run["steps"], held=len(read.steps)), str(folder / steps_name(folder)))
    raw = read_capped(folder, SOLUTION, MAX_SOLUTION_JSON, "solution.json", required=False)
    saved = None if raw is None else check_saved_solution(parse_json(raw, str(folder / SOLUTION), MAX_JSON_VALUES[SOLUTION]),
                                                          str(folder / SOLUTION))
    return RunFolder(folder, run, read.steps, read.last_hash, read.torn_tail, saved)


# ------------------------------------------------------------------------- finding runs under a folder
def relative_name(run_dir: Path, folder: Path) -> str:
    """The run's folder as the table names it: below `folder`, or its own name when it is `folder`."""
    relative = os.path.relpath(run_dir, folder)
    return run_dir.absolute().name or str(run_dir) if relative == "." else relative


# Folders a copy is made in before it takes its name (`smtpuzzles unpack`, scripts/publish_run.py):
# never runs of their own, even when a kill leaves one behind.
SCRATCH_PREFIX = ".unpacking-"


def is_scratch(name: str) -> bool:
    return name.startswith(SCRATCH_PREFIX) or (name.startswith(".") and name.endswith(".publishing"))


def run_folders(folder: Path) -> list[Path]:
    """Every folder holding a run.json below `folder` (see `find_runs`)."""
    return find_runs(folder)[0]


def find_runs(folder: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """(every folder holding a run.json below `folder`, in the order they started; the folders
    below it that could not be read, each with why). A loop, not recursion (a tree thousands of
    folders deep is walked like any other), never following a symbolic link out of the tree; an
    unreadable folder is named, so that nothing reads as audited that was never read."""
    runs: list[Path] = []
    unreadable: list[tuple[Path, str]] = []
    stack = [folder]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as listing:
                entries = list(listing)
            below = sorted(Path(e.path) for e in entries
                           if e.name != "run.json" and not is_scratch(e.name) and e.is_dir(follow_symlinks=False))
        except OSError as exc:
            unreadable.append((top, exc.strerror or exc.__class__.__name__))
            continue
        if any(e.name == "run.json" for e in entries):  # whatever it is: the reader judges it
            runs.append(top)
        stack.extend(reversed(below))
    return sorted(runs, key=_by_start), unreadable


def _by_start(run_dir: Path) -> tuple:
    """A batch's jobs together, each folder's runs in the order they started: by name alone the
    hash would order them (and -10 come before -2)."""
    named = run_name(run_dir.name)
    return run_dir.parent, named[1:] if named else (), run_dir.name
