"""Hostile inputs found by a review of the new front ends, each one line (exit 2) or an InputError,
never a hang or a traceback: a FIFO nobody writes, a path no file name can hold, a one-line puzzle
longer than a file name may be, a float depth, more workers than a check may be shared out to."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import smtpuzzles
from smtpuzzles.errors import InputError

ROOM_A, ROOM_B = ("hall_of_the_first_door_" + c * 16 for c in "ab")
# A Nonary map whose room names make its one line longer than a file name may be (255 bytes).
ONE_LINE_MAP = json.dumps([[6, 0, ROOM_A], [3, 0, ROOM_A], [4, ROOM_A, ROOM_B], [5, ROOM_A, ROOM_B], [9, ROOM_B, -1]])


def test_a_fifo_nobody_writes_is_an_empty_input_not_a_hang(cli, tmp_path):
    fifo = tmp_path / "map"
    os.mkfifo(fifo)
    code, _, err = cli("solve", "rogue", fifo, "--out", tmp_path / "runs")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "empty" in err
    with pytest.raises(InputError):
        smtpuzzles.solve("rogue", fifo, out=tmp_path / "runs")


def test_a_pipe_with_a_writer_is_read_to_its_end(cli, tmp_path):
    read, write = os.pipe()
    os.write(write, b"@.$\n")
    os.close(write)
    code, out, err = cli("solve", "rogue", f"/dev/fd/{read}", "--out", tmp_path / "runs", "--json")
    os.close(read)
    assert code == 0, err
    assert json.loads(out)["value"] == 1


@pytest.mark.parametrize("path", ["a\0b", "\ud800"])
def test_a_path_no_file_name_can_hold_is_one_error(tmp_path, path):
    with pytest.raises(InputError, match="no file name can hold"):
        smtpuzzles.solve("rogue", Path(path), out=tmp_path / "runs")


def test_an_out_folder_no_file_name_can_hold_is_one_error(tmp_path):
    (tmp_path / "map.txt").write_text("@$\n")
    with pytest.raises(InputError, match="folder's name cannot hold"):
        smtpuzzles.solve("rogue", tmp_path / "map.txt", out="\ud800")


def test_a_job_whose_clues_path_holds_a_nul_is_one_line(cli, tmp_path):
    jobs = tmp_path / "jobs.toml"
    jobs.write_text('[[job]]\npuzzle = "kingtour"\nsize = 4\nbox = "2x2"\nclues = "a\\u0000b"\n')
    code, _, err = cli("batch", jobs, "--out", tmp_path / "runs")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "no file name can hold" in err


def test_a_one_line_puzzle_longer_than_a_file_name_is_read_as_the_puzzle(tmp_path):
    as_text = smtpuzzles.solve("nonary", ONE_LINE_MAP, out=tmp_path / "a")
    (tmp_path / "map.json").write_text(ONE_LINE_MAP)
    as_file = smtpuzzles.solve("nonary", tmp_path / "map.json", out=tmp_path / "b")
    assert len(ONE_LINE_MAP) > 255 and (as_text.status, as_text.value) == (as_file.status, as_file.value)


def test_a_float_depth_is_refused_before_a_folder_its_reader_refuses(tmp_path):
    with pytest.raises(InputError, match="cubes must be a depth"):
        smtpuzzles.solve("kingtour", size=4, box="2x2", cubes=1.0, out=tmp_path / "runs")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_more_workers_than_a_check_may_be_shared_out_to(cli, tmp_path):
    code, _, err = cli("solve", "kingtour", "--size", 4, "--share", 2 ** 40, "--out", tmp_path / "runs")
    assert code == 2 and "more than the 1024" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(InputError, match="more than the 1024"):
        smtpuzzles.solve("kingtour", size=4, box="2x2", share=1025, out=tmp_path / "runs")
