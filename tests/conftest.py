"""Shared helpers: run the command line in-process or as a real process, read run folders."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from smtpuzzles.cli import main

# Data the suite needs ships with it (nothing is read from beside the checkout): the test cases the
# puzzle specifications state, and a sample of the published Tatamibari puzzles.
DATA = Path(__file__).resolve().parent / "data"
SEED_CASES = json.loads((DATA / "seed_cases.json").read_text(encoding="utf-8"))
# The Ctrl-C tests send SIGINT to the tool's processes. A suite started in the background (`cmd &`
# in a script) inherits an ignored SIGINT, which every child would keep, and the tool rightly leaves
# an ignored Ctrl-C ignored (tests/test_batch.py checks that): so the suite takes Ctrl-C as a
# terminal's foreground does, and its children inherit the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# README, "Exit status": written out here rather than imported, so a wrong table in the cli package shows.
EXIT_FOR_STATUS = {"optimal": 0, "solved": 0, "infeasible": 0, "unknown": 3, "interrupted": 130}


class Cli:
    def __init__(self, capsys, tmp_path):
        self.capsys = capsys
        self.tmp_path = tmp_path

    def __call__(self, *args, stdin: str | None = None):
        """(exit code, stdout, stderr) of `smtpuzzles ARGS` run in this process."""
        if stdin is not None:
            import io

            old = sys.stdin
            sys.stdin = io.StringIO(stdin)
        try:
            code = main([str(a) for a in args])
        finally:
            if stdin is not None:
                sys.stdin = old
        out, err = self.capsys.readouterr()
        return code, out, err

    def solve_json(self, *args, stdin: str | None = None, code: int | None = None) -> dict:
        """The JSON answer of `smtpuzzles solve ARGS --json`. The exit status must be `code` when
        given, and in any case the one the README promises for the status printed."""
        status, out, err = self("solve", *args, "--json", "--out", self.tmp_path / "runs", stdin=stdin)
        assert status != 2, err
        result = json.loads(out)
        assert status == EXIT_FOR_STATUS[result["status"]], (status, result["status"], err)
        if code is not None:
            assert status == code, (status, result["status"], err)
        return result


def kingtour_encoding_with(patch, **advice) -> None:
    """King's-tour encodings with some of their advice to the driver changed (`patch`, a pytest
    MonkeyPatch; `advice`, Advice switches or its order): the formula stays the encoder's own."""
    import dataclasses

    from smtpuzzles.puzzles import kingtour

    real = kingtour.encode

    def encode(board, encoding=None):
        enc = real(board, encoding) if encoding else real(board)
        return dataclasses.replace(enc, advice=enc.advice.replace(**advice))

    patch.setattr(kingtour, "encode", encode)


@contextlib.contextmanager
def asking_closing_whole():
    """King's-tour runs that ask the closing claim whole, as puzzles without Advice.close_by_cases
    do (and King's tours did below 144 cells until 2026-12-04): the hardest query of a small run,
    which the cube tests split."""
    with pytest.MonkeyPatch.context() as patch:
        kingtour_encoding_with(patch, close_by_cases=False)
        yield


@pytest.fixture
def closing_asked_whole():
    with asking_closing_whole():
        yield


@pytest.fixture
def cli(capsys, tmp_path):
    return Cli(capsys, tmp_path)


def made_once(tmp_path_factory, name: str, make) -> Path:
    """The folder `name`, filled by `make(folder)` once in the whole test session: under xdist
    (`-n 2`) the workers share it (the first to ask makes it while the other waits on a lock, then
    reads it), so an expensive result the tests only read is paid for once. A test that changes
    what is in it copies it first. A `make` that fails leaves no folder marked done: the next test
    to ask makes it again, and fails as the first did."""
    import fcntl
    import shutil

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the session's folder, above each worker's own
    folder = base / name
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (folder / ".made").exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                make(folder)
                (folder / ".made").touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


def main_output(*args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `smtpuzzles ARGS` run in this process, as Cli runs it, for
    fixtures wider than a test (which have no capsys)."""
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def solved_once(folder: Path, *args) -> dict:
    """The JSON answer of `smtpuzzles solve ARGS --json --out FOLDER/runs`, solved in this process,
    which must exit 0, as the README says it does for the status it prints (Cli.solve_json with
    code=0): for a fixture wider than a test, whose tests each take a copy of its run folder
    (copy_of_run) when they change it."""
    code, out, err = main_output("solve", *args, "--json", "--out", folder / "runs")
    assert code == 0, err
    result = json.loads(out)
    assert EXIT_FOR_STATUS[result["status"]] == 0, (result["status"], err)
    return result


def copy_of_run(run_dir: Path, tmp_path: Path) -> Path:
    """A copy of the run folder `run_dir`, whole, at TMP_PATH/runs/NAME: where `cli.solve_json`
    puts a run it solves, so a test given the copy finds what it found when it solved its own."""
    import shutil

    return Path(shutil.copytree(run_dir, tmp_path / "runs" / run_dir.name))


class Solved6x6:
    """A 6x6 (2x3 boxes) King's-tour run solved once per session (`solved_6x6`), and, where asked
    for, its audit (`audited_6x6`)."""

    def __init__(self, result: dict, audit: tuple | None = None):
        self.result = result  # the JSON answer of the solve
        self.run_dir = Path(result["run_dir"])  # read it only: a test that changes it copies it (copy_of_run)
        self.audit = audit  # (exit code, stdout, stderr) of `smtpuzzles audit RUN --resolve --json`


@pytest.fixture(scope="session")
def solved_6x6(tmp_path_factory) -> Solved6x6:
    """`smtpuzzles solve kingtour --size 6 --box 2x3 --json`, engine and encoding by default: the
    run closes by its 30 cases, as every King's-tour run does. Solved once per session, shared by
    the xdist workers (made_once)."""
    def make(folder: Path) -> None:
        (folder / "solve.json").write_text(json.dumps(solved_once(folder, "kingtour", "--size", 6, "--box", "2x3")))

    return Solved6x6(json.loads((made_once(tmp_path_factory, "solved-6x6", make) / "solve.json").read_text()))


@pytest.fixture(scope="session")
def audited_6x6(tmp_path_factory, solved_6x6) -> Solved6x6:
    """The session's 6x6 run and `smtpuzzles audit RUN --resolve --json` on it: each case re-solved
    by z3 and by cvc5, each in a fresh process, about 40 s of one core. Made once per session and
    read by the tests that each asked for it (tests/test_closing_by_cases.py, tests/test_kingtour.py,
    tests/test_ledger.py). The audit leaves the folder as it was."""
    def make(folder: Path) -> None:
        audited = main_output("audit", solved_6x6.run_dir, "--resolve", "--json")
        (folder / "audit.json").write_text(json.dumps(audited))

    audit = json.loads((made_once(tmp_path_factory, "audited-6x6", make) / "audit.json").read_text())
    return Solved6x6(solved_6x6.result, tuple(audit))


def run_process(*args, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], capture_output=True, text=True, env=env,
                          **kwargs)


def put_on_path(monkeypatch, *folders: Path) -> None:
    """`folders` (a plug-in's source, a folder with its dist-info) first on sys.path and PYTHONPATH,
    so the registry finds its entry points as an installed package's, here and in worker processes."""
    import importlib

    for folder in reversed(folders):
        monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [*map(str, folders), os.environ.get("PYTHONPATH")])))
    importlib.invalidate_caches()


def stand_in(tmp_path: Path, name: str, body: str) -> Path:
    """A checker program written for the test: a Python script called as CHECKER FORMULA PROOF."""
    path = tmp_path / name
    path.write_text(f"#!{sys.executable}\nimport sys, time\n{body}\n")
    path.chmod(0o755)
    return path


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one error line, got: {err!r}"
    assert "Traceback" not in err
    return lines[0]


@contextlib.contextmanager
def fails_instead_of_hanging(seconds: int):
    """Raise TimeoutError if the body blocks longer than `seconds` (a FIFO opened without
    O_NONBLOCK would hang a test forever instead of failing it)."""
    def stuck(*_):
        raise TimeoutError("blocked")
    old = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# A real ledger kept as test data: the 12x12 (3x4) run published until a later run proved that board
# optimal. It was interrupted after 138 solver-minutes with 54 of 144 positions proved, climbing (it
# was recorded before runs named their search), and split into cubes at depth 1 when resumed. Its
# base formula is not shipped (2.2 MB): it is today's `onehot` encoding of the empty board, written
# again here, and run.json's sha-256 of it says whether it still is.
INTERRUPTED_12x12 = DATA / "kingtour-12x12-interrupted"


@pytest.fixture(scope="session")
def interrupted_12x12(tmp_path_factory) -> Path:
    """The interrupted 12x12 run folder, rebuilt once per session; tests that change it copy it."""
    import gzip
    import shutil

    from smtpuzzles.folders.durable import write_gz
    from smtpuzzles.puzzles import kingtour

    run = json.loads((INTERRUPTED_12x12 / "run.json").read_text())
    folder = tmp_path_factory.mktemp("published") / "kingtour-2b3b523e65-20261201-030336"
    folder.mkdir()
    for name in ("run.json", "solution.json", "input.txt"):
        shutil.copy(INTERRUPTED_12x12 / name, folder / name)
    (folder / "steps.jsonl").write_bytes(gzip.decompress((INTERRUPTED_12x12 / "steps.jsonl.gz").read_bytes()))
    board = kingtour.from_canonical(run["instance"])
    write_gz(folder / "base.smt2.gz", kingtour.encode(board, run["encoding"]["name"]).formula.document())
    return folder


# The quick subset, `python -m pytest -q -n 2 -m "not slow"` (under 3 minutes on 2 cores), leaves out
# these: the slowest tests of the full suite as measured (--durations), which CI always runs. Each is
# named whole, parametrisations included, so that the list says exactly what the subset skips.
SLOW = {
    "tests/test_cases_audit.py::test_resolve_on_a_real_small_run_with_both_solvers",
    "tests/test_crosscheck.py::test_generated_boards_with_none_one_and_several_solutions_agree_in_every_mode",
    "tests/test_batch.py::test_ctrl_c_during_a_batch_seals_the_running_job_as_interrupted_without_a_traceback",
    "tests/test_sharing_audit.py::test_an_honest_shared_run_audits_clean_and_resolves_clean",
    "tests/test_outside_checker.py::test_a_kept_parts_folder_named_unsatisfiable_with_a_wrong_part_audits_clean",
    "tests/test_base_left_out.py::test_a_published_run_without_its_base_is_never_resumed",
    "tests/test_proof_parts.py::test_the_audit_keeps_its_parts_and_a_second_audit_takes_them",
    "tests/test_nonary_listing.py::test_the_formula_written_out_is_the_one_stated_through_cnf",
    "tests/test_outside_checker.py::test_proofs_in_parts_are_written_part_by_part_and_checked",
    "tests/test_outside_checker.py::test_check_script_needs_the_exit_status_and_fails_when_the_audit_was_not_clean",
    # The quick subset's slowest (2026-12-06: together about a minute of one core's time).
    "tests/test_closing_by_cases.py::test_the_closing_step_lists_one_refuted_step_per_case_and_audits_consistent",
    "tests/test_nonary_fast.py::test_the_first_listing_answers_as_the_brute_force_does",
    "tests/test_nonary_listing.py::test_a_listing_taken_on_past_its_limit_is_the_listing_made_at_once",
    "tests/test_kingtour_reach.py::test_an_exclusion_rules_out_only_first_steps_with_no_way_through",
    "tests/test_outside_checker.py::test_a_checker_that_hangs_is_no_verdict_within_the_time_limit",
    "tests/test_rogue_hostile_walk.py::test_a_long_walk_that_breaks_a_rule_only_at_its_end_is_read_a_step_at_a_time",
    "tests/test_tree_proofs.py::test_the_audit_proves_a_shared_claim_a_cube_at_a_time",
    "tests/test_tree_proofs.py::test_a_complete_tree_of_cubes_joins_into_a_proof_of_the_query_alone",
    "tests/test_tree_proofs.py::test_certify_stores_one_proof_joined_from_the_cubes_that_the_verified_checker_takes_whole",
    "tests/test_tree_proofs.py::test_proofs_of_a_shared_claim_are_written_cube_by_cube_and_check_with_no_python",
    "tests/test_tree_proofs.py::test_a_tree_of_more_leaves_than_a_proof_takes_in_parts_is_proved_whole",
    "tests/test_ctrl_c_bursts.py::test_a_held_down_ctrl_c_ends_one_solve_cleanly",
    "tests/test_ctrl_c_bursts.py::test_a_held_down_ctrl_c_ends_a_batch_and_seals_every_job",
    "tests/test_fresh_solver.py::test_the_time_limit_holds_on_the_fresh_solver",
    "tests/test_fresh_solver.py::test_an_interrupt_stops_the_fresh_solver",
    # Kissat in a child process (2026-12-06: 2 to 7 s each, a fresh Python process and a solve)
    "tests/test_fresh_solver.py::test_fresh_solver_on_the_command_line_new_and_resumed",
    "tests/test_fresh_solver.py::test_kissat_s_child_dies_with_a_run_killed_outright",
    "tests/test_fresh_solver.py::test_the_time_limit_and_an_interrupt_kill_kissat_s_child",
    "tests/test_fresh_solver.py::test_kissat_in_a_child_answers_as_a_brute_force_does",
    "tests/test_results_width.py::test_results_of_the_published_runs_piped_are_whole_lines_in_a_stated_order",
    "tests/test_results_width.py::test_every_audit_verdict_fits_whole_beside_the_published_runs",
    "tests/test_batch_lifetime.py::test_kill_9_of_a_batch_takes_its_workers_with_it_and_the_rerun_resumes_at_once",
    "tests/test_batch_lifetime.py::test_a_running_batch_says_where_it_stands_and_stops_on_asking",
    "tests/test_web_view.py::test_the_live_page_in_a_browser_tables_runs_charts_a_run_going_on_and_escapes_a_hostile_name",
    "tests/test_web_view.py::test_the_saved_report_is_one_page_with_no_script_and_nothing_fetched",
    "tests/test_honest_progress.py::test_a_budget_that_runs_out_seals_unknown_and_the_run_resumes",
    "tests/test_audit_attacks.py::test_a_steps_file_at_the_cap_fits_in_bounded_memory",
    "tests/test_batch.py::test_a_batch_started_with_ctrl_c_ignored_ignores_it_in_its_jobs_too",
    "tests/test_batch.py::test_killed_batch_finishes_only_the_rest",
    "tests/test_batch.py::test_same_batch_on_a_dask_local_cluster",
    "tests/test_batch.py::test_scheduler_that_cannot_be_reached_is_one_line",
    "tests/test_cli_hardening.py::test_every_readme_solve_example_runs",
    "tests/test_cubes.py::test_cubes_on_a_local_dask_cluster_give_the_same_number_and_an_auditing_ledger",
    "tests/test_failure_paths.py::test_ctrl_c_at_any_moment_of_a_z3_run_leaves_no_traceback",
    "tests/test_failure_paths.py::test_a_sigterm_ends_an_audit_making_a_proof_as_a_ctrl_c_does",
    "tests/test_failure_paths.py::test_a_sigterm_ends_an_audit_re_solving_at_once_not_when_its_solvers_finish",
    "tests/test_hostile_round2.py::test_1_a_proof_past_the_text_cap_is_refused_before_it_is_checked",
    "tests/test_hostile_round2.py::test_1_half_a_megabyte_of_comment_lines_is_refused_in_bounded_memory",
    "tests/test_hostile_round2.py::test_3_any_control_character_or_markup_in_a_name_is_escaped_on_every_printed_path",
    "tests/test_hostile_round2.py::test_5_hints_that_name_wide_clauses_are_bounded_by_their_cost_per_byte",
    "tests/test_kingtour.py::test_6x6_proved_audited_and_engines_agree",
    "tests/test_kingtour.py::test_engines_and_encodings_agree_on_4x4",
    "tests/test_kingtour.py::test_posted_encoding_agrees_on_6x6_optimum",
    "tests/test_ledger.py::test_ctrl_c_stops_cleanly_with_a_resumable_ledger",
    "tests/test_ledger.py::test_exported_queries_are_portable",
    "tests/test_ledger.py::test_kill_minus_9_then_resume_then_audit_clean",
    "tests/test_live.py::test_show_follow_keeps_waiting_while_a_writer_holds_a_sealed_run",
    "tests/test_lrat.py::test_proof_all_fails_a_forged_unsat_step",
    "tests/test_lrat.py::test_proof_all_proves_every_recorded_unsat_step",
    "tests/test_nonary.py::test_a_long_plan_the_solver_missed_is_found_and_proves_nine",
    "tests/test_nonary.py::test_a_quick_plan_steers_the_solver_to_that_very_plan",
    "tests/test_nonary.py::test_agrees_with_brute_force_on_random_maps",
    "tests/test_nonary.py::test_an_all_out_plan_is_one_the_chains_formula_admits",
    "tests/test_nonary.py::test_cyclic_maps_agree_with_brute_force",
    "tests/test_nonary.py::test_groups_that_land_alike_are_one_move_and_the_move_count_is_capped",
    "tests/test_nonary.py::test_larger_cyclic_maps_agree_with_brute_force",
    "tests/test_nonary.py::test_many_door_maps_where_somebody_stays_in_agree_with_brute_force",
    "tests/test_nonary.py::test_quick_plans_are_legal_and_never_beat_the_brute_force",
    "tests/test_nonary.py::test_the_all_out_search_finds_a_plan_exactly_where_the_brute_force_frees_all_nine",
    "tests/test_nonary.py::test_the_known_stall_is_proved_optimal_and_audits_clean_with_an_independent_search",
    "tests/test_nonary.py::test_the_position_graph_is_every_reachable_position_and_each_plan_reaches_its_own",
    "tests/test_progress_lines.py::test_a_piped_batch_audit_and_results_print_progress_lines",
    "tests/test_progress_lines.py::test_a_piped_solve_says_where_it_stands_at_a_steady_pace",
    "tests/test_proof.py::test_a_changed_clause_is_rejected",
    "tests/test_readme_order.py::test_following_every_readme_command_in_order_leaves_the_tests_what_they_read",
    "tests/test_records.py::test_each_record_audits_clean_on_its_stored_proof",
    "tests/test_records.py::test_each_unfinished_run_claims_nothing_and_its_best_number_passes_the_referee",
    "tests/test_records.py::test_transposed_boxes_give_the_same_record",
    "tests/test_rules_reference.py::test_kingtour_6x6_seed_example",
    "tests/test_rules_reference.py::test_kingtour_6x6_with_clues",
    "tests/test_rules_reference.py::test_nonary_random_maps",
    "tests/test_wheel.py::test_the_installed_wheel_runs_its_examples_from_another_folder",
    "tests/test_wheel.py::test_the_wheel_carries_the_examples_the_licence_and_what_an_index_shows",
    "tests/test_lrat.py::test_certify_refuses_what_it_cannot_prove",
    "tests/test_plugin_example.py::test_the_plugins_own_tests_pass",
    "tests/test_progress_lines.py::test_a_piped_certify_says_which_proof_it_is_making",
    "tests/test_tatamibari.py::test_counts_agree_with_brute_force_on_small_grids",
    "tests/test_checker_soundness.py::test_random_proofs_of_satisfiable_formulas_are_never_accepted",
    "tests/test_proof_parts.py::test_certify_and_the_audit_on_a_reference_proved_in_parts",
    "tests/test_cubes_attacks.py::test_split_runs_on_clued_boards_give_the_brute_force_optimum",
    "tests/test_cubes.py::test_ctrl_c_while_cubes_run_on_dask_stops_the_run_interrupted_and_resumable",
    "tests/test_proof_parts.py::test_certify_splits_the_encoders_query_where_the_encoding_advises",
    "tests/test_proof_parts.py::test_a_kingtour_reference_in_parts_agrees_with_the_whole",
    "tests/test_core.py::test_exported_files_are_standard_smtlib_that_cvc5_and_z3_agree_on",
    "tests/test_ledger.py::test_a_solve_started_with_ctrl_c_ignored_runs_to_its_answer",
    "tests/test_symmetry_formula.py::test_breaking_keeps_the_brute_force_optimum",
    "tests/test_records.py::test_a_real_split_run_recorded_climbing_resumes_as_it_was_made",
    "tests/test_ledger.py::test_sigterm_seals_the_run_as_interrupted_even_in_the_background",
    "tests/test_kingtour.py::test_a_board_with_clues_gets_no_guess_and_an_empty_one_answers_its_first_check_at_once",
    "tests/test_rules_reference.py::test_fast_brute_force_agrees_with_brute_kingtour",
    "tests/test_reference_claims.py::test_a_certified_kingtour_reference_proof_uses_the_checked_symmetry_lemma",
    "tests/test_platforms.py::test_help_examples_export_and_reading_commands_need_no_fcntl",
    "tests/test_kingtour_reach.py::test_an_answer_exists_exactly_when_brute_force_finds_one",
    "tests/test_kingtour_reach.py::test_each_raised_step_reads_the_largest_digit_brute_force_allows",
    "tests/test_records.py::test_a_record_closed_by_its_cases_audits_consistent",
    "tests/test_live.py::test_show_on_a_real_interrupted_12x12_run",
    "tests/test_proof_parts.py::test_the_audit_makes_the_encoders_proof_in_parts_where_the_encoding_advises",
}


def pytest_collection_modifyitems(config, items):
    """Marks the slow tests, and runs them first: two workers (`-n 2`) that start on the longest
    tests end together, where a long test drawn last keeps one worker busy while the other idles
    (the full suite took 8:16 with its slowest tests in file order, many of them near the end)."""
    for item in items:
        if item.nodeid.split("[", 1)[0] in SLOW:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: file order otherwise
