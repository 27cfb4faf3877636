"""Limits on input and on time: oversized instances, endless inputs and bad time limits are refused
with one line naming the place, exit 2, before anything is encoded or recorded.

The oversized cases run the real command in a subprocess whose address space is capped at 1 GiB:
without the limits each of them grows to gigabytes (MemoryError, a traceback, or a killed process).
The largest accepted sizes are the ones the README documents (measured there), written out here.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from smtpuzzles.errors import InputError
from smtpuzzles.inputs import MAX_INPUT_BYTES, positive_seconds, read_input
from smtpuzzles.puzzles import kingtour, nonary, rogue, tatamibari

from conftest import one_error_line

ROOT = Path(__file__).resolve().parents[1]
MEMORY = 1024 ** 3


def capped(*args, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`smtpuzzles ARGS` in a fresh process limited to MEMORY bytes of address space and 60 s."""
    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    return subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], input=stdin, capture_output=True,
                          timeout=60, preexec_fn=limit_memory, cwd=cwd or ROOT)


def refused(proc: subprocess.CompletedProcess, *fragments: str) -> str:
    line = one_error_line(proc.stderr.decode("utf-8", "replace"))
    assert proc.returncode == 2, proc.stderr
    for fragment in fragments:
        assert fragment in line, line
    return line


# ------------------------------------------------------------------------------------ oversized inputs
def test_huge_puzz_link_url_is_refused_before_any_cell_is_made(tmp_path):
    proc = capped("solve", "tatamibari", "https://puzz.link/p?tatamibari/100000/100000/m3g", "--out", tmp_path / "runs")
    refused(proc, "URL", "100000x100000", "10000 accepted")
    assert not (tmp_path / "runs").exists()


def test_url_with_a_thousand_digit_size_is_refused(tmp_path):
    proc = capped("convert", "https://puzz.link/p?tatamibari/" + "9" * 5000 + "/1/")
    refused(proc, "URL", "far too large")


def test_nonary_map_with_400_doors_is_refused(tmp_path):
    doors = [[9, 0, -1]] + [[1 + i % 8, 0, 0] for i in range(399)]
    proc = capped("solve", "nonary", "-", "--out", tmp_path / "runs", stdin=json.dumps(doors).encode())
    refused(proc, "stdin", "400 doors", "100 accepted")
    assert not (tmp_path / "runs").exists()


def test_kingtour_35_with_5x7_boxes_is_refused(tmp_path):
    proc = capped("solve", "kingtour", "--size", 35, "--box", "5x7", "--out", tmp_path / "runs")
    refused(proc, "--size", "35", "1..18")


@pytest.mark.parametrize("puzzle,cell", [("rogue", "."), ("tatamibari", "*")])
def test_2000_by_2000_grids_are_refused(tmp_path, puzzle, cell):
    grid = tmp_path / "big.txt"
    rows = [cell * 2000] * 2000
    if puzzle == "rogue":
        rows[0] = "@" + cell * 1999
    grid.write_text("\n".join(rows) + "\n")
    proc = capped("solve", puzzle, grid, "--out", tmp_path / "runs")
    refused(proc, str(grid), "2000x2000", "4000000 cells")
    assert not (tmp_path / "runs").exists()


def test_rogue_rows_are_not_padded_before_the_size_check(tmp_path):
    # One long row and a million short ones: padding first would make 2000 x 1000001 cells.
    text = "@" + "." * 1999 + "\n" + ".\n" * 1_000_000
    proc = capped("solve", "rogue", "-", "--out", tmp_path / "runs", stdin=text.encode())
    refused(proc, "stdin", "2000x1000001")


def test_tatamibari_with_too_few_clues_is_refused_before_encoding(tmp_path):
    # 100x100 is within the cell limit, but a single clue allows millions of rectangle cells.
    text = "?" + "*" * 99 + "\n" + ("*" * 100 + "\n") * 99
    proc = capped("solve", "tatamibari", "-", "--out", tmp_path / "runs", stdin=text.encode())
    refused(proc, "stdin", "too few clues")


@pytest.mark.parametrize("puzzle", ["rogue", "nonary", "tatamibari"])
def test_dev_zero_as_input_is_refused_quickly(tmp_path, puzzle):
    proc = capped("solve", puzzle, "/dev/zero", "--out", tmp_path / "runs")
    refused(proc, "/dev/zero", "larger than 4 MiB")


def test_endless_stdin_is_refused_after_the_byte_cap(tmp_path):
    proc = capped("solve", "rogue", "-", "--out", tmp_path / "runs", stdin=b"@" + b"." * (5 * 1024 * 1024))
    refused(proc, "stdin", "larger than 4 MiB")


@pytest.mark.parametrize("data,fragment", [
    (b"@.\xff$\n", "not UTF-8 text (byte 3, line 1)"),
    (b"@.\n.\x00$\n", "NUL character on line 2"),
])
def test_binary_input_is_refused(tmp_path, data, fragment):
    path = tmp_path / "map.txt"
    path.write_bytes(data)
    proc = capped("solve", "rogue", path, "--out", tmp_path / "runs")
    refused(proc, str(path), fragment)


def test_a_folder_as_input_is_refused(tmp_path):
    proc = capped("solve", "rogue", tmp_path, "--out", tmp_path / "runs")
    refused(proc, str(tmp_path), "is a folder")


def test_byte_cap_is_a_few_mebibytes():
    assert MAX_INPUT_BYTES == 4 * 1024 * 1024


# ------------------------------------------------------------------- the largest accepted instances
def test_largest_accepted_instances_load_and_one_more_is_refused():
    """The documented bounds, exactly: accepted at the limit, refused just beyond (load only)."""
    assert kingtour.load(None, "x", {"size": 18}).size == 18
    with pytest.raises(InputError, match="outside 1..18"):
        kingtour.load(None, "x", {"size": 19})

    doors = [[9, 0, -1]] + [[1 + i % 8, i % 20, (i + 1) % 20] for i in range(99)]
    assert len(nonary.load(json.dumps(doors), "x", {}).doors) == 100
    with pytest.raises(InputError, match="101 doors"):
        nonary.load(json.dumps(doors + [[9, 1, -1]]), "x", {})

    row = "$" * 1000
    grid = ["@" + row[1:]] + [row] * 999
    assert rogue.load("\n".join(grid), "x", {}).height == 1000
    with pytest.raises(InputError, match="1001000 cells"):
        rogue.load("\n".join(grid + [row]), "x", {})

    # 100x100 of 1x1 '+' clues: 10,000 cells, each clue's only rectangle its own cell.
    board = tatamibari.load(("+" * 100 + "\n") * 100, "x", {})
    assert (board.height, board.width) == (100, 100)
    with pytest.raises(InputError, match="10100 cells"):
        tatamibari.load(("+" * 100 + "\n") * 101, "x", {})


@pytest.mark.parametrize("label,fragment", [
    ("\ud800", "not valid Unicode text"),
    ("a\nb", "control character"),
    ("x" * 41, "longer than 40 characters"),
    (10 ** 41, "longer than 40 characters"),
    (1.5, "neither an integer nor a string"),
])
def test_odd_room_labels_are_refused(label, fragment):
    with pytest.raises(InputError, match=fragment) as caught:
        nonary.from_doors([[9, 0, -1], [3, 0, label]], "map")
    assert caught.value.where.startswith("map door 1")
    assert len(str(caught.value)) < 200


# --------------------------------------------------------------------------------------- time limits
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "0", "0.0", "-1", "-0.5", "1e999", "x", ""])
def test_time_limit_must_be_finite_and_positive(cli, value):
    runs = cli.tmp_path / "runs"
    code, out, err = cli("solve", "rogue", "-", "--time-limit", value, "--out", runs, stdin="@.$\n")
    line = one_error_line(err)
    assert code == 2 and "--time-limit" in line and out == ""
    assert not runs.exists()  # refused before anything is recorded


def test_a_positive_time_limit_is_accepted(cli):
    result = cli.solve_json("rogue", "-", "--time-limit", "30", stdin="@.$\n")
    assert result["status"] == "optimal" and result["value"] == 1


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1, 0, "nan", True, None, [], "1e400"])
def test_positive_seconds_refuses(value):
    with pytest.raises(InputError) as caught:
        positive_seconds(value, "job x time_limit")
    assert caught.value.where == "job x time_limit"


@pytest.mark.parametrize("value,seconds", [(1, 1.0), (0.25, 0.25), ("2", 2.0), (" 3.5 ", 3.5), ("1e-3", 0.001)])
def test_positive_seconds_accepts(value, seconds):
    assert positive_seconds(value) == seconds


def test_read_input_names_urls_and_stdin():
    assert read_input("https://puzz.link/p?tatamibari/1/1/3") == ("https://puzz.link/p?tatamibari/1/1/3", "URL")
    assert read_input(None) == (None, "input")
