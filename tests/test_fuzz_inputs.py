"""Fuzzing every puzzle's input: arbitrary text, arbitrary bytes and mutations of the example inputs.

In-process, a puzzle's `load` either returns an instance or raises InputError, never anything else.
Through the command line (in-process, with a time limit), a mutated input ends in exit 0, 2 or 3 and
a refusal is one line on stderr. Memory is bounded by the size limits, which tests/test_limits.py
checks in subprocesses under an address-space cap.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from smtpuzzles.cli import main
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import decode_text
from smtpuzzles.puzzles import kingtour, nonary, rogue, tatamibari

EXAMPLES = Path(__file__).resolve().parents[1] / "smtpuzzles" / "examples"
FAST = settings(max_examples=150, deadline=None)
SOLVES = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ODD = ["\n", "\r", " ", "\t", "\x00", "\ufeff", "\u2028", "é", "\ud800", "\x1b"]
KINGTOUR_CLUES = ["1 . | . .\n. . | . 3\n----+----\n. 4 | . .\n. . | 2 .\n", "....\n....\n....\n....\n",
                  "12..\n..12\n....\n....\n"]


def examples(puzzle: str) -> list[str]:
    if puzzle == "kingtour":
        return KINGTOUR_CLUES
    return [p.read_text(encoding="utf-8") for p in sorted((EXAMPLES / puzzle).iterdir()) if p.name != "expected.json"]


SYMBOLS = {
    "kingtour": list("0123456789.|-+*_xA") + ODD,
    "nonary": list('[]0123456789,-" .e+') + ["9", "-1", '"a"', "null", "true", "NaN", "1e999", "[9,0,-1]"] + ODD,
    "tatamibari": list("+-|?*._x") + ["https://puzz.link/p?tatamibari/3/3/"] + ODD,
    "rogue": list("@$#. agZ*&%") + ODD,
}
MODULES = {"kingtour": kingtour, "nonary": nonary, "tatamibari": tatamibari, "rogue": rogue}


def apply(text: str, edits: list[tuple[str, int, str]]) -> str:
    for op, where, piece in edits:
        i = where % (len(text) + 1)
        if op == "insert":
            text = text[:i] + piece + text[i:]
        elif op == "delete":
            text = text[:i] + text[i + len(piece):]
        elif op == "replace":
            text = text[:i] + piece + text[i + 1:]
        elif op == "repeat":  # a line or a run of text several times over
            text = text[:i] + text[i:i + 40] * (1 + where % 5) + text[i:]
        else:  # cut off
            text = text[:i]
    return text


def mutated(puzzle: str):
    edit = st.tuples(st.sampled_from(["insert", "delete", "replace", "repeat", "cut"]), st.integers(0, 10_000),
                     st.sampled_from(SYMBOLS[puzzle]))
    return st.builds(apply, st.sampled_from(examples(puzzle)), st.lists(edit, min_size=1, max_size=6))


CELLS = {"kingtour": ".1234", "tatamibari": "+-|?*", "rogue": "$#. a"}


def swap_cells(puzzle: str, text: str, edits: list[tuple[int, int]]) -> str:
    """A mutation that keeps the grid's shape: cells swapped for other valid symbols."""
    cells, chars = CELLS[puzzle], list(text)
    spots = [i for i, ch in enumerate(chars) if ch in cells or ch == "@"]
    for where, pick in edits:
        chars[spots[where % len(spots)]] = cells[pick % len(cells)]
    return "".join(chars)


def edit_doors(text: str, edits: list[tuple[str, int, int]]) -> str:
    """A mutation of a Nonary map's doors: numbers, rooms, doors dropped or doubled."""
    doors = json.loads(text)
    for op, i, value in edits:
        if not doors:
            break
        door = doors[i % len(doors)]
        if op == "number":
            door[0] = 1 + value % 9
        elif op == "room":
            door[1 + value % 2] = doors[value % len(doors)][1]
        elif op == "drop":
            doors.remove(door)
        else:
            doors.append(list(door))
    return json.dumps(doors)


def gentle(puzzle: str):
    """Mutations that often still load, so that whole solves get exercised, not only refusals."""
    if puzzle == "nonary":
        edit = st.tuples(st.sampled_from(["number", "room", "drop", "double"]), st.integers(0, 99), st.integers(0, 99))
        return st.builds(edit_doors, st.sampled_from(examples(puzzle)), st.lists(edit, min_size=1, max_size=4))
    edit = st.tuples(st.integers(0, 10_000), st.integers(0, 99))
    return st.builds(swap_cells, st.just(puzzle), st.sampled_from(examples(puzzle)), st.lists(edit, min_size=1, max_size=4))


def load(puzzle: str, text: str, options: dict | None = None):
    """The puzzle's load; InputError is the only failure allowed."""
    options = options if options is not None else ({"size": 4, "box": "2x2"} if puzzle == "kingtour" else {})
    try:
        return MODULES[puzzle].load(text, "fuzz", options)
    except InputError as exc:
        assert str(exc) and "\n" not in str(exc), exc
        return None


PUZZLES = ["kingtour", "nonary", "tatamibari", "rogue"]


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_arbitrary_text(puzzle):
    @FAST
    @given(st.text(max_size=400))
    def check(text):
        load(puzzle, text)

    check()


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_arbitrary_bytes(puzzle):
    @FAST
    @given(st.binary(max_size=400))
    def check(data):
        try:
            text = decode_text(data, "fuzz")
        except InputError:
            return
        load(puzzle, text)

    check()


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_mutated_examples_load_or_raise_input_error(puzzle):
    @FAST
    @given(st.one_of(mutated(puzzle), gentle(puzzle)))
    def check(text):
        instance = load(puzzle, text)
        if instance is not None:  # what loads has a canonical form that loads back the same
            module = MODULES[puzzle]
            assert module.canonical(module.from_canonical(json.loads(json.dumps(module.canonical(instance))))) \
                == module.canonical(instance)

    check()


def test_kingtour_options_are_fuzzed_too():
    @FAST
    @given(st.one_of(st.integers(-5, 50), st.text(max_size=4), st.none(), st.booleans()),
           st.one_of(st.none(), st.text(max_size=8), st.integers()),
           st.one_of(st.none(), st.sampled_from(KINGTOUR_CLUES)))
    def check(size, box, clues):
        load("kingtour", clues, {"size": size, "box": box})

    check()


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_mutated_examples_through_the_command_line(puzzle, capsys):
    """A whole solve of each mutated input, with a time limit per check: 0, 2 or 3, never a traceback."""
    @SOLVES
    @given(st.one_of(gentle(puzzle), mutated(puzzle)))
    def check(text):
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "input.txt"
            source.write_text(text, encoding="utf-8", errors="surrogatepass")
            argv = ["solve", puzzle, str(source), "--json", "--time-limit", "5", "--out", str(Path(tmp) / "runs")]
            if puzzle == "kingtour":
                argv += ["--size", "4", "--box", "2x2"]
            code = main(argv)
            out, err = capsys.readouterr()
            assert code in (0, 2, 3), err
            if code == 2:
                assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
            else:
                assert json.loads(out)["status"] in ("optimal", "solved", "infeasible", "unknown")

    check()
