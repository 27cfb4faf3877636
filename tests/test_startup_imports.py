"""Start-up: the command line loads the solvers, Dask and the web page only when a command uses them.

A structural guard, not a timing (scripts/bench_startup.py measures): each check runs in a fresh
interpreter and reads `sys.modules`.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("z3", "pysat", "cvc5", "dask", "distributed", "flask", "pygal")


def loaded_after(code: str) -> set[str]:
    """The heavy top-level packages in `sys.modules` once `code` has run in a fresh interpreter."""
    probe = code + f"\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_building_the_parser_loads_no_solver_dask_or_web_page():
    assert loaded_after("from smtpuzzles.cli import build_parser\nbuild_parser()") == set()


@pytest.mark.parametrize("argv", [["audit", "--help"], ["batch", "--help"], ["--version"], ["show", "/nonexistent"]])
def test_a_command_that_needs_no_puzzle_loads_none_of_them(argv):
    code = f"from smtpuzzles.cli import main\nmain({argv!r})"  # its output comes before the probe's last line
    assert loaded_after(code) == set()


def test_importing_the_package_and_the_entry_point_loads_none_of_them():
    assert loaded_after("import smtpuzzles, smtpuzzles.__main__, smtpuzzles.cli") == set()


def test_the_command_line_runs_with_its_output_in_memory(capsys, monkeypatch):
    """A caller that points sys.stdout at a StringIO (whose encoding is None) gets the output, not an
    AttributeError."""
    import io
    import sys

    from smtpuzzles.cli import main

    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buffer)
    assert main(["--version"]) == 0
    assert buffer.getvalue().startswith("smtpuzzles ")


def test_loading_the_puzzles_loads_no_solver():
    """Every --help loads the installed puzzles; none of them may load a SAT or SMT solver to be listed."""
    import subprocess
    import sys

    code = ("import sys; import smtpuzzles.puzzles as p; p.registry(); "
            "print(sorted(m for m in ('pysat', 'pysolvers', 'z3', 'cvc5', 'dask') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
