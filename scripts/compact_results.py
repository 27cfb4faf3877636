"""Recompress the published SMT-LIB formulas, stored DIMACS and LRAT proofs in results/ with zopfli:
the same gzip format and the same text (each file's text is hashed in its run.json, never its
compressed bytes), 12-18% fewer bytes (the 12x12 record's 53 MB proof: 17.5 MB to 15.4 MB), so
the published records keep within the 50 MB that results/ may hold. A finished run's ledger
(status optimal, never resumed again) is published as steps.jsonl.gz, the same lines: the 14x14
record's 3.3 MB of steps take about 0.2 MB; and its closing certificate, the base formula plus the
closing step's assertions and check-sat, is left out once that is checked here (the audit builds
it itself, and so can anyone from the folder).

  pip install zopfli && python scripts/compact_results.py [--iterations N] [FOLDER ...]

FOLDER: the published folders to compact (their names in results/records.toml); all of them
without any (about 10 minutes, most of it formulas compacted before). A new run is published
already compacted, its base formula left out when large, by scripts/publish_run.py.

A file is replaced (through a temporary file and a rename) only when the new one is smaller and
decompresses to exactly the old text; `smtpuzzles audit results/FOLDER` checks it afterwards as any
other. About 6 s per compressed MB with one iteration.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

RESULTS = Path(__file__).resolve().parents[1] / "results"
MAX_TEXT = 400 * 2 ** 20  # the largest published formula is about 80 MB of text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1, help="zopfli iterations (more: smaller, slower)")
    parser.add_argument("folders", nargs="*", help="published folders to compact (default: all)")
    args = parser.parse_args()
    try:
        import zopfli.gzip
    except ModuleNotFoundError:
        print("compact_results: needs zopfli (pip install zopfli)", file=sys.stderr)
        return 2
    published = [r["folder"] for r in tomllib.loads((RESULTS / "records.toml").read_text())["record"]]
    chosen = [Path(name).name for name in args.folders]  # results/FOLDER/ or FOLDER
    unknown = [name for name in chosen if name not in published]
    if unknown:
        print(f"compact_results: {unknown[0]!r} is not a folder results/records.toml publishes", file=sys.stderr)
        return 2
    folders = [RESULTS / name for name in published if not chosen or name in chosen]
    saved = 0
    for folder in folders:
        saved += compress_finished_ledger(folder, zopfli.gzip, args.iterations)
    # Formulas, stored DIMACS and stored proofs alike: run.json hashes each one's text, never its bytes.
    for path in sorted(p for folder in folders for kind in ("*.smt2.gz", "*.cnf.gz", "*.lrat.gz") for p in folder.glob(kind)):
        old = path.read_bytes()
        with gzip.open(path) as stream:
            text = stream.read(MAX_TEXT + 1)
        if len(text) > MAX_TEXT:
            print(f"{path.relative_to(RESULTS)}: over {MAX_TEXT // 2 ** 20} MB of text, left alone")
            continue
        started = time.perf_counter()
        new = zopfli.gzip.compress(text, numiterations=args.iterations)
        if len(new) < len(old) and gzip.decompress(new) == text:
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(new)
            os.replace(tmp, path)
            saved += len(old) - len(new)
        print(f"{str(path.relative_to(RESULTS)):60} {len(old):>10,} -> {min(len(old), len(new)):>10,} bytes"
              f"  {time.perf_counter() - started:5.1f} s", flush=True)
    total = sum(p.stat().st_size for p in RESULTS.rglob("*") if p.is_file())
    print(f"saved {saved:,} bytes; results/ holds {total:,} bytes")
    return 0


def compress_finished_ledger(folder: Path, compressor, iterations: int) -> int:
    """steps.jsonl -> steps.jsonl.gz for a run that finished optimal, and its certificate left out
    where it is exactly the base formula plus the closing step's assertions (so anyone rebuilds it
    from the folder, and the audit builds it itself); the bytes saved."""
    plain = folder / "steps.jsonl"
    run = json.loads((folder / "run.json").read_text())
    if not plain.is_file() or run["status"] != "optimal":
        return 0
    saved = 0
    certificate = folder / "certificate.smt2.gz"
    # A folder published without its base (scripts/publish_run.py) has nothing to rebuild it from.
    if certificate.is_file() and "certificate" in run and (folder / "base.smt2.gz").is_file():
        closing = json.loads(plain.read_text().splitlines()[run["certificate"]["step"]])
        with gzip.open(folder / "base.smt2.gz") as base:
            rebuilt = base.read(MAX_TEXT).decode() + "".join(f"(assert {a})\n" for a in closing["assumptions"]) + \
                "(check-sat)\n(exit)\n"
        with gzip.open(certificate) as stored:
            if stored.read(MAX_TEXT).decode() == rebuilt:
                saved += certificate.stat().st_size
                certificate.unlink()
                print(f"{str(certificate.relative_to(RESULTS)):60} left out: the base plus step "
                      f"{closing['index']}'s assertions")
    text = plain.read_bytes()
    packed = compressor.compress(text, numiterations=iterations)
    if gzip.decompress(packed) != text:
        print(f"{plain.relative_to(RESULTS)}: compression did not give the text back, left alone")
        return 0
    tmp = folder / "steps.jsonl.gz.tmp"
    tmp.write_bytes(packed)
    os.replace(tmp, folder / "steps.jsonl.gz")
    plain.unlink()
    print(f"{str(plain.relative_to(RESULTS)):60} {len(text):>10,} -> {len(packed):>10,} bytes (steps.jsonl.gz)")
    return saved + len(text) - len(packed)


if __name__ == "__main__":
    raise SystemExit(main())
