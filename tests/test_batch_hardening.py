"""Batch hardening (issue 14): job names stay inside OUT, a changed job never reports its old answer,
loading problems are one line, count and uniqueness show everywhere, tables fit 80 columns."""

from __future__ import annotations

import re

import json
from pathlib import Path

import pytest
from rich.console import Console

from conftest import one_error_line
from smtpuzzles.batch import collect_results, load_batch, results_table, run_batch, run_batch_cli, summary_table
from smtpuzzles.tables import ProgressBoard

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"
TATAMI = json.loads((EXAMPLES / "tatamibari" / "expected.json").read_text())


def write_jobs(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "jobs.toml"
    path.write_text('[defaults]\nout = "out"\n' + body)
    return path


def summary(tmp_path: Path) -> dict:
    return {r["job"]: r for r in json.loads((tmp_path / "out" / "summary.json").read_text())}


def files_of(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------------------- names stay inside OUT
@pytest.mark.parametrize("name", ["../../x", "/abs/path", "a/b", "", ".hidden", "..", "a b", "x" * 101, "é"])
def test_job_names_that_leave_out_are_refused(cli, tmp_path, name):
    path = write_jobs(tmp_path, f'[[job]]\nname = {json.dumps(name)}\npuzzle = "rogue"\nmap = "@$"\n')
    code, out, err = cli("batch", path)
    line = one_error_line(err)
    assert code == 2
    assert "job name" in line and "letters, digits" in line
    assert not (tmp_path / "out").exists() and not (tmp_path / "x").exists()


def test_a_name_made_from_a_file_name_is_checked_too(cli, tmp_path):
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / "ok.txt").write_text("@$\n")
    (maps / "two words.txt").write_text("@$$\n")
    path = write_jobs(tmp_path, '[[job]]\nname = "r"\npuzzle = "rogue"\ninput = "maps/*.txt"\n')
    code, out, err = cli("batch", path)
    line = one_error_line(err)
    assert code == 2 and "job r" in line and "'r-two words'" in line and "two words.txt" in line
    assert not (tmp_path / "out").exists()


def test_the_split_keeps_the_batch_names_importable():
    from smtpuzzles import cluster

    assert callable(run_batch) and callable(run_batch_cli)
    from smtpuzzles.batch import dask_client

    assert dask_client is cluster.dask_client


def test_longest_plain_name_is_accepted(tmp_path):
    name = "a" + "-b_c.d" * 16 + "e" * 3  # exactly 100 characters
    assert len(name) == 100
    batch = load_batch(write_jobs(tmp_path, f'[[job]]\nname = "{name}"\npuzzle = "rogue"\nmap = "@$"\n'))
    assert Path(batch.jobs[0].folder) == tmp_path / "out" / "jobs" / name


# --------------------------------------------------------------------- a changed job gets a new run
KING = 'puzzle = "kingtour"\nsize = 4\nbox = "2x2"'
CHANGES = [
    ('puzzle = "rogue"\nmap = "@$"', 'puzzle = "rogue"\nmap = "@$$$"', 1, 3),  # the case: 1, then 3
    (KING, KING + '\nengine = "z3"', "4443342132113221", "4443342132113221"),
    (KING, KING + "\nparams = { phases = false }", "4443342132113221", "4443342132113221"),
    ('puzzle = "rogue"\nmap = "@$$"', 'puzzle = "rogue"\nmap = "@$$"\nparams = { random_seed = 7 }', 2, 2),
]


@pytest.mark.parametrize("before,after,old_value,new_value", CHANGES)
def test_a_changed_job_gets_a_new_run_beside_the_old(cli, tmp_path, before, after, old_value, new_value):
    path = write_jobs(tmp_path, f'[[job]]\nname = "j"\n{before}\n')
    code, out, err = cli("batch", path)
    assert code == 0, err
    first = summary(tmp_path)["j"]
    assert first["value"] == old_value
    old_run = Path(first["run_dir"])
    old_files = files_of(old_run)

    path.write_text(path.read_text().replace(before, after))
    code, out, err = cli("batch", path)
    assert code == 0, err
    second = summary(tmp_path)["j"]
    assert second["value"] == new_value and second["status"] == "optimal"
    assert second["note"] == "job changed: new run" and not second.get("skipped")
    assert Path(second["run_dir"]) != old_run
    assert "changed" in out  # the table says so
    runs = sorted(p.parent for p in (tmp_path / "out" / "jobs" / "j").glob("*/run.json"))
    assert len(runs) == 2
    assert files_of(old_run) == old_files  # the old run is never touched

    code, out, err = cli("batch", path)  # unchanged now: the new run is the job's
    third = summary(tmp_path)["j"]
    assert code == 0 and third["skipped"] and third["run_dir"] == second["run_dir"] and third["value"] == new_value


def test_a_changed_mode_is_a_changed_job(cli, tmp_path):
    grid = (EXAMPLES / "tatamibari" / "04.txt").read_text()
    path = write_jobs(tmp_path, f'[[job]]\nname = "t"\npuzzle = "tatamibari"\ngrid = """{grid}"""\nunique = true\n')
    assert cli("batch", path)[0] == 0
    assert summary(tmp_path)["t"]["unique"] is False
    path.write_text(path.read_text().replace("unique = true", "count = true"))
    code, out, err = cli("batch", path)
    row = summary(tmp_path)["t"]
    assert code == 0 and row["note"] == "job changed: new run"
    assert row["count"] == TATAMI["04.txt"]["count"] and row["count_complete"] is True and row["unique"] is None


@pytest.mark.parametrize("damage", ["edit_step", "cut_step", "instance"])
def test_a_broken_ledger_fails_its_job_and_is_left_alone(cli, tmp_path, damage):
    path = write_jobs(tmp_path, '[[job]]\nname = "j"\npuzzle = "rogue"\nmap = "@$$"\n'
                                '[[job]]\nname = "k"\npuzzle = "rogue"\nmap = "@$"\n')
    assert cli("batch", path)[0] == 0
    run_dir = Path(summary(tmp_path)["j"]["run_dir"])
    steps = run_dir / "steps.jsonl"
    if damage == "edit_step":
        steps.write_text(steps.read_text().replace('"sat"', '"unsat"', 1))
    elif damage == "cut_step":
        steps.write_text("".join(steps.read_text().splitlines(keepends=True)[:-1]))
    else:  # run.json names the same instance hash, but the instance was edited
        run = json.loads((run_dir / "run.json").read_text())
        run["instance"]["map"] = ["@$$$"]
        (run_dir / "run.json").write_text(json.dumps(run))
    before = files_of(run_dir)
    code, out, err = cli("batch", path)
    rows = summary(tmp_path)
    assert code == 1
    assert rows["j"]["status"] == "failed" and str(run_dir) in rows["j"]["error"]
    assert "broken ledger" in rows["j"]["error"] or "run.json" in rows["j"]["error"]
    assert rows["k"]["status"] == "optimal" and rows["k"]["skipped"]  # the others go on
    assert files_of(run_dir) == before
    assert len(list((tmp_path / "out" / "jobs" / "j").glob("*/run.json"))) == 1
    assert "job j:" in out and "Traceback" not in out + err


# ------------------------------------------------------------------- loading problems are one line
def bad_file(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes("@$ caf\xe9\n".encode("latin-1"))
    (tmp_path / "folder.txt").mkdir()
    (tmp_path / "outfile").write_text("not a folder\n")


@pytest.mark.parametrize("body,fragment", [
    ('[[job]]\nname = "k"\npuzzle = "kingtour"\nsize = 4\nbox = "2x2"\nclues = "missing.txt"\n', "job k: clues:"),
    ('[[job]]\nname = "u"\npuzzle = "rogue"\ninput = "latin1.txt"\n', "not UTF-8"),
    ('[[job]]\nname = "g"\npuzzle = "rogue"\ninput = "folder*"\n', "job g: input 'folder*' matches a folder"),
    ('[[job]]\nname = "c"\npuzzle = "tatamibari"\ngrid = "+"\ncount = -3\n', "job c: count must be"),
    ('[[job]]\nname = "n"\npuzzle = "rogue"\nmap = "@$"\ntime_limit = nan\n', "job n time_limit"),
    ('[[job]]\nname = "i"\npuzzle = "rogue"\nmap = "@$"\ntime_limit = inf\n', "job i time_limit"),
    ('[[job]]\nname = "z"\npuzzle = "rogue"\nmap = "@$"\ntime_limit = 0\n', "job z time_limit"),
    ('[[job]]\nname = "m"\npuzzle = "rogue"\nmap = "@$"\ntime_limit = -1.5\n', "job m time_limit"),
    ('[defaults]\ntime_limit = -inf\n[[job]]\npuzzle = "rogue"\nmap = "@$"\n', "[defaults] time_limit"),
    ('job = [1, 2]\n', "job #1 must be a table"),
    ('job = "rogue"\n', "job must be written [[job]]"),
    ('[job]\npuzzle = "rogue"\n', "job must be written [[job]]"),
    ('[[job]]\nname = "p"\npuzzle = "rogue"\nmap = "@$"\nparams = { random_seed = [1] }\n', "job p params"),
    ('[[job]]\nname = "q"\npuzzle = "rogue"\nmap = "@$"\nparams = { speed = 3 }\n', "job q params"),
    ('[[job]]\nname = "e"\npuzzle = "rogue"\nmap = "@$"\nengine = "cplex"\n', "job e: engine 'cplex'"),
    ('[[job]]\nname = "x"\npuzzle = "rogue"\nmap = "@$"\nencoding = "posted"\n', "job x: encoding 'posted'"),
    ('[[job]]\nname = "b"\npuzzle = "tatamibari"\ngrid = "+"\nunique = true\ncount = true\n', "job b: ask for unique or count"),
])
def test_loading_problems_are_one_line_naming_job_and_key(cli, tmp_path, body, fragment):
    bad_file(tmp_path)
    path = tmp_path / "bad.toml"
    path.write_text(body if body.startswith("[defaults]") else body + '\n[defaults]\nout = "out"\n')
    code, out, err = cli("batch", path)
    assert code == 2
    assert fragment in one_error_line(err)
    assert not (tmp_path / "out").exists()


def test_out_that_names_a_file_is_one_line(cli, tmp_path):
    bad_file(tmp_path)
    path = tmp_path / "jobs.toml"
    path.write_text('[defaults]\nout = "outfile"\n[[job]]\npuzzle = "rogue"\nmap = "@$"\n')
    code, out, err = cli("batch", path)
    assert code == 2 and "out" in one_error_line(err) and "names a file" in err
    code, out, err = cli("batch", path, "--out", tmp_path / "outfile")
    assert code == 2 and "--out" in one_error_line(err) and "names a file" in err
    assert (tmp_path / "outfile").read_text() == "not a folder\n"


@pytest.mark.parametrize("content", [b"\xff\xfe[[job]]\n", None])
def test_a_job_file_that_is_not_text_or_is_a_folder_is_one_line(cli, tmp_path, content):
    path = tmp_path / "jobs.toml"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    code, out, err = cli("batch", path)
    assert code == 2 and str(path) in one_error_line(err)


# -------------------------------------------------------------------- count and uniqueness show
def test_count_and_uniqueness_show_everywhere(cli, tmp_path):
    grid = EXAMPLES / "tatamibari" / "04.txt"
    path = write_jobs(tmp_path, f'[[job]]\nname = "count"\npuzzle = "tatamibari"\ninput = "{grid}"\ncount = true\n'
                                f'[[job]]\nname = "first5"\npuzzle = "tatamibari"\ninput = "{grid}"\ncount = 5\n'
                                f'[[job]]\nname = "unique"\npuzzle = "tatamibari"\ninput = "{grid}"\nunique = true\n'
                                f'[[job]]\nname = "one"\npuzzle = "tatamibari"\ninput = "{EXAMPLES}/tatamibari/01.txt"\n'
                                'unique = true\n')
    expected = TATAMI["04.txt"]["count"]
    assert expected == 13 and TATAMI["01.txt"]["count"] == 1
    code, out, err = cli("batch", path)
    assert code == 0, err
    rows = summary(tmp_path)
    assert rows["count"]["count"] == expected and rows["count"]["count_complete"] is True
    assert rows["first5"]["count"] == 5 and rows["first5"]["count_complete"] is False
    assert rows["unique"]["unique"] is False and rows["one"]["unique"] is True
    assert f"{expected} solutions" in out and "5+ (limit)" in out and "not unique" in out

    csv_lines = (tmp_path / "out" / "summary.csv").read_text().splitlines()
    header = csv_lines[0].split(",")
    assert {"count", "count_complete", "unique"} <= set(header)
    by_job = {line.split(",")[0]: line for line in csv_lines[1:]}
    assert f",{expected},True," in by_job["count"] and ",5,False," in by_job["first5"]

    code, out, err = cli("results", tmp_path / "out", "--json", "--audit")
    found = {Path(r["run"]).parts[1]: r for r in json.loads(out)}
    assert code == 0 and found["count"]["count"] == expected and found["unique"]["unique"] is False
    # Runs whose answer rests on an UNSAT step audit "consistent" (not re-solved), the others "clean".
    assert {r["audit"] for r in found.values()} == {"clean", "consistent"}
    code, out, err = cli("results", tmp_path / "out", "--audit")
    assert code == 0 and f"{expected} solutions" in out and "not unique" in out
    assert out.count("clean") + out.count("consistent") == 4

    code, out, err = cli("batch", path)  # skipped jobs report the same counts from their ledgers
    rows = summary(tmp_path)
    assert rows["count"]["skipped"] and rows["count"]["count"] == expected and rows["unique"]["unique"] is False


# ------------------------------------------------------------------------------- 80 columns
def rendered(renderable) -> list[str]:
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(renderable)
    return console.export_text().splitlines()


def test_tables_fit_80_columns_one_line_a_row(cli, tmp_path):
    long_name = "a-rather-long-job-name-" + "x" * 60
    rows = [
        {"job": long_name, "puzzle": "kingtour", "status": "optimal", "value": "9" * 81, "seconds": 123.4,
         "note": "job changed: new run", "run_dir": str(tmp_path / ("d" * 70)), "error": None},
        {"job": "t", "puzzle": "tatamibari", "status": "solved", "value": ["12", "34"], "count": 13,
         "count_complete": True, "seconds": 0.2, "note": "done before"},
        {"job": "u", "puzzle": "tatamibari", "status": "interrupted", "value": None, "count": 5,
         "count_complete": False, "seconds": 0.2, "note": "busy elsewhere", "error": "e" * 200},
        {"job": "v", "puzzle": "tatamibari", "status": "solved", "value": ["1"], "unique": False, "seconds": 1.0},
    ]
    lines = rendered(summary_table(rows))
    assert max(map(len, lines)) <= 80
    assert sum(line.startswith("a-rather-long") for line in lines) == 1
    assert any("13 solutions" in line for line in lines) and any("not unique" in line for line in lines)
    assert any("5+ (limit)" in line for line in lines)

    # the live board, with the same rows finished and one still waiting
    path = write_jobs(tmp_path, f'[[job]]\nname = "{long_name}"\npuzzle = "rogue"\nmap = "@$"\n'
                                '[[job]]\nname = "w"\npuzzle = "rogue"\nmap = "@$"\n')
    batch = load_batch(path)
    board = ProgressBoard(batch.jobs)
    board.finish({**rows[0], "job": long_name})
    lines = rendered(board)
    assert max(map(len, lines)) <= 80 and sum(line.startswith("a-rather-long") for line in lines) == 1

    # `results` over real runs with long job names
    assert cli("batch", path)[0] == 0
    lines = rendered(results_table(tmp_path / "out"))
    assert max(map(len, lines)) <= 80
    assert len(collect_results(tmp_path / "out", with_audit=False)) == 2
    # the long name is cut, not the run's start time, which tells one job's runs apart
    long_rows = [line for line in lines if line.startswith("a-rather")]
    assert len(long_rows) == 1 and re.match(r"a-rather\S*… \d{6}\s", long_rows[0]), long_rows


def test_audit_of_a_batchs_folder_audits_every_run_in_it_with_whole_names(cli, tmp_path):
    """`audit runs/*` meets the folder a batch wrote (runs in OUT/jobs/NAME/): its runs are audited,
    each named whole in the table (a name past the column goes on over a second line)."""
    path = write_jobs(tmp_path, '[[job]]\nname = "a"\npuzzle = "rogue"\nmap = "@$"\n'  # tatamibari-HASH-STAMP:
                                f'[[job]]\nname = "b"\npuzzle = "tatamibari"\ninput = "{EXAMPLES}/tatamibari/01.txt"\n')
    assert cli("batch", path)[0] == 0
    runs = sorted(p.parent for p in (tmp_path / "out").glob("jobs/*/*/run.json"))
    assert max(len(run.name) for run in runs) > 34  # past the column: folded
    assert len(runs) == 2
    code, out, err = cli("audit", tmp_path / "out", "--json")
    assert code == 0, err
    assert sorted(Path(r["run_dir"]) for r in json.loads(out)) == runs
    code, out, err = cli("audit", tmp_path / "out")
    lines = [line.strip() for line in out.splitlines()]
    assert code == 0 and "audit of 2 run folders" in out and max(map(len, out.splitlines())) <= 80
    for run in runs:  # named below the folder, whole, perhaps folded: a row starts it, the next goes on
        name = run.relative_to(tmp_path / "out").as_posix()
        row = next(i for i, line in enumerate(lines) if line.startswith(name[:30]))
        assert name in "".join("".join(line.split()[:1]) for line in lines[row:row + 3]), lines
    (tmp_path / "empty").mkdir()
    code, _, err = cli("audit", tmp_path / "empty")  # a folder with no runs at all is refused as before
    assert code == 2 and "not a run folder" in err
