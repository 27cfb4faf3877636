"""The README followed as a new user follows it: every command it shows, in its order, in a fresh
copy of the checkout, and then its test command must still pass.

The suite cannot run itself from inside itself, so "the tests still pass" is checked as what it
amounts to: nothing the tests read (results/, tests/, scripts/, smtpuzzles/examples/) is changed by
the README's commands. Where the README says a command takes minutes (the re-solves, the 16x16
resume), it is run with a short `--time-limit` and may end `unknown` (exit 3); everything else must
succeed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Commands the README says take minutes: run briefly, with a time limit of their own.
BRIEFLY = ("--resolve", "--resume")
SETUP = ("python3 -m venv", ". .venv/bin/activate", "pip install")  # done already: CI installed the project
TEST_COMMAND = "python -m pytest -q -n 2"


def readme_commands() -> list[str]:
    """Every shell command the README shows, in order: indented lines outside the usage synopsis
    and the TOML snippets, with comments dropped and `&&` chains split."""
    commands, in_usage = [], False
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            # The usage synopsis and the Python examples (tests/test_api.py runs those) are no commands.
            in_usage = line.startswith(("## Command line", "## Using from Python"))
        if in_usage and line.startswith("Examples:"):
            in_usage = False
        if not line.startswith("    ") or in_usage or line.startswith(("     ", "    [")) or " = " in line:
            continue
        text = line.strip().split("  #", 1)[0].strip()
        for part in text.split(" && "):
            if not part.startswith(SETUP):
                commands.append(part)
    return commands


def fingerprint(root: Path) -> dict[str, str]:
    """What the tests read: every file under results/, tests/, scripts/ and the bundled examples, by content."""
    out = {}
    for top in ("results", "tests", "scripts", "smtpuzzles/examples"):
        for path in sorted((root / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and ".hypothesis" not in path.parts:
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def test_the_readme_lists_its_commands_in_the_order_a_reader_meets_them():
    commands = readme_commands()
    assert commands[:3] == ["smtpuzzles examples", "smtpuzzles batch smtpuzzles-examples/examples.toml", TEST_COMMAND]
    assert "smtpuzzles solve kingtour --size 9 --box 3x3" in commands
    assert any(c.startswith("smtpuzzles audit results/kingtour-033a4d9697-20261201-094928") for c in commands)
    assert not any(re.search(r"\b[A-Z_]{4,}\b", c) for c in commands), commands  # no placeholders left


@pytest.mark.slow
def test_following_every_readme_command_in_order_leaves_the_tests_what_they_read(tmp_path):
    copy = tmp_path / "checkout"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, tracked):
        target = copy / name.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name.decode(), target)
    before = fingerprint(copy)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}", "HOME": str(tmp_path)}
    ran = []
    for command in readme_commands():
        if command == TEST_COMMAND:
            assert fingerprint(copy) == before, f"after {ran}"
            continue
        if command.startswith("smtpuzzles") and any(flag in command.split() for flag in BRIEFLY):
            command += " --time-limit 1"
        done = subprocess.run(command, shell=True, cwd=copy, env=env, capture_output=True, text=True, timeout=300)
        allowed = (0, 3) if "--time-limit 1" in command else (0,)
        assert done.returncode in allowed, (command, done.stdout[-1500:], done.stderr[-1500:])
        assert "Traceback" not in done.stderr, (command, done.stderr)
        ran.append(command)
    after = fingerprint(copy)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"the README's commands changed what the tests read: {changed[:10]}"
    assert (copy / "runs").is_dir() and any((copy / "runs").iterdir())  # the user's runs went to runs/
    assert len(ran) >= 10, ran
