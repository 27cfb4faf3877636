"""Start-up of `solve`: what a run loads that its output does not need.

Structural guards, not timings (scripts/bench_rogue.py and scripts/bench_startup.py measure): each
check runs the command in a fresh interpreter and reads `sys.modules` afterwards. `solve --json`
prints no picture, so it must not load rich; the decision that used to ask rich (is stderr a
terminal?) is held here to rich's own answer.
"""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys

import pytest

from smtpuzzles.cli.common import stderr_is_terminal


def modules_after(argv: list[str], tmp_path, stdin: str | None = None) -> tuple[int, str, set[str]]:
    """(exit status, stdout before the probe's line, top-level modules loaded) of `main(argv)` in a
    fresh interpreter, run in `tmp_path`."""
    code = ("import json, sys\nfrom smtpuzzles.cli import main\nstatus = main(%r)\nsys.stdout.flush()\n"
            "print('\\n' + json.dumps([status, sorted({m.split('.')[0] for m in sys.modules})]))" % (argv,))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          input=stdin)
    assert done.returncode == 0, done.stderr
    out, _, last = done.stdout.rstrip("\n").rpartition("\n")
    status, loaded = json.loads(last)
    return status, out, set(loaded)


def test_solve_json_loads_no_rich(tmp_path):
    (tmp_path / "map.txt").write_text("@.$\n")
    status, out, loaded = modules_after(["solve", "rogue", "map.txt", "--json", "--out", "runs"], tmp_path)
    assert status == 0 and json.loads(out)["value"] == 1
    assert "rich" not in loaded


def test_solve_json_of_another_puzzle_loads_no_rich_either(tmp_path):
    status, out, loaded = modules_after(["solve", "kingtour", "--size", "4", "--box", "2x2", "--json", "--out", "runs"],
                                        tmp_path)
    assert status == 0 and json.loads(out)["status"] == "optimal"
    assert "rich" not in loaded


def test_the_guard_can_fail_the_picture_loads_rich(tmp_path):
    """The same run drawn as a picture does load rich: the check above looks where rich would be."""
    (tmp_path / "map.txt").write_text("@.$\n")
    status, out, loaded = modules_after(["solve", "rogue", "map.txt", "--out", "runs"], tmp_path)
    assert status == 0 and "gold taken: 1 of 1" in out
    assert "rich" in loaded


class Stream(io.StringIO):
    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def isatty(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class NoIsatty:
    def write(self, text):
        return len(text)


@pytest.mark.parametrize("stream", [Stream(True), Stream(False), Stream(ValueError("closed")), NoIsatty(), None],
                         ids=["tty", "file", "closed", "no-isatty", "none"])
@pytest.mark.parametrize("environ", [{}, {"TTY_COMPATIBLE": "0"}, {"TTY_COMPATIBLE": "1"}, {"TTY_COMPATIBLE": "x"},
                                     {"FORCE_COLOR": ""}, {"FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "", "FORCE_COLOR": "1"}],
                         ids=str)
def test_stderr_is_a_terminal_exactly_when_rich_says_so(monkeypatch, stream, environ):
    from rich.console import Console

    for name in ("TTY_COMPATIBLE", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stderr", stream)
    assert stderr_is_terminal() is Console(stderr=True).is_terminal


def test_start_up_runs_with_the_collector_paused_and_the_run_with_it_going(tmp_path):
    """`__main__.entry` pauses the cyclic collector for start-up; when the run starts, what start-up
    made is frozen and collection resumes (so a long run still collects its own cycles)."""
    (tmp_path / "map.txt").write_text("@.$\n")
    code = ("import gc, json, sys\nimport smtpuzzles.puzzles.rogue.search as search\nreal = search.reach\nseen = []\n"
            "def reach(dungeon):\n    seen.append([gc.isenabled(), gc.get_freeze_count() > 0])\n    return real(dungeon)\n"
            "search.reach = reach\nimport smtpuzzles.puzzles.rogue.encodings as enc\nenc.reach = reach\n"
            "sys.argv = ['smtpuzzles', 'solve', 'rogue', 'map.txt', '--json', '--out', 'runs']\n"
            "from smtpuzzles.__main__ import entry\nstatus = entry()\n"
            "print(json.dumps([status, seen, gc.isenabled()]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [0, [[True, True]], True]


def test_entry_leaves_the_collector_as_it_found_it(capsys):
    import gc

    from smtpuzzles.__main__ import entry

    assert gc.isenabled()
    argv, ctrl_c = sys.argv, signal.getsignal(signal.SIGINT)
    try:
        sys.argv = ["smtpuzzles", "--version"]
        assert entry() == 0
    finally:  # entry ignores Ctrl-C once the command is done: not for the tests after this one
        sys.argv = argv
        signal.signal(signal.SIGINT, ctrl_c)
    assert gc.isenabled() and capsys.readouterr().out.startswith("smtpuzzles ")
    from smtpuzzles.cli import common

    assert not common.STARTING  # a later main() in this process freezes nothing


class Stdout:
    def __init__(self, fileno):
        self._fileno = fileno

    def fileno(self):
        if isinstance(self._fileno, Exception):
            raise self._fileno
        return self._fileno


@pytest.mark.parametrize("columns", [None, "100", "abc", "0", "-5", " 7"])
@pytest.mark.parametrize("stdout", ["dev-null", "closed", "no-fileno", "none"])
def test_help_is_laid_out_for_the_width_shutil_gives(monkeypatch, tmp_path, columns, stdout):
    """The parser's formatter takes the terminal's width without importing shutil: the same width."""
    import os
    import shutil

    from smtpuzzles.cli.argparsing import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    devnull = open(os.devnull, "w")
    streams = {"dev-null": devnull, "closed": Stdout(ValueError("closed")), "no-fileno": object(), "none": None}
    monkeypatch.setattr(sys, "__stdout__", streams[stdout])
    try:
        assert terminal_columns() == shutil.get_terminal_size().columns
    finally:
        devnull.close()


def test_building_and_parsing_solve_imports_no_shutil():
    code = ("import sys\nfrom smtpuzzles.cli import build_parser\nbuild_parser().parse_args(['solve', 'rogue', '-'])\n"
            "print('shutil' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"
