"""ruff over the code, the tests, the scripts and the examples, with pyproject.toml's settings, so
that CI (which runs the suite) runs the linter too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "pyproject.toml"


def ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(CONFIG),
                           "--output-format", "concise", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing():
    proc = ruff("smtpuzzles", "tests", "scripts", "examples")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_reports_what_the_settings_forbid(tmp_path):
    """The check can fail: an unused import, and a line one column past the limit (not one at it)."""
    limit = 130
    source = tmp_path / "bad.py"
    source.write_text("import os\n\n" + f"x = '{'a' * (limit - 6)}'\n" + f"y = '{'a' * (limit - 5)}'\n")
    proc = ruff(str(source), cwd=tmp_path)
    assert proc.returncode == 1
    assert "bad.py:1:8: F401" in proc.stdout and "bad.py:4:" in proc.stdout and "E501" in proc.stdout
    assert "bad.py:3:" not in proc.stdout


def test_every_test_the_quick_subset_leaves_out_exists():
    """conftest.SLOW names tests by file and function: a renamed one would silently join the quick subset."""
    from conftest import SLOW

    root = Path(__file__).resolve().parents[1]
    for name in SLOW:
        path, function = name.split("::")
        assert f"def {function}(" in (root / path).read_text(), name
