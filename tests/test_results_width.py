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


def test_results_of_the_published_runs_piped_are_whole_lines_in_a_stated_order():
    """A log has no width: piped, every cell is whole (the folder, the instance, the 81 digits),
    where a terminal's table keeps to 80 columns (below); the title says the order."""
    done = subprocess.run([sys.executable, "-m", "smtpuzzles", "results", "results", "--sort", "time"], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "COLUMNS": "80"}, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "runs under results, by solver time, longest first" in lines[0]
    rows = [line for line in lines if line.startswith("kingtour-")]
    assert sorted(row.split()[0] for row in rows) == published_runs() and len(rows) >= 5
    assert not any("…" in row for row in rows)
    record = "999899898789789787876789658767666545355432471632124566352413452143214125313214321"
    assert any(record in row and "3x3 boxes" in row for row in rows)
    for row in rows:  # whole words: a status is never cut to fit, the audit column says none was asked for
        assert re.search(r"  (optimal|interrupted)  ", row) and row.rstrip().endswith("—"), row
    # no line padded out to the table's width (the title and the header were, to 400 columns and more)
    assert not any(line != line.rstrip() for line in lines)
    assert re.search(r"  \d+h \d\dm  ", rows[0]), rows[0]  # human durations, the longest (hours) first


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


def test_consistent_stays_whole_beside_long_instances_values_and_times():
    """A batch's rows: long job names, long instance words, long values, runs of hours. Every
    verdict, the column `results --audit` is asked for, stays whole at 80 columns."""
    rows = [{"run": f"jobs/a-rather-long-job-name-{i}/nonary-0123456789-20261203-14164{i}", "puzzle": "nonary",
             "instance": "12 doors, 9 rooms, 3 people per door", "status": status, "value": "9" * 40, "count": None,
             "count_complete": None, "unique": None, "seconds": seconds, "audit": verdict}
            for i, (status, seconds, verdict) in enumerate([("optimal", 0.4, "consistent"),
                                                             ("interrupted", 86_400.0, "consistent"),
                                                             ("unknown", 12_345.6, "clean")])]
    printed = io.StringIO()
    Console(file=printed, width=80, color_system=None).print(results_table(Path("out"), rows=rows))
    lines = printed.getvalue().splitlines()
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    assert [line.split()[-1] for line in lines if "a-rather" in line] == ["consistent", "consistent", "clean"]


def test_runs_are_listed_in_the_order_they_started_not_by_their_hash(tmp_path):
    from smtpuzzles.results import run_folders

    names = ["kingtour-ffff000000-20261203-090000", "kingtour-0000ffffff-20261203-100000",
             "kingtour-8888888888-20261202-235959", "kingtour-0000ffffff-20261203-100000-1"]
    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.json").write_text("{}")
    assert [p.name for p in run_folders(tmp_path)] == [names[2], names[0], names[1], names[3]]
