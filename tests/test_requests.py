"""The command line, job files and the Python API agree on every combination of `unique` and
`count`, for every puzzle: the same mode and count limit, or the same refusal. Each front end is
driven as a user drives it (flags parsed by the real parser, a real job file loaded, the API
called), and the expected outcome is written out in the table below, not taken from the resolver."""

from __future__ import annotations

from pathlib import Path

import pytest

import smtpuzzles
from smtpuzzles import puzzles, run as runner
from smtpuzzles.errors import InputError
from smtpuzzles.jobfile import load_batch

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"
JOB_INPUT = {"tatamibari": 'input = "{}"'.format(EXAMPLES / "tatamibari" / "01.txt"),
             "nonary": 'input = "{}"'.format(EXAMPLES / "nonary" / "01.json"),
             "rogue": 'input = "{}"'.format(EXAMPLES / "rogue" / "01.txt"),
             "kingtour": "size = 4"}
CLI_INPUT = {"tatamibari": [EXAMPLES / "tatamibari" / "01.txt"], "nonary": [EXAMPLES / "nonary" / "01.json"],
             "rogue": [EXAMPLES / "rogue" / "01.txt"], "kingtour": ["--size", "4"]}
API_INPUT = {"tatamibari": EXAMPLES / "tatamibari" / "01.txt", "nonary": EXAMPLES / "nonary" / "01.json",
             "rogue": EXAMPLES / "rogue" / "01.txt", "kingtour": {"size": 4}}
BOTH, NEGATIVE = "ask for unique or count, not both", "count must be"

# (unique, count) -> for a puzzle with the modes unique and count, and for one with neither.
TABLE = [
    ((False, None), ("first", None), ("first", None)),
    ((False, False), ("first", None), ("first", None)),
    ((False, True), ("count", None), "has no count mode"),
    ((False, 0), ("count", None), "has no count mode"),
    ((False, 3), ("count", 3), "has no count mode"),
    ((False, -1), NEGATIVE, NEGATIVE),
    ((True, None), ("unique", None), "has no unique mode"),
    ((True, True), BOTH, BOTH),
    ((True, 0), BOTH, BOTH),
    ((True, 2), BOTH, BOTH),
]


class WouldSolve(Exception):
    """Raised where the front end hands its request to the solver."""


def expected(puzzle, with_modes, without):
    want = with_modes if "count" in puzzle.MODES else without
    return (puzzle.MODES[0], want[1]) if isinstance(want, tuple) and want[0] == "first" else want


def outcome(call):
    try:
        return call()
    except InputError as exc:
        return exc.message


def by_job_file(tmp_path, name, unique, count):
    keys = [JOB_INPUT[name]] + ([f"unique = {str(unique).lower()}"] if unique else []) + (
        [] if count is None else [f"count = {str(count).lower()}"])
    path = tmp_path / "jobs.toml"
    path.write_text('[[job]]\nname = "j"\npuzzle = "{}"\n{}\n'.format(name, "\n".join(keys)))
    job = load_batch(path, out=str(tmp_path / "runs")).jobs[0]
    return job.mode, job.options["count_limit"]


def by_command_line(cli, tmp_path, monkeypatch, name, unique, count):
    """The real parser and `solve` command, stopped where it would start solving."""
    asked = {}

    def solve(module, instance, text, **kwargs):
        asked.update(mode=kwargs["mode"], limit=kwargs["limit"])
        raise WouldSolve

    monkeypatch.setattr(runner, "solve", solve)
    flags = (["--unique"] if unique else []) + ([] if count is None or count is False else
                                                ["--count"] if count is True else ["--count", str(count)])
    try:
        code, out, err = cli("solve", name, *CLI_INPUT[name], *flags, "--out", tmp_path / "runs")
    except WouldSolve:
        return asked["mode"], asked["limit"]
    return err.strip().rsplit(": ", 1)[-1] if code == 2 else (code, err)


def by_api(tmp_path, monkeypatch, name, unique, count):
    asked = {}

    def solve(module, instance, text, **kwargs):
        asked.update(mode=kwargs["mode"], limit=kwargs["limit"])
        raise WouldSolve

    monkeypatch.setattr(runner, "solve", solve)
    try:
        smtpuzzles.solve(name, API_INPUT[name], unique=unique, count=count, out=tmp_path / "runs")
    except WouldSolve:
        return asked["mode"], asked["limit"]
    except InputError as exc:
        return exc.message


def agrees(got, want) -> bool:
    return got == want if isinstance(want, tuple) else isinstance(got, str) and want in got


@pytest.mark.parametrize("name", sorted(JOB_INPUT))
@pytest.mark.parametrize("asked,with_modes,without", TABLE)
def test_every_front_end_reads_unique_and_count_alike(cli, tmp_path, monkeypatch, name, asked, with_modes, without):
    puzzle = puzzles.get(name)
    unique, count = asked
    want = expected(puzzle, with_modes, without)
    job = outcome(lambda: by_job_file(tmp_path, name, unique, count))
    api = by_api(tmp_path, monkeypatch, name, unique, count)
    assert agrees(job, want), ("job file", job, want)
    assert agrees(api, want), ("api", api, want)
    if count is False or (count is not None and not isinstance(count, bool) and count < 0):
        return  # a flag cannot say "count = false", and argparse refuses a negative LIMIT itself
    command = by_command_line(cli, tmp_path, monkeypatch, name, unique, count)
    assert agrees(command, want), ("command line", command, want)
