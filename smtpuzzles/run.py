"""One solving run: the only place where a puzzle, the driver, an engine and the ledger meet."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from smtpuzzles.contract import Puzzle, adopt
from smtpuzzles.driver import Outcome, ResumeMismatch, Steering, run_objective
from smtpuzzles.advice import Advice
from smtpuzzles.encoding import Encoding
from smtpuzzles.engines import check_params, ctrl_c_between_steps, ctrl_c_held, make_engine, with_fresh_solver
from smtpuzzles.durations import counted
from smtpuzzles.errors import InputError, LedgerError, PuzzleError
from smtpuzzles.formula import unreadable_name
from smtpuzzles.objectives import RefereeRejected, kind_of
from smtpuzzles.folders.ledger import Ledger
from smtpuzzles.folders.locking import require_locks
from smtpuzzles.folders.statuses import ANSWERED
from smtpuzzles.objectives import claim_terms
from smtpuzzles.folders.runfolder import open_run
from smtpuzzles.canonical import canonical_json, sha256_text
from smtpuzzles.splitting import check_shared, cube_client, split_cubes, split_work
from smtpuzzles.symmetry import require as require_lemma

# Reading a recorded run back (smtpuzzles.auditing.readback) loads the proof checkers with it, 65 ms
# of imports: resume and certify import it when they run, so a solve never does.


def instance_sha(canonical: dict) -> str:
    """An instance's sha-256 as run.json records it (what readback.instance_sha, which the audit
    checks it with, computes)."""
    return sha256_text(canonical_json(canonical))


def todays_encoding(*args):
    """readback.todays_encoding (today's encoder for a recorded run), imported when it is called."""
    from smtpuzzles.auditing.readback import todays_encoding as build

    return build(*args)


@dataclass(frozen=True)
class Settings:
    """How a run is solved, handed to the driver as a value: the engine and its checked
    parameters, the mode and count limit, and this session's time limit per check. The run record
    keeps a copy for the audit and resume; the driver never reads them back from it."""

    engine: str
    params: dict
    mode: str
    limit: int | None
    time_limit: float | None
    cubes: int = 0  # every check split into the puzzle's cubes of this depth (0: not split)
    scheduler: str | None = None  # where cubes run: a Dask scheduler, or here one by one (None)
    split_after: float = 5.0  # seconds a whole check may take before it is split into cubes
    # This session's --budget as a time.monotonic() instant (None: none); like the time limit, the
    # session's own and not recorded: a resumed run gets a budget of its own.
    deadline: float | None = None
    share: int = 0  # workers a check still open after split_after is shared out to (0: not shared)

    def record(self, advice: Advice) -> dict:
        """What run.json keeps of how the run is asked, with the order the advice raises a
        lexicographic position in (its "search"): a resume must ask the same questions in the same
        order. The scheduler, like the time limit's session, is where the work ran, not what was
        asked."""
        return {"engine": {"name": self.engine, "params": dict(self.params)}, "mode": self.mode,
                "limit": self.limit, "time_limit": self.time_limit, "search": advice.order,
                **({"cubes": self.cubes} if self.cubes else {}), **({"share": self.share} if self.share else {})}


def pick_engine(module: Puzzle, encoding, requested: str | None) -> str:
    engine = requested or module.DEFAULT_ENGINE
    if engine not in encoding.engines:
        engine_list = ", ".join(encoding.engines)
        if requested is None:  # nobody asked for it: the puzzle's own declarations disagree
            raise PuzzleError(f"its DEFAULT_ENGINE is {engine}, but its {encoding.name} encoding runs on "
                              f"{engine_list} (Encoding.engines)", f"puzzle {module.NAME}")
        raise InputError(f"the {encoding.name} encoding runs on {engine_list}, not {engine}", "--engine")
    return engine


def check_encoding(module: Puzzle, enc, mode: str) -> None:
    """What only an encoding shows of a puzzle's contract: it is one, its objective answers the mode,
    and every variable name is one the solvers (and so the audit's queries) can read."""
    if not isinstance(enc, Encoding):
        raise PuzzleError(f"its encode gave {type(enc).__name__}, not an Encoding", f"puzzle {module.NAME}")
    kind = kind_of(enc.objective)
    if mode not in kind.MODES:
        raise PuzzleError(f"its MODES has {mode}, which its {enc.name} encoding's {kind.KIND} objective cannot "
                          f"answer ({', '.join(kind.MODES)})", f"puzzle {module.NAME}")
    bad = unreadable_name(enc.formula.decls)
    if bad is not None:
        raise PuzzleError(f"its {enc.name} encoding names a variable {bad[:40]!r}, not an SMT-LIB symbol "
                          "(letters, digits and ~!@$%^&*_-+=<>.?/, not starting with a digit)", f"puzzle {module.NAME}")


def guarded(module: Puzzle, what: str, hook: Callable, on: Callable[[], str] | None = None) -> Callable:
    """A puzzle hook that, crashing on a solver's model (or on what `on()` names), is named in one
    line, not a traceback. An InputError is the hook's own one line, and passes as it is."""
    def call(*args):
        try:
            return hook(*args)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - a plug-in's bug, reported as one
            subject = on() if on else "a solver's model"
            try:
                said = str(exc)[:80]
            except Exception:  # noqa: BLE001 - an exception whose words themselves fail
                said = "its message cannot be shown"
            raise PuzzleError(f"its {what} failed on {subject} ({exc.__class__.__name__}: {said})",
                              f"puzzle {module.NAME}") from None
    return call


def instance_named(module: Puzzle, instance) -> str:
    """An instance in a few words: its canonical sha-256 as a run folder's name shows it, and the
    puzzle's description of it (hooks too, so a crash here leaves the words shorter, never raises)."""
    try:
        words = f"instance {instance_sha(module.canonical(instance))[:10]}"
    except Exception:  # noqa: BLE001 - only words for a message about another hook's crash
        return "its instance"
    try:
        described = module.describe(instance)
    except Exception:  # noqa: BLE001
        described = ""
    return f"{words} ({described[:40]})" if isinstance(described, str) and described else words


def solve(module: Puzzle | ModuleType, instance, input_text: str, *, out_dir: Path, engine: str | None = None,
          encoding: str | None = None, time_limit: float | None = None, mode: str | None = None,
          limit: int | None = None, params: dict | None = None, cubes: int = 0, scheduler: str | None = None,
          split_after: float = 5.0, on_step: Callable[[dict], None] | None = None,
          on_solution: Callable[[dict, Any], None] | None = None, budget: float | None = None,
          share: int | None = None) -> tuple[Outcome, Ledger]:
    deadline = None if budget is None else time.monotonic() + budget  # the encoding counts against it
    module = adopt(module)  # a puzzle module handed over directly (tests, benchmarks) is wrapped here
    mode = mode or module.MODES[0]
    if mode not in module.MODES:
        raise InputError(f"{module.NAME} can be asked to {', '.join(module.MODES)}, not {mode}", "mode")
    require_locks()  # the run folder will need a lock: say so before the encoding, which can take long
    enc = guarded(module, "encode", module.encode, lambda: instance_named(module, instance))(
        instance, encoding or module.ENCODINGS[0])
    check_encoding(module, enc, mode)
    require_lemma(enc)  # before anything is asked under a symmetry-breaking clause
    engine_name = pick_engine(module, enc, engine)
    params = check_params(engine_name, module.engine_params(engine_name, params))
    settings = Settings(engine_name, params, mode, limit, time_limit, cubes, scheduler, split_after, deadline, share or 0)
    cube_list = split_cubes(enc, cubes)  # refused before the ledger is made
    check_shared(enc, settings.share)
    canonical = module.canonical(instance)
    header = {
        "puzzle": module.NAME,
        "instance": canonical,
        "instance_sha256": instance_sha(canonical),
        "encoding": {"name": enc.name, "version": enc.version, **({"lemma": enc.lemma.summary} if enc.lemma else {})},
        "objective": enc.objective.kind,
        **settings.record(enc.advice),
    }
    client = cube_client(settings)  # an unreachable scheduler is refused before the ledger is made
    with ctrl_c_held():  # from its folder's making to its seal, a run ends sealed (see _drive)
        ledger = Ledger.create(Path(out_dir), header, input_text, enc.formula.document())
        try:
            return _drive(module, instance, enc, ledger, [], settings, cube_list, on_step, on_solution, client)
        finally:
            if client is not None:
                client.close()


def resume(run_dir: Path, *, time_limit: float | None = None, scheduler: str | None = None, split_after: float = 5.0,
           cubes: int | None = None, on_step=None, on_solution=None, budget: float | None = None,
           share: int | None = None, fresh_solver: str | None = None) -> tuple[Outcome, Ledger]:
    """Go on with a run from its ledger. `fresh_solver` changes the solver its long checks go on
    in (engine parameter fresh_solver): how a check is asked, not what is claimed."""
    from smtpuzzles.auditing.readback import Referee, check_replayable, recorded_instance

    deadline = None if budget is None else time.monotonic() + budget
    # The whole folder is read and checked first (schema, caps, hash chain, seal, engine
    # parameters): a folder may come from anyone, and its parameters reach a solver.
    try:
        folder = open_run(Path(run_dir))
    except LedgerError as exc:
        raise LedgerError(f"{exc.message}; refusing to resume a tampered or malformed ledger", exc.where) from None
    Ledger.refuse_published(Path(run_dir))
    run = folder.run
    if run["status"] in ANSWERED:
        raise InputError(f"the run is already finished ({run['status']}); nothing to resume", str(run_dir))
    params = with_fresh_solver(run["engine"]["name"], run["engine"].get("params", {}), fresh_solver)
    module, instance = recorded_instance(run, str(Path(run_dir) / "run.json"))
    check_replayable(folder, Referee(module, instance))
    enc = guarded(module, "encode", todays_encoding, lambda: instance_named(module, instance))(
        module, instance, run, str(run_dir), "start a new run")
    # Read once, from the checked record; the time limit belongs to this session, not to the claim:
    # resuming without one lifts it.
    settings = Settings(run["engine"]["name"], params, run.get("mode", module.MODES[0]),
                        run.get("limit"), time_limit, run.get("cubes", 0) if cubes is None else cubes, scheduler, split_after,
                        deadline, run.get("share", 0) if share is None else share)
    # Runs recorded before there was a choice of order carry no "search" and climbed.
    enc = dataclasses.replace(enc, advice=enc.advice.replace(order=run.get("search", "climb")))
    cube_list = split_cubes(enc, settings.cubes)  # before the ledger is touched
    check_shared(enc, settings.share)
    depth = run.get("cubes", 0)
    if cubes is not None and cubes != depth and any("cube" in s["claim"] for s in folder.steps):
        raise InputError(f"the run split its checks at depth {depth}: resume it with --cubes {depth} or without "
                         "--cubes", "--cubes")
    client = cube_client(settings)
    with ctrl_c_held():  # as in solve
        ledger, steps = Ledger.resume(Path(run_dir))
        ledger.run["time_limit"] = time_limit
        # Splitting and sharing are how the checks are asked, not what is claimed: a long run may be
        # handed to a cluster part-way (every split and tree is checked on its own by the audit).
        restore = {"cubes": depth, "share": run.get("share", 0)}
        for key, value in (("cubes", settings.cubes), ("share", settings.share)):
            ledger.run.pop(key, None)
            ledger.run.update({key: value} if value else {})
        try:
            return _drive(module, instance, enc, ledger, steps, settings, cube_list, on_step, on_solution, client,
                          restore=restore)
        finally:
            if client is not None:
                client.close()


def _drive(module, instance, enc, ledger: Ledger, replay: list[dict], settings: "Settings",
           cubes: list[list[str]] | None, on_step, on_solution, client=None,
           restore: dict | None = None) -> tuple[Outcome, Ledger]:
    run = ledger.run

    def engine_factory():
        engine = make_engine(settings.engine, enc.formula, settings.params)
        run["engine"]["version"] = engine.version
        run["engine"]["params"] = engine.params
        ledger.note_run()
        return engine

    # The value of the best refereed solution on disk, for sealing a run that fails part-way.
    best = {"value": ledger.previous[1] if ledger.previous else None}

    def solution_seen(solution, value):
        ledger.save_solution(solution, module.value_json(value))
        best["value"] = module.value_json(value)
        if on_solution:
            on_solution(solution, value)

    enc = dataclasses.replace(enc, decode=guarded(module, "decode", enc.decode))
    steering = Steering(enc, engine_factory, guarded(module, "value", lambda s: module.value(instance, s)),
                        guarded(module, "referee", lambda s: module.referee(instance, s)),
                        ledger.append, replay, settings.time_limit, on_step, solution_seen, cubes,
                        split_after=settings.split_after, deadline=settings.deadline)
    # The base's hash as recorded (a resume's encoding writes that base): enc.formula.sha256 hashes it again.
    split_work(steering, settings, client, {"puzzle": module.NAME, "instance": run["instance"], "encoding": enc.name,
                                            "engine": settings.engine, "params": settings.params,
                                            "base_sha256": run["base"]["sha256"]})
    sealed = False

    def seal(status: str, value) -> None:
        nonlocal sealed
        sealed = True
        ledger.finish(status, value)

    try:
        try:
            with ctrl_c_between_steps():
                answer = enc.notes.get("answer")
                outcome = answered_without_solver(steering, answer) if answer is not None else \
                    run_objective(steering, settings.mode, settings.limit)
                if steering.recorder.replay:  # a recorded step no question of the run asked: the ledger was edited
                    raise ResumeMismatch(f"step {steering.recorder.replay[0]['index']} answers nothing the run asks")
        except KeyboardInterrupt:
            outcome = Outcome("interrupted")
        except ResumeMismatch as exc:
            for key, value in (restore or {}).items():  # what this resume changed in run.json
                run.pop(key, None)
                run.update({key: value} if value else {})
            seal(*(ledger.previous or ("interrupted", None)))  # leave the run as it was found
            raise LedgerError(f"cannot resume: {exc}", str(ledger.dir)) from None
        if outcome.solution is None and (ledger.dir / "solution.json").exists():
            saved = json.loads((ledger.dir / "solution.json").read_text())
            outcome.solution = saved["solution"]
            outcome.value = module.value(instance, outcome.solution)
        if outcome.certificate is not None:
            _save_certificate(outcome.certificate, enc, ledger)
        run["extra"] = outcome.extra
        seal(outcome.status, module.value_json(outcome.value) if outcome.value is not None else None)
    except BaseException:
        # A model the referee rejected, a failed write, any bug: the run stopped without an answer.
        # Sealed as interrupted with the best refereed solution kept, so the folder is never left
        # `running`, its chain is sealed, and resume can continue it; the error itself goes on up.
        if not sealed:
            run.pop("certificate", None)  # nothing was proved in a run that failed
            try:
                seal("interrupted", best["value"])
            except Exception:  # noqa: BLE001 - the first error is the one to report
                pass
        raise
    finally:
        _closed(steering, ledger)
    outcome.encoding = enc
    return outcome, ledger


def _save_certificate(certificate: dict, enc: Encoding, ledger: Ledger) -> None:
    """The closing claim's query, as today's encoder writes it, saved beside the step that refuted it."""
    claim = certificate["claim"]
    certificate["step"] = index = ledger.refuting_step(claim)
    ledger.save_certificate(enc.formula.query(claim_terms(enc.objective, claim)), claim, index)


def _closed(steering: Steering, ledger: Ledger) -> None:
    """A run's end, however it came: a shared check's worker processes end with it, its solver is
    freed here (while a Ctrl-C is held) rather than whenever it is collected, and the lock is
    released (finish already did, normally)."""
    try:
        if steering.sharing is not None:
            steering.sharing.close()
    finally:
        try:
            steering.close_engine()
        finally:
            ledger.close()


def answered_without_solver(steer: Steering, answer: dict) -> Outcome:
    """An answer the encoding found without a solver, recorded as a solver's would be (no solver is
    loaded). `answer` is the encoding's `notes["answer"]`: its `solution`, `value`, the `closing`
    claim that proves it optimal and the `reason` the formula refutes that claim by itself (a search
    linear in the instance whose solution carries a certificate the referee checks).
    The solution is refereed and valued like any model, and its value must be the one stated; the
    step says it came `by` the encoding's search. The closing claim is settled by a bound, with its
    query, which `audit --resolve` has z3 and cvc5 answer; a resumed run replays both steps."""
    recorder = steer.recorder
    first = {"op": "first"}
    step = recorder.replayed(first)
    if step is None:
        solution = answer["solution"]
        problems = recorder.referee(solution)
        if problems:
            raise RefereeRejected("the encoding's answer breaks the rules: " + "; ".join(problems[:3]))
        value = recorder.evaluate(solution)
        if value != answer["value"]:
            raise RefereeRejected(f"the encoding's answer is worth {value}, it says {answer['value']}")
        step = recorder.record({"claim": first, "words": recorder.words(first), "assumptions": recorder.texts(first),
                                "result": "sat", "by": "search", "seconds": 0.0, "stats": {}, "solution": solution,
                                "value": value})
        recorder.on_step(step)
    elif step["value"] != answer["value"]:  # the closing claim is today's best + 1: only true of that best
        raise ResumeMismatch(f"step {step['index']} recorded a solution worth {step['value']!r}; today's search "
                             f"finds {answer['value']!r}")
    solution, value = step["solution"], step["value"]
    steer.on_solution(solution, value)
    recorder.settled(answer["closing"], "bound", reason=answer["reason"])
    return Outcome("optimal", value, solution, certificate={"claim": answer["closing"]})


def certify(run_dir: Path, *, timeout: float | None = None, progress: Callable[[str], None] | None = None,
            encoding=None) -> dict:
    """Store a checked LRAT proof of a finished run's closing claim (`solve --certify`, `certify`).

    The query is rebuilt by today's encoder from the recorded instance, never read from the folder;
    a run whose base formula today's encoder no longer writes is refused. `encoding`, the one this
    process just solved the run with (`Outcome.encoding`), is used instead of building it again
    when it writes the recorded base formula (on 16x16 that saves 7 s and 0.6 GB). The proof is made and
    checked before anything is written (`proof.certify_query`); the audit checks it again, against
    the query it builds itself, with `audit --proof`. Returns the updated run record; a reference
    proof checked here but past the caps of a stored proof (made in parts: 12x12's, 9 million
    lemmas) is not stored, and the record returned (not run.json) says so under
    `reference_checked_here`, its lemma count. A reference proof that fails is a ReferenceProofError:
    the closing claim's proof stays stored."""
    from smtpuzzles.proofs import proof as proofs
    from smtpuzzles.auditing import readback
    from smtpuzzles.auditing.auditproof import claim_split
    from smtpuzzles.auditing.readback import recorded_claim_terms, recorded_instance
    from smtpuzzles.folders.ledger import store_proof
    from smtpuzzles.folders.runfolder import DIMACS, PROOF, REFERENCE_DIMACS, REFERENCE_PROOF

    run_dir = Path(run_dir)
    folder = open_run(run_dir)
    run = folder.run
    where = str(run_dir / "run.json")
    if run["status"] not in ANSWERED or "certificate" not in run:
        raise InputError(f"nothing to certify: a {run['status']} run without a closing UNSAT claim", str(run_dir))
    require_locks()  # storing a proof locks the folder: say so before minutes of proving
    module, instance = recorded_instance(run, where)
    enc = encoding if encoding is not None and readback.writes_recorded(encoding, run) else \
        todays_encoding(module, instance, run, where, "cannot certify")
    if enc.formula.cnf is None:
        raise InputError(f"encoding {enc.name} is arithmetic: it has no clausal proof (audit --resolve re-solves it)",
                         str(run_dir))
    claim = run["certificate"]["claim"]
    claim_query = proofs.dimacs(enc.formula, recorded_claim_terms(enc, claim, where))
    # A proof already stored for this very query and claim is kept (the audit checks it); what is
    # missing is made. So `certify` on a run certified before the reference encodings adds that one.
    # The reference formula is built and proved in a thread while this one proves the claim: the
    # two solver children run at once (on two cores, about a third less wall time on 9x9). The
    # claim's proof is stored as soon as it is checked; a failure or Ctrl-C here stops the other.
    say = _sides(progress)
    reference_proof = proofs.BackgroundProof(
        lambda: _prove_reference(module, instance, claim, run, where, timeout, say("reference")))
    try:
        if not _stored_for(run.get("proof"), claim_query, claim):
            made = proofs.certify_query(claim_query, timeout=timeout, progress=say("claim"),
                                        split=claim_split(folder, enc, claim, claim_query))
            if not made.lrat:
                raise proofs.ProofError(f"the proof ({made.lemmas:,} lemmas) was checked here, but it is past the caps "
                                        "the audit reads a stored proof under", str(run_dir))
            say("claim")(f"checked, {counted(made.lemmas, 'lemma')}", done=True)
            record = {**proof_record(claim_query, made, claim), "file": PROOF, "dimacs": DIMACS}
            files = {DIMACS: proofs.compress(claim_query.data), PROOF: proofs.compress(made.lrat)}
            run = store_proof(run_dir, run["last_step_sha256"], files, record)
    except BaseException:
        reference_proof.stop()
        raise
    reference_made = reference_proof.result()  # a Ctrl-C while it runs stops it; the claim's stays stored
    if isinstance(reference_made, proofs.ProofError):
        if "satisfiable" in reference_made.message:
            raise proofs.ReferenceProofError("the reference encoding, written from the rules alone, has a solution "
                                             "the claim rules out: the encoder's formula is stricter than the rules",
                                             str(run_dir))
        raise proofs.ReferenceProofError(f"on the reference formula: {reference_made.message}", reference_made.where)
    if reference_made is not None:
        query, made, words = reference_made
        if not made.lrat:
            say("reference")(f"checked, {counted(made.lemmas, 'lemma')}, too large to store")
            return {**run, "reference_checked_here": made.lemmas}
        record = {**proof_record(query, made, claim), "file": REFERENCE_PROOF, "dimacs": REFERENCE_DIMACS}
        if words is not None:
            record["symmetry"] = words
        files = {REFERENCE_DIMACS: proofs.compress(query.data), REFERENCE_PROOF: proofs.compress(made.lrat)}
        run = store_proof(run_dir, run["last_step_sha256"], files, record, key="reference_proof")
    return run


def _sides(progress):
    """progress(side) for the claim's proof and the reference's, made at once: the reference's words
    are marked, and when one side says it is done (`done=True`) the other's latest words are said
    again, so that a progress line off a terminal (the latest words) shows the side still at work."""
    if progress is None:
        return lambda side: lambda text, done=False: None
    latest = {}

    def say(side: str):
        def words(text: str, done: bool = False) -> None:
            latest[side] = text = text if side == "claim" else f"reference: {text}"
            progress(text)
            other = "reference" if side == "claim" else "claim"
            if done and other in latest:
                progress(latest[other])
        return words

    return say


def _prove_reference(module, instance, claim: dict, run: dict, where: str, timeout, progress):
    """(query, proof, symmetry words) of the claim on the puzzle's reference formula; None when the
    puzzle has none or its proof is stored already; the ProofError when there is no proof (returned,
    not raised: the claim's proof beside it is still stored). `progress` is one of `_sides`."""
    from smtpuzzles.proofs import proof as proofs
    from smtpuzzles.auditing import readback

    try:
        reference = readback.reference_query(module, instance, claim, where, timeout)
    except proofs.ProofError as exc:  # not built within the time limit
        return exc
    stored = run.get("reference_proof")
    if reference is None or any(_stored_for(stored, reference.query(s), claim) and stored.get("symmetry") == reference.words(s)
                                for s in (False, True) if reference.query(s) is not None):
        return None
    progress("the same claim on the reference encoding, written from the rules alone" + (
        f", with its checked symmetry lemma: {reference.summary}" if reference.broken else ""))
    if reference.refused:
        progress(f"{reference.refused}; proving the reference formula without it")
    symmetric = reference.broken is not None
    query = reference.query(symmetric)
    try:
        made = proofs.certify_query(query, timeout=timeout, progress=progress, split=reference.split)
    except proofs.ProofError as exc:
        return exc
    progress(f"checked, {counted(made.lemmas, 'lemma')}", done=True)
    return query, made, reference.words(symmetric)


def _stored_for(record: dict | None, query, claim: dict) -> bool:
    from smtpuzzles.auditing.readback import same_json

    return record is not None and record["dimacs_sha256"] == query.sha256 and same_json(record["claim"], claim)


def proof_record(query, made, claim: dict) -> dict:
    """What run.json records of a stored proof (the file names are the caller's)."""
    return {"format": "lrat", "sha256": hashlib.sha256(made.lrat).hexdigest(), "dimacs_sha256": query.sha256,
            "claim": claim, "variables": query.variables, "clauses": query.clauses, "lemmas": made.lemmas,
            "bytes": len(made.lrat), "solver": made.solver}
