"""A published unfinished run (ledger compressed, base formula left out) made resumable again: its
working copy holds the ledger as steps.jsonl and the base formula rebuilt from the instance, and a
resume of the copy finishes the run with the brute force's optimum. Refusals are one line, exit 2,
with nothing left behind and nothing published touched."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
from pathlib import Path

import pytest

from brute_kingtour import best_overall
from smtpuzzles import puzzles
from smtpuzzles import run as runner
from smtpuzzles.errors import InputError, LedgerError
from smtpuzzles.unpacking import working_copy

ROOT = Path(__file__).resolve().parents[1]
_SPEC = importlib.util.spec_from_file_location("publish_run", ROOT / "scripts" / "publish_run.py")
publish_run = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(publish_run)


def tree_bytes(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def published_unfinished(cli) -> Path:
    """A 4x4 run stopped after three steps, as Ctrl-C would leave it, published without its base."""
    module = puzzles.get("kingtour")
    instance = module.load(None, "options", {"size": 4, "box": "2x2"})
    steps = []

    def stop(step):
        steps.append(step)
        if len(steps) == 3:
            raise KeyboardInterrupt

    outcome, ledger = runner.solve(module, instance, "", out_dir=cli.tmp_path / "runs", on_step=stop)
    assert outcome.status == "interrupted" and ledger.run["steps"] == 3
    results = cli.tmp_path / "results"
    results.mkdir()
    copy = publish_run.publish(ledger.dir, results, gzip.compress, 0, 50 * 10 ** 6)
    cli.capsys.readouterr()
    assert sorted(p.name for p in copy.iterdir()) == ["input.txt", "run.json", "solution.json", "steps.jsonl.gz"]
    return copy


def test_a_published_run_is_refused_by_resume_and_its_working_copy_finishes_it(cli, published_unfinished):
    before = tree_bytes(published_unfinished)
    code, out, err = cli("solve", "kingtour", "--resume", published_unfinished)
    assert code == 2 and "compressed" in err and len(err.strip().splitlines()) == 1, err
    assert tree_bytes(published_unfinished) == before  # refused before a lock file was made in it

    copy = working_copy(published_unfinished, cli.tmp_path / "work")
    assert copy == cli.tmp_path / "work" / published_unfinished.name
    assert sorted(p.name for p in copy.iterdir()) == ["base.smt2.gz", "input.txt", "run.json", "solution.json",
                                                     "steps.jsonl"]
    run = json.loads((copy / "run.json").read_text())
    assert hashlib.sha256(gzip.decompress((copy / "base.smt2.gz").read_bytes())).hexdigest() == run["base"]["sha256"]
    assert (copy / "steps.jsonl").read_bytes() == gzip.decompress((published_unfinished / "steps.jsonl.gz").read_bytes())

    code, out, err = cli("solve", "kingtour", "--resume", copy, "--json")
    result = json.loads(out)
    assert (code, result["status"], result["value"]) == (0, "optimal", "".join(map(str, best_overall(4, 2, 2)))), err
    code, out, err = cli("audit", copy, "--json")
    assert code == 0 and json.loads(out)["verdict"] in ("clean", "consistent"), err
    assert tree_bytes(published_unfinished) == before  # the published folder never written


def test_refusals_name_the_place_and_leave_nothing_behind(cli, published_unfinished):
    work = cli.tmp_path / "work"
    working_copy(published_unfinished, work)
    with pytest.raises(InputError, match="already exists"):
        working_copy(published_unfinished, work)  # never replaced, never merged into
    assert sorted(p.name for p in work.iterdir()) == [published_unfinished.name]

    plain = work / published_unfinished.name
    with pytest.raises(InputError, match="not compressed"):
        working_copy(plain, cli.tmp_path / "again")

    forged = cli.tmp_path / "forged" / published_unfinished.name
    forged.parent.mkdir()
    forged.mkdir()
    for name, data in tree_bytes(published_unfinished).items():
        (forged / name).write_bytes(data)
    run = json.loads((forged / "run.json").read_text())
    run["base"]["sha256"] = "0" * 64  # a base formula today's encoder does not write
    (forged / "run.json").write_text(json.dumps(run))
    with pytest.raises(LedgerError, match="different base formula"):
        working_copy(forged, cli.tmp_path / "out")
    assert list((cli.tmp_path / "out").iterdir()) == []  # the scratch copy removed

    lines = gzip.decompress((published_unfinished / "steps.jsonl.gz").read_bytes()).splitlines(keepends=True)
    forged = cli.tmp_path / "cut" / published_unfinished.name
    forged.parent.mkdir()
    forged.mkdir()
    for name, data in tree_bytes(published_unfinished).items():
        (forged / name).write_bytes(data)
    (forged / "steps.jsonl.gz").write_bytes(gzip.compress(b"".join(lines[:-1])))  # a step cut off
    with pytest.raises(LedgerError, match="seals"):
        working_copy(forged, cli.tmp_path / "out2")
    assert list((cli.tmp_path / "out2").iterdir()) == []


def test_a_finished_published_run_has_nothing_to_resume(cli):
    result = cli.solve_json("kingtour", "--size", 4, "--box", "2x2", code=0)
    results = cli.tmp_path / "results"
    results.mkdir()
    copy = publish_run.publish(Path(result["run_dir"]), results, gzip.compress, 0, 50 * 10 ** 6)
    with pytest.raises(InputError, match="finished"):
        working_copy(copy, cli.tmp_path / "work")
    assert not (cli.tmp_path / "work").exists()


def test_the_unpack_command_says_how_to_resume_and_refuses_in_one_line(cli, published_unfinished):
    work = cli.tmp_path / "work"
    code, out, err = cli("unpack", published_unfinished, "--out", work)
    copy = work / published_unfinished.name
    assert code == 0 and out.splitlines() == [f"unpacked into {copy}",
                                              f"resume it with: smtpuzzles solve kingtour --resume {copy}"], err
    assert max(map(len, out.splitlines())) <= 80 or len(str(copy)) > 40
    code, out, err = cli("solve", "kingtour", "--resume", copy, "--json")
    assert (code, json.loads(out)["status"]) == (0, "optimal"), err
    for args, words in (((published_unfinished, "--out", work), "already exists"),
                        ((copy, "--out", cli.tmp_path / "w2"), "not compressed"),
                        ((cli.tmp_path / "nowhere",), "not a run folder")):
        code, out, err = cli("unpack", *args)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err, (args, err)


def test_an_out_folder_in_the_published_folder_is_refused_and_the_folder_left_as_it_was(cli, published_unfinished):
    before = tree_bytes(published_unfinished)
    link = cli.tmp_path / "link"
    link.symlink_to(published_unfinished)
    for out in (published_unfinished, published_unfinished / "sub", link):
        with pytest.raises(InputError, match="published folder or inside it"):
            working_copy(published_unfinished, out)
    with pytest.raises(InputError, match="published folder itself"):
        working_copy(published_unfinished, published_unfinished.parent)  # resuming it is refused: no loop
    assert tree_bytes(published_unfinished) == before


def test_a_copy_a_kill_left_behind_is_no_run_of_the_listings_and_refusals_name_the_published_files(cli, published_unfinished):
    from smtpuzzles.folders.runfolder import SCRATCH_PREFIX, find_runs

    work = cli.tmp_path / "work"
    copy = working_copy(published_unfinished, work)
    left = work / f"{SCRATCH_PREFIX}abcd1234"  # as a kill between the copy and its rename leaves it
    left.mkdir()
    for path in copy.iterdir():
        (left / path.name).write_bytes(path.read_bytes())
    assert find_runs(work) == ([copy], [])
    code, out, err = cli("results", work, "--json")
    assert code == 0 and len(json.loads(out)) == 1, (out, err)

    cut = cli.tmp_path / "cut" / published_unfinished.name
    cut.mkdir(parents=True)
    for name, data in tree_bytes(published_unfinished).items():
        (cut / name).write_bytes(data)
    lines = gzip.decompress((cut / "steps.jsonl.gz").read_bytes()).splitlines(keepends=True)
    (cut / "steps.jsonl.gz").write_bytes(gzip.compress(b"".join(lines[:-1])))
    with pytest.raises(LedgerError) as caught:
        working_copy(cut, cli.tmp_path / "out3")
    assert caught.value.where == str(cut / "steps.jsonl.gz")  # the user's file, not the removed scratch copy


def test_the_printed_resume_command_can_be_pasted(cli, published_unfinished):
    import shlex

    work = cli.tmp_path / "a folder with spaces"
    code, out, err = cli("unpack", published_unfinished, "--out", work)
    assert code == 0, err
    words = shlex.split(out.splitlines()[1].split(": ", 1)[1])
    assert words == ["smtpuzzles", "solve", "kingtour", "--resume", str(work / published_unfinished.name)]
