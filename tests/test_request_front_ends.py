"""One request, three front ends: a bad request is refused by `solve`, a job file and the Python API
with the same words (exit 2 from the commands, an InputError from the API), and a good one is the
same SolveRequest value whichever front end built it. The requests and the expected words and
values are written out below, from the README's and the guide's descriptions, not taken from the
builder; each front end is driven as a user drives it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import smtpuzzles
from smtpuzzles import request, run as runner
from smtpuzzles.errors import InputError
from smtpuzzles.jobfile import load_batch
from smtpuzzles.request import Input, SolveRequest

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"
TATAMIBARI = str(EXAMPLES / "tatamibari" / "01.txt")
ROGUE = str(EXAMPLES / "rogue" / "01.txt")
CLUES = "clues.txt"  # written in the test's folder: a King's tour's clues file

# (puzzle, the request's words, the words every front end refuses it with)
BAD = [
    ("tatamibari", {"input": TATAMIBARI, "unique": True, "count": 3}, "ask for unique or count, not both"),
    ("rogue", {"input": ROGUE, "unique": True}, "rogue has no unique mode"),
    ("kingtour", {"size": 4, "encoding": "nope"}, "encoding 'nope' is not one of onehot-sym, onehot, posted"),
    ("kingtour", {"size": 4, "engine": "zz"}, "engine 'zz' is not one of z3, sat"),
    ("kingtour", {"size": 4, "time_limit": 0}, "is not a finite positive number of seconds"),
    ("kingtour", {"size": 4, "budget": 10 ** 12}, "seconds is longer than a solver can be given"),
    ("kingtour", {"size": 4, "split_after": -1}, "is not 0 or a finite positive number of seconds"),
    ("kingtour", {"size": 4, "encoding": "posted", "cubes": 1},
     "the posted encoding of kingtour cannot split its checks into cubes"),
    ("kingtour", {"input": CLUES, "size": 4, "clues": CLUES}, "give one input, not input and clues"),
    ("kingtour", {"size": 4, "share": -3}, "-3 is below the smallest allowed, 0"),
    ("kingtour", {"size": 4, "cubes": 1, "share": 2}, "share a hard check or split it into cubes, not both"),
]


class WouldSolve(Exception):
    """Raised where a front end hands its request to the solver."""


def flags(words: dict, folder: Path) -> list[str]:
    """The command line that asks `words`."""
    given = [str(folder / words["input"]) if words.get("input") == CLUES else words["input"]] \
        if "input" in words else []
    for key, value in words.items():
        flag = "--" + key.replace("_", "-")
        if key == "input" or value is False:
            continue
        given += [flag] if value is True else [flag, str(folder / value) if value == CLUES else str(value)]
    return given


def job_file(puzzle: str, words: dict, folder: Path) -> Path:
    """A job file with one job that asks `words`."""
    def toml(value):
        return json.dumps(str(folder / value) if value == CLUES else value)

    lines = ["[[job]]", 'name = "j"', f'puzzle = "{puzzle}"'] + [f"{key} = {toml(value)}" for key, value in words.items()]
    path = folder / "jobs.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def api_call(puzzle: str, words: dict, folder: Path, out: Path):
    given = {key: str(folder / value) if value == CLUES else value for key, value in words.items()}
    return smtpuzzles.solve(puzzle, given.pop("input", None), out=out, **given)


@pytest.fixture
def stop_before_solving(monkeypatch):
    """The requests the front ends build, each front end stopped where it would start solving."""
    built = []
    build = request.solve_request

    def recording(*args, **kwargs):
        built.append(build(*args, **kwargs))
        return built[-1]

    def solve(*args, **kwargs):
        raise WouldSolve

    monkeypatch.setattr(request, "solve_request", recording)
    monkeypatch.setattr(runner, "solve", solve)
    return built


@pytest.mark.parametrize("puzzle,words,refusal", BAD, ids=[refusal[:30] for _, _, refusal in BAD])
def test_each_front_end_refuses_a_bad_request_in_the_same_words(cli, tmp_path, stop_before_solving, puzzle, words,
                                                                 refusal):
    (tmp_path / CLUES).write_text(". . . .\n" * 4)
    out = tmp_path / "runs"
    code, _, err = cli("solve", puzzle, *flags(words, tmp_path), "--out", out)
    assert code == 2 and refusal in err and len(err.strip().splitlines()) == 1, ("solve", err)
    code, _, err = cli("batch", job_file(puzzle, words, tmp_path), "--out", out)
    assert code == 2 and refusal in err and "job j" in err and len(err.strip().splitlines()) == 1, ("batch", err)
    with pytest.raises(InputError) as caught:
        api_call(puzzle, words, tmp_path, out)
    assert refusal in str(caught.value) and "\n" not in str(caught.value)
    assert not stop_before_solving and not out.exists()  # refused before any request was made, nothing written


def test_the_input_is_named_as_each_front_end_takes_it(cli, tmp_path, stop_before_solving):
    """The place of "give one input" is the second input as the user wrote it."""
    (tmp_path / CLUES).write_text(". . . .\n" * 4)
    words = {"input": CLUES, "size": 4, "clues": CLUES}
    assert cli("solve", "kingtour", *flags(words, tmp_path))[2].startswith("smtpuzzles: error: --clues: give one input")
    with pytest.raises(InputError) as caught:
        api_call("kingtour", words, tmp_path, tmp_path / "runs")
    assert caught.value.where == "solve(clues=...)"
    with pytest.raises(InputError) as caught:
        load_batch(job_file("kingtour", words, tmp_path), out=str(tmp_path / "runs"))
    assert caught.value.where == f"{tmp_path / 'jobs.toml'} job j clues"


# (puzzle, the request's words, the SolveRequest they make, the out folder left to the test)
GOOD = [
    ("tatamibari", {"input": TATAMIBARI, "count": 3, "engine": "sat", "encoding": "rectangles", "time_limit": 30,
                    "budget": 100},
     SolveRequest("tatamibari", Input("file", TATAMIBARI, TATAMIBARI, "input"), {}, "count", 3, "sat", "rectangles",
                  30.0, 100.0)),
    ("kingtour", {"size": 4, "box": "2x2", "cubes": 1, "split_after": 2},
     SolveRequest("kingtour", Input("none"), {"size": 4, "box": "2x2"}, "optimise", None, cubes=1, split_after=2.0)),
    ("kingtour", {"size": 6, "share": 3, "split_after": 0},
     SolveRequest("kingtour", Input("none"), {"size": 6, "box": None}, "optimise", None, split_after=0.0, share=3)),
    ("rogue", {"input": ROGUE, "encoding": "regions"},
     SolveRequest("rogue", Input("file", ROGUE, ROGUE, "input"), {}, "optimise", None, encoding="regions")),
]


@pytest.mark.parametrize("puzzle,words,want", GOOD, ids=[puzzle for puzzle, _, _ in GOOD])
def test_a_good_request_is_the_same_value_from_each_front_end(cli, tmp_path, stop_before_solving, puzzle, words, want):
    out = tmp_path / "runs"
    want = SolveRequest(**{**want.__dict__, "out": out})
    with pytest.raises(WouldSolve):
        cli("solve", puzzle, *flags(words, tmp_path), "--out", out)
    with pytest.raises(WouldSolve):
        api_call(puzzle, words, tmp_path, out)
    by_command_line, by_api = stop_before_solving
    by_job = load_batch(job_file(puzzle, words, tmp_path), out=str(out)).jobs[0].request
    assert by_command_line == want and by_api == want and by_job == want
