"""examples/plugin, a puzzle from another package, through every command, on a fresh clone.

Nothing is installed: the plugin's source and a dist-info folder holding the entry point its
pyproject.toml declares are put on the path, so the registry finds it through importlib.metadata
exactly as it finds an installed package (and so do worker processes, through PYTHONPATH).
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import put_on_path
from smtpuzzles import puzzles

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "plugin"
BOARDS = sorted((PLUGIN / "src" / "smtpuzzles_kings" / "examples").glob("*.txt"))
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# The plugin with every optional hook taken away: what a first draft of a puzzle might be.
BARE = '''
import smtpuzzles_kings as _kings

NAME = "barekings"
for _hook in ("ENCODINGS", "DEFAULT_ENGINE", "MODES", "LIMITS", "load", "canonical", "from_canonical", "encode",
              "referee", "value", "value_json", "render"):
    globals()[_hook] = getattr(_kings, _hook)
'''


@pytest.fixture
def plugin(tmp_path_factory, monkeypatch):
    site = tmp_path_factory.mktemp("site")
    info = site / "smtpuzzles_kings-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: smtpuzzles-kings\nVersion: 0.1.0\n")
    declared = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]["entry-points"]["smtpuzzles.puzzles"]
    entries = {**declared, "barekings": "bare_kings"}
    (info / "entry_points.txt").write_text("[smtpuzzles.puzzles]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    (site / "bare_kings.py").write_text(BARE)
    put_on_path(monkeypatch, site, PLUGIN / "src")
    found = puzzles.reset()
    assert {"kings", "barekings"} <= set(found.puzzles) and not found.failed, found.failed
    yield site
    monkeypatch.undo()
    importlib.invalidate_caches()
    puzzles.reset()


def test_solve_help_lists_the_plugin_and_its_option(plugin, cli):
    code, out, err = cli("solve", "--help")
    assert code == 0 and re.search(r"^  kings\s+the most kings on a board with holes", out, re.M)
    assert "--torus" in out and "kings: the board wraps around at its edges" in " ".join(out.split())


def test_solve_audit_show_results_and_export_work_on_the_plugin(plugin, cli, tmp_path):
    import smtpuzzles_kings as kings

    runs = tmp_path / "runs"
    result = cli.solve_json("kings", BOARDS[2])
    board = kings.load(BOARDS[2].read_text(), BOARDS[2].name, {})
    assert result["status"] == "optimal" and kings.referee(board, result["solution"]) == []
    torus = cli.solve_json("kings", BOARDS[0], "--torus")
    assert torus["status"] == "optimal" and torus["value"] == 1  # on a 3x3 torus every cell touches every other

    code, out, err = cli("audit", result["run_dir"], "--resolve", "--solver", "z3", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean" and report["value"] == result["value"], err

    code, out, err = cli("show", result["run_dir"])
    assert code == 0 and out.count("K ") == result["value"] and "breaks the rules" not in out

    code, out, err = cli("results", runs, "--json", "--audit")
    rows = {row["value"]: row for row in json.loads(out)}
    assert code == 0 and rows[result["value"]]["instance"] == kings.describe(board)
    assert rows[1]["instance"].endswith("torus") and rows[1]["audit"] in ("clean", "consistent")

    code, out, err = cli("export", "--puzzle", "kings", "--out", tmp_path / "enc")
    assert code == 0 and sorted(p.name for p in (tmp_path / "enc" / "kings").iterdir()) == [b.stem + ".smt2" for b in BOARDS]
    assert not (tmp_path / "enc" / "kingtour").exists()


def test_a_puzzle_without_optional_hooks_works_in_every_command(plugin, cli, tmp_path):
    result = cli.solve_json("barekings", "-", stdin="...\n.#.\n...\n")
    assert result["status"] == "optimal" and result["value"] == 4
    code, out, err = cli("results", tmp_path / "runs", "--json", "--audit")
    [row] = json.loads(out)
    assert code == 0 and row["puzzle"] == "barekings" and row["instance"] == "" and row["audit"] == "consistent"
    code, out, err = cli("show", result["run_dir"])
    assert code == 0 and "Traceback" not in err
    code, out, err = cli("export", "--puzzle", "barekings", "--out", tmp_path / "enc")
    assert code == 0 and out == ""  # no bundled examples: nothing to write


def test_a_plugin_job_file_runs_and_refuses_keys_its_puzzle_lacks(plugin, cli, tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\nname = "k"\npuzzle = "kings"\nboard = "...\\n..."\ntorus = true\n'
                    '[[job]]\nname = "b"\npuzzle = "kings"\ninput = "' + str(BOARDS[1]) + '"\n')
    code, out, err = cli("batch", jobs, "--out", tmp_path / "out", "--jobs", 1)
    rows = {r["job"]: r for r in json.loads((tmp_path / "out" / "summary.json").read_text())}
    assert code == 0 and rows["k"]["status"] == rows["b"]["status"] == "optimal", err
    assert rows["k"]["value"] == 1  # 2x3 torus: every cell touches every other
    jobs.write_text('[[job]]\nname = "s"\npuzzle = "kings"\nboard = "..."\nsize = 4\n')
    code, out, err = cli("batch", jobs, "--out", tmp_path / "out2")
    assert code == 2 and "job s: unknown key 'size'" in err and not (tmp_path / "out2").exists()
    jobs.write_text('[[job]]\nname = "t"\npuzzle = "kings"\nboard = "..."\ntorus = "yes"\n')
    code, out, err = cli("batch", jobs, "--out", tmp_path / "out3")
    assert code == 2 and "job t: torus must be true/false" in err


def test_the_plugins_own_tests_pass(plugin, tmp_path):
    """Its referee table, its answers against exhaustive search, its jobs.toml through `batch`.
    Their temporary folders go under this test's (--basetemp): a session of its own numbered
    folders in the system's pytest-of-USER would, on finishing, delete the oldest beyond pytest's
    three, the folder of the previous run of this whole suite among them (a wheel's venv and
    thousands of runs: 30 s and more of this test, in a run that came after another)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp",
                           str(tmp_path / "plugin-tests"), str(PLUGIN / "tests")],
                          cwd=PLUGIN, capture_output=True, text=True, timeout=600)
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert proc.returncode == 0 and passed and int(passed.group(1)) >= 20, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert not re.search(r"\d+ (failed|skipped|error)", proc.stdout)
