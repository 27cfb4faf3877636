"""Mutation testing with mutmut 3: the share of small plausible bugs the tests catch, per module.

    python scripts/mutation.py                      # referees, driver, ledger, the audit's modules (DEFAULTS)
    python scripts/mutation.py smtpuzzles/driver.py --tests tests/test_failure_paths.py
    python scripts/mutation.py smtpuzzles/puzzles/rogue/walks.py:referee,check_closed --show
    python scripts/mutation.py lrat drup --show     # the two proof checkers (names for their modules)

A TARGET is a module, or a module and the functions to mutate (`path.py:name,name`; methods as
`Class.method`): mutmut 3 names every mutant after its function, so a referee can be measured
without the encoder around it. Each target has a default test subset that runs in seconds; mutmut
runs, for each mutant, only the tests of that subset that call the mutated function.

Why mutmut and not cosmic-ray (measured on this machine, Python 3.11, the Tatamibari referee
tests): mutmut forks per mutant from a process that has already imported everything, about 0.2 s a
mutant, and can be restricted to functions; cosmic-ray starts pytest per mutant, about 2 s a mutant,
and mutates whole modules (1,745 mutants for tatamibari.py, against 115 in its referee).

The run happens in a scratch copy (`git archive` of --ref, default HEAD, or the work tree with
--worktree), never in the checkout: mutmut writes a `mutants/` folder, and other people's
uncommitted edits would otherwise be measured as well. Not part of the test suite: it takes minutes.
Needs `pip install mutmut` (3.x).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

REFEREE_TESTS = ["tests/test_referees.py"]
CHECKER_TESTS = ["tests/test_checker_soundness.py", "tests/test_lrat.py", "tests/test_proof.py"]
# target -> default tests: what a mutant of that code must be caught by, in seconds.
DEFAULTS = {
    "smtpuzzles/puzzles/kingtour/board.py:referee": REFEREE_TESTS,
    "smtpuzzles/puzzles/nonary/game.py:replay,referee": REFEREE_TESTS,
    "smtpuzzles/puzzles/tatamibari/board.py:referee,shape_fits": REFEREE_TESTS,
    "smtpuzzles/puzzles/rogue/walks.py:referee,walk_of,check_closed": REFEREE_TESTS,
    "smtpuzzles/driver.py": ["tests/test_failure_paths.py"],
    "smtpuzzles/folders/ledger.py": ["tests/test_failure_paths.py", "tests/test_writer_safety.py",
                             "tests/test_ledger_mutants.py"],
    # These build each run once per process and audit copies of it, in seconds; the slower attack
    # tests (test_audit_hostile, test_audit_attacks, test_lrat) are left out for time (--tests adds them).
    "smtpuzzles/auditing/auditor.py": ["tests/test_audit_mutants.py"],
    # The audit's parts beside auditor.py: the re-solves (its resolve section, and the cases a claim
    # rests on re-solved one by one) and the steps resting on others (cubes covering every case,
    # cases making up the claim).
    "smtpuzzles/auditing/resolving.py": ["tests/test_audit_mutants.py", "tests/test_cases_audit.py"],
    "smtpuzzles/auditing/derivations.py": ["tests/test_cases_audit.py", "tests/test_coverage_soundness.py"],
    # The proof checkers every checked claim rests on: measured by their own tests only (a mutant
    # that accepts a proof of a satisfiable formula must fail test_checker_soundness). Not in the
    # default run (DEFAULT_TARGETS): each takes an hour or more; name them (`lrat`, `drup`).
    "smtpuzzles/trusted/lrat.py": CHECKER_TESTS,
    "smtpuzzles/proofs/drup.py": CHECKER_TESTS,
}
DEFAULT_TARGETS = [t for t in DEFAULTS if t not in ("smtpuzzles/trusted/lrat.py", "smtpuzzles/proofs/drup.py")]
# Short names for targets (`lrat`, or `lrat:_Checker._check_lemma`).
ALIASES = {"lrat": "smtpuzzles/trusted/lrat.py", "drup": "smtpuzzles/proofs/drup.py"}
# mutmut stops a mutant's tests after (their time + 1 s) x this x 2 seconds of CPU (its default
# multiplier is 15). A checker mutant that loops (a watch index stepping back) would hold the
# machine for 20 minutes at 15; their tests' times are steady, so a smaller margin is safe.
TIMEOUT_MULTIPLIER = {"smtpuzzles/trusted/lrat.py": 3.0, "smtpuzzles/proofs/drup.py": 3.0}
KILLED = {1, 3}  # pytest failed (3: an internal error, which a mutant also causes)
TIMEOUT = {24, -24, 36, 152, 255}
NO_TESTS = {5, 33}


def parse_target(text: str) -> tuple[str, list[str]]:
    path, _, names = text.partition(":")
    return ALIASES.get(path, path), [n for n in names.split(",") if n]


def mutant_prefix(path: str, function: str) -> str:
    """mutmut's name for the mutants of one function: module.x_name__mutmut_N, methods
    module.xǁClassǁmethod__mutmut_N."""
    module = path[:-3].replace("/", ".")
    if "." in function:
        cls, method = function.split(".", 1)
        return f"{module}.x\u01c1{cls}\u01c1{method}__mutmut_"
    return f"{module}.x_{function}__mutmut_"


# What the tests read besides the package (the bundled examples are in it): generators, the exported
# encodings, results, README.
COPIED = ("smtpuzzles", "tests", "scripts", "encodings", "results", "README.md", "pyproject.toml")


def scratch_copy(ref: str | None, where: Path) -> None:
    if ref is None:
        for part in COPIED:
            if (ROOT / part).is_dir():
                shutil.copytree(ROOT / part, where / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            elif (ROOT / part).exists():
                shutil.copy2(ROOT / part, where / part)
    else:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, *COPIED],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)


def write_config(where: Path, paths: list[str], tests: list[str], timeout_multiplier: float | None = None) -> None:
    def listing(items):
        return "\n".join("    " + i for i in items)

    (where / "setup.cfg").write_text(
        "[mutmut]\n"
        f"source_paths =\n{listing(paths)}\n"
        f"pytest_add_cli_args_test_selection =\n{listing(tests)}\n"
        # The whole package is copied beside the mutated files, or the installed (editable) one
        # would supply the modules that are not mutated.
        f"also_copy =\n{listing(COPIED)}\n"
        + (f"timeout_multiplier = {timeout_multiplier}\n" if timeout_multiplier else "")
    )


def read_results(where: Path, paths: list[str]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for path in paths:
        meta = where / "mutants" / (path + ".meta")
        if meta.exists():
            out.update(json.loads(meta.read_text())["exit_code_by_key"])
    return out


def score_rows(targets, results):
    rows = []
    for path, functions in targets:
        module = path[:-3].replace("/", ".") + "."
        prefixes = [mutant_prefix(path, f) for f in functions] or [module]
        mine = {k: v for k, v in results.items() if any(k.startswith(p) for p in prefixes) and v is not None}
        killed = sum(1 for v in mine.values() if v in KILLED or v in TIMEOUT)
        no_tests = sum(1 for v in mine.values() if v in NO_TESTS)
        survived = [k for k, v in mine.items() if not (v in KILLED or v in TIMEOUT)]
        label = path.removeprefix("smtpuzzles/") + (f" ({', '.join(functions)})" if functions else "")
        rows.append((label, len(mine), killed, no_tests, sorted(survived, key=_natural)))
    return rows


def _natural(name: str):
    head, _, number = name.rpartition("_")
    return head, int(number) if number.isdigit() else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("targets", nargs="*", help="module.py or module.py:function,function, or lrat or drup "
                        "(default: the referees, driver, ledger and audit)")
    parser.add_argument("--tests", nargs="+", help="test files or node ids (default: each target's subset)")
    parser.add_argument("--pytest-args", default="", help="more pytest arguments for the selection, e.g. \"-k 'not slow'\"")
    parser.add_argument("--ref", default="HEAD", help="git revision to measure (default HEAD)")
    parser.add_argument("--worktree", action="store_true", help="measure the work tree as it is instead")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1: the machine is shared)")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants by name")
    parser.add_argument("--show", action="store_true", help="list them with their diffs")
    parser.add_argument("--keep", metavar="DIR", help="run in DIR and keep it (for `mutmut browse` there)")
    parser.add_argument("--timeout-multiplier", type=float, help="mutmut's timeout_multiplier (default: 3 for "
                        "the checkers, else mutmut's 15)")
    args = parser.parse_args(argv)
    if shutil.which("mutmut") is None and not (Path(sys.executable).parent / "mutmut").exists():
        print("mutation.py: mutmut is not installed (pip install 'mutmut>=3')", file=sys.stderr)
        return 2

    targets = [parse_target(t) for t in args.targets or DEFAULT_TARGETS]
    texts = [path + (":" + ",".join(functions) if functions else "") for path, functions in targets]
    tests = args.tests or sorted({t for text in texts for t in DEFAULTS.get(text, DEFAULTS.get(text.partition(":")[0], []))})
    if not tests:
        print("mutation.py: no default tests for these targets; give --tests", file=sys.stderr)
        return 2
    paths = sorted({p for p, _ in targets})
    patterns = []
    for path, functions in targets:
        patterns += [mutant_prefix(path, f) + "*" for f in functions] or [path[:-3].replace("/", ".") + ".*"]

    where = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="smtpuzzles-mutation-"))
    where.mkdir(parents=True, exist_ok=True)
    try:
        # The commit is named before copying: a run takes long enough for HEAD to move meanwhile.
        commit = None if args.worktree else subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.ref],
                                                           capture_output=True, text=True, check=True).stdout.strip()
        scratch_copy(commit, where)
        # pytest would only report this once mutmut has run, as a score of 0 (a file not committed yet).
        missing = [t for t in tests if not (where / t.split("::")[0]).exists()]
        if missing:
            source = "the work tree" if args.worktree else args.ref
            print(f"mutation.py: {', '.join(missing)}: no such test file in {source}", file=sys.stderr)
            return 2
        multipliers = [TIMEOUT_MULTIPLIER[p] for p in paths if p in TIMEOUT_MULTIPLIER]
        multiplier = args.timeout_multiplier or (max(multipliers) if len(multipliers) == len(paths) else None)
        write_config(where, paths, tests + shlex.split(args.pytest_args), multiplier)
        mutmut = shutil.which("mutmut") or str(Path(sys.executable).parent / "mutmut")
        started = time.perf_counter()
        run = subprocess.run([mutmut, "run", "--max-children", str(args.jobs), *patterns], cwd=where,
                             capture_output=True, text=True)
        seconds = time.perf_counter() - started
        results = read_results(where, paths)
        if not any(v is not None for v in results.values()):  # nothing ran: say why
            print(run.stdout[-3000:] + run.stderr[-3000:], file=sys.stderr)
            return 1
        rows = score_rows(targets, results)
        source = "work tree" if args.worktree else args.ref
        if commit:  # the commit measured, for the record (a branch or HEAD moves on)
            source += f" ({commit})"
        print(f"mutmut on {source}, tests: {' '.join(tests)}")
        print(f"{'target':44} {'mutants':>7} {'killed':>6} {'no test':>7} {'score':>6}")
        for label, total, killed, no_tests, _ in rows:
            score = f"{100 * killed / total:5.1f}%" if total else "    —"
            print(f"{label[:44]:44} {total:7} {killed:6} {no_tests:7} {score:>6}")
        total = sum(r[1] for r in rows)
        killed = sum(r[2] for r in rows)
        print(f"{'all':44} {total:7} {killed:6} {sum(r[3] for r in rows):7} "
              f"{(100 * killed / total if total else 0):5.1f}%   ({seconds:.0f} s)")
        for label, _, _, _, survived in rows:
            for name in survived if (args.survivors or args.show) else []:
                print(f"survived: {name}")
                if args.show:
                    diff = subprocess.run([mutmut, "show", name], cwd=where, capture_output=True, text=True).stdout
                    print("\n".join("    " + line for line in diff.splitlines() if line.startswith(("+", "-", "@"))))
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
