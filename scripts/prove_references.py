"""Prove each published record's closing claim on its puzzle's reference encoding, and say what it
cost: the time, the proof's size, and whether results/ (50 MB in all) has room to store it.

    python scripts/prove_references.py                 # every record of results/records.toml
    python scripts/prove_references.py --boards 8 9    # only these
    python scripts/prove_references.py --store         # and store each that fits the budget

Each record is copied to a scratch folder and `smtpuzzles certify` runs on the copy (the encoder's
stored proof is kept; the reference proof is made, checked by smtpuzzles.trusted.lrat and stored there).
Nothing in results/ changes unless --store is given and the proof fits.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
BUDGET = 50 * 1000 * 1000
FILES = ("reference.cnf.gz", "reference.lrat.gz")


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, nargs="*", help="board sizes (default: every optimal record)")
    parser.add_argument("--store", action="store_true", help="store each proof that fits the results/ budget")
    parser.add_argument("--remake", action="store_true", help="make the proof even where one is stored")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per proof")
    args = parser.parse_args()
    records = tomllib.loads((RESULTS / "records.toml").read_text())["record"]
    print(f"{'board':<18} {'seconds':>8} {'lemmas':>9} {'stored MB':>10}  fits")
    for entry in records:
        if entry["status"] != "optimal" or (args.boards and int(entry["board"].split("x")[0]) not in args.boards):
            continue
        published = RESULTS / entry["folder"]
        with tempfile.TemporaryDirectory(prefix="smtpuzzles-reference-") as scratch:
            copy = Path(scratch) / published.name
            shutil.copytree(published, copy)
            if args.remake:  # measure making it, not reading the stored one
                run = json.loads((copy / "run.json").read_text())
                if run.pop("reference_proof", None) is not None:
                    (copy / "run.json").write_text(json.dumps(run, indent=1))
                    for name in FILES:
                        (copy / name).unlink(missing_ok=True)
            command = [sys.executable, "-m", "smtpuzzles", "certify", str(copy)]
            if args.time_limit:
                command += ["--time-limit", str(args.time_limit)]
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True)
            seconds = time.perf_counter() - started
            if done.returncode != 0:
                print(f"{entry['board']:<18} {seconds:8.1f}  no proof: {done.stderr.strip()[-120:]}", flush=True)
                continue
            record = json.loads((copy / "run.json").read_text())["reference_proof"]
            size = sum((copy / name).stat().st_size for name in FILES)
            stored = sum((published / name).stat().st_size for name in FILES if (published / name).is_file())
            fits = folder_bytes(RESULTS) - stored + size <= BUDGET  # a stored one is replaced
            print(f"{entry['board']:<18} {seconds:8.1f} {record['lemmas']:>9,} {size / 1e6:10.1f}  {'yes' if fits else 'no'}",
                  flush=True)
            if args.store and fits:  # as certify stores it: the files, then run.json, under the folder's lock
                from smtpuzzles.folders.ledger import store_proof

                sealed = json.loads((published / "run.json").read_text())["last_step_sha256"]
                store_proof(published, sealed, {name: (copy / name).read_bytes() for name in FILES}, record,
                            key="reference_proof")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
