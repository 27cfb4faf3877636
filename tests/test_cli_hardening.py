"""The command line under careless use: the README's own examples, URLs where a file goes, paths that
name the wrong kind of thing, broken pipes, odd JSON, resuming the wrong puzzle, help and typos, and
pictures that fit 80 columns (saved SVGs at their content's width)."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from smtpuzzles.bundled import write_examples
from smtpuzzles.cli import build_parser
from smtpuzzles.puzzles import BUILTIN, kingtour, nonary, rogue, tatamibari
from smtpuzzles.render import print_all, save_svg, summary_panel

from conftest import one_error_line

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "smtpuzzles" / "examples"
README_URL = "https://puzz.link/p?tatamibari/5/5/m3g11i2g31h13g3g"
RECORD = ROOT / "results" / "kingtour-033a4d9697-20261201-094928"


# ------------------------------------------------------------------ an independent Tatamibari count
def brute_tatamibari(rows: list[str]) -> list[list[str]]:
    """Every tiling by backtracking (first empty cell, every rectangle from it), renumbered as the
    seeds print them; written for these tests, sharing nothing with the encoder."""
    h, w = len(rows), len(rows[0])
    grid = [[0] * w for _ in range(h)]
    found = []

    def shape_ok(clue, height, width):
        return clue == "?" or (clue == "+") == (height == width) and (clue != "|" or height > width) \
            and (clue != "-" or width > height)

    def corners_ok():
        return all(len({grid[r][c], grid[r][c + 1], grid[r + 1][c], grid[r + 1][c + 1]}) < 4
                   for r in range(h - 1) for c in range(w - 1))

    def place(label):
        empty = next(((r, c) for r in range(h) for c in range(w) if not grid[r][c]), None)
        if empty is None:
            if corners_ok():
                found.append(canonical(grid))
            return
        top, left = empty
        for bottom in range(top, h):
            if grid[bottom][left]:
                break
            for right in range(left, w):
                if any(grid[r][right] for r in range(top, bottom + 1)):
                    break
                clues = [rows[r][c] for r in range(top, bottom + 1) for c in range(left, right + 1) if rows[r][c] in "+-|?"]
                if len(clues) == 1 and shape_ok(clues[0], bottom - top + 1, right - left + 1):
                    for r in range(top, bottom + 1):
                        grid[r][left:right + 1] = [label] * (right - left + 1)
                    place(label + 1)
                    for r in range(top, bottom + 1):
                        grid[r][left:right + 1] = [0] * (right - left + 1)

    place(1)
    return found


def canonical(grid) -> list[str]:
    names: dict = {}
    symbols = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return ["".join(symbols[names.setdefault(v, len(names))] for v in row) for row in grid]


@pytest.mark.parametrize("name", ["01.txt", "02.txt", "03.txt", "04.txt"])
def test_the_brute_force_agrees_with_the_seed_cases(name):
    expected = json.loads((EXAMPLES / "tatamibari" / "expected.json").read_text())[name]
    rows = [line.strip() for line in (EXAMPLES / "tatamibari" / name).read_text().split("\n") if line.strip()]
    found = brute_tatamibari(rows)
    assert len(found) == expected["count"] and expected["solution"] in found


# ------------------------------------------------------------------------- the README's command line
def readme_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("## Command line", 1)[1].split("\n## ", 1)[0]


def readme_examples() -> list[list[str]]:
    block = readme_section().split("Examples:", 1)[1].split("\n\n", 2)[1]
    return [shlex.split(line.split("  #", 1)[0]) for line in block.splitlines() if line.strip().startswith("smtpuzzles ")]


def test_readme_usage_lines_name_only_real_options():
    usage = readme_section().split("Examples:", 1)[0]
    parser = build_parser()
    current = None
    checked = 0
    for line in usage.splitlines():
        words = line.split()
        if words[:1] == ["smtpuzzles"]:
            current = words[1]
        if current is None:
            continue
        known = {flag for action in parser.commands[current]._actions for flag in action.option_strings}
        for flag in re.findall(r"--[a-z][a-z-]*", line.split("#", 1)[0]):
            assert flag in known, f"README names {flag} for {current}"
            checked += 1
    assert checked >= 12


def test_every_readme_solve_example_runs(cli, tmp_path, monkeypatch):
    examples = readme_examples()
    assert len(examples) == 5 and all(e[:2] == ["smtpuzzles", "solve"] for e in examples)
    monkeypatch.chdir(tmp_path)
    write_examples(tmp_path / "smtpuzzles-examples")  # as the README's `smtpuzzles examples` does
    seen = {}
    for argv in examples:
        args = argv[1:]
        if args[1] == "kingtour" and "--clues" not in args:
            args += ["--time-limit", "0.5"]  # the 12-second record: started here, proved in the README's bench
        code, out, err = cli(*args)
        assert code in (0, 3) and "Traceback" not in err, (argv, err)
        assert code == 0 or "--time-limit" in args
        runs = sorted((tmp_path / "runs").iterdir(), key=os.path.getmtime)  # a user's runs: not results/
        run = json.loads((runs[-1] / "run.json").read_text())
        solution = json.loads((runs[-1] / "solution.json").read_text())["solution"] if code == 0 else None
        seen[args[1] if args[1] != "kingtour" or "--clues" not in args else "clued"] = (run, solution, out)

    run, solution, _ = seen["clued"]
    board = kingtour.from_canonical(run["instance"])
    assert run["status"] == "optimal" and kingtour.referee(board, solution) == [] and solution["grid"][0][0] == 6

    nonary_expected = json.loads((EXAMPLES / "nonary" / "expected.json").read_text())["01.json"]
    assert seen["nonary"][0]["status"] == "optimal" and seen["nonary"][0]["value"] == nonary_expected

    run, solution, out = seen["tatamibari"]
    board = tatamibari.from_canonical(run["instance"])
    found = brute_tatamibari(list(board.rows))
    assert len(found) == 1 and run["extra"]["unique"] is True and canonical(solution["regions"]) == found[0]
    assert "unique  yes" in out

    rogue_expected = json.loads((EXAMPLES / "rogue" / "expected.json").read_text())["08.txt"]
    assert seen["rogue"][0]["value"] == rogue_expected
    svg = (tmp_path / "rogue.svg").read_text()
    assert svg.startswith("<svg") and "…" not in svg


def test_convert_and_export_examples(cli, tmp_path):
    code, out, err = cli("convert", README_URL)
    assert code == 0
    grid = tmp_path / "grid.txt"
    grid.write_text(out)
    code, back, err = cli("convert", grid)
    assert code == 0 and back.strip() == README_URL
    code, out, err = cli("export", "--out", tmp_path / "enc")
    written = sorted(p.relative_to(tmp_path / "enc") for p in (tmp_path / "enc").rglob("*.smt2"))
    assert code == 0 and len(written) == out.count("wrote ") > 20
    first = next(w for w in written if w.parts[0] in BUILTIN)  # a plugin installed beside them has its own
    assert (tmp_path / "enc" / first).read_text() == (ROOT / "encodings" / first).read_text()


def test_solve_takes_pzv_urls_and_refuses_urls_for_file_puzzles(cli):
    pzv = README_URL.replace("https://puzz.link/p?", "http://pzv.jp/p.html?")
    assert cli.solve_json("tatamibari", pzv)["status"] == "solved"
    code, out, err = cli("solve", "rogue", README_URL, "--out", cli.tmp_path / "runs")
    assert code == 2 and "INPUT: rogue reads a file or stdin, not a URL" in one_error_line(err)


# ----------------------------------------------------------------------- paths of the wrong kind
def test_out_naming_a_file_is_refused_before_solving(cli, tmp_path):
    taken = tmp_path / "taken.txt"
    taken.write_text("mine")
    for out in (taken, taken / "below"):
        code, _, err = cli("solve", "rogue", "-", "--out", out, stdin="@.$\n")
        assert code == 2 and f"--out {out}" in one_error_line(err)
    assert taken.read_text() == "mine"


def test_export_out_naming_a_file_is_refused(cli, tmp_path):
    taken = tmp_path / "taken.txt"
    taken.write_text("mine")
    code, out, err = cli("export", "--out", taken)
    assert code == 2 and f"--out {taken}: names a file" in one_error_line(err) and taken.read_text() == "mine"


def test_svg_into_a_missing_folder_is_refused_before_solving(cli, tmp_path):
    runs = tmp_path / "runs"
    code, _, err = cli("solve", "rogue", "-", "--out", runs, "--svg", tmp_path / "nowhere" / "x.svg", stdin="@.$\n")
    assert code == 2 and "--svg" in one_error_line(err) and "does not exist" in err
    assert not runs.exists()  # nothing was solved or recorded
    code, _, err = cli("solve", "rogue", "-", "--out", runs, "--svg", tmp_path, stdin="@.$\n")
    assert code == 2 and "names a folder" in one_error_line(err) and not runs.exists()


@pytest.mark.parametrize("json_output", [True, False])
def test_a_reader_that_stops_early_gets_a_quiet_exit(tmp_path, json_output):
    """`smtpuzzles solve ... | head`: the pipe is closed before anything is written."""
    runs = tmp_path / "runs"
    argv = [sys.executable, "-m", "smtpuzzles", "solve", "rogue", "-", "--out", str(runs)] + (["--json"] if json_output else [])
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()
    proc.stdin.write(b"@.$\n")
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and err == ""
    (run,) = runs.iterdir()
    assert json.loads((run / "run.json").read_text())["status"] == "optimal"


@pytest.mark.parametrize("text,fragment", [
    ('[[9, 0, -1], [3, 0, "\\ud800"]]', "stdin door 1 ([3, 0, \"\\ud800\"]): room label '\\ud800' is not valid Unicode"),
    ('[[9, 0, -1], [3, 0, "a\\u001b[31m"]]', "control character"),
    ("[[9, 0, -1], [NaN, 0, 1]]", "door number nan is outside 1..9"),
    ("[[9, 0, -1], [1e999, 0, 1]]", "door number inf is outside 1..9"),
    ("[[9, 0, -1], [3, 0, " + "7" * 5000 + "]]", "stdin: not usable JSON"),
    ("[" * 100_000, "stdin: not usable JSON: lists nested too deeply"),
    ('{"doors": [[9, 0, -1]]}', "expected a non-empty JSON list"),
    ('[["9", 0, -1]]', "door number '9' is outside 1..9"),
    ("[[9, 0, -1], [3, [0], 1]]", "neither an integer nor a string"),
    ("[[9, 0, -1]] trailing", "not valid JSON: Extra data"),
])
def test_odd_nonary_json_is_one_line(cli, text, fragment):
    code, out, err = cli("solve", "nonary", "-", "--out", cli.tmp_path / "runs", stdin=text)
    line = one_error_line(err)
    assert code == 2 and fragment in line and len(line) < 240
    assert not (cli.tmp_path / "runs").exists()


# -------------------------------------------------------------------------------------- resume
def unknown_kingtour_run(cli) -> Path:
    code, out, err = cli("solve", "kingtour", "--size", 6, "--box", "2x3", "--engine", "z3", "--time-limit", "0.001",
                         "--json", "--out", cli.tmp_path / "runs")
    assert code == 3, err
    return Path(json.loads(out)["run_dir"])


def test_resume_refuses_another_puzzle_and_ignored_options(cli):
    run_dir = unknown_kingtour_run(cli)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    code, _, err = cli("solve", "nonary", "--resume", run_dir)
    line = one_error_line(err)
    assert code == 2 and str(run_dir) in line and "kingtour run, not nonary" in line
    code, _, err = cli("solve", "kingtour", "--resume", run_dir, "--size", 4)
    assert code == 2 and one_error_line(err).startswith("smtpuzzles: error: --size:")
    assert {p.name: p.read_bytes() for p in run_dir.iterdir()} == before  # nothing recorded touched


# ------------------------------------------------------------------------------ help and typos
@pytest.mark.parametrize("command", ["solve", "convert", "export", "batch"])
def test_every_option_and_positional_is_described(command):
    parser = build_parser().commands[command]
    for action in parser._actions:
        assert action.help and action.help.strip(), f"{command} {action.dest} has no help"


def test_help_shows_defaults_within_80_columns(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = cli("solve", "--help")
    assert code == 0 and "(default: runs)" in out and "--time-limit S" in out
    assert max(map(len, out.splitlines())) <= 80
    code, out, _ = cli("batch", "--help")
    assert code == 0 and "(default: 2)" in out
    code, out, _ = cli("--help")
    assert code == 0 and all(name in out for name in ("solve", "convert", "export", "batch"))


@pytest.mark.parametrize("argv,usage,hint", [
    (["solve", "rogue", "-", "--time-limt", "3"], "usage: smtpuzzles solve", "did you mean --time-limit?"),
    (["solve", "rogue", "-", "--jsn"], "usage: smtpuzzles solve", "did you mean --json?"),
    (["export", "--output", "x"], "usage: smtpuzzles export", "did you mean --out?"),
    (["batch", "jobs.toml", "--jbos", "2"], "usage: smtpuzzles batch", "did you mean --jobs?"),
])
def test_a_mistyped_flag_shows_usage_and_the_nearest_flag(cli, argv, usage, hint):
    code, out, err = cli(*argv, stdin="@.$\n")
    assert code == 2 and err.startswith(usage) and hint in err.splitlines()[-1] and "Traceback" not in err


def test_mistyped_command_and_puzzle_get_a_guess(cli):
    code, _, err = cli("solv", "rogue")
    assert code == 2 and "did you mean solve?" in one_error_line(err)
    code, _, err = cli("solve", "rouge", "-", stdin="@.$\n")
    assert code == 2 and "did you mean rogue?" in one_error_line(err)


@pytest.mark.parametrize("argv,fragment", [
    (["solve", "tatamibari", "-", "--count", "-1"], "argument --count: -1 is below the smallest allowed, 0"),
    (["solve", "kingtour", "--size", "0"], "argument --size: 0 is below the smallest allowed, 1"),
    (["solve", "kingtour", "--size", "x"], "argument --size: 'x' is not a whole number"),
    (["batch", "jobs.toml", "--jobs", "0"], "argument --jobs: 0 is below the smallest allowed, 1"),
])
def test_bad_numbers_are_one_line(cli, argv, fragment):
    code, _, err = cli(*argv, stdin="+\n")
    assert code == 2 and fragment in one_error_line(err)


# --------------------------------------------------------------------------------- 80 columns
def rendered(*renderables, width: int = 80) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    print_all(console, renderables)
    return console.export_text().splitlines()


def test_the_81_digit_number_wraps_in_whole_groups():
    run = json.loads((RECORD / "run.json").read_text())
    number = run["value"]
    board = kingtour.from_canonical(run["instance"])
    solution = json.loads((RECORD / "solution.json").read_text())["solution"]
    lines = rendered(kingtour.render(board, solution))
    assert lines[-1] == number  # once whole, unbroken, to copy: the one line past 80 columns
    assert max(map(len, lines[:-1])) <= 80
    heading = next(i for i, line in enumerate(lines) if line.startswith("number"))
    groups = " ".join(lines[heading + 1:-1]).split()
    assert "".join(groups) == number and {len(g) for g in groups} == {9}
    panel = rendered(summary_panel("kingtour", [("status", "optimal"), ("value", number)]))
    assert max(map(len, panel)) <= 80 and "…" not in "".join(panel)
    digits = "".join(re.sub(r"[^0-9]", "", line.split("value", 1)[-1]) for line in panel[1:-1])
    assert digits == number


def test_a_16x16_kingtour_stacks_its_boards_within_80_columns():
    board = kingtour.load(None, "x", {"size": 16})
    grid = [[(r * 4 + r // 4 + c) % 16 + 1 for c in range(16)] for r in range(16)]
    tour = [[r * 16 + (c if r % 2 == 0 else 15 - c) + 1 for c in range(16)] for r in range(16)]
    lines = rendered(kingtour.render(board, {"grid": grid, "tour": tour}))
    assert max(map(len, lines[:-1])) <= 80 and len(lines[-1]) == 256  # the number once whole, to copy
    assert sum(line.count("Sudoku") + line.count("King's tour") for line in lines) == 2


def test_solve_output_fits_80_columns_for_every_example(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    cases = [("nonary", p) for p in sorted((EXAMPLES / "nonary").glob("0*.json"))[:4]]
    cases += [("rogue", EXAMPLES / "rogue" / "08.txt"), ("tatamibari", EXAMPLES / "tatamibari" / "05.txt")]
    for puzzle, path in cases:
        code, out, err = cli("solve", puzzle, path, "--out", cli.tmp_path / "runs")
        assert code == 0, err
        assert max(map(len, out.splitlines())) <= 80, (path, out)


def test_nonary_plan_with_long_labels_fits_80_columns():
    label = "a-room-label-of-exactly-forty-characters"
    game = nonary.load(json.dumps([[3, 0, "[bold]x"], [4, 0, label], [9, label, -1], [9, 0, -1]]), "x", {})
    plan = {"moves": [{"door": 0, "players": [1, 2, 9]}, {"door": 1, "players": [3, 4, 6]}]}
    lines = rendered(nonary.render(game, plan))
    assert max(map(len, lines)) <= 80 and "[bold]x" in "\n".join(lines)  # labels are not rich markup


@pytest.mark.parametrize("size", [20, 30, 60])
def test_tatamibari_pictures_fit_80_columns_up_to_80_cells(size):
    board = tatamibari.load(("+" * size + "\n") * size, "x", {})
    regions = [[r * size + c + 1 for c in range(size)] for r in range(size)]
    lines = rendered(tatamibari.render(board, {"regions": regions}))
    assert max(map(len, lines)) <= 80 and len([line for line in lines if line.strip()]) >= size


def test_wide_maps_are_never_reflowed_and_svgs_take_their_width(tmp_path):
    text = "@" + "." * 118 + "$\n" + "." * 120 + "\n"
    dungeon = rogue.load(text, "x", {})
    picture = rogue.render(dungeon, {"path": [[0, c] for c in range(120)], "closed": []})
    lines = rendered(picture)
    assert len(lines) == 3 and len(lines[0]) == 120  # two map rows and the summary line, whole
    wide, narrow = tmp_path / "wide.svg", tmp_path / "narrow.svg"
    save_svg([picture], str(wide), "wide")
    save_svg([rogue.render(rogue.load("@.$\n", "x", {}), {"path": [[0, 0], [0, 1], [0, 2]], "closed": []})],
             str(narrow), "narrow")
    width = {p: float(re.search(r'viewBox="0 0 ([0-9.]+)', p.read_text()).group(1)) for p in (wide, narrow)}
    assert "…" not in wide.read_text() and width[wide] > 2 * width[narrow]


# ----------------------------------------------------------------------------- repository hygiene
def test_gitignore_keeps_the_record_and_drops_readme_runs():
    if not (ROOT / ".git").exists():
        pytest.fail("run the tests from a git clone")

    def ignored(path: str) -> bool:
        return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0

    assert ignored(".venv/bin/python") and ignored("results/rogue-0123456789-20990101-000000/run.json")
    assert not ignored("results/kingtour-033a4d9697-20261201-094928/run.json")


def test_tatamibari_bench_without_the_shared_data_says_one_line(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_tatamibari.py"),
                           "--data", str(tmp_path / "absent.json")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "absent.json: no such file" in one_error_line(proc.stderr)


def test_an_ascii_terminal_gets_the_picture_without_a_traceback(tmp_path):
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    proc = subprocess.run([sys.executable, "-m", "smtpuzzles", "solve", "nonary", "-", "--out", str(tmp_path / "runs")],
                          input='[[3, 0, "é"], [9, "é", -1]]', capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
    assert proc.returncode == 0 and proc.stderr == "" and "escape plan" in proc.stdout


def test_counts_are_written_with_their_noun_in_the_right_number(cli, tmp_path):
    from smtpuzzles.durations import counted

    assert [counted(n, "check") for n in (0, 1, 2, 12345)] == ["0 checks", "1 check", "2 checks", "12,345 checks"]
    grid = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples" / "tatamibari" / "01.txt"
    code, out, err = cli("solve", "tatamibari", grid, "--out", tmp_path / "runs")  # one check: a model
    assert code == 0, err
    assert "1 step in the ledger" in out and "1 steps" not in out
    from smtpuzzles.live import Progress, checks_text, summary_line
    from smtpuzzles.tables import short

    one = Progress(objective="satisfy", steps=1, checks=1, solver_seconds=0.5)
    assert checks_text(one) == "1 check" and "; 1 check," in summary_line(one)
    assert short(["12"]) == "1 row" and short(["12", "34"]) == "2 rows"


def test_show_prints_a_list_value_as_solve_does(cli, tmp_path):
    """Tatamibari's value is its rows: `solve` prints them one per line, and `show` on the run it
    wrote prints the same lines (it printed the Python list)."""
    grid = EXAMPLES / "tatamibari" / "01.txt"
    code, solved, err = cli("solve", "tatamibari", grid, "--out", tmp_path / "runs")
    assert code == 0, err
    (run_dir,) = (tmp_path / "runs").iterdir()
    code, shown, err = cli("show", run_dir)
    assert code == 0, err
    rows = json.loads((run_dir / "run.json").read_text())["value"]
    assert isinstance(rows, list) and "['" not in shown
    for out in (solved, shown):
        lines = [line.strip(" │") for line in out.splitlines()]
        start = next(i for i, line in enumerate(lines) if line.startswith("value"))
        assert [lines[start].split(None, 1)[1], *lines[start + 1: start + len(rows)]] == rows, out
