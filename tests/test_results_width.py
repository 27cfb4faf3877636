"""`smtpuzzles results results`: the published runs as a table of 80 columns, piped to a file or a
pager, with every status and audit verdict whole (a long verdict is cut to its first word in the
table and written out whole below it)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from smtpuzzles.results import collect_results, results_table

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT / "results"


def published_runs() -> list[str]:
    return sorted(p.parent.name for p in PUBLISHED.glob("*/run.json"))


def test_results_of_the_published_runs_piped_at_80_columns():
    done = subprocess.run([sys.executable, "-m", "smtpuzzles", "results", "results"], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "80"}, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and max(map(len, lines)) <= 80, max(lines, key=len)
    rows = [line for line in lines if line.startswith("kingtour ")]
    assert len(rows) == len(published_runs()) >= 5
    for row in rows:  # whole words: a status is never cut to fit, the audit column says none was asked for
        assert re.search(r"  (optimal|interrupted)  ", row) and row.rstrip().endswith("—"), row


def test_every_audit_verdict_fits_whole_beside_the_published_runs():
    """The audit takes a minute over these runs, so its verdicts are set here: the audit's words
    (auditor.Report.verdict; "clean" is shorter than "consistent") and the results' own, long one."""
    rows = collect_results(PUBLISHED, with_audit=False)
    long_verdict = "unreadable: the audit stopped (MemoryError)"
    verdicts = ["consistent", "FAILED", "undecided", "incomplete", long_verdict]
    verdicts += ["clean"] * (len(rows) - len(verdicts))  # any further published run
    assert len(rows) >= 5
    for row, verdict in zip(rows, verdicts):
        row["audit"] = verdict
    printed = io.StringIO()
    Console(file=printed, width=80, color_system=None).print(results_table(PUBLISHED, rows=rows))
    lines = printed.getvalue().splitlines()
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    cells = [line.split()[-1] for line in lines if line.startswith("kingtour ")]
    assert cells == ["consistent", "FAILED", "undecided", "incomplete", "unreadable"] + ["clean"] * (len(rows) - 5)
    assert any(line.endswith(long_verdict) for line in lines)  # the whole verdict, below the table
