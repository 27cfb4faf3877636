"""The King's-tour records published in results/, and the symmetry that lets one board stand for two.

Every published record must audit clean with its stored proof checked against the query built
here (the LRAT check, seconds each). The 9x9 number is the seed's; the others have no outside
reference, which is why each carries its proof.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The published runs are the ones results/records.toml names: a run a user writes beside them
# (following the README, say) is not a record and changes nothing here.
MANIFEST = tomllib.loads((ROOT / "results" / "records.toml").read_text())["record"]
RUNS = [ROOT / "results" / entry["folder"] for entry in MANIFEST]
# A listed folder missing from a checkout fails the manifest's tests below, not the collection.
RECORDS = [d for d in RUNS if (d / "run.json").is_file() and json.loads((d / "run.json").read_text())["status"] == "optimal"]
PROVED = [d for d in RECORDS if "proof" in json.loads((d / "run.json").read_text())]  # a stored LRAT proof
SEED_RECORD_9X9 = "999899898789789787876789658767666545355432471632124566352413452143214125313214321"


def instance(run_dir: Path) -> tuple[int, str]:
    run = json.loads((run_dir / "run.json").read_text())
    return run["instance"]["size"], run["instance"]["box"]


def test_the_manifest_says_what_each_published_folder_holds():
    for entry, run_dir in zip(MANIFEST, RUNS):
        run = json.loads((run_dir / "run.json").read_text())
        size, box = instance(run_dir)
        assert (run["puzzle"], run["status"]) == (entry["puzzle"], entry["status"]), entry
        assert entry["board"] == f"{size}x{size}, {box} boxes", entry


def test_the_8x8_record_rests_on_the_rules_too():
    """Its reference proof fits results/ (the others are made by `audit --proof`, see records.toml)."""
    assert [instance(d) for d in RECORDS if "reference_proof" in json.loads((d / "run.json").read_text())] == [(8, "2x4")]


def test_the_records_cover_8_9_10_12_both_ways_14_15_and_16_both_ways():
    assert sorted(instance(d) for d in RECORDS) == [(8, "2x4"), (9, "3x3"), (10, "2x5"), (12, "2x6"), (12, "3x4"),
                                                    (14, "2x7"), (15, "3x5"), (16, "2x8"), (16, "4x4")]
    assert sorted(instance(d) for d in PROVED) == [(8, "2x4"), (9, "3x3"), (10, "2x5"), (12, "3x4")]


CLOSED_BY_CASES = [d for d in RECORDS if "proof" not in json.loads((d / "run.json").read_text())]


def test_the_records_from_12x12_2x6_on_close_by_cases():
    assert sorted(instance(d) for d in CLOSED_BY_CASES) == [(12, "2x6"), (14, "2x7"), (15, "3x5"), (16, "2x8"),
                                                            (16, "4x4")]


@pytest.mark.parametrize("run_dir", CLOSED_BY_CASES, ids=lambda d: "x".join(map(str, instance(d)[:1] * 2)))
def test_a_record_closed_by_its_cases_audits_consistent(cli, run_dir):
    """No proof is stored (results/ has no room for one): the closing claim rests on the recorded
    refutation of each "position i is the first to beat the best", which the audit checks against
    the claim's formula; its ledger is published compressed and its certificate left out. A case
    for each position whose digit some larger one could beat: counted here from the number."""
    from smtpuzzles.puzzles import kingtour

    assert (run_dir / "steps.jsonl.gz").exists() and not (run_dir / "certificate.smt2.gz").exists()
    code, out, err = cli("audit", run_dir, "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "consistent" and report["status"] == "optimal", err
    size, _ = instance(run_dir)
    beatable = sum(int(ch, 36) < size for ch in report["value"])
    assert f"by its {beatable} cases, each refuted before" in out and "left out of this published run" in out
    saved = json.loads((run_dir / "solution.json").read_text())
    board = kingtour.from_canonical(json.loads((run_dir / "run.json").read_text())["instance"])
    assert kingtour.referee(board, saved["solution"]) == []
    assert "".join(kingtour.digits_text(kingtour.value(board, saved["solution"]))) == report["value"]
    assert len(report["value"]) == size * size


@pytest.mark.parametrize("run_dir", PROVED, ids=lambda d: "x".join(map(str, instance(d)[:1] * 2)))
def test_each_record_audits_clean_on_its_stored_proof(cli, run_dir, monkeypatch):
    if "reference_proof" not in json.loads((run_dir / "run.json").read_text()):
        # Not stored (results/ has room for none of them): `audit --proof` would make the reference
        # proof here, minutes of work that scripts/prove_references.py measures; the encoder's
        # stored proof is what this test checks.
        from smtpuzzles.auditing import readback

        monkeypatch.setattr(readback, "reference_query", lambda *args, **kwargs: None)
    code, out, err = cli("audit", run_dir, "--proof", "--json")
    report = json.loads(out)
    assert code == 0 and report["verdict"] == "clean" and report["status"] == "optimal", err
    assert any(e.startswith("LRAT proof stored in the folder") for e in report["evidence"])
    stored = "reference_proof" in json.loads((run_dir / "run.json").read_text())
    assert any(e.startswith("LRAT proof of the reference formula stored") for e in report["evidence"]) == stored
    assert ("the kingtour reference encoding, from the rules alone" in report["rests_on"]) == stored
    size, _ = instance(run_dir)
    assert len(report["value"]) == size * size
    if size == 9:
        assert report["value"] == SEED_RECORD_9X9


UNFINISHED = [d for d in RUNS if json.loads((d / "run.json").read_text())["status"] in ("interrupted", "unknown")]


def test_the_long_run_published_unfinished_is_the_18x18_one():
    assert sorted(instance(d) for d in UNFINISHED) == [(18, "3x6")]


@pytest.mark.parametrize("run_dir", UNFINISHED, ids=lambda d: "x".join(map(str, instance(d)[:1] * 2)))
def test_each_unfinished_run_claims_nothing_and_its_best_number_passes_the_referee(cli, run_dir):
    """Published as they stood when stopped: the audit finds the folder intact, every recorded
    model refereed, and no optimality claimed; `show` says where the proof stands, in 80 columns."""
    from smtpuzzles.puzzles import kingtour

    code, out, err = cli("audit", run_dir, "--json")
    report = json.loads(out)
    assert code == 0 and report["status"] in ("interrupted", "unknown"), err
    assert ("claims", True, f"status {report['status']}: no optimality claimed") in \
        [(f["section"], f["ok"], f["text"]) for f in report["findings"]]
    saved = json.loads((run_dir / "solution.json").read_text())
    board = kingtour.from_canonical(json.loads((run_dir / "run.json").read_text())["instance"])
    assert kingtour.referee(board, saved["solution"]) == []
    code, out, err = cli("show", run_dir)
    assert code == 0 and "positions" not in err and max(len(line) for line in out.splitlines()) <= 80


def test_transposed_boxes_give_the_same_record(cli):
    """Transposing the board maps 2x4 boxes to 4x2 boxes and king moves to king moves, so the two
    shapes share their record: the README publishes one. Solved here both ways."""
    wide = cli.solve_json("kingtour", "--size", 8, "--box", "2x4", "--engine", "sat", code=0)
    tall = cli.solve_json("kingtour", "--size", 8, "--box", "4x2", "--engine", "sat", code=0)
    assert wide["status"] == tall["status"] == "optimal"
    assert wide["value"] == tall["value"]
    published = next(d for d in RECORDS if instance(d) == (8, "2x4"))
    assert json.loads((published / "run.json").read_text())["value"] == wide["value"]


def resumed_briefly(cli, tmp_path, published: Path) -> tuple[dict, list[str], list[str]]:
    """(run.json after, steps before, steps after) of `smtpuzzles solve kingtour --resume` on a copy
    of `published` with a half-second limit: the recorded steps replay, the next check runs out of
    time, and the run ends `unknown` (exit 3) with all it had kept."""
    import shutil

    copy = tmp_path / published.name
    shutil.copytree(published, copy)
    before = (copy / "steps.jsonl").read_text().splitlines()
    code, out, err = cli("solve", "kingtour", "--resume", copy, "--time-limit", "0.5", "--json")
    assert code == 3, err
    run = json.loads((copy / "run.json").read_text())
    after = (copy / "steps.jsonl").read_text().splitlines()
    assert run["status"] == "unknown" and after[: len(before)] == before and len(after) > len(before)
    return run, before, after


def test_a_real_split_run_recorded_climbing_resumes_as_it_was_made(cli, tmp_path, interrupted_12x12):
    """The interrupted 12x12 ledger (conftest): every recorded step replays, climbing as it was
    recorded, and its split checks at depth 1."""
    run, _, _ = resumed_briefly(cli, tmp_path, interrupted_12x12)
    assert run["cubes"] == 1 and "search" not in run


def test_the_readme_records_table_gives_each_published_ledgers_steps():
    """The `steps` column of the README's records table is each published run's ledger, line by
    line, read here from the folders, not from the code that writes them."""
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| board | boxes | number | steps |"):].split("\n\n")[0].splitlines()[2:]
    shown = {(row.split("|")[1].strip(), row.split("|")[2].strip()): int(row.split("|")[4]) for row in table}
    ledgers = {}
    for entry in MANIFEST:
        folder = ROOT / "results" / entry["folder"]
        size, box = instance(folder)
        ledgers[f"{size}x{size}", box] = len(ledger_text(folder).splitlines())
    assert shown == ledgers


def ledger_text(folder: Path) -> str:
    """A published ledger's text, plain or (a finished run's) gzip-compressed."""
    import gzip

    packed = folder / "steps.jsonl.gz"
    return gzip.decompress(packed.read_bytes()).decode() if packed.exists() else (folder / "steps.jsonl").read_text()


def test_every_published_folder_is_tracked_by_git():
    """results/ is ignored but for the folders .gitignore names one by one: a record listed in the
    manifest but not named there stays on the machine that made it, and a clean clone lacks it."""
    named = {line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()}
    assert [e["folder"] for e in MANIFEST if f"!/results/{e['folder']}/" not in named] == []
