"""Each objective kind is one module (smtpuzzles.objectives): a new kind, tests/kind_min.py, written
in one file and registered, works through solve, the ledger's reader, the audit and the live view
without a line changed anywhere else. The toy puzzle: the fewest vertices that cover every edge."""

from __future__ import annotations

import types
from itertools import combinations
from pathlib import Path

import pytest

from smtpuzzles import objectives, puzzles
from smtpuzzles.auditing.auditor import audit
from smtpuzzles.contract import Puzzle
from smtpuzzles.encoding import Encoding
from smtpuzzles.formula import CNF, FALSE, TRUE, Formula, lit
from smtpuzzles.live import summarise, summary_line
from smtpuzzles.folders.runfolder import open_run
from tests import kind_min

EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (3, 4), (4, 5)]


def fewest_cover(edges) -> int:
    vertices = sorted({v for e in edges for v in e})
    return next(k for k in range(len(vertices) + 1) for chosen in combinations(vertices, k)
                if all(a in chosen or b in chosen for a, b in edges))


def cover_puzzle() -> Puzzle:
    def encode(edges, encoding="cover"):
        cnf = CNF()
        vertices = sorted({v for e in edges for v in e})
        chosen = {v: cnf.var(f"v{v}") for v in vertices}
        for a, b in edges:
            cnf.add([chosen[a], chosen[b]])
        count = cnf.counter([chosen[v] for v in vertices])  # count[k]: at least k chosen
        for k in range(1, len(vertices) + 1):
            named = cnf.var(f"ge{k}")
            cnf.add([-named, count[k]])
            cnf.add([named, -count[k]])

        def at_most(k: int):
            if k < 0:
                return FALSE
            return TRUE if k >= len(vertices) else lit(f"ge{k + 1}", positive=False)

        return Encoding("cover", 1, Formula.from_cnf(cnf), kind_min.IntMin(at_most),
                        lambda model: {"cover": [v for v in vertices if model[f"v{v}"]]}, engines=("sat", "z3"))

    module = types.SimpleNamespace(
        NAME="cover", ENCODINGS=("cover",), DEFAULT_ENGINE="sat", MODES=("optimise",), LIMITS={"edges": 100},
        load=lambda text, source, options: [tuple(e) for e in eval(text)],  # noqa: S307 - the test's own text
        canonical=lambda edges: {"edges": [list(e) for e in edges]},
        from_canonical=lambda data: [tuple(e) for e in data["edges"]], encode=encode,
        referee=lambda edges, s: [f"edge {a}-{b} is not covered" for a, b in edges
                                  if a not in s.get("cover", []) and b not in s.get("cover", [])],
        value=lambda edges, s: len(s["cover"]), value_json=lambda v: v, render=lambda edges, s, p: str(s["cover"]))
    return Puzzle(module)


@pytest.fixture
def min_kind(monkeypatch):
    monkeypatch.setattr(objectives, "KINDS", dict(objectives.KINDS))
    monkeypatch.setattr(objectives, "OPS", dict(objectives.OPS))
    objectives.register(kind_min)
    puzzle = cover_puzzle()
    monkeypatch.setitem(puzzles.registry().puzzles, "cover", puzzle)
    return puzzle


def test_a_new_kind_in_one_module_solves_reads_audits_and_shows(min_kind, tmp_path):
    from smtpuzzles import run as runner

    outcome, ledger = runner.solve(min_kind, EDGES, repr(EDGES), out_dir=tmp_path)
    assert outcome.status == "optimal" and outcome.value == fewest_cover(EDGES) == 3
    folder = open_run(Path(ledger.dir))  # the run-folder reader accepts the kind's claims
    assert folder.run["objective"] == "min" and folder.steps[-1]["claim"] == {"op": "at_most", "k": 2}
    report = audit(Path(ledger.dir))
    assert report.verdict in ("clean", "consistent"), [f.text for f in report.findings]
    assert any("optimal: 3 is the fewest" in f.text for f in report.findings)
    progress = summarise(folder.steps, "min")
    assert progress.best == 3 and progress.closed and "the fewest is 3" in summary_line(progress)
    assert objectives.describe({"op": "at_most", "k": 2}) == "some solution needs at most 2"


def test_the_audit_derives_the_new_kinds_closing_claim(min_kind, tmp_path):
    """A run that claims optimal with a worse value than its models hold is failed by the kind's
    own closing rule."""
    from smtpuzzles import run as runner

    _, ledger = runner.solve(min_kind, EDGES, repr(EDGES), out_dir=tmp_path)
    run = {"status": "optimal"}
    recorded = objectives.Recorded("optimal", "optimise", {}, 4, {}, [("step 1", 3)], [], [], str, str)
    with pytest.raises(objectives.ClaimFails, match="smaller solution"):
        kind_min.closing(recorded)
    assert run and ledger


def test_a_kind_may_not_take_a_claim_op_another_kind_has(monkeypatch):
    monkeypatch.setattr(objectives, "KINDS", dict(objectives.KINDS))
    monkeypatch.setattr(objectives, "OPS", dict(objectives.OPS))
    thief = types.SimpleNamespace(KIND="thief", CLAIMS={"at_least": {"k": int}}, INTEGER_LISTS=())
    with pytest.raises(ValueError, match="at_least"):
        objectives.register(thief)


def test_no_core_module_names_a_kind_or_its_claims():
    """The kinds' names and claim ops appear only in their own modules (and the facades that list them)."""
    root = Path(__file__).resolve().parents[1] / "smtpuzzles"
    words = ('"exceed"', '"lex_greater"', '"at_least"', "LexMax", "IntMax")
    # contract.py documents the claims a puzzle's `reference` hook is handed
    allowed = {"objectives", "objective.py", "plugin.py", "encoding.py", "puzzles", "contract.py"}
    offenders = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if rel.parts[0] in allowed:
            continue
        text = path.read_text()
        offenders += [f"{rel}: {w}" for w in words if w in text]
    assert offenders == []
