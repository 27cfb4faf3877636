"""scripts/publish_run.py against what a hostile review tried: two publishes of one run at once,
a name that appears while the copy is audited, leftovers in RESULTS_DIR it did not make, options
that are no numbers, and a run folder whose compressed files expand past anything recorded."""

from __future__ import annotations

import gzip
import json
import os
import threading
import tracemalloc
from pathlib import Path

import pytest

from conftest import one_error_line
from test_base_left_out import finished_run, publish_run

MiB = 1 << 20


def results_of(cli) -> Path:
    results = cli.tmp_path / "results"
    results.mkdir(exist_ok=True)
    return results


def publish(cli, run_dir: Path, results: Path, compress=gzip.compress, max_base: int = 0):
    return publish_run.publish(run_dir, results, compress, max_base, 50 * 10 ** 6)


def bomb(path: Path, mib: int) -> None:
    """A gzip file of `mib` MiB of zeros, written a MiB at a time (about a thousandth of that on disk)."""
    path.unlink(missing_ok=True)
    with gzip.open(path, "wb") as out:
        for _ in range(mib):
            out.write(bytes(MiB))


# ----------------------------------------------------------------------- two publishes of one run
def test_two_publishes_at_once_one_wins_whole_the_other_fails_in_one_line(cli, monkeypatch):
    """Both copies are made and audited at the same time (the audit waits for the other's): exactly
    one takes the name, with every file a lone publish writes, and the other is refused in one
    line, its scratch folder gone. (Sharing one scratch folder, the second deleted the first's
    copy, the first published the second's half-written one and the second died in a traceback.)"""
    run_dir = finished_run(cli)
    assert cli("certify", run_dir)[0] == 0
    (cli.tmp_path / "alone").mkdir()
    alone = publish(cli, run_dir, cli.tmp_path / "alone", max_base=10 ** 9)
    expected = {p.name: gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes() for p in alone.iterdir()}
    results = results_of(cli)
    both_copied = threading.Barrier(2)
    check = publish_run._check

    def waiting_check(*args):
        both_copied.wait(timeout=60)  # each copy's audit starts once both copies are made
        return check(*args)

    monkeypatch.setattr(publish_run, "_check", waiting_check)
    outcomes = []

    def one():
        try:
            outcomes.append(publish(cli, run_dir, results, max_base=10 ** 9))
        except BaseException as exc:  # noqa: BLE001 - what each one ended in is the test
            outcomes.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    cli.capsys.readouterr()
    won = [o for o in outcomes if isinstance(o, Path)]
    lost = [o for o in outcomes if not isinstance(o, Path)]
    assert len(won) == 1 and len(lost) == 1, outcomes
    assert isinstance(lost[0], publish_run.Refused) and lost[0].code == 2, repr(lost[0])
    assert "already published" in one_error_line(str(lost[0]))
    copy = won[0]
    assert {p.name: gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
            for p in copy.iterdir()} == expected
    assert [p.name for p in results.iterdir()] == [run_dir.name]  # no scratch folder left
    code, out, err = cli("audit", copy, "--proof", "--json")
    assert code == 0 and json.loads(out)["verdict"] == "clean", err


@pytest.mark.parametrize("kind", ["empty folder", "folder", "file", "symlink", "dangling symlink"])
def test_a_name_that_appears_during_the_audit_is_never_replaced(cli, monkeypatch, kind):
    """The final rename never replaces or merges into what took the name meanwhile (os.rename
    replaces an empty folder and fails on a file with a traceback): one line, exit 2, the newcomer
    as it was, the scratch folder removed."""
    run_dir = finished_run(cli)
    results = results_of(cli)
    target = results / run_dir.name
    elsewhere = cli.tmp_path / "elsewhere"
    elsewhere.mkdir()
    check = publish_run._check

    def appearing(*args):
        report = check(*args)
        if kind.endswith("folder"):
            target.mkdir()
            if kind == "folder":
                (target / "run.json").write_text("theirs")
        elif kind == "file":
            target.write_text("theirs")
        else:
            target.symlink_to(elsewhere if kind == "symlink" else cli.tmp_path / "nowhere")
        return report

    monkeypatch.setattr(publish_run, "_check", appearing)
    with pytest.raises(publish_run.Refused) as caught:
        publish(cli, run_dir, results)
    cli.capsys.readouterr()
    assert caught.value.code == 2 and "already published" in one_error_line(str(caught.value))
    assert [p.name for p in results.iterdir()] == [run_dir.name]  # the scratch folder is gone
    if kind == "empty folder":
        assert target.is_dir() and not target.is_symlink() and list(target.iterdir()) == []
    elif kind == "folder":
        assert [p.name for p in target.iterdir()] == ["run.json"] and (target / "run.json").read_text() == "theirs"
    elif kind == "file":
        assert target.read_text() == "theirs"
    else:
        assert target.is_symlink() and list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("kind", ["folder", "symlink", "dangling symlink", "file"])
def test_what_an_older_publish_left_is_never_deleted(cli, kind):
    """A `.NAME.publishing` in RESULTS_DIR that this publish did not make (an interrupted older
    one's, or anything else by that name) stays as it was, and the publish goes through."""
    run_dir = finished_run(cli)
    results = results_of(cli)
    leftover = results / f".{run_dir.name}.publishing"
    kept = cli.tmp_path / "kept"
    kept.mkdir()
    (kept / "proof.lrat.gz").write_bytes(b"recorded elsewhere")
    if kind == "folder":
        leftover.mkdir()
        (leftover / "run.json").write_text("theirs")
    elif kind == "symlink":
        leftover.symlink_to(kept)
    elif kind == "dangling symlink":
        leftover.symlink_to(cli.tmp_path / "nowhere")
    else:
        leftover.write_text("theirs")
    copy = publish(cli, run_dir, results)
    cli.capsys.readouterr()
    assert copy == results / run_dir.name and (copy / "run.json").is_file()
    assert sorted(p.name for p in results.iterdir()) == sorted([leftover.name, run_dir.name])
    assert (kept / "proof.lrat.gz").read_bytes() == b"recorded elsewhere"
    if kind == "folder":
        assert (leftover / "run.json").read_text() == "theirs"
    elif kind == "file":
        assert leftover.read_text() == "theirs"
    else:
        assert leftover.is_symlink()


# ------------------------------------------------------------------------------------------- options
@pytest.mark.parametrize("option, value", [("--max-base", "nan"), ("--max-base", "inf"), ("--max-base", "-1"),
                                           ("--max-base", "many"), ("--cap", "inf"), ("--cap", "nan"),
                                           ("--cap", "0"), ("--cap", "-5"), ("--iterations", "0"),
                                           ("--iterations", "-3"), ("--iterations", "1.5"),
                                           ("--iterations", "99999999999999999999")])
def test_a_bad_option_is_one_line_exit_2(cli, capsys, option, value):
    """Each is refused before anything is read (nan was a ValueError, inf an OverflowError and 0
    iterations a BadGzipFile, each a traceback), naming the option and the value."""
    run_dir = finished_run(cli)
    results = results_of(cli)
    capsys.readouterr()
    with pytest.raises(SystemExit) as caught:
        publish_run.main([str(run_dir), str(results), option, value])
    line = one_error_line(capsys.readouterr().err)
    assert caught.value.code == 2 and option in line and repr(value) in line, line
    assert list(results.iterdir()) == []


# ------------------------------------------------------------------------ what a hostile source costs
def test_a_gzip_bomb_base_is_refused_by_the_audit_before_anything_is_read_or_compressed(cli, capsys):
    """The run folder is audited first, its reads bounded: a base that expands to 200 MiB (200 KB
    on disk) is refused in one line, exit 2, before any file is compressed, in little memory (it
    was read whole and compressed before any audit: 1.25 GB for a 400 MiB bomb)."""
    run_dir = finished_run(cli)
    results = results_of(cli)
    bomb(run_dir / "base.smt2.gz", 200)
    compressed = []

    def compress(text: bytes) -> bytes:
        compressed.append(len(text))
        return gzip.compress(text)

    tracemalloc.start()
    try:
        with pytest.raises(publish_run.LedgerError) as caught:
            publish(cli, run_dir, results, compress, max_base=10 ** 9)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "base formula" in one_error_line(str(caught.value))
    assert compressed == [] and list(results.iterdir()) == []
    assert peak < 100 * MiB, f"{peak:,} bytes at the peak"  # the reader's 64 MiB read buffers
    capsys.readouterr()
    assert publish_run.main([str(run_dir), str(results), "--max-base", "1000"]) == 2
    assert "base.smt2.gz" in one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("name", ["proof.lrat.gz", "certificate.cnf.gz", "reference.lrat.gz"])
def test_a_gzip_bomb_proof_is_hashed_as_a_stream_and_refused_unread(cli, name):
    """The audit (without --proof) never reads the stored proofs: each is hashed as a stream
    against run.json's record before it is read, so a bomb costs no memory and is refused in one
    line naming it (it was read whole, up to 400 MiB, and compressed)."""
    run_dir = finished_run(cli)
    assert cli("certify", run_dir)[0] == 0
    results = results_of(cli)
    bomb(run_dir / name, 200)
    tracemalloc.start()
    try:
        with pytest.raises(publish_run.Refused) as caught:
            publish(cli, run_dir, results)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    cli.capsys.readouterr()
    line = one_error_line(str(caught.value))
    assert caught.value.code == 2 and name in line and "not the one run.json records" in line, line
    assert peak < 100 * MiB, f"{peak:,} bytes at the peak"  # the reader's 64 MiB read buffers
    assert list(results.iterdir()) == []


def test_a_proof_file_run_json_does_not_record_is_not_published(cli):
    """A stored proof is published only as the one run.json records; one it records nothing of is
    refused in one line (it was copied unchecked)."""
    run_dir = finished_run(cli)
    results = results_of(cli)
    with gzip.open(run_dir / "proof.lrat.gz", "wb") as out:
        out.write(b"1 0 0\n")
    with pytest.raises(publish_run.Refused) as caught:
        publish(cli, run_dir, results)
    cli.capsys.readouterr()
    assert caught.value.code == 2 and "records no proof" in one_error_line(str(caught.value))
    assert list(results.iterdir()) == []
    os.unlink(run_dir / "proof.lrat.gz")
    assert publish(cli, run_dir, results).is_dir()
