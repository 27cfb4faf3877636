"""The trust base (smtpuzzles/trusted/) is one small place: it runs no solver, imports nothing of
the project but its exception types, and docs/trust.md lists exactly its files with their line
counts, so the list an auditor reads cannot go stale."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRUSTED = ROOT / "smtpuzzles" / "trusted"
ALLOWED = {"smtpuzzles.errors"}  # exception types only
SOLVERS = {"pysat", "pysolvers", "z3", "cvc5", "subprocess", "multiprocessing", "dask", "distributed"}


def imported(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names.append("." * node.level + (node.module or ""))
    return names


def test_the_trust_base_imports_nothing_of_the_project_and_runs_no_solver():
    files = sorted(TRUSTED.glob("*.py"))
    assert {p.name for p in files} >= {"lrat.py", "dimacs.py", "symmetry.py", "cnf.py"}
    for path in files:
        for name in imported(path):
            top = name.split(".")[0]
            assert top not in SOLVERS, (path.name, name)
            if top == "smtpuzzles":
                assert name in ALLOWED or name.startswith("smtpuzzles.trusted"), (path.name, name)
            else:
                assert name.startswith(".") or top in sys.stdlib_module_names, (path.name, name)


def test_the_grep_would_catch_an_import_of_the_project():
    path = TRUSTED / "lrat.py"
    source = path.read_text() + "\nfrom smtpuzzles.formula import Formula\n"
    names = [n for n in imported_text(source) if n.startswith("smtpuzzles") and n not in ALLOWED
             and not n.startswith("smtpuzzles.trusted")]
    assert names == ["smtpuzzles.formula"]


def imported_text(source: str) -> list[str]:
    return [node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom) and node.module]


def test_trust_md_lists_exactly_the_files_with_their_line_counts():
    listed = dict(re.findall(r"^\| `(smtpuzzles/trusted/[a-z_]+\.py)` \| (\d+) \|", (ROOT / "docs" / "trust.md").read_text(),
                             re.M))
    actual = {str(p.relative_to(ROOT)): str(len(p.read_text().splitlines())) for p in sorted(TRUSTED.glob("*.py"))}
    assert listed == actual
