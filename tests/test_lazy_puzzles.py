"""A built-in puzzle's `solve` loads that puzzle alone, and changes nothing it says or accepts.

`puzzles.get` of a built-in skips importlib.metadata's scan and the other puzzles when the
installed entry-point files declare nothing but the built-ins; `solve PUZZLE ...` is parsed with
PUZZLE's options first and again with every puzzle's whenever that parse would print or refuse
anything. Checked here: what a fresh process loads, that a plug-in found through entry points is
still found (also one claiming a built-in's name), when the short cut is allowed, and that the
command line's answers (help, errors, parsed values) are those of the full parser.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from smtpuzzles import puzzles
from smtpuzzles.cli import main
from smtpuzzles.cli import parser as cli_parser

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "plugin"
BOARD = sorted((PLUGIN / "src" / "smtpuzzles_kings" / "examples").glob("*.txt"))[0]
OTHERS = ("smtpuzzles.puzzles.kingtour", "smtpuzzles.puzzles.nonary", "smtpuzzles.puzzles.tatamibari")


def fresh(argv: list[str], cwd: Path, path: list[Path] = ()) -> tuple[int, str, str, set[str]]:
    """(exit status, stdout, stderr, modules loaded) of `main(argv)` in a fresh interpreter with
    `path` first on sys.path (as PYTHONPATH)."""
    code = ("import json, sys\nfrom smtpuzzles.cli import main\nstatus = main(%r)\nsys.stdout.flush()\n"
            "print('\\n' + json.dumps([status, sorted(sys.modules)]))" % (argv,))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*map(str, path), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    out, _, last = done.stdout.rstrip("\n").rpartition("\n")
    status, loaded = json.loads(last)
    return status, out, done.stderr, set(loaded)


def site_with(folder: Path, entries: dict[str, str], name: str = "smtpuzzles_kings") -> Path:
    """A folder holding a dist-info that declares `entries` in the puzzles' group."""
    info = folder / f"{name}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[smtpuzzles.puzzles]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    return folder


def test_a_builtin_solve_loads_neither_the_entry_point_scan_nor_the_other_puzzles(tmp_path):
    (tmp_path / "map.txt").write_text("@.$\n")
    status, out, _, loaded = fresh(["solve", "rogue", "map.txt", "--json", "--out", "runs"], tmp_path)
    assert status == 0 and json.loads(out)["value"] == 1
    assert "importlib.metadata" not in loaded and not loaded & set(OTHERS)
    assert "smtpuzzles.puzzles.rogue" in loaded


def test_solve_help_still_lists_every_puzzle(tmp_path):
    status, out, _, loaded = fresh(["solve", "rogue", "--help"], tmp_path)
    assert status == 0 and set(OTHERS) <= loaded
    for name in puzzles.BUILTIN:
        assert f"\n  {name}" in out


def test_a_plugin_is_found_through_its_entry_point_in_a_fresh_process(tmp_path):
    site = site_with(tmp_path / "site", {"kings": "smtpuzzles_kings"})
    path = [site, PLUGIN / "src"]
    status, out, err, loaded = fresh(["solve", "kings", str(BOARD), "--json", "--out", "runs"], tmp_path, path)
    assert status == 0, err
    assert json.loads(out)["puzzle"] == "kings" and "importlib.metadata" in loaded
    # With a plug-in installed, a built-in's run knows the plug-in's flag as before (the full parse).
    (tmp_path / "map.txt").write_text("@.$\n")
    status, _, err, _ = fresh(["solve", "rogue", "map.txt", "--torus", "--out", "runs"], tmp_path, path)
    assert status == 2 and "rogue takes no such option (kings does)" in err
    status, out, err, loaded = fresh(["solve", "rogue", "map.txt", "--json", "--out", "runs"], tmp_path, path)
    assert status == 0 and json.loads(out)["value"] == 1 and "importlib.metadata" in loaded


def test_a_plugin_claiming_a_builtins_name_is_seen_by_a_builtin_run_too(tmp_path):
    """The short cut must not hide a plug-in: this one makes `rogue` registered twice."""
    site = site_with(tmp_path / "site", {"rogue": "smtpuzzles_kings"})
    (tmp_path / "map.txt").write_text("@.$\n")
    status, _, err, _ = fresh(["solve", "rogue", "map.txt", "--json", "--out", "runs"], tmp_path, [site, PLUGIN / "src"])
    assert status == 2
    assert "'rogue' is installed but left out: registered twice, as smtpuzzles_kings and smtpuzzles.puzzles.rogue" in err


@pytest.fixture
def path_only(monkeypatch):
    """sys.path as the given folders alone (and no finder of distributions but Python's own: one a test
    process may hold means the full scan, test_a_finder_of_distributions_of_its_own_means_the_full_scan)."""
    from importlib.machinery import PathFinder

    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path
                                           if f is PathFinder or not hasattr(f, "find_distributions")])

    def put(*folders) -> bool:
        monkeypatch.setattr(sys, "path", [str(f) for f in folders])
        return puzzles.only_builtins_declared()
    return put


def test_the_short_cut_is_taken_only_when_nothing_but_the_builtins_is_declared(tmp_path, path_only):
    assert path_only(tmp_path / "missing")  # a folder that is not there holds nothing
    assert path_only(site_with(tmp_path / "own", puzzles.BUILTIN, "smtpuzzles"))
    assert path_only(site_with(tmp_path / "own2", puzzles.BUILTIN, "smtpuzzles"), tmp_path / "own")  # twice, alike
    plain = tmp_path / "plain" / "other-1.0.dist-info"
    plain.mkdir(parents=True)
    (plain / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n")
    assert path_only(plain.parent)
    assert not path_only(site_with(tmp_path / "plugin", {"kings": "smtpuzzles_kings"}))
    assert not path_only(site_with(tmp_path / "fewer", dict(list(puzzles.BUILTIN.items())[:3]), "smtpuzzles"))
    assert not path_only(site_with(tmp_path / "more", {**puzzles.BUILTIN, "kings": "smtpuzzles_kings"}, "smtpuzzles"))
    stale = site_with(tmp_path / "stale", {}, "smtpuzzles")
    (stale / "smtpuzzles-0.1.0.dist-info" / "entry_points.txt").write_text("[smtpuzzles.puzzles]\nrogue\n")
    assert not path_only(stale)
    egg = tmp_path / "old.egg"
    egg.mkdir()
    assert not path_only(egg)
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("x-1.0.dist-info/entry_points.txt", "[smtpuzzles.puzzles]\nx = x\n")
    assert not path_only(archive)


def test_a_finder_of_distributions_of_its_own_means_the_full_scan(monkeypatch):
    class Finder:
        @staticmethod
        def find_spec(*args):
            return None

        @staticmethod
        def find_distributions(*args):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    assert not puzzles.only_builtins_declared()


def test_get_hands_out_one_puzzle_object_before_and_after_discovery():
    code = ("import smtpuzzles.puzzles as p\nr = p.get('rogue')\nprint(p.registry().puzzles['rogue'] is r, "
            "p.get('rogue') is r, p.names())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "True True ('kingtour', 'nonary', 'tatamibari', 'rogue')"


MAP = str(ROOT / "smtpuzzles" / "examples" / "rogue" / "01.txt")
TATAMI = str(ROOT / "smtpuzzles" / "examples" / "tatamibari" / "01.txt")
# What the command line prints: each must be the full parser's word for word.
PRINTED = [
    ["solve", "rogue", "--help"], ["solve", "rogue", "-h"], ["solve", "rogue", "--he"], ["solve", "rogue", MAP, "--jsn"],
    ["solve", "rogue", MAP, "--size", "4"], ["solve", "rogue", MAP, "--time-limit", "-1"],
    ["solve", "rogue", MAP, "--engine", "z4"], ["solve", "rogue", MAP, "--cubes", "3"], ["solve", "nosuch", MAP],
    ["solve", "kingtour", "--size"], ["solve", "kingtour", "--size", "x"], ["solve", "rogue", MAP, "--count", "x"],
    ["solve", "rogue", MAP, "extra"], ["solve", "rogue", MAP, "--resume", "nowhere", "--size", "4"],
    ["solve", "kingtour", "--size", "4", "--box", "2x2", "--unique"], ["solve", "tatamibari", TATAMI, "--clues", "x"],
    ["solve", "roge", MAP],
    ["solve", "rogue", MAP, "--b", "5"],  # --budget alone among rogue's flags; --budget or --box among all
]
# What it parses: the same values (a one-puzzle parse leaves the other puzzles' options out).
PARSED = [
    ["solve", "rogue", MAP, "--json", "--time-limit", "5", "--out", "o"], ["solve", "kingtour", "--size", "4", "--box", "2x2"],
    ["solve", "kingtour", "--si", "4"], ["solve", "rogue", MAP, "--js"], ["solve", "tatamibari", TATAMI, "--count"],
    ["solve", "tatamibari", TATAMI, "--count", "3", "--json"], ["solve", "rogue", "-", "--encoding=flow"],
    ["solve", "--json", "rogue", MAP], ["solve", "kingtour", "--size=5", "--clues", "c.txt", "--no-guide"],
    ["solve", "nonary", "--resume", "r", "--budget", "2.5", "--progress", "json"],
]


def both(monkeypatch, capsys, run) -> tuple:
    """`run()`'s (result, stdout, stderr) with the one-puzzle parse, then with the full parser alone."""
    found = []
    for narrow in (True, False):
        if not narrow:
            monkeypatch.setattr(cli_parser, "_solve_one_puzzle", lambda *args: None)
        try:
            result = run()
        except SystemExit as exc:
            result = ("exit", exc.code)
        out, err = capsys.readouterr()
        found.append((result, out, err))
    return found


@pytest.mark.parametrize("argv", PRINTED, ids=" ".join)
def test_what_solve_prints_is_the_full_parsers(argv, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    narrow, full = both(monkeypatch, capsys, lambda: main(argv))
    assert narrow == full
    assert narrow[1] + narrow[2]  # something was printed: help, usage or an error


@pytest.mark.parametrize("argv", PARSED, ids=" ".join)
def test_what_solve_parses_is_the_full_parsers(argv, monkeypatch, capsys):
    narrow, full = both(monkeypatch, capsys, lambda: vars(cli_parser.build_parser().parse_args(argv)))
    assert narrow[1:] == full[1:] == ("", "")
    mine, theirs = narrow[0], full[0]
    assert mine == {k: v for k, v in theirs.items() if k in mine}
    assert all(theirs[k] is None for k in set(theirs) - set(mine))


def test_the_one_puzzle_parse_is_taken(monkeypatch):
    """The comparisons above compare something: a built-in's plain arguments skip the full parser."""
    filled = []
    real = cli_parser._solve_flags
    monkeypatch.setattr(cli_parser, "_solve_flags", lambda solve, only=None: (filled.append(only), real(solve, only))[1])
    parsed = cli_parser.build_parser().parse_args(["solve", "rogue", MAP, "--json"])
    assert parsed.json and [p.NAME for p in filled] == ["rogue"] and not hasattr(parsed, "size")


def test_a_package_whose_entry_points_do_not_parse_is_named_not_a_traceback(tmp_path):
    """Any installed package's entry_points.txt is read by the puzzles' discovery; one with a line
    importlib.metadata cannot parse used to end every listing of the puzzles with a traceback."""
    info = tmp_path / "site" / "junk-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: junk\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[console_scripts]\nthis line has no equals\n")
    status, out, err, _ = fresh(["solve", "--help"], tmp_path, [tmp_path / "site"])
    assert status == 0 and "Traceback" not in err
    assert "(package junk): left out, its entry_points.txt cannot be read" in " ".join(out.split())
    for name in puzzles.BUILTIN:
        assert f"\n  {name}" in out
    status, out, err, _ = fresh(["solve", "nosuch"], tmp_path, [tmp_path / "site"])
    assert status == 2 and "Traceback" not in err and "unknown puzzle 'nosuch'" in err
