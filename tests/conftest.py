"""Shared helpers: run the command line in-process or as a real process, read run folders."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from smtpuzzles.cli import main

# Data the suite needs ships with it (nothing is read from beside the checkout): the test cases the
# puzzle specifications state, and a sample of the published Tatamibari puzzles.
DATA = Path(__file__).resolve().parent / "data"
SEED_CASES = json.loads((DATA / "seed_cases.json").read_text(encoding="utf-8"))
# README, "Exit status": written out here rather than imported, so a wrong table in cli.py shows.
EXIT_FOR_STATUS = {"optimal": 0, "solved": 0, "infeasible": 0, "unknown": 3, "interrupted": 130}


class Cli:
    def __init__(self, capsys, tmp_path):
        self.capsys = capsys
        self.tmp_path = tmp_path

    def __call__(self, *args, stdin: str | None = None):
        """(exit code, stdout, stderr) of `smtpuzzles ARGS` run in this process."""
        if stdin is not None:
            import io

            old = sys.stdin
            sys.stdin = io.StringIO(stdin)
        try:
            code = main([str(a) for a in args])
        finally:
            if stdin is not None:
                sys.stdin = old
        out, err = self.capsys.readouterr()
        return code, out, err

    def solve_json(self, *args, stdin: str | None = None, code: int | None = None) -> dict:
        """The JSON answer of `smtpuzzles solve ARGS --json`. The exit status must be `code` when
        given, and in any case the one the README promises for the status printed."""
        status, out, err = self("solve", *args, "--json", "--out", self.tmp_path / "runs", stdin=stdin)
        assert status != 2, err
        result = json.loads(out)
        assert status == EXIT_FOR_STATUS[result["status"]], (status, result["status"], err)
        if code is not None:
            assert status == code, (status, result["status"], err)
        return result


@pytest.fixture
def cli(capsys, tmp_path):
    return Cli(capsys, tmp_path)


def run_process(*args, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], capture_output=True, text=True, env=env,
                          **kwargs)


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one error line, got: {err!r}"
    assert "Traceback" not in err
    return lines[0]


@contextlib.contextmanager
def fails_instead_of_hanging(seconds: int):
    """Raise TimeoutError if the body blocks longer than `seconds` (a FIFO opened without
    O_NONBLOCK would hang a test forever instead of failing it)."""
    def stuck(*_):
        raise TimeoutError("blocked")
    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# A real ledger kept as test data: the 12x12 (3x4) run published until a later run proved that board
# optimal. It was interrupted after 138 solver-minutes with 54 of 144 positions proved, climbing (it
# was recorded before runs named their search), and split into cubes at depth 1 when resumed. Its
# base formula is not shipped (2.2 MB): it is today's `onehot` encoding of the empty board, written
# again here, and run.json's sha-256 of it says whether it still is.
INTERRUPTED_12x12 = DATA / "kingtour-12x12-interrupted"


@pytest.fixture(scope="session")
def interrupted_12x12(tmp_path_factory) -> Path:
    """The interrupted 12x12 run folder, rebuilt once per session; tests that change it copy it."""
    import gzip
    import shutil

    from smtpuzzles.ledger import write_gz
    from smtpuzzles.puzzles import kingtour

    run = json.loads((INTERRUPTED_12x12 / "run.json").read_text())
    folder = tmp_path_factory.mktemp("published") / "kingtour-2b3b523e65-20261201-030336"
    folder.mkdir()
    for name in ("run.json", "solution.json", "input.txt"):
        shutil.copy(INTERRUPTED_12x12 / name, folder / name)
    (folder / "steps.jsonl").write_bytes(gzip.decompress((INTERRUPTED_12x12 / "steps.jsonl.gz").read_bytes()))
    board = kingtour.from_canonical(run["instance"])
    write_gz(folder / "base.smt2.gz", kingtour.encode(board, run["encoding"]["name"]).formula.document())
    return folder
