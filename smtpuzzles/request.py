"""What a user asks of a puzzle, decided once for the command line, job files and the Python API:
a `SolveRequest` (the input, which mode, the count's limit, the engine, encoding, time limits,
cubes or sharing, certify, the out folder) made by `solve_request`, and what an audit is asked. The three
front ends hand the user's words here and word only the place of an error, so they cannot disagree
on what a value or a combination means: "exactly one input" and every combination check are here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from smtpuzzles.errors import InputError
from smtpuzzles.inputs import (one_of, positive_seconds, read_text_file, read_text_string, seconds_or_zero,
                               true_or_false, whole_number)

PROOF_KINDS = ("certificate", "all")  # audit --proof and --resolve: the closing claim, or every step too
AUDIT_SOLVERS = ("z3", "cvc5")  # the re-solvers (smtpuzzles.smtlib.SOLVERS)


def asked_count(count) -> bool:
    """`count` asks for a count: True (every solution) or a whole number (0: every solution too)."""
    return count is not None and count is not False


def mode_and_limit(module, unique: bool, count, place: Callable[[str], str]) -> tuple[str, int | None]:
    """(mode, count limit) for `unique` and `count` as given: count True or 0 counts every solution,
    a positive whole number stops there. `place("unique")` / `place("count")` names where each was
    given, for the one-line error."""
    true_or_false(unique, place("unique"))
    counting = asked_count(count)
    if unique and counting:
        raise InputError("ask for unique or count, not both", place("count"))
    if counting and not isinstance(count, bool) and (not isinstance(count, int) or count < 0):
        raise InputError(f"count must be true, false or a whole number (0: every solution), not {count!r}",
                         place("count"))
    mode = "unique" if unique else "count" if counting else module.MODES[0]
    if mode not in module.MODES:
        raise InputError(f"{module.NAME} has no {mode} mode", place(mode))
    limit = count if counting and not isinstance(count, bool) and count > 0 else None
    return mode, limit


def check_split(module, encoding: str | None, cubes: int, where: str) -> None:
    """`cubes` splits checks only on an encoding whose puzzle proposes cubes for it."""
    encoding = encoding or module.ENCODINGS[0]
    if cubes and encoding not in module.SPLITS:
        raise InputError(f"the {encoding} encoding of {module.NAME} cannot split its checks into cubes", where)


def time_limit(value, where: str) -> float | None:
    """None (no limit) or a time limit in seconds (smtpuzzles.inputs.positive_seconds)."""
    return None if value is None else positive_seconds(value, where, text=False)


def engine(value, where: str) -> str | None:
    """None (the puzzle's measured best) or an engine's name."""
    from smtpuzzles.engines import ENGINES

    return None if value is None else one_of(value, ENGINES, where, "engine")


def encoding(module, value, where: str) -> str | None:
    """None (the puzzle's first) or one of the puzzle's encodings."""
    return None if value is None else one_of(value, module.ENCODINGS, where, "encoding")


def out_folder(value, where: str):
    """A folder for run folders, as text or a path, that exists or can be made."""
    from smtpuzzles.inputs import check_writable_folder

    if not isinstance(value, (str, Path)) or not str(value):
        raise InputError(f"names no folder ({type(value).__name__})", where)
    return check_writable_folder(str(value), where)


INPUT_KINDS = ("file", "stdin", "text", "url", "inline", "glob", "none")


@dataclass(frozen=True)
class Input:
    """Where a solve's input comes from. `kind`: "file" (`value` a path), "stdin", "text" (the input
    itself), "url", "inline" (a key holding the input, as text), "glob" (a job file's `input`: each
    file it matches its own job) or "none"; `source` the place the puzzle's `load` names in its
    errors; `key` the word that gave it ("input", or a puzzle's file option or inline key)."""

    kind: str
    value: str | None = None
    source: str = "input"
    key: str = "input"

    def read(self) -> str | None:
        """The input's text, read with the byte cap (smtpuzzles.inputs); None for no input."""
        if self.kind == "file":
            return read_text_file(self.value)
        if self.kind == "stdin":
            return read_text_file("-")
        if self.kind in ("text", "inline", "url"):
            return read_text_string(self.value.strip() if self.kind == "url" else self.value, self.source)
        if self.kind == "none":
            return None
        raise ValueError(f"a {self.kind} input names several files: read each")


@dataclass(frozen=True)
class SolveRequest:
    """One solve as asked, every value checked (`solve_request`): the same request whatever the front
    end. `options` are the puzzle's options as `load` takes them; `params` the engine parameters the
    user gave (a job's `params`), `no_guide` the one `--no-guide` sets; `out` the folder the run
    folder goes under (None: the API's temporary folder)."""

    puzzle: str
    input: Input
    options: dict
    mode: str
    limit: int | None
    engine: str | None = None
    encoding: str | None = None
    time_limit: float | None = None
    budget: float | None = None
    cubes: int = 0
    split_after: float = 5.0
    certify: bool = False
    no_guide: bool = False
    params: dict = field(default_factory=dict)
    out: Path | None = None
    share: int | None = None  # workers a check still open after split_after is shared out to (None: not shared)

    def engine_params(self) -> dict | None:
        """The parameters the run is handed: the user's, `guide` off with --no-guide; None for none."""
        params = {**self.params, **({"guide": False} if self.no_guide else {})}
        return params or None


# How a front end names its input: (key, value, kind "inline" or "file") -> Input. The command line
# reads a path, `-` or a URL; the API a path, the text itself or a URL; a job file a glob beside it.
InputReader = Callable[[str | None, Any, str], Input]


def solve_request(module, words: Mapping[str, Any], place: Callable[[str], str], read_input: InputReader,
                  other_input: str = "text") -> SolveRequest:
    """The one request `words` ask of `module`, each word checked, or one InputError naming the
    place: `place(key)` names where `key` was given (a flag, a job's key, an API argument); the
    messages name the keys alike in every front end. `other_input` is what the front end's input
    takes besides a file, for the refusal of a URL ("stdin" on the command line). Keys: `input`, the
    puzzle's options and inline keys, `unique`, `count`, `engine`, `encoding`, `time_limit`,
    `budget`, `cubes`, `share`, `split_after`, `certify`, `no_guide`, `params`, `out`; a key left out, or None,
    takes its default. The front end checks beforehand that it knows every key it was given."""
    given = {key: value for key, value in words.items() if value is not None}
    limits = {key: time_limit(given.get(key), place(key)) for key in ("time_limit", "budget")}
    chosen_engine = engine(given.get("engine"), place("engine"))
    chosen_encoding = encoding(module, given.get("encoding"), place("encoding"))
    flags = {key: true_or_false(given.get(key, False), place(key)) for key in ("certify", "no_guide")}
    cubes, split_after = _cubes(given.get("cubes", 0), given.get("split_after", 5.0), place)
    share = workers_shared(given.get("share"), cubes, place)
    source = _one_input(module, given, place, read_input, other_input)
    options = {option.name: option.check(given[option.name], place(option.name)) if option.name in given
               else option.default for option in module.OPTIONS if not option.input_file}
    mode, limit = mode_and_limit(module, given.get("unique", False), given.get("count"), place)
    check_split(module, chosen_encoding, cubes, place("cubes"))
    params = given.get("params", {})
    if params:
        from smtpuzzles.engines import check_params

        check_params(chosen_engine or module.DEFAULT_ENGINE, params, place("params"))
    out = out_folder(given["out"], place("out")) if "out" in given else None
    return SolveRequest(module.NAME, source, options, mode, limit, chosen_engine, chosen_encoding, limits["time_limit"],
                        limits["budget"], cubes, split_after, flags["certify"], flags["no_guide"], dict(params), out,
                        share)


def _cubes(cubes, split_after, place: Callable[[str], str]) -> tuple[int, float]:
    """(cubes, split_after): no cubes (0) or a depth of smtpuzzles.cubes.DEPTHS; 0 or a number of seconds."""
    from smtpuzzles.cubes import DEPTHS

    if type(cubes) is not int or cubes not in (0, *DEPTHS):  # 1.0 equals 1 but is no depth
        raise InputError(f"cubes must be a depth of {' or '.join(map(str, DEPTHS))}, not {cubes}", place("cubes"))
    return cubes, seconds_or_zero(split_after, place("split_after"))


MAX_SHARE = 1024  # workers a check may be shared out to; local workers are all started at once


def workers_shared(share, cubes: int, place: Callable[[str], str]) -> int | None:
    """None (as the run says: a new run shares nothing) or the number of workers a hard check is
    shared out to (smtpuzzles.sharing): a whole number; 0 shares nothing, which a resume of a shared
    run asks to solve its checks here instead. A check is shared or split into the puzzle's cubes,
    not both."""
    if share is None:
        return None
    workers = whole_number(share, 0, place("share"), text=False)
    if workers > MAX_SHARE:
        raise InputError(f"{workers} workers is more than the {MAX_SHARE} a check may be shared out to", place("share"))
    if cubes and workers:
        raise InputError("share a hard check or split it into cubes, not both", place("share"))
    return workers


def _one_input(module, given: dict, place: Callable[[str], str], read_input: InputReader, other_input: str) -> Input:
    """The one input among `input`, the puzzle's file options and its inline keys (none: Input "none",
    which the puzzle's `load` refuses where it needs one); a URL only where the puzzle reads one."""
    inline = {key.name: key for key in module.INLINE}
    named = [key for key in ("input", *(o.name for o in module.input_options()), *inline) if key in given]
    if len(named) > 1:
        raise InputError(f"give one input, not {' and '.join(named)}", place(named[1]))
    if not named:
        return read_input(None, None, "none")
    key = named[0]
    if key in inline:
        return read_input(key, inline[key].text(given[key]), "inline")
    chosen = read_input(key, given[key], "file")
    if chosen.kind == "url" and not module.ACCEPTS_URLS:
        raise InputError(f"{module.NAME} reads a file or {other_input}, not a URL", place(key))
    return chosen


@dataclass(frozen=True)
class AuditAsked:
    """An audit's settings, checked: `proof` and `resolve` None or one of PROOF_KINDS."""

    proof: str | None
    resolve: str | None
    solvers: tuple[str, ...]
    time_limit: float | None
    jobs: int
    parts_dir: Path | None
    checkers: tuple = ()  # outside LRAT checkers (smtpuzzles.proofs.external), with a proof only
    journal: object = None  # a journal of checked parts (smtpuzzles.proofs.stages.Journal), with a proof only


def audit_asked(proof, resolve, solvers, time_limit_, jobs, keep_parts, place: Callable[[str], str],
                checker=None, checked_parts=None) -> AuditAsked:
    """What an audit is asked, each value checked as the command line checks it: `proof` and
    `resolve` False/None (not asked), True (the closing claim) or one of PROOF_KINDS; `solvers` a
    list of AUDIT_SOLVERS (None: both); `keep_parts` a folder, with a proof only; `checker` an LRAT
    checker program, or "none", with a proof only (None: cake_lpr when a proof is asked and it is on
    PATH); `checked_parts` the file of a journal of checked parts, with a proof only (read here:
    a journal that cannot be read is one line). `place(key)` names where each was given (the flag,
    or the API's keyword)."""
    from smtpuzzles.proofs.external import find_checker
    from smtpuzzles.inputs import parts_folder

    kinds = {}
    for key, value in (("proof", proof), ("resolve", resolve)):
        kinds[key] = None if value is None or value is False else "certificate" if value is True \
            else one_of(value, PROOF_KINDS, place(key))
    if solvers is None:
        chosen = AUDIT_SOLVERS
    elif isinstance(solvers, (list, tuple)) and solvers:
        chosen = tuple(dict.fromkeys(one_of(name, AUDIT_SOLVERS, place("solvers")) for name in solvers))
    else:  # a bare "z3" would be read as the solvers 'z', '3'
        raise InputError(f"a list of solvers from {', '.join(AUDIT_SOLVERS)}, not {type(solvers).__name__} "
                         f"{str(solvers)[:40]!r}", place("solvers"))
    parts_dir = None
    if keep_parts is not None:
        if kinds["proof"] is None:
            raise InputError(f"keeps the parts of proofs {place('proof')} makes: add {place('proof')}",
                             place("keep_parts"))
        if not isinstance(keep_parts, (str, Path)):
            raise InputError(f"names no folder ({type(keep_parts).__name__})", place("keep_parts"))
        parts_dir = parts_folder(str(keep_parts), place("keep_parts"))
    if checker is not None and kinds["proof"] is None:
        raise InputError(f"checks the proofs {place('proof')} checks or makes: add {place('proof')}", place("checker"))
    found = find_checker(checker, place("checker")) if kinds["proof"] is not None else None
    journal = None
    if checked_parts is not None:
        from smtpuzzles.proofs.stages import Journal

        if kinds["proof"] is None:
            raise InputError(f"records the parts of proofs {place('proof')} makes: add {place('proof')}",
                             place("checked_parts"))
        if not isinstance(checked_parts, (str, Path)) or not str(checked_parts) or "\0" in str(checked_parts):
            raise InputError(f"names no file ({type(checked_parts).__name__})", place("checked_parts"))
        journal = Journal(checked_parts, place("checked_parts"))
    return AuditAsked(kinds["proof"], kinds["resolve"], chosen, time_limit(time_limit_, place("time_limit")),
                      whole_number(jobs, 1, place("jobs"), text=False), parts_dir, (found,) if found else (), journal)
