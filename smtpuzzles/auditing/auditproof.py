"""The audit's proof sections: the claim a run must have refuted, proved on the query the audit
builds from today's encoder and on the puzzle's reference formula (written from the rules alone),
from the folder's stored LRAT proof or one made here, and every recorded UNSAT step with
`--proof all`. A proof is checked here against the query built here, never against the folder's
copy, so the evidence needs no solver's word.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from smtpuzzles.auditing import readback, witness
from smtpuzzles.auditing.derivations import tree_split
from smtpuzzles.auditing.readback import Referee, recorded_claim_terms, same_json
from smtpuzzles.auditing.resolving import refuting_step
from smtpuzzles.canonical import canonical_json
from smtpuzzles.errors import LedgerError
from smtpuzzles.folders.runfolder import DIMACS, PROOF, REFERENCE_DIMACS, REFERENCE_PROOF, RUN
from smtpuzzles.objectives import claim_terms, describe
from smtpuzzles.proofs import external, proof as proofs
from smtpuzzles.shown import escaped
from smtpuzzles.trusted.dimacs import ProofError, Satisfiable
from smtpuzzles.trusted.lrat import LIMITS as LRAT_LIMITS

STRICTER = ("the reference encoding, written from the rules alone, has a solution the claim rules out: the "
            "encoder's formula is stricter than the rules")
FALSE_BY_RULES = ("the claim is false: the reference encoding, written from the rules alone, has a solution the "
                  "claim rules out")
FALSE_BY_ENCODER = "the claim is false: the query built here from today's encoder has a solution"

# What became of one proof, as a value (never read from a message, whose words may hold a folder's name).
PROVED, SATISFIABLE, UNDECIDED, FAILED = "proved", "satisfiable", "undecided", "failed"


@dataclass(frozen=True)
class ProofKind:
    """Which of a run's two clausal proofs: of the encoder's query, or of the reference formula."""

    key: str  # run.json's record of it
    section: str  # the report's
    dimacs: str
    proof: str
    label: str  # in messages: "proof" or "reference proof"
    of: str  # what was refuted, in words
    query: str  # the progress display's name for it


MAIN_PROOF = ProofKind("proof", "proof", DIMACS, PROOF, "proof", "the query built here", "certificate")
REFERENCE = ProofKind("reference_proof", "reference", REFERENCE_DIMACS, REFERENCE_PROOF, "reference proof",
                      "the reference formula built here from the rules alone", "reference")


def prove(report, folder, enc, claim: dict | None, timeout, progress, parts_dir=None, checkers=(), journal=None) -> str | None:
    """A clausal proof of the derived refutation: the folder's stored LRAT proof, checked against
    the query built here, or, with none stored, one made here by a proof-logging solver and checked
    here; with `checkers` (smtpuzzles.proofs.external), by those programs as well. Either way the
    evidence rests on the CNF builder and a checker, not on any solver's answer. Returns what
    became of it (PROVED, SATISFIABLE, ...), None when there was nothing to prove."""
    if claim is None:
        report.add("proof", True, "nothing to prove: the run claims no optimum, infeasibility or uniqueness")
        return None
    if enc.formula.cnf is None:
        report.add("proof", None, f"encoding {enc.name} is arithmetic: no clausal proof (use --resolve)")
        return None
    query = proofs.dimacs(enc.formula, claim_terms(enc.objective, claim))
    outcome = _prove_query(report, folder, MAIN_PROOF, query, claim, timeout, progress,
                           claim_split(folder, enc, claim, query), parts_dir, checkers, journal)
    if outcome == PROVED:
        report.rests_on.append(f"encoding {enc.name} v{enc.version}, this tool's encoder" + (
            ", with its checked symmetry lemma" if enc.lemma is not None else ""))
    return outcome


def claim_split(folder, enc, claim: dict, query):
    """How the claim's query is proved in parts, for the audit and `certify` alike: a claim a shared
    question refuted cube by cube a part a cube; else as the encoding advises (a closing query no
    solver answers whole, 14x14's, a case a part, each in seconds); None: whole."""
    return tree_split(folder, enc, refuting_step(folder, claim), query) or \
        enc.advice.proof_parts(lambda: proofs.claim_cases(query))


def prove_both(report, folder, enc, referee: Referee, claim: dict | None, timeout, progress, beside: bool,
               parts_dir=None, checkers=(), journal=None) -> None:
    """`prove` then `prove_reference`; with `beside`, the reference proof is made in a thread while
    the encoder's is made here, so their solver children run on two cores at once (the 15x15
    record's two proofs take the longer one's time, not the sum). Its findings are added after the
    encoder's, in the order a sequential audit gives them; a Ctrl-C or an error here stops it.
    Only when both are made here: checking a stored one takes seconds, and a folder's broken proof
    stops the audit with one line before anything else is said (exit 2).

    A reference formula with a solution the claim rules out makes the claim false by the rules; it
    is blamed on the encoder being stricter than the rules only when the encoder's query was refuted."""
    if not beside or MAIN_PROOF.key in folder.run or REFERENCE.key in folder.run:
        main = prove(report, folder, enc, claim, timeout, progress, parts_dir, checkers, journal)
        reference = prove_reference(report, folder, referee, claim, timeout, progress, parts_dir, checkers,
                                    journal)
    else:
        beside_report = type(report)(report.run_dir)  # the thread's own findings: nothing shared while it runs
        work = proofs.BackgroundProof(lambda: prove_reference(beside_report, folder, referee, claim, timeout, progress,
                                                       parts_dir, checkers, journal))
        try:
            main = prove(report, folder, enc, claim, timeout, progress, parts_dir, checkers, journal)
        except BaseException:
            work.stop()
            raise
        reference = work.result()
        report.findings += beside_report.findings
        report.rests_on += beside_report.rests_on
        report.evidence += beside_report.evidence
    if reference == SATISFIABLE:
        report.add(REFERENCE.section, False, STRICTER if main == PROVED else FALSE_BY_RULES)


def _proved(report, section: str) -> bool:
    last = [f for f in report.findings if f.section == section]
    return bool(last) and last[-1].ok is True


def prove_reference(report, folder, referee: Referee, claim: dict | None, timeout, progress, parts_dir=None,
                    checkers=(), journal=None) -> str | None:
    """The same refutation on the puzzle's reference encoding, written from the rules alone and
    sharing no code with the encoder: an encoder stricter than the rules (a clause too many) makes a
    claim its own proof cannot catch, and this one does. It counts only once the reference formula
    is shown to admit the run's own solutions (smtpuzzles.auditing.witness): a reference stricter
    than the rules, or one with no model at all, would otherwise back any claim. A SATISFIABLE
    outcome is left to `prove_both` to word, which knows what became of the encoder's query."""
    if claim is None:
        return None
    module = referee.module
    try:
        reference = readback.reference_query(module, referee.instance, claim, str(folder.path / RUN), timeout)
    except ProofError as exc:  # not built within the time limit: undecided, as a proof past it is
        return _no_proof(report, REFERENCE, exc)
    if reference is None:
        report.add("reference", True, f"{module.NAME} has no reference encoding for this claim: the claim rests on "
                                      "this tool's encoder" + (" and the solver-free certificate" if module.certificate else ""))
        return None
    record = folder.run.get(REFERENCE.key)
    symmetric = bool(record.get("symmetry")) if record is not None else reference.broken is not None
    if symmetric and reference.broken is None:
        report.add("reference", False, f"the stored reference proof is of the formula with a breaking clause, and "
                                       f"{reference.refused or 'the puzzle proposes no symmetry lemma'}")
        return FAILED
    if symmetric and record is not None and record["symmetry"] != reference.words(symmetric):
        report.add("reference", False, "the stored reference proof does not record the symmetry lemma checked here "
                                       "(its words in run.json differ)")
        return FAILED
    fits, words = witness.check(module, referee.instance, claim, folder.solution, timeout)
    report.add("reference", fits, words)
    if fits is not True:
        return FAILED if fits is False else UNDECIDED
    kind = replace(REFERENCE, of=f"{REFERENCE.of} and the breaking clause of its symmetry lemma, checked here") \
        if symmetric else REFERENCE
    outcome = _prove_query(report, folder, kind, reference.query(symmetric), claim, timeout, progress,
                           reference.split if symmetric else None, parts_dir, checkers, journal)
    if outcome == PROVED:
        report.rests_on.append(f"the {module.NAME} reference encoding, from the rules alone")
        report.evidence.append(words)  # that it admits the run's own solutions
        if symmetric:
            report.rests_on.append(f"its symmetry lemma, checked here by smtpuzzles.symmetry ({reference.summary})")
        if reference.refused:
            report.evidence.append(f"{reference.refused}: the reference formula was proved without it")
    return outcome


def _prove_query(report, folder, kind: ProofKind, query, claim: dict, timeout, progress, split=None,
                 parts_dir=None, checkers=(), journal=None) -> str:
    if kind.key in folder.run:
        return _check_stored_proof(report, folder, kind, query, claim, timeout, progress, checkers)
    if kind.key == REFERENCE.key or split or checkers:  # an outside checker reads LRAT only
        return _make_lrat_proof(report, kind, query, timeout, progress, split, parts_dir, checkers, journal)
    tell = progress or (lambda event: None)
    tell({"query": kind.query, "solver": f"{proofs.DEFAULT_SOLVER} proof", "verb": "proving", "state": "started",
          "at": time.monotonic()})
    try:
        made = proofs.prove(query, timeout=timeout)
    except proofs.ProofError as exc:
        tell({"query": kind.query, "solver": f"{proofs.DEFAULT_SOLVER} proof", "state": "done", "answer": "no proof",
              "seconds": 0.0, "why": exc.message})
        return _no_proof(report, kind, exc)
    started = time.perf_counter()
    ok, message = proofs.check(query, made)
    checked = time.perf_counter() - started
    tell({"query": kind.query, "solver": f"{proofs.DEFAULT_SOLVER} proof", "state": "done",
          "answer": "checked" if ok else "rejected", "seconds": made.seconds + checked})
    of = "" if kind.key == MAIN_PROOF.key else " on the reference formula"
    words = (f"DRUP proof of the refutation{of} ({query.variables:,} variables, {len(made.text) / 1e6:.1f} MB) "
             f"made by {made.solver} in {made.seconds:.1f} s, checked by smtpuzzles.proofs.drup in {checked:.1f} s")
    return _proof_verdict(report, kind, ok, words, f"the {kind.label} was rejected: {message}")


def _no_proof(report, kind: ProofKind, exc) -> str:
    """The finding for a proof that could not be made: a model found (the claim is false; the
    reference's is worded by `prove_both`), or none made in time or within the caps (undecided)."""
    if isinstance(exc, Satisfiable):
        if kind.key == MAIN_PROOF.key:
            report.add(kind.section, False, f"{FALSE_BY_ENCODER} ({exc.message})")
        return SATISFIABLE
    report.add(kind.section, None, f"no {kind.label}: {exc.message}")
    return UNDECIDED


def prove_steps(report, folder, enc, claim: dict | None, timeout, progress, checkers=()) -> None:
    """`--proof all`: every recorded UNSAT step's claim, rebuilt by today's encoder, refuted with a
    proof-logging solver and its proof checked here, and by `checkers` when given (the
    certificate's claim is done above)."""
    tell = progress or (lambda event: None)
    where = folder.steps_where
    done = {canonical_json(claim)} if claim is not None else set()
    proved = by_cubes = 0
    for step in folder.steps:
        key = canonical_json(step["claim"])
        if step["result"] != "unsat" or key in done:
            continue
        done.add(key)
        label = f"step {step['index']}"
        query = proofs.dimacs(enc.formula, recorded_claim_terms(enc, step["claim"], f"{where} line {step['index'] + 1}"))
        tell({"query": label, "solver": f"{proofs.DEFAULT_SOLVER} proof", "verb": "proving", "state": "started",
              "at": time.monotonic()})
        started = time.perf_counter()
        split = tree_split(folder, enc, step, query)
        try:
            if not checkers and split is None:
                ok, message = proofs.check(query, proofs.prove(query, timeout=timeout))
            else:
                kept, observe = external.tallies(checkers, timeout, label, describe(step["claim"]))
                proofs.certify_query(query, timeout=timeout, split=split, keep=False, observe=observe)
                verdicts = [tally.verdict(getattr(split, "words", "")) for tally in kept if tally.checker.counts] \
                    or [(True, "")]
                ok, message = next((v for v in verdicts if v[0] is not True), verdicts[0])
        except proofs.ProofError as exc:
            ok, message = (False if isinstance(exc, Satisfiable) else None), exc.message
        tell({"query": label, "solver": f"{proofs.DEFAULT_SOLVER} proof", "state": "done",
              "answer": "checked" if ok else "no proof", "seconds": time.perf_counter() - started})
        if ok:
            proved += 1
            by_cubes += split is not None
        else:
            report.add("proof", ok, f"{label} ({describe(step['claim'])[:50]}): no checked proof: {message}")
    if proved:
        how = "a DRUP proof checked by smtpuzzles.proofs.drup" if not checkers else \
            "an LRAT proof checked by smtpuzzles.trusted.lrat and by " + " and ".join(c.name for c in checkers)
        if by_cubes:
            how += f" ({by_cubes} of them shared questions, by an LRAT proof joined from their cubes' parts" + \
                (", checked by smtpuzzles.trusted.lrat)" if not checkers else ")")
        words = f"{proved} recorded UNSAT step quer{'y' if proved == 1 else 'ies'} built by today's encoder, each refuted " \
                f"with {how}"
        report.add("proof", True, words)
        report.evidence.append(words)


def _make_lrat_proof(report, kind: ProofKind, query, timeout, progress, split=None, parts_dir=None,
                     checkers=(), journal=None) -> str:
    """No proof stored: one made here (CaDiCaL writing LRAT, in parts when `split` says where) and
    checked by smtpuzzles.trusted.lrat, the checker a stored proof answers to, and by `checkers`."""

    tell = progress or (lambda event: None)
    tell({"query": kind.query, "solver": "an LRAT proof", "verb": "proving", "state": "started", "at": time.monotonic()})
    started = time.perf_counter()
    kept, observe = external.tallies(checkers, timeout, kind.key, kind.of)
    try:
        made = proofs.certify_query(query, timeout=timeout, split=split, keep=False, parts_dir=parts_dir, observe=observe,
                                    journal=journal, progress=lambda words: tell(
            {"query": kind.query, "solver": "an LRAT proof", "state": "stage", "words": words}))
    except proofs.ProofError as exc:
        tell({"query": kind.query, "solver": "an LRAT proof", "state": "done", "answer": "no proof",
              "seconds": time.perf_counter() - started, "why": exc.message})
        return _no_proof(report, kind, exc)
    tell({"query": kind.query, "solver": "an LRAT proof", "state": "done", "answer": "checked",
          "seconds": made.seconds})
    of = "the refutation" if kind.key == MAIN_PROOF.key else "the reference formula"
    if made.staged is not None:
        words = _staged_words(made, of, query, journal, kind, report)
    else:
        # Parts found in --keep-parts were made by an earlier audit: the words do not say "made here" of them.
        maker = (f"made by {made.solver}, {made.found} of them found in the --keep-parts folder," if made.found
                 else f"made here by {made.solver}")
        words = (f"LRAT proof of {of} ({query.variables:,} variables, {made.lemmas:,} lemmas) {maker} "
                 f"and checked by smtpuzzles.trusted.lrat, in {made.seconds:.1f} s")
    outcomes = [_proof_verdict(report, kind, True, words, "")]
    cases = getattr(split, "words", f"the literals of clause {split} of the query")
    outcomes += [_outside_verdict(report, kind, *tally.verdict(cases)) for tally in kept if tally.checker.counts]
    return _worst(outcomes)


def _staged_words(made, of: str, query, journal, kind: ProofKind, report) -> str:
    """A proof in stages (smtpuzzles.proofs.stages) in words: what was checked here, and what was
    taken from the journal at its word (named among what the claim rests on)."""
    staged, name = made.staged, escaped(str(journal.path))
    here = staged.parts - staged.taken
    words = (f"LRAT proof of {of} ({query.variables:,} variables) in {staged.parts} parts, each checked on its own: "
             f"{here} made by {proofs.LRAT_SOLVER} and checked here by smtpuzzles.trusted.lrat ({staged.lemmas:,} lemmas)")
    if staged.taken:
        words += (f", {staged.taken} checked by earlier audits and taken from the --checked-parts journal {name} at "
                  f"its word ({staged.taken_lemmas:,} lemmas by its count)")
        report.rests_on.append(f"the word of the --checked-parts journal {name} for {staged.taken} parts of the "
                               f"{kind.label}")
    words += f"; that the parts cover the query checked here, in {made.seconds:.1f} s"
    if staged.unwritten:
        words += f"; {staged.unwritten} of the parts checked here could not be written to the journal"
    return words


def _worst(outcomes: list[str]) -> str:
    return next((o for o in (FAILED, UNDECIDED) if o in outcomes), PROVED)


def _outside_verdict(report, kind: ProofKind, ok: bool | None, words: str) -> str:
    """What the outside checker said of a proof smtpuzzles.trusted.lrat accepted: a rejection fails
    the claim (the checker the auditor chose does not back it), no verdict in time leaves it undecided."""
    report.add(kind.section, ok, f"the same {kind.label}: {words}" if ok else
               f"the {kind.label} smtpuzzles.trusted.lrat accepted was not accepted by the outside checker: {words}")
    if ok:
        report.evidence.append(f"the {kind.label}, {words}")
        return PROVED
    return FAILED if ok is False else UNDECIDED


def _check_stored_proof(report, folder, kind: ProofKind, query, claim: dict, timeout, progress, checkers=()) -> str:
    """The stored proof must refute exactly the derived claim, its DIMACS must be the query built
    here, and the LRAT proof must check against that query (never against the folder's copy)."""
    record, section, label = folder.run[kind.key], kind.section, kind.label
    stored_dimacs, stored_lrat = folder.path / kind.dimacs, folder.path / kind.proof
    if not same_json(record["claim"], claim):
        report.add(section, False, f"the stored {label} refutes '{describe(record['claim'])[:60]}', not the derived "
                                   f"'{describe(claim)[:60]}'")
        return FAILED
    what = "DIMACS" if kind.key == MAIN_PROOF.key else "reference DIMACS"
    digest = folder.gz_digest(kind.dimacs, len(query.data) + 1, f"stored {what}")
    if digest is None:
        report.add(section, False, f"the stored {what} is missing ({stored_dimacs})")
        return FAILED
    if digest[0] != query.sha256 or record["dimacs_sha256"] != query.sha256:
        builds = "the query today's encoder builds" if kind.key == MAIN_PROOF.key else "the formula the reference encoding builds"
        report.add(section, False, f"the stored {what} is not {builds} ({stored_dimacs})")
        return FAILED
    started = time.perf_counter()
    # First its bytes, hashed as they expand (a compressed bomb stops at the cap), then the check,
    # line by line as the file expands again: the proof is never held whole.
    digest = folder.gz_digest(kind.proof, proofs.MAX_PROOF_BYTES, f"stored {label}")
    if digest is None:
        report.add(section, False, f"the stored {label} is missing ({stored_lrat})")
        return FAILED
    if digest[0] == "larger":
        raise LedgerError(f"stored {label} expands past {proofs.MAX_PROOF_BYTES:,} bytes; refusing to read it",
                          str(stored_lrat))
    if digest[0] != record["sha256"]:
        report.add(section, False, f"the stored {label} does not match its recorded sha-256 ({stored_lrat})")
        return FAILED
    tell = progress or (lambda event: None)
    tell({"query": kind.query, "solver": f"its stored LRAT {label}", "verb": "checking", "state": "started",
          "at": time.monotonic()})
    lines = folder.gz_lines(kind.proof, proofs.MAX_PROOF_BYTES, LRAT_LIMITS.line_bytes, f"stored {label}")
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        ok, message, lemmas = proofs.check_lrat_text(query, lines, deadline=deadline)
    except proofs.ProofError as exc:  # past a cap: refused unread, as any other oversized file
        raise LedgerError(f"stored {label} refused: {exc.message}", str(stored_lrat)) from None
    if ok is not None and lines.finish() != digest[0]:  # changed while it was being read
        ok, message = False, f"the stored {label} changed while it was being checked"
    seconds = time.perf_counter() - started
    tell({"query": kind.query, "solver": f"its stored LRAT {label}", "state": "done",
          "answer": {True: "checked", False: "rejected", None: "out of time"}[ok], "seconds": seconds})
    if ok is None:
        report.add(section, None, f"the stored {label}'s check ran out of --time-limit ({message})")
        return UNDECIDED
    of = "" if kind.key == MAIN_PROOF.key else " of the reference formula"
    words = (f"LRAT proof{of} stored in the folder ({lemmas:,} lemmas, {digest[1] / 1e6:.1f} MB), checked against "
             f"{kind.of} ({query.variables:,} variables) by smtpuzzles.trusted.lrat in {seconds:.1f} s")
    outcome = _proof_verdict(report, kind, ok, words, f"the stored {label} was rejected: {message}")
    outcomes = [outcome]
    for checker in checkers if outcome == PROVED else ():
        # The stored proof streamed once more (its hash was checked above), to the outside checker.
        again = folder.gz_lines(kind.proof, proofs.MAX_PROOF_BYTES, LRAT_LIMITS.line_bytes, f"stored {label}")
        said = checker.check(query, again, timeout, label=kind.key, what=kind.of, case=None)
        if again.finish() != digest[0]:
            report.add(section, False, f"the stored {label} changed while the outside checker was given it")
            return FAILED
        if checker.counts:
            outcomes.append(_outside_verdict(report, kind, *said))
    return _worst(outcomes)


def _proof_verdict(report, kind: ProofKind, ok: bool, words: str, rejected: str) -> str:
    """A checked proof is evidence that needs no solver's word: the UNSAT answer counts as checked."""
    report.add(kind.section, ok, words if ok else rejected)
    if ok:
        report.unchecked_unsat = False
        report.evidence.append(words)
        return PROVED
    return FAILED
