"""The puzzle contract: every registered puzzle keeps it, from its declarations to a solved and
audited example; the registry finds puzzles through entry points, leaves broken ones out with a
reason, and optional hooks have defaults; the shared modules name no puzzle."""

from __future__ import annotations

import json
import re
import sys
import types
from importlib import metadata
from pathlib import Path

import pytest
from rich.console import Console

from conftest import one_error_line
from smtpuzzles import puzzles
from smtpuzzles.cli import build_parser
from smtpuzzles.contract import REQUIRED, InlineKey, Option, Puzzle, problems
from smtpuzzles.jobfile import puzzle_keys

ROOT = Path(__file__).resolve().parents[1]
if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

NAMES = puzzles.names()


def test_pyproject_registers_the_builtins_the_registry_falls_back_to():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["smtpuzzles.puzzles"]
    assert declared == puzzles.BUILTIN
    assert set(puzzles.BUILTIN) <= set(NAMES) and not puzzles.registry().failed


# ------------------------------------------------------------------------- every registered puzzle
@pytest.mark.parametrize("name", NAMES)
def test_declarations_keep_the_contract(name):
    puzzle = puzzles.get(name)
    assert problems(puzzle.source) == []
    assert puzzle.NAME == name and puzzle.MODES[0] in ("optimise", "solve") and puzzle.LIMITS
    help_text = build_parser().commands["solve"].format_help()
    assert re.search(rf"^  {name}\s", help_text, re.M), f"{name} missing from solve --help"
    for option in puzzle.OPTIONS:
        assert option.flag in help_text and f"{name}: {option.help}"[:30] in " ".join(help_text.split())
        assert option.name in puzzle_keys(puzzle)
    for key in puzzle.INLINE:
        assert puzzle_keys(puzzle)[key.name] == (key.type,)


@pytest.mark.parametrize("name", NAMES)
def test_examples_round_trip_and_encode(name):
    puzzle = puzzles.get(name)
    examples = list(puzzle.examples())
    assert examples, f"{name} bundles no example"
    assert len({e.stem for e in examples}) == len(examples)
    for example in examples:
        data = puzzle.canonical(example.instance)
        assert json.loads(json.dumps(data)) == data  # JSON as it is
        assert puzzle.canonical(puzzle.from_canonical(data)) == data
        assert example.encoding in puzzle.ENCODINGS
    first = examples[0]
    for encoding in puzzle.ENCODINGS:
        enc = puzzle.encode(first.instance, encoding)
        assert enc.name == encoding and enc.formula.document().startswith("(set-logic ")


@pytest.mark.parametrize("name", NAMES)
def test_first_example_solves_is_refereed_drawn_and_audits_clean(name, tmp_path):
    from smtpuzzles import run as runner
    from smtpuzzles.auditing.auditor import audit

    puzzle = puzzles.get(name)
    example = next(iter(puzzle.examples()))
    outcome, ledger = runner.solve(puzzle, example.instance, "", out_dir=tmp_path, encoding=example.encoding,
                                   time_limit=60)
    assert outcome.status in ("optimal", "solved"), outcome.status
    assert puzzle.referee(example.instance, outcome.solution) == []
    assert puzzle.same_solution(example.instance, outcome.solution, outcome.solution)
    shown = puzzle.value_json(puzzle.value(example.instance, outcome.solution))
    assert json.loads(json.dumps(shown)) == shown == ledger.run["value"]
    assert audit(ledger.dir).verdict in ("clean", "consistent")
    if puzzle.reference is not None:  # the reference admits the solution its own puzzle found
        from smtpuzzles.auditing import witness

        ok, words = witness.check(puzzle, example.instance, {"op": "first"}, outcome.solution)
        assert ok is True, words
    console = Console(width=80, record=True, color_system=None)
    console.print(puzzle.render(example.instance, outcome.solution, None))
    console.print(puzzle.progress(puzzle.value(example.instance, outcome.solution), 0))
    assert console.export_text()
    assert isinstance(puzzle.describe(example.instance), str)
    broken = puzzle.referee(example.instance, {})
    assert broken and all(isinstance(p, str) for p in broken)  # an empty solution breaks a rule


# -------------------------------------------------------------------------------------- the contract
def minimal(**changes) -> types.SimpleNamespace:
    """The required hooks only, as a third party might first write them."""
    fields = dict(NAME="tiny", ENCODINGS=("x",), DEFAULT_ENGINE="sat", MODES=("optimise",), LIMITS={"cells": 1},
                  load=lambda text, source, options: text, canonical=lambda i: {"i": i},
                  from_canonical=lambda d: d["i"], encode=lambda i, e: None, referee=lambda i, s: [],
                  value=lambda i, s: 1, value_json=lambda v: v, render=lambda i, s, p: "")
    fields.update(changes)
    return types.SimpleNamespace(**{k: v for k, v in fields.items() if v is not None})


def test_a_minimal_puzzle_gets_every_optional_hook():
    puzzle = Puzzle(minimal())
    assert puzzle.describe("i") == "" and list(puzzle.examples()) == []
    assert puzzle.same_solution("i", {"a": [1, 2]}, {"a": [1, 2]}) and not puzzle.same_solution("i", {"a": 1}, {"a": 2})
    assert puzzle.progress(7, 0).plain == "best so far: 7"
    assert puzzle.certificate is None and puzzle.convert is None and puzzle.OPTIONS == () and puzzle.INLINE == ()
    assert puzzle.INPUT_REQUIRED and not puzzle.ACCEPTS_URLS and puzzle.SUMMARY == "tiny"
    assert puzzle.engine_params("sat") == {} and puzzle.engine_params("sat", {"phases": False}) == {"phases": False}


def test_a_puzzles_engine_params_sit_under_the_users():
    puzzle = Puzzle(minimal(ENGINE_PARAMS={"sat": {"solver": "glucose42", "phases": True}}))
    assert puzzle.engine_params("sat") == {"solver": "glucose42", "phases": True}
    assert puzzle.engine_params("sat", {"solver": "glucose4"}) == {"solver": "glucose4", "phases": True}
    assert puzzle.engine_params("z3", {"random_seed": 3}) == {"random_seed": 3}


@pytest.mark.parametrize("changes,fragment", [
    ({"load": None}, "load is missing"),
    ({"referee": lambda i: []}, "referee must take 2 arguments"),
    ({"render": "picture"}, "render must be a function"),
    ({"MODES": ("count",)}, "the first must be optimise or solve"),
    ({"MODES": ["optimise"]}, "MODES must be a tuple"),
    ({"DEFAULT_ENGINE": "cplex"}, "DEFAULT_ENGINE 'cplex' is not z3 or sat"),
    ({"NAME": "Two words"}, "must be a lower-case identifier"),
    ({"LIMITS": {"cells": "many"}}, "LIMITS must map names to whole numbers"),
    ({"OPTIONS": (Option("out", str, "clashes"),)}, "option 'out' clashes"),
    ({"OPTIONS": (Option("size", float, "a float"),)}, "type must be int, str or bool"),
    ({"OPTIONS": (Option("wrap", bool, "on", default=True),)}, "a bool option is a flag"),
    ({"OPTIONS": ("size",)}, "not an Option"),
    ({"INLINE": (InlineKey("name", str, "the job's own key"),)}, "inline key 'name' clashes"),
    ({"convert": lambda text, source: text}, "convert needs CONVERTS"),
    ({"describe": lambda: ""}, "describe must take 1 argument"),
    ({"ENGINE_PARAMS": {"cplex": {}}}, "ENGINE_PARAMS names no engine 'cplex'"),
    ({"ENGINE_PARAMS": {"sat": {"solver": "kissat"}}}, "ENGINE_PARAMS['sat']: engine parameter solver must be one of"),
    ({"ENGINE_PARAMS": {"z3": {"smtlib2_log": "x"}}}, "ENGINE_PARAMS['z3']: unknown z3 engine parameter 'smtlib2_log'"),
    ({"ENGINE_PARAMS": ("sat",)}, "ENGINE_PARAMS must be a dict"),
])
def test_contract_problems_are_named(changes, fragment):
    found = problems(minimal(**changes))
    assert any(fragment in p for p in found), found


def test_every_required_hook_is_listed_in_the_contract_docstring():
    import smtpuzzles.contract as contract

    for name in REQUIRED:
        assert re.search(rf"^  {name}\b", contract.__doc__, re.M), name


# ----------------------------------------------------------------------------------- the registry
def write_module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(body)


TINY = '''
from smtpuzzles.contract import Option
NAME = "{name}"
ENCODINGS = ("x",)
DEFAULT_ENGINE = "sat"
MODES = ("optimise",)
LIMITS = {{"cells": 1}}
OPTIONS = ({options})
def load(text, source, options): return text
def canonical(i): return {{"i": i}}
def from_canonical(d): return d["i"]
def encode(i, e): return None
def referee(i, s): return []
def value(i, s): return 1
def value_json(v): return v
def render(i, s, p): return ""
'''


@pytest.fixture
def registry_from(tmp_path, monkeypatch):
    """Discover puzzles from the entry points given (plus the built-ins), then put the real ones back."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def use(*entries):
        return puzzles.reset([metadata.EntryPoint(n, v, puzzles.GROUP) for n, v in (*puzzles.BUILTIN.items(), *entries)])

    yield use
    puzzles.reset()


def test_broken_plugins_are_left_out_with_a_reason_and_the_rest_work(tmp_path, registry_from, cli):
    write_module(tmp_path, "good_one", TINY.format(name="good", options='Option("size", int, "a count"),'))
    write_module(tmp_path, "clashing", TINY.format(name="clash", options='Option("size", str, "a word"),'))
    write_module(tmp_path, "liar", TINY.format(name="someone", options=""))
    write_module(tmp_path, "half", "NAME = 'half'\n")
    write_module(tmp_path, "crashing", "raise RuntimeError('no licence')\n")
    found = registry_from(("good", "good_one"), ("clash", "clashing"), ("liar", "liar"), ("half", "half"),
                          ("crash", "crashing"), ("gone", "no_such_module"))
    assert set(found.puzzles) == set(puzzles.BUILTIN) | {"good"}
    reasons = found.failed
    assert "--size is not the kingtour option of that name" in reasons["clash"]
    assert "calls itself 'someone', not 'liar'" in reasons["liar"]
    assert "breaks the puzzle contract" in reasons["half"] and "load is missing" in reasons["half"]
    assert "RuntimeError: no licence" in reasons["crash"]
    assert "ModuleNotFoundError" in reasons["gone"]
    code, out, err = cli("solve", "crash", "-")
    line = one_error_line(err)
    assert code == 2 and "puzzle: 'crash' is installed but left out" in line and "no licence" in line
    code, out, err = cli("solve", "--help")
    assert code == 0 and "crash: left out," in out and re.search(r"^  good\s", out, re.M)
    assert cli("solve", "kingtour", "--size", 4, "--json", "--out", tmp_path / "runs")[0] == 0  # the rest work


def test_one_name_registered_twice_by_different_packages_is_refused(tmp_path, registry_from):
    write_module(tmp_path, "first_good", TINY.format(name="good", options=""))
    write_module(tmp_path, "second_good", TINY.format(name="good", options=""))
    found = registry_from(("good", "first_good"), ("good", "second_good"))
    assert "good" not in found.puzzles and "registered twice" in found.failed["good"]


def test_an_option_of_another_puzzle_is_refused_in_one_line(cli):
    code, out, err = cli("solve", "nonary", "-", "--size", 4, stdin="[[9, 0, -1]]")
    line = one_error_line(err)
    assert code == 2 and "--size: nonary takes no such option (kingtour does)" in line


def test_convert_names_the_puzzle_when_several_convert(tmp_path, registry_from, cli):
    write_module(tmp_path, "upper", TINY.format(name="upper", options="")
                 + 'CONVERTS = "lower to upper case"\ndef convert(text, source): return text.upper()\n')
    registry_from(("upper", "upper"))
    code, out, err = cli("convert", "-", stdin="abc")
    assert code == 2 and "name the puzzle whose input this is (tatamibari or upper)" in one_error_line(err)
    code, out, err = cli("convert", "-", "--puzzle", "upper", stdin="abc")
    assert code == 0 and out.strip() == "ABC"
    code, out, err = cli("convert", "-", "--puzzle", "rogue", stdin="abc")
    assert code == 2 and "rogue has no other input form" in one_error_line(err)


# ------------------------------------------------------------------------- the shared modules
SHARED = sorted(p for p in (ROOT / "smtpuzzles").rglob("*.py") if "puzzles" not in p.relative_to(ROOT).parts[1:2])


def test_the_shared_modules_name_no_puzzle():
    """The core and the commands know puzzles only through the contract: no module outside
    smtpuzzles/puzzles/ names one (nor a word that only one of them uses)."""
    words = {*puzzles.BUILTIN, "king", "kings", "sudoku", "tatami", "dungeon", "monster", "doors"}
    pattern = re.compile(r"\b(" + "|".join(sorted(words, key=len, reverse=True)) + r")\b", re.I)
    assert len(SHARED) > 20 and any(p.name == "parser.py" for p in SHARED) and any(p.name == "jobfile.py" for p in SHARED)
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in SHARED
            for n, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert hits == []


def test_the_grep_would_catch_a_puzzle_name():
    pattern = re.compile(r"\b(kingtour|king|tatamibari|nonary|rogue)\b", re.I)
    assert pattern.search("the King's tour") and pattern.search("import tatamibari") and not pattern.search("locking")


def test_an_example_carries_the_options_it_was_loaded_with(tmp_path):
    from smtpuzzles.contract import examples_in

    (tmp_path / "wrapped.txt").write_text("..\n..\n")
    (tmp_path / "flat.txt").write_text("..\n..\n")
    seen = []
    found = list(examples_in(tmp_path, lambda text, source, options: seen.append(options) or (source, options), "x",
                             {"wrapped": {"torus": True}}))
    assert [(e.stem, e.options, e.instance) for e in found] == [
        ("flat", {}, ("flat.txt", {})), ("wrapped", {"torus": True}, ("wrapped.txt", {"torus": True}))]


def test_a_plugin_that_names_its_certificate_hook_certify_still_has_it():
    """`certify` was the hook's name before the command of that name: older plug-ins keep working."""
    hook = lambda instance, solution: (True, "checked")  # noqa: E731
    assert Puzzle(minimal(certify=hook)).certificate is hook
    assert Puzzle(minimal(certificate=hook)).certificate is hook


def test_optional_hooks_are_read_once_when_the_puzzle_is_wrapped():
    """Each optional hook is taken from the puzzle when it is wrapped, not looked up again at each
    call: the wrapper then answers the same whatever happens to the puzzle object afterwards."""
    source = minimal(describe=lambda i: "given", same_solution=lambda i, a, b: True, progress=lambda v, p: "shown",
                     examples=lambda: ["one"])
    puzzle = Puzzle(source)
    for name in ("describe", "same_solution", "progress", "examples"):
        delattr(source, name)
    assert puzzle.describe("i") == "given" and puzzle.same_solution("i", {"a": 1}, {"a": 2})
    assert puzzle.progress(7, 0) == "shown" and list(puzzle.examples()) == ["one"]


def test_each_builtin_puzzle_exports_public_names_only():
    """A built-in puzzle's face (`__all__`) is its public names, each one there: the model a plug-in copies."""
    import importlib

    for name in ("kingtour", "nonary", "tatamibari", "rogue"):
        package = importlib.import_module(f"smtpuzzles.puzzles.{name}")
        face = getattr(package, "__all__", [])
        assert [n for n in face if n.startswith("_")] == [], name
        assert all(hasattr(package, n) for n in face), name
