"""Linux and macOS: the run folders' locks need fcntl; everything else imports without it.

A platform without fcntl (Windows) is simulated in a fresh process whose `import fcntl` fails, as it
does there: help, `examples`, `export` and the commands that only read still work, and every command
that would write a run folder stops with the one line, exit 2, before it makes a folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import one_error_line

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "results" / "kingtour-e407aacd91-20261201-025753"  # the 8x8 record, small and sealed
NO_LOCKS = "smtpuzzles: error: smtpuzzles writes run folders on Linux and macOS (it locks them with fcntl)"
# `smtpuzzles ARGS` with fcntl made unimportable first (None in sys.modules makes `import` raise).
WITHOUT_FCNTL = ("import sys; sys.modules['fcntl'] = None; sys.argv[0] = 'smtpuzzles'; "
                 "from smtpuzzles.__main__ import entry; raise SystemExit(entry())")


def without_fcntl(cwd: Path, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_FCNTL, *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "100"}, timeout=300)


def test_help_examples_export_and_reading_commands_need_no_fcntl(tmp_path):
    done = without_fcntl(tmp_path, "--help")
    assert done.returncode == 0 and "solve" in done.stdout, done.stderr
    done = without_fcntl(tmp_path, "examples", "--out", "ex")
    assert done.returncode == 0 and (tmp_path / "ex" / "examples.toml").is_file(), done.stderr
    done = without_fcntl(tmp_path, "export", "--out", "enc", "--puzzle", "rogue")
    assert done.returncode == 0 and (tmp_path / "enc" / "rogue" / "08.smt2").is_file(), done.stderr
    for reading in (("show", RECORD), ("results", RECORD.parent), ("audit", RECORD)):
        done = without_fcntl(tmp_path, *reading)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (reading, done.stderr)
    assert "audit consistent" in done.stdout


@pytest.mark.parametrize("command", [
    ("solve", "rogue", "ex/rogue/08.txt", "--out", "runs"),
    ("solve", "kingtour", "--size", "4", "--out", "runs"),
    ("batch", "ex/examples.toml", "--out", "runs"),
])
def test_a_command_that_writes_a_run_folder_stops_in_one_line_without_fcntl(tmp_path, command):
    assert without_fcntl(tmp_path, "examples", "--out", "ex").returncode == 0
    done = without_fcntl(tmp_path, *command)
    assert done.returncode == 2 and one_error_line(done.stderr) == NO_LOCKS, done.stderr
    assert not (tmp_path / "runs").exists()  # refused before any folder is made


def test_certify_stops_in_one_line_without_fcntl_and_leaves_the_folder_as_it_was(tmp_path):
    import shutil

    copy = tmp_path / RECORD.name
    shutil.copytree(RECORD, copy)
    before = {p.name: p.read_bytes() for p in copy.iterdir()}
    done = without_fcntl(tmp_path, "certify", copy)
    assert done.returncode == 2 and one_error_line(done.stderr) == NO_LOCKS, done.stderr
    assert {p.name: p.read_bytes() for p in copy.iterdir()} == before
