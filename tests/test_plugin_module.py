"""smtpuzzles.plugin holds every name docs/plugins.md tells a plug-in to import, each the very object
of the module the guide says it lives in; smtpuzzles.objective, its older name, gives the same."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import smtpuzzles.objective
import smtpuzzles.plugin

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"


def guide_table() -> list[tuple[str, list[str]]]:
    """(name, the modules it lives in) for each name of the guide's "Where the names come from"."""
    section = GUIDE.read_text(encoding="utf-8").split("## Where the names come from", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names_cell, modules_cell = line.strip("|").split("|")[:2]
            modules = re.findall(r"`(smtpuzzles[\w.]*)`", modules_cell)
            rows += [(name, modules) for name in re.findall(r"`(\w+)`", names_cell)]
    return rows


def test_the_plugin_module_exports_every_name_the_guide_lists_from_its_home():
    rows = guide_table()
    assert len(rows) >= 25 and {"Option", "InlineKey", "Example", "Encoding", "CNF", "Drawing"} <= {n for n, _ in rows}
    for name, modules in rows:
        assert name in smtpuzzles.plugin.__all__, name
        homes = [getattr(importlib.import_module(module), name, None) for module in modules]
        assert getattr(smtpuzzles.plugin, name) in homes, (name, modules)


def test_the_older_name_imports_the_same_objects():
    for name in smtpuzzles.plugin.__all__:
        assert getattr(smtpuzzles.objective, name) is getattr(smtpuzzles.plugin, name), name


def test_the_guides_puzzle_imports_from_the_plugin_module_alone():
    code = GUIDE.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    imports = re.findall(r"^from (smtpuzzles[\w.]*) import", code, re.M)
    assert imports == ["smtpuzzles.plugin"]
