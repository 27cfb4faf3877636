"""What a careful forger of run folders does: rewrite steps and recompute every hash and seal."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

from smtpuzzles.canonical import canonical_json


def read_ledger(run_dir: Path) -> tuple[dict, list[dict]]:
    run = json.loads((run_dir / "run.json").read_text())
    steps = [json.loads(line) for line in (run_dir / "steps.jsonl").read_text().splitlines()]
    return run, steps


def forge_chain(run_dir: Path, run: dict, steps: list[dict]) -> None:
    """Write steps.jsonl and run.json with the chain re-hashed and the seal renewed."""
    prev, lines = run["instance_sha256"], []
    for i, step in enumerate(steps):
        step["prev"], step["index"] = prev, i
        line = canonical_json(step)
        lines.append(line)
        prev = hashlib.sha256(line.encode()).hexdigest()
    (run_dir / "steps.jsonl").write_text("".join(line + "\n" for line in lines))
    run["last_step_sha256"], run["steps"] = prev, len(steps)
    (run_dir / "run.json").write_text(json.dumps(run))


def write_gz_text(path: Path, text: str) -> str:
    """Write `text` gzipped and return its sha-256, as a forger updating run.json would."""
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(text)
    return hashlib.sha256(text.encode()).hexdigest()
