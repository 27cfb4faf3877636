"""`audit DIR` and `results DIR` over folders of runs, attacked: deep trees, loops of links,
unreadable folders, duplicates, names that are not the tool's (from a hostile review)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from smtpuzzles import results
from smtpuzzles.folders import runfolder


def rogue_run(cli, out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    (out.parent / "map.txt").write_text("@$")
    code, _, err = cli("solve", "rogue", out.parent / "map.txt", "--out", out)
    assert code == 0, err
    return next(p.parent for p in out.glob("*/run.json"))


def test_a_tree_deeper_than_the_recursion_limit_is_walked_without_recursion(tmp_path):
    """995 folders deep ended in RecursionError (os.walk recurses on Python 3.11); here the limit is
    lowered instead of the tree made that deep (paths that long are refused by some file systems)."""
    import sys

    deepest = tmp_path.joinpath(*["a"] * 400)
    deepest.mkdir(parents=True)
    (deepest / "run.json").write_text("{}")
    sys.setrecursionlimit(250)
    try:
        found = results.run_folders(tmp_path)
    finally:
        sys.setrecursionlimit(1000)
    assert found == [deepest]


def test_a_loop_of_links_among_the_folders_named_is_a_row_not_a_traceback(cli, tmp_path):
    run = rogue_run(cli, tmp_path / "runs")
    (tmp_path / "loopA").symlink_to(tmp_path / "loopB")
    (tmp_path / "loopB").symlink_to(tmp_path / "loopA")
    code, out, err = cli("audit", tmp_path / "loopA", run)
    assert code == 2 and "Traceback" not in err and "unreadable" in out and run.name in out


def test_a_folder_that_cannot_be_read_is_named_and_fails_the_audit(cli, tmp_path, monkeypatch):
    run = rogue_run(cli, tmp_path / "runs" / "a")
    (tmp_path / "runs" / "locked").mkdir()
    real = os.scandir

    def scandir(path="."):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(runfolder.os, "scandir", scandir)
    code, out, err = cli("audit", tmp_path / "runs")
    assert code == 2 and "locked: the folder cannot be read (Permission denied)" in err
    assert "audit of 2 run folders" in out and "unreadable" in out
    rows = results.collect_results(tmp_path / "runs", with_audit=False)
    assert {row["run"]: row["audit"] for row in rows}["locked"].startswith("unreadable: the folder cannot be read")
    assert run.relative_to(tmp_path / "runs").as_posix() in {row["run"] for row in rows}


def test_each_run_is_audited_once_and_a_table_is_a_json_list(cli, tmp_path):
    run = rogue_run(cli, tmp_path / "runs")
    code, out, _ = cli("audit", tmp_path / "runs", tmp_path / "runs", run, "--json")
    assert code == 0 and [Path(r["run_dir"]).name for r in json.loads(out)] == [run.name]
    code, out, _ = cli("audit", tmp_path / "runs", "--json")  # a folder of runs: a list, even of one
    assert code == 0 and isinstance(json.loads(out), list)
    code, out, _ = cli("audit", run, "--json")  # one run named: its report
    assert code == 0 and json.loads(out)["run_dir"] == str(run)


@pytest.mark.parametrize("name", ["", ])
def test_an_empty_name_is_refused_not_read_as_the_current_folder(cli, name):
    code, _, err = cli("audit", name)
    assert code == 2 and "empty name" in err


def test_results_of_a_run_folder_itself_lists_it(cli, tmp_path):
    run = rogue_run(cli, tmp_path / "runs")
    code, out, err = cli("results", run)
    assert code == 0 and "Traceback" not in err and "rogue" in out and "optimal" in out


def test_labels_keep_the_time_once_escaped_and_measured_in_cells():
    for job in ("j\x01\x02\x03\x04\x05", "日本語日本語日本語", "a-rather-long-job-name"):
        label = results.run_label(f"jobs/{job}/rogue-0123456789-20261203-151237")
        assert label.endswith(" 151237") and "\x01" not in label, label
        from rich.cells import cell_len

        assert cell_len(label) <= results.RUN_WIDTH, label
    assert results.run_label("my-own-folder") == "my-own-folder"


def test_a_run_folders_name_is_read_as_the_ledger_writes_it(cli, tmp_path):
    """From the right, so a puzzle's name may hold '-'; a renamed folder is no run name."""
    from smtpuzzles.folders.runfolder import run_name

    run = rogue_run(cli, tmp_path / "runs")
    puzzle, date, time_of_day, number = run_name(run.name)
    assert (puzzle, number) == ("rogue", 1) and run.name.endswith(f"-{date}-{time_of_day}")
    assert run_name("my-game-0123456789-20261203-141640-12") == ("my-game", "20261203", "141640", 12)
    assert run_name("a-b-99999999999999999999-1") is None and run_name("copy") is None
    assert results.run_label("jobs/j/my-game-0123456789-20261203-141640-12") == "j 141640-12"
