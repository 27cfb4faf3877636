"""Publish a sealed run folder into results/: a copy in the published form, checked by the audit
before it takes its name there.

    python scripts/publish_run.py RUN_DIR RESULTS_DIR [--max-base MB] [--iterations N] [--cap MB]

The copy holds the same texts in fewer bytes, as scripts/compact_results.py leaves the published
records: the ledger as steps.jsonl.gz (the same lines: the hash chain and the seal hash the text),
every gzip file recompressed with zopfli (run.json hashes each one's text, never its bytes), the
closing certificate left out where it is the base formula plus the closing step's assertions and
check-sat, and the base formula left out where its file is larger than --max-base MB (default 1):
the audit never reads it anyway, it rebuilds the formula from the recorded instance and compares
that formula's sha-256 with run.json's (a 16x16 King's tour's base is 3 to 11 MB; results/ may
hold 50). Such a copy is never resumed (its ledger is compressed); the run folder itself still is.

The run folder is audited first, as `smtpuzzles audit RUN_DIR` would (its reads bounded by the sizes
today's encoder gives), before any big file is read; then each compressed file is hashed as a
stream against the sha-256 run.json records for it, and only then read, never past the length that
hash found: a gzip bomb costs a stream, never its expanded size in memory.

The copy is made in a scratch folder of its own in RESULTS_DIR (.NAME.*.publishing, so that two
publishes never share one) and takes its name with a rename that never replaces anything: a
name that appeared meanwhile (another publish of the same run) is refused, and the scratch folder
removed. Nothing this script did not create is ever deleted.

Refused in one line, exit 2: a bad option, a folder that is not sealed (running, killed) or that a
writer holds (a resume, a batch), a folder the reader refuses, a file whose text is not the one
run.json records, a name already in RESULTS_DIR. Exit 1: the audit of the run folder or of the copy
finds a problem, or RESULTS_DIR would hold more than --cap MB (default 50); nothing is left in
RESULTS_DIR then. Then add the printed [[record]] entry to RESULTS_DIR/records.toml.
Needs zopfli (pip install zopfli). About 6 s per compressed MB with one iteration.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import os
import shutil
import stat
import sys
from pathlib import Path

from smtpuzzles.errors import LedgerError
from smtpuzzles.folders.bounded import gz_digest, read_capped
from smtpuzzles.folders.locking import writer_active
from smtpuzzles.folders.renaming import rename_new, scratch_folder
from smtpuzzles.folders.runfolder import (BASE, CERTIFICATE, DIMACS, INPUT, MAX_RUN_JSON, MAX_SOLUTION_JSON,
                                          MAX_STEPS_FILE, PROOF, REFERENCE_DIMACS, REFERENCE_PROOF, RUN, SOLUTION,
                                          STEPS, STEPS_GZ, open_run, read_gz, steps_name)
from smtpuzzles.shown import escaped

MB = 10 ** 6
MAX_TEXT = 400 * 2 ** 20  # as compact_results: the largest published formula is about 80 MB of text
COPIED = (RUN, INPUT, SOLUTION)  # copied as they are
PROOFS = {PROOF: ("proof", "sha256"), DIMACS: ("proof", "dimacs_sha256"),  # recompressed when present, each
          REFERENCE_PROOF: ("reference_proof", "sha256"),  # checked against run.json's record of it
          REFERENCE_DIMACS: ("reference_proof", "dimacs_sha256")}
MAX_ITERATIONS = 1000  # zopfli's own default is 15; each one costs as much as the first


class Refused(Exception):
    """One line for the user, with the exit status it comes to."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (no usage block above it)
        self.exit(2, f"publish_run: {message}\n")


def _megabytes(least_zero: bool):
    """An argparse type: a finite number of MB, positive (or, with `least_zero`, at least 0)."""
    def megabytes(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of MB") from None
        if not math.isfinite(value) or value < 0 or (value == 0 and not least_zero):
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a finite {'' if least_zero else 'positive '}"
                                             f"number of MB{' (0 or more)' if least_zero else ''}")
        return value
    return megabytes


def _iterations(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_ITERATIONS:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number from 1 to {MAX_ITERATIONS}")
    return value


def main(argv=None) -> int:
    parser = _Parser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="a sealed run folder")
    parser.add_argument("results_dir", type=Path, help="where published folders are kept (results/)")
    parser.add_argument("--max-base", type=_megabytes(least_zero=True), default=1.0, metavar="MB",
                        help="leave out base.smt2.gz when its file is larger than this (default 1 MB; 0: always)")
    parser.add_argument("--iterations", type=_iterations, default=1,
                        help=f"zopfli iterations, 1 to {MAX_ITERATIONS} (more: smaller, slower)")
    parser.add_argument("--cap", type=_megabytes(least_zero=False), default=50.0, metavar="MB",
                        help="what RESULTS_DIR may hold in all (default 50 MB)")
    args = parser.parse_args(argv)
    try:
        import zopfli.gzip
    except ModuleNotFoundError:
        print("publish_run: needs zopfli (pip install zopfli)", file=sys.stderr)
        return 2
    try:
        publish(args.run_dir, args.results_dir, lambda text: zopfli.gzip.compress(text, numiterations=args.iterations),
                int(args.max_base * MB), int(args.cap * MB))
    except (LedgerError, Refused) as exc:  # folder text in it: shown escaped, as the commands show it
        print(f"publish_run: {escaped(exc)}", file=sys.stderr)
        return getattr(exc, "code", 2)
    except OSError as exc:  # a folder that cannot be read or written (permissions, a full disk)
        print(f"publish_run: {escaped(exc.filename or args.results_dir)}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def publish(run_dir: Path, results_dir: Path, compress, max_base: int, cap: int) -> Path:
    if not results_dir.is_dir():
        raise Refused(f"{results_dir}: no such folder")
    name = run_dir.resolve().name
    if not name:
        raise Refused(f"{run_dir}: not a run folder")
    target = results_dir / name
    if target.exists() or target.is_symlink():
        raise Refused(f"{target}: already published (remove it first to publish again)")
    # Only asked, never taken: the lock would be written into the folder, which may not be ours to
    # write. A writer that starts meanwhile is caught by asking again, and by the copy's audit.
    _not_written(run_dir)
    folder = open_run(run_dir)  # the one reader: schema, caps, no symlinks, hash chain, seal
    if not folder.finished:
        raise Refused(f"{run_dir}: the run is not sealed (status running: still running, or killed); "
                      "resume it to an end first")
    _audit(run_dir, "the run folder")  # before anything big is read: its reads are bounded
    # A scratch folder of this publish's own: another publish of the same name makes its own, and
    # whatever else lies in RESULTS_DIR (an older .NAME.publishing) is never touched.
    scratch = scratch_folder(results_dir, f".{name}.", ".publishing")
    try:
        _copy(folder, scratch, compress, max_base)
        _not_written(run_dir)
        report = _check(scratch, results_dir, cap)
        _rename_new(scratch, target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)  # ours: made above
        raise
    print(f"published {escaped(target)}; check it with: smtpuzzles audit {escaped(target)}")
    print(f"\nits entry for {results_dir / 'records.toml'}:\n[[record]]\nfolder = {json.dumps(name)}\n"
          f"puzzle = {json.dumps(report.puzzle)}\nboard = {json.dumps(report.instance.get('description', ''))}\n"
          f"status = {json.dumps(report.status)}")
    return target


def _rename_new(scratch: Path, target: Path) -> None:
    """`scratch` takes the name `target`, which must not exist (smtpuzzles.folders.renaming)."""
    if not rename_new(scratch, target):
        raise Refused(f"{target}: already published meanwhile (another publish of the same run?); "
                      "this copy is not kept")


def _audit(path: Path, what: str):
    from smtpuzzles.auditing.auditor import audit

    report = audit(path)
    if not report.ok:
        failed = next(f for f in report.findings if f.ok is False)
        raise Refused(f"the audit of {what} fails ({failed.section}: {failed.text})", 1)
    return report


def _not_written(run_dir: Path) -> None:
    if writer_active(run_dir):
        raise Refused(f"{run_dir}: a writer holds the folder (a resume or a batch); publish it once that ends")


def _copy(folder, scratch: Path, compress, max_base: int) -> None:
    source, run = folder.path, folder.run
    for name, cap in zip(COPIED, (MAX_RUN_JSON, MAX_RUN_JSON, MAX_SOLUTION_JSON)):
        data = read_capped(source, name, cap, name, required=name == RUN)
        if data is not None:
            (scratch / name).write_bytes(data)
    steps = read_capped(source, STEPS, MAX_STEPS_FILE, STEPS) if steps_name(source) == STEPS else \
        read_gz(source, STEPS_GZ, MAX_STEPS_FILE, STEPS_GZ)
    _write_gz(scratch / STEPS_GZ, steps, compress)
    base_size = (source / BASE).stat().st_size if (source / BASE).is_file() else None
    base = None
    if base_size is not None and base_size > max_base:
        print(f"{BASE:22} {base_size:>12,} bytes: left out (past {max_base:,}); the audit rebuilds it from the instance")
    elif base_size is not None:
        base = _read_recorded(source, BASE, run["base"]["sha256"])
        _write_gz(scratch / BASE, base, compress)
    record = run.get("certificate")
    certificate = _read_recorded(source, CERTIFICATE, record and record["sha256"], "closing certificate")
    if certificate is not None:
        if base_size is not None and _is_base_plus_closing(folder, base, certificate):
            print(f"{CERTIFICATE:22} left out: the base formula plus the closing step's assertions")
        else:
            _write_gz(scratch / CERTIFICATE, certificate, compress)
    for name, (key, field) in PROOFS.items():
        record = run.get(key)
        text = _read_recorded(source, name, record and record[field], key.replace("_", " "),
                              record["bytes"] if record and field == "sha256" else MAX_TEXT)
        if text is not None:
            _write_gz(scratch / name, text, compress)


def _read_recorded(source: Path, name: str, sha256: str | None, recorded_as: str = "", length: int = MAX_TEXT):
    """The text of `source/name` (None when missing), which must be the one run.json records:
    hashed first as a stream (a compressed bomb costs no memory, and stops past `length`, the
    recorded length where there is one), then read, never past the length that hash found."""
    digest = gz_digest(source, name, min(length, MAX_TEXT), name)
    if digest is None:
        return None
    if sha256 is None:
        raise Refused(f"{source / name}: run.json records no {recorded_as} this file would be; not published")
    if digest[0] != sha256:
        raise Refused(f"{source / name}: its text is not the one run.json records (sha-256"
                      f"{', or longer than recorded' if digest[0] == 'larger' else ''}); not published")
    text = read_gz(source, name, digest[1], name)
    if text is None or hashlib.sha256(text).hexdigest() != sha256:
        raise Refused(f"{source / name}: changed while it was being published")
    return text


def _is_base_plus_closing(folder, base: bytes | None, certificate: bytes) -> bool:
    """Whether the certificate is exactly the folder's base formula, the closing step's assertions
    and check-sat (what the audit builds, and anyone can from a folder that keeps its base)."""
    record = folder.run.get("certificate")
    if record is None or not 0 <= record["step"] < len(folder.steps):
        return False
    closing = folder.steps[record["step"]]
    tail = "".join(f"(assert {a})\n" for a in closing["assumptions"]) + "(check-sat)\n(exit)\n"
    if base is None:
        base = _read_recorded(folder.path, BASE, folder.run["base"]["sha256"])
        if base is None:
            return False
    return hashlib.sha256(base + tail.encode()).digest() == hashlib.sha256(certificate).digest()


def _write_gz(path: Path, text: bytes, compress) -> None:
    packed = compress(text)
    if gzip.decompress(packed) != text:  # never publish what does not give the same text back
        raise Refused(f"{path.name}: the compressed copy does not give the text back")
    path.write_bytes(packed)
    print(f"{path.name:22} {len(text):>12,} bytes of text -> {len(packed):>12,}")


def _check(scratch: Path, results_dir: Path, cap: int):
    """The audit of the copy (as anyone will run it), and RESULTS_DIR's total against its cap."""
    report = _audit(scratch, "the copy")
    total = _bytes_under(results_dir)
    if total > cap:
        raise Refused(f"{results_dir} would hold {total:,} bytes, past its cap of {cap:,}", 1)
    print(f"audit of the copy: {report.verdict}; {results_dir} would hold {total:,} bytes")
    return report


def _bytes_under(folder: Path) -> int:
    """The bytes of the files under `folder`, links not followed. A file or folder that goes while
    it is counted (another publish's scratch folder, renamed or removed) is counted as gone."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                found = os.stat(os.path.join(root, name), follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(found.st_mode):
                total += found.st_size
    return total


if __name__ == "__main__":
    raise SystemExit(main())
