"""What a user asks of a puzzle, decided once for the command line, job files and the Python API:
which mode (the puzzle's first, `unique` or `count`), the count's limit, whether the encoding may
split its checks into cubes, the engine, encoding and time limit, and what an audit is asked. The
three front ends hand the user's words here and word only the place of an error, so they cannot
disagree on what a value or a combination means."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from smtpuzzles.errors import InputError
from smtpuzzles.inputs import one_of, positive_seconds, true_or_false, whole_number

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


def audit_asked(proof, resolve, solvers, time_limit_, jobs, keep_parts, place: Callable[[str], str],
                checker=None) -> AuditAsked:
    """What an audit is asked, each value checked as the command line checks it: `proof` and
    `resolve` False/None (not asked), True (the closing claim) or one of PROOF_KINDS; `solvers` a
    list of AUDIT_SOLVERS (None: both); `keep_parts` a folder, with a proof only; `checker` an LRAT
    checker program, or "none", with a proof only (None: cake_lpr when a proof is asked and it is on
    PATH). `place(key)` names where each was given (the flag, or the API's keyword)."""
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
    return AuditAsked(kinds["proof"], kinds["resolve"], chosen, time_limit(time_limit_, place("time_limit")),
                      whole_number(jobs, 1, place("jobs"), text=False), parts_dir, (found,) if found else ())
