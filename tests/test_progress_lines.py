"""Off a terminal (a log, nohup, a pipe) long work prints a plain progress line every
--progress-every seconds: elapsed time and where the work stands, whole however long (a log has
no width), with no control sequences; on a terminal the live display does that instead, and --progress-every 0 is quiet."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import time
from pathlib import Path

from smtpuzzles.ticker import Ticker, clock

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^\[\d+:\d\d:\d\d\] \S")


def piped(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def progress_lines(err: str) -> list[str]:
    lines = [line for line in err.splitlines() if LINE.match(line)]
    assert all(not re.search(r"[\x00-\x1f\x7f-\x9f]", line) and not line.endswith("...") for line in lines), lines
    return lines


def test_a_piped_solve_says_where_it_stands_at_a_steady_pace(tmp_path):
    done = piped("solve", "kingtour", "--size", 8, "--box", "2x4", "--progress-every", 0.2, "--out", tmp_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = progress_lines(done.stderr)
    assert len(lines) >= 3, done.stderr
    assert any(re.search(r"kingtour: \d+ checks(, \d+ settled by a bound)?; position \d+ of 64, \d+ proved; best [0-9A-G]{64}$",
                         line) for line in lines), lines
    # the same run with the lines turned off says nothing on stderr
    quiet = piped("solve", "kingtour", "--size", 6, "--progress-every", 0, "--out", tmp_path, cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_a_piped_batch_audit_and_results_print_progress_lines(tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "eight"\npuzzle = "kingtour"\nsize = 8\nbox = "2x4"\n'
                    '[[job]]\nname = "six"\npuzzle = "kingtour"\nsize = 6\n')
    done = piped("batch", jobs, "--progress-every", 0.2, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert any(re.search(r"batch: \d of 2 jobs done", line) for line in progress_lines(done.stderr + done.stdout)), \
        done.stderr + done.stdout
    run_dir = next(d for d in (tmp_path / "runs" / "jobs" / "six").iterdir() if (d / "run.json").is_file())
    done = piped("audit", run_dir, "--proof", "--progress-every", 0.2, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    puzzle, _, _, start = run_dir.name.split("-")[:4]  # named by puzzle and start time
    assert any(line.split("] ", 1)[1].startswith(f"audit {puzzle} {start}") for line in progress_lines(done.stderr)), \
        (run_dir.name, done.stderr)
    done = piped("results", tmp_path / "runs", "--audit", "--progress-every", 0.05, cwd=tmp_path)
    assert done.returncode == 0 and any("results: run " in line for line in progress_lines(done.stderr)), done.stderr


def test_the_ticker_keeps_its_pace_survives_a_failing_line_and_stops_with_its_block():
    out = io.StringIO()
    calls = iter(["first", None])

    def line():
        value = next(calls, "later")
        if value is None:
            raise KeyError("gone")
        return value
    with Ticker(line, 0.05, stream=out):
        time.sleep(0.4)
    lines = out.getvalue().splitlines()
    assert 2 <= len(lines) <= 9 and lines[0].endswith("] first") and lines[1].endswith("(progress unavailable: KeyError)")
    after = len(out.getvalue())
    time.sleep(0.15)
    assert len(out.getvalue()) == after  # stopped with the block
    quiet = io.StringIO()
    with Ticker(lambda: "x" * 200, 0, stream=quiet):
        time.sleep(0.1)
    assert quiet.getvalue() == "" and clock(3725.9) == "1:02:05"


def test_a_piped_certify_says_which_proof_it_is_making(tmp_path):
    """solve --certify and certify off a terminal: the latest proof step as a plain line."""
    done = piped("solve", "kingtour", "--size", 6, "--certify", "--progress-every", 0.2, "--out", tmp_path, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = progress_lines(done.stderr)
    assert any("certify: " in line for line in lines), done.stderr
    run_dir = next(d for d in tmp_path.iterdir() if (d / "run.json").is_file())
    for name in ("proof.lrat.gz", "reference.lrat.gz"):
        (run_dir / name).unlink()
    import json

    run = json.loads((run_dir / "run.json").read_text())
    run.pop("proof"), run.pop("reference_proof")
    (run_dir / "run.json").write_text(json.dumps(run))
    again = piped("certify", run_dir, "--progress-every", 0.2, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert any(re.search(r"certify: (reference: )?(proving|checking|trimming)", line) for line in progress_lines(again.stderr))


def test_an_audit_proof_made_in_parts_says_which_part_it_is_on():
    from smtpuzzles.auditview import ResolveProgress

    view = ResolveProgress("runs/kingtour-x")
    key = {"query": "reference", "solver": "an LRAT proof"}
    view({**key, "state": "stage", "words": "ignored: not running"})
    view({**key, "state": "started", "at": time.monotonic()})
    assert "reference with an LRAT proof" in view.plain_line()
    view({**key, "state": "stage", "words": "part 3/36 done, 12 MB"})
    assert "reference: part 3/36 done, 12 MB" in view.plain_line()
    view({**key, "state": "done", "answer": "checked", "seconds": 1.0})
    assert "part 3/36" not in view.plain_line() and "1 done" in view.plain_line()


def test_a_proof_that_could_not_be_made_says_why_in_the_log():
    """The 16x16 audit's log said `reference: an LRAT proof was no proof in 7572.4 s` and nothing
    more until the report at the end, hours later: the reason is on the lines after it, escaped,
    each within 80 columns."""
    import io

    from smtpuzzles.auditview import ResolveProgress

    out = io.StringIO()
    view = ResolveProgress("runs/kingtour-x", lines_to=out)
    key = {"query": "reference", "solver": "an LRAT proof"}
    why = ("cadical-lrat's proof passed 33,285,996,544 bytes after 1900 s, more than the room left in the "
           "temporary folder; no proof made \x1b[2J")
    view({**key, "state": "started", "at": time.monotonic()})
    view({**key, "state": "done", "answer": "no proof", "seconds": 7572.4, "why": why})
    lines = out.getvalue().splitlines()
    assert lines[1] == "audit: reference: an LRAT proof was no proof in 7572.4 s"
    assert " ".join(line.strip() for line in lines[2:]) == why.replace("\x1b", "\\x1b")
    assert all(len(line) <= 80 and line.startswith("  ") for line in lines[2:]) and len(lines) > 3
    assert "\x1b" not in out.getvalue()


def test_an_audit_progress_line_names_the_run_briefly_so_its_news_fits_80_columns():
    """`[0:00:30] audit kingtour-2b3b9e3c41-20261201-081325: reference: part 2/144 done, 3 MB`
    was cut at 80 columns in the middle of its news: the run is named by puzzle and start time."""
    from smtpuzzles.auditview import ResolveProgress
    from smtpuzzles.ticker import WIDTH

    view = ResolveProgress("results/kingtour-2b3b9e3c41-20261201-081325")
    key = {"query": "reference", "solver": "an LRAT proof"}
    view({**key, "state": "started", "at": time.monotonic()})
    view({**key, "state": "stage", "words": "part 112/144 done, 38 MB"})
    line = "[0:27:30] " + view.plain_line()
    assert line.startswith("[0:27:30] audit kingtour 081325: reference: part 112/144 done, 38 MB")
    assert len(line) <= WIDTH, line
    other = ResolveProgress("a-folder-of-mine-with-a-very-long-name-indeed").plain_line()
    assert other.startswith("audit a-folder-of-mine-with-a…: ") or "…" in other.split(":")[0]


def test_two_proofs_in_parts_side_by_side_both_fit_one_progress_line():
    """audit --proof makes the reference proof beside the encoder's: the line names where each
    stands (it once cut the second at 80 columns: `certificate: part 15/211 done, 49 MB 287s, r...`)."""
    from smtpuzzles.auditview import ResolveProgress
    from smtpuzzles.ticker import WIDTH

    view = ResolveProgress("results/kingtour-6d9c40fcc7-20261203-172757")
    for query, part in (("certificate", "part 150/211 done, 449 MB"), ("reference", "part 112/196 done, 338 MB")):
        key = {"query": query, "solver": "an LRAT proof"}
        view({**key, "state": "started", "at": time.monotonic()})
        view({**key, "state": "stage", "words": part})
    line = "[1:27:30] " + view.plain_line()
    assert line == "[1:27:30] audit kingtour 172757: certificate 150/211, reference 112/196 parts"
    assert len(line) <= WIDTH


def test_the_ticker_and_a_command_s_own_lines_never_share_a_line():
    """The audit's `audit: ...` lines and the ticker's go to one stream from two threads; written
    as text then newline (print), one could land inside the other (seen in a piped audit under
    load). A stream that yields between writes makes that likely: every line stays whole."""
    class Yielding(io.StringIO):
        def write(self, text):
            written = super().write(text)
            time.sleep(0.0002)  # let the other thread in, as a busy machine does
            return written

    from smtpuzzles.ticker import say_line

    out = Yielding()
    with Ticker(lambda: "ticker line", 0.001, stream=out, form="plain"):
        for _ in range(300):
            say_line("audit: a line of its own", out)
    lines = out.getvalue().splitlines()
    assert len(lines) > 300
    assert all(line == "audit: a line of its own" or re.fullmatch(r"\[\d+:\d\d:\d\d\] ticker line", line)
               for line in lines), [line for line in lines if "audit" in line and "ticker" in line][:3]
