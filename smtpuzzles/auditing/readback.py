"""A recorded run read back: the puzzle's referee over solutions from a folder, the recorded
instance, today's encoding of it and today's assumptions for a recorded claim, and the puzzle's
reference formula for a claim. The audit, resume, `show` and `certify` all read a run through these;
what they read has passed the one reader of run folders (smtpuzzles.folders.runfolder) first."""

from __future__ import annotations

from dataclasses import dataclass

from smtpuzzles import puzzles
from smtpuzzles.contract import adopt, reference_time_limit
from smtpuzzles.errors import InputError, LedgerError
from smtpuzzles.canonical import canonical_json, sha256_text
from smtpuzzles.objectives import claim_terms, describe
from smtpuzzles.proofs import proof as proofs
from smtpuzzles.symmetry import require as require_lemma
from smtpuzzles.trusted.symmetry import check_formula, lemma_from_json


def instance_sha(canonical: dict) -> str:
    return sha256_text(canonical_json(canonical))


class Referee:
    """The puzzle's referee and value over solutions read from a folder: JSON of any shape, so a
    referee that trips over it is reported as a malformed ledger, never a traceback."""

    def __init__(self, module, instance):
        self.module = adopt(module)
        self.instance = instance

    def judge(self, solution, where: str) -> tuple[list[str], object]:
        """(problems, value): the value only when the solution passes the referee."""
        if not isinstance(solution, dict):
            raise LedgerError("a solution must be a JSON object", where)
        try:
            problems = list(self.module.referee(self.instance, solution))
            return (problems, None) if problems else ([], self.module.value(self.instance, solution))
        except Exception as exc:  # noqa: BLE001 - any crash on folder data is a malformed ledger
            raise LedgerError(f"solution has the wrong shape for a {self.module.NAME} solution "
                              f"({exc.__class__.__name__})", where) from None

    def shown(self, value):
        try:
            return self.module.value_json(value)
        except Exception as exc:  # noqa: BLE001 - a value computed from folder data the puzzle cannot show
            raise LedgerError(f"a value of the wrong shape for a {self.module.NAME} value ({exc.__class__.__name__})",
                              "the run folder") from None

    def same(self, a: dict, b: dict, where: str = "a claim") -> bool:
        try:
            return self.module.same_solution(self.instance, a, b)
        except Exception as exc:  # noqa: BLE001 - a claim's solution of a shape the puzzle does not read
            raise LedgerError(f"a solution has the wrong shape for a {self.module.NAME} solution "
                              f"({exc.__class__.__name__})", where) from None


def same_json(a, b) -> bool:
    """Equal as JSON, types included: 5.0 and true are not the count 5 and 1."""
    return canonical_json(a) == canonical_json(b)


def check_replayable(folder, referee: Referee) -> None:
    """A resume replays recorded models as answers, so each must pass the referee and have the value
    recorded with it (recorded UNSAT answers are replayed on trust, as the README says)."""
    where = folder.steps_where
    for step in folder.steps:
        if step["result"] == "sat":
            problems, worth = referee.judge(step["solution"], f"{where} line {step['index'] + 1}")
            if problems or not same_json(worth, step["value"]):
                raise LedgerError(f"line {step['index'] + 1}: the recorded model " + (
                    f"breaks the rules ({problems[0]})" if problems else "does not have its recorded value")
                    + "; refusing to resume", where)
    if folder.saved is not None:
        problems, worth = referee.judge(folder.solution, str(folder.path / "solution.json"))
        if problems or not same_json(referee.shown(worth), folder.saved["value"]):
            raise LedgerError("the saved solution breaks the rules or its value; refusing to resume",
                              str(folder.path / "solution.json"))


def recorded_instance(run: dict, where: str):
    """(puzzle module, instance) of a run.json the run-folder reader has checked: the puzzle parses
    and validates the recorded instance as it would any input, and the instance must hash to the
    recorded sha-256 and name an encoding the puzzle has."""
    try:
        module = puzzles.get(run["puzzle"])
        instance = module.from_canonical(run["instance"])
    except InputError as exc:
        raise LedgerError(f"recorded instance is invalid: {exc}", where) from None
    except Exception as exc:  # noqa: BLE001 - folder data of a shape the puzzle does not read
        raise LedgerError(f"recorded instance is invalid ({exc.__class__.__name__})", where) from None
    if instance_sha(module.canonical(instance)) != run["instance_sha256"]:
        raise LedgerError("instance does not match its recorded sha-256", where)
    if run["encoding"]["name"] not in module.ENCODINGS:
        raise LedgerError(f"unknown {module.NAME} encoding {run['encoding']['name'][:40]!r}", where)
    return module, instance


def todays_encoding(module, instance, run: dict, where: str, otherwise: str):
    """The recorded run's encoding as today's encoder builds it, refused (LedgerError) when it no
    longer writes the recorded base formula: the run's steps speak of that formula only."""
    enc = module.encode(instance, run["encoding"]["name"])
    if not writes_recorded(enc, run):
        raise LedgerError(f"today's encoder writes a different base formula (encoding drift); {otherwise}", where)
    require_lemma(enc)
    return enc


def writes_recorded(enc, run: dict) -> bool:
    """Whether an encoding is the recorded one: its name, version, base formula and lemma."""
    return enc.name == run["encoding"]["name"] and enc.version == run["encoding"]["version"] \
        and enc.formula.sha256 == run["base"]["sha256"] \
        and run["encoding"].get("lemma") == (enc.lemma.summary if enc.lemma else None)


def recorded_claim_terms(enc, claim: dict, where: str) -> list:
    """Today's assumptions for a claim read from a folder (shape-checked by the reader; its values
    may still be out of range, which the encoder's lookups reject: a malformed ledger, LedgerError)."""
    unknown = [name for name in claim.get("cube", ()) if enc.formula.decls.get(name) != "Bool"]
    if unknown:
        raise LedgerError(f"claim's cube names {unknown[0][:40]!r}, no Boolean of this instance's formula", where)
    try:
        return claim_terms(enc.objective, claim)
    except Exception as exc:  # noqa: BLE001 - an out-of-range claim is a malformed ledger
        raise LedgerError(f"claim {describe(claim)[:60]!r} cannot be built for this instance ({exc.__class__.__name__})",
                          where) from None


@dataclass(frozen=True)
class ReferenceQuery:
    """What a reference proof refutes: the reference formula F alone, or F and the breaking clause
    of a symmetry lemma the puzzle proposed and `smtpuzzles.trusted.symmetry.check_formula` verified here."""

    plain: object  # proofs.Dimacs of F
    broken: object | None  # proofs.Dimacs of F & C, None without a lemma that holds
    summary: str | None  # its breaking clause in the puzzle's words
    refused: str | None  # why a proposed lemma does not hold (a bug in the puzzle's proposal)
    split: int | None = None  # the puzzle's advice: refute F & C one literal of this clause of it at a time

    def query(self, symmetric: bool):
        return self.broken if symmetric else self.plain

    def words(self, symmetric: bool) -> str | None:
        """What run.json records as `symmetry` beside a proof of `query(symmetric)` (nothing for F)."""
        return self.summary if symmetric else None


def reference_query(module, instance, claim: dict, where: str, timeout: float | None = None) -> ReferenceQuery | None:
    """The puzzle's reference formula for `claim`, with its symmetry lemma checked, or None where it
    has none. A reference that is not DIMACS is a bug in the puzzle, reported as one line. Built
    within `timeout` seconds where the puzzle's hook watches the time: past them, a ProofError (no
    proof, the time limit ran out), as a proof past its time limit is."""
    module = adopt(module)
    if module.reference is None:
        return None
    try:
        with reference_time_limit(timeout):
            text = module.reference(instance, claim)
            proposal = module.reference_symmetry(instance, claim) if module.reference_symmetry and text else None
    except Exception as exc:  # noqa: BLE001 - a puzzle's hook on folder data: one finding, never a traceback
        if isinstance(exc, TimeoutError) and timeout is not None:
            raise proofs.ProofError(f"the {module.NAME} reference formula was not built within the time limit "
                                    f"({timeout:g} s)", where) from None
        raise LedgerError(f"the {module.NAME} reference encoding failed on this claim ({exc.__class__.__name__})",
                          where) from None
    if text is None:
        return None
    nvars, clauses = proofs.read_dimacs(text, f"{module.NAME} reference encoding")
    if proposal is None:  # F is the query: its clauses are kept for the proof (not parsed again)
        return ReferenceQuery(proofs.Dimacs(text, nvars, len(clauses), tuple(clauses)), None, None, None)
    plain = proofs.Dimacs(text, nvars, len(clauses))  # only if the lemma fails: F & C keeps the clauses
    lemma = lemma_from_json(proposal, nvars)
    problems = [lemma] if isinstance(lemma, str) else check_formula(nvars, clauses, lemma)[0]
    if problems:
        return ReferenceQuery(plain, None, None, f"the {module.NAME} reference symmetry lemma fails: {problems[0]}")
    broken = proofs.dimacs_of(nvars, [*clauses, list(lemma.breaking)])  # F written out again (comments dropped), then C
    return ReferenceQuery(plain, broken, lemma.summary, None, _split_at(proposal.get("parts"), clauses))


def _split_at(parts, clauses) -> int | None:
    """The number in F & C of the clause the proposal advises splitting on: `true` for C, a list of
    literals for that clause of F (the first such), None otherwise. Only advice: a split on any clause
    is sound, and the joined proof is checked whole."""
    if parts is True:
        return len(clauses) + 1
    if isinstance(parts, list) and parts and all(isinstance(x, int) and not isinstance(x, bool) for x in parts):
        wanted = sorted(set(parts))
        return next((i for i, c in enumerate(clauses, 1) if len(c) == len(parts) and sorted(set(c)) == wanted), None)
    return None
