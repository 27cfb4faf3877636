"""Batch jobs from a TOML file: validated up front (jobfile.py), run in parallel (local processes or
a Dask cluster), each job its own run ledger, resumable by running the same batch again.

Every job writes under OUT/jobs/NAME/. Running a batch again looks in that folder for a run of the
same job (same puzzle, canonical instance, encoding, engine, mode and parameters): an intact
finished one is reported as done before, an unfinished one is resumed, and a job that changed gets a
new run beside the old ones, which are never touched. A lock on the job folder keeps two batches
sharing OUT from both starting one job; the run folder's own lock keeps out any other writer.
"""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

from rich.console import Console
from rich.live import Live

from smtpuzzles import puzzles
from smtpuzzles.folders.statuses import ANSWERED
from smtpuzzles.tables import ProgressBoard, answer_fields, summary_table
from smtpuzzles.cluster import dask_client, require_dask
from smtpuzzles.errors import InputError, LedgerError
from smtpuzzles.jobfile import Batch, Job, load_batch
from smtpuzzles.folders.locking import FolderBusy, FolderLock, require_locks
from smtpuzzles.results import collect_results, results_table
from smtpuzzles.ticker import EVERY, Ticker

__all__ = ["Batch", "Job", "load_batch", "run_batch", "run_batch_cli", "run_job", "collect_results",
           "results_table", "summary_table", "dask_client", "write_summary"]

SUMMARY_FIELDS = ["job", "puzzle", "status", "value", "count", "count_complete", "unique", "seconds", "note",
                  "run_dir", "error"]
STAMP = re.compile(r"-(\d{8}-\d{6})(?:-(\d+))?$")


def runs_newest_first(folder: Path) -> list[Path]:
    """Run folders of one job, newest first, by the start time in their names (any puzzle)."""
    def key(run_dir: Path):
        match = STAMP.search(run_dir.name)
        if match:
            return (match.group(1), int(match.group(2) or 1), run_dir.name)
        return ("", 0, run_dir.name)
    return sorted((p.parent for p in folder.glob("*/run.json")), key=key, reverse=True)


def matches(run: dict, identity: dict) -> bool:
    """Whether a recorded run answers this job as it is written today."""
    engine = run.get("engine") if isinstance(run.get("engine"), dict) else {}
    encoding = run.get("encoding") if isinstance(run.get("encoding"), dict) else {}
    same = (run.get("puzzle") == identity["puzzle"] and run.get("instance_sha256") == identity["instance_sha256"]
            and encoding.get("name") == identity["encoding"] and engine.get("name") == identity["engine"]
            and run.get("mode", "optimise") == identity["mode"] and run.get("limit") == identity["limit"])
    if not same:
        return False
    # run.json holds the parameters as asked until the engine starts, then with its defaults filled in.
    recorded = engine.get("params") or {}
    return recorded in (identity["params"], {**engine_defaults(identity["engine"]), **identity["params"]})


_DEFAULTS: dict[str, dict] = {}


def engine_defaults(name: str) -> dict:
    """The parameters an engine fills in when asked for none, from the engine itself."""
    if name not in _DEFAULTS:
        from smtpuzzles.engines import make_engine
        from smtpuzzles.formula import CNF, Formula

        _DEFAULTS[name] = dict(make_engine(name, Formula.from_cnf(CNF()), {}).params)
    return _DEFAULTS[name]


def check_intact(run_dir: Path) -> None:
    """The folder as the audit reads it (schema, caps, hash chain, seal) and its instance: a broken
    ledger is never reported as an answer, nor resumed."""
    from smtpuzzles.folders.readback import recorded_instance
    from smtpuzzles.folders.runfolder import open_run

    try:
        run = open_run(run_dir).run
        recorded_instance(run, str(run_dir / "run.json"))
    except LedgerError as exc:
        raise LedgerError(f"broken ledger, left as it is ({exc})", str(run_dir)) from None


def run_job(spec: dict) -> dict:
    """Run (or resume, or skip) one job. Runs in a worker process or on a Dask worker."""
    started = time.perf_counter()
    folder = Path(spec["folder"])
    summary = {"job": spec["name"], "puzzle": spec["puzzle"], "status": "failed", "value": None, "count": None,
               "count_complete": None, "unique": None, "seconds": 0.0, "note": "", "run_dir": None, "error": None}
    try:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LedgerError(f"cannot make the job folder ({exc.strerror or exc})", str(folder)) from None
        with FolderLock(folder, "batch job folder"):
            _run_locked(spec, folder, summary)
    except FolderBusy as exc:
        summary.update(status="busy", note="busy elsewhere", error=str(exc))
    except InputError as exc:  # a broken ledger, a refused resume: one line naming the folder
        summary["error"] = str(exc)
    except Exception as exc:  # a crashing job is reported, the others go on
        summary["error"] = f"{exc.__class__.__name__}: {exc}"
        summary["trace"] = traceback.format_exc(limit=3)
    summary["seconds"] = round(time.perf_counter() - started, 3)
    return summary


def _run_locked(spec: dict, folder: Path, summary: dict) -> None:
    from smtpuzzles import run as runner
    from smtpuzzles.folders.runfolder import read_run_json

    earlier = runs_newest_first(folder)
    chosen = None
    for run_dir in earlier:
        try:
            run = read_run_json(run_dir)
        except LedgerError as exc:
            raise LedgerError(f"broken ledger, left as it is ({exc})", str(run_dir)) from None
        if matches(run, spec["identity"]):
            chosen = (run_dir, run)
            break
    cube_scheduler = spec.get("scheduler") if spec["cubes"] else None  # the batch's cluster takes the cubes
    if chosen is not None:
        run_dir, run = chosen
        check_intact(run_dir)
        if run.get("status") in ANSWERED:
            summary.update(status=run["status"], value=run.get("value"), run_dir=str(run_dir), skipped=True,
                           note="done before", **answer_fields(run))
            return
        # A job without cubes resumes a run as it was split (None: the recorded depth), as `solve
        # --resume` without --cubes does.
        outcome, ledger = runner.resume(run_dir, time_limit=spec["time_limit"], split_after=spec["split_after"],
                                        cubes=spec["cubes"] or None, scheduler=cube_scheduler)
        summary["note"] = "resumed"
    else:
        module = puzzles.get(spec["puzzle"])
        instance = module.load(spec["text"], spec["source"], spec["options"])
        outcome, ledger = runner.solve(module, instance, spec["text"] or "", out_dir=folder, engine=spec["engine"],
                                       encoding=spec["encoding"], time_limit=spec["time_limit"], mode=spec["mode"],
                                       limit=spec["options"].get("count_limit"), params=spec["params"],
                                       cubes=spec["cubes"], split_after=spec["split_after"], scheduler=cube_scheduler)
        if earlier:
            summary["note"] = "job changed: new run"
    summary.update(status=outcome.status, value=ledger.run.get("value"), run_dir=str(ledger.dir),
                   **answer_fields(ledger.run))


# -------------------------------------------------------------------------------------------- running
def _died(spec: dict, exc: BaseException) -> dict:
    return {"job": spec["name"], "puzzle": spec["puzzle"], "status": "failed", "value": None, "count": None,
            "count_complete": None, "unique": None, "seconds": 0.0, "note": "", "run_dir": None,
            "error": f"the worker died ({exc.__class__.__name__}: {exc})"}


def _ctrl_c_only_in_a_run(batch_takes_ctrl_c: bool) -> None:
    """Pool workers ignore Ctrl-C while idle (an idle worker would die with a traceback on it); a
    job's run takes it over while it runs (smtpuzzles.engines.ctrl_c_between_steps) and seals its
    ledger as interrupted. A batch started with Ctrl-C ignored (in the background) ignores it in
    its jobs too: otherwise they would stop while the batch went on as if nothing had happened."""
    from smtpuzzles.engines import ignore_ctrl_c_between_jobs

    if batch_takes_ctrl_c:
        ignore_ctrl_c_between_jobs()
    else:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_batch(batch: Batch, jobs: int = 2, scheduler: str | None = None, console: Console | None = None,
              progress_every: float = EVERY) -> list[dict]:
    console = console or Console()
    board = ProgressBoard(batch.jobs)
    # Off a terminal (a log, nohup) the live table becomes a plain line every few seconds.
    ticker = Ticker(board.plain_line, progress_every if not console.is_terminal else 0)
    # A job split into cubes sends them to the batch's own cluster (from the worker running it).
    specs = [{**job.spec(), "scheduler": scheduler} for job in batch.jobs]
    results: dict[str, dict] = {}
    live = Live(board, console=console, refresh_per_second=2, transient=False) if console.is_terminal else None
    client = dask_client(scheduler) if scheduler else None  # an unreachable one: one line, before any progress
    if live:
        live.start()
    ticker.__enter__()
    try:
        if client is not None:
            from dask.distributed import as_completed

            futures = {client.submit(run_job, spec, pure=False, key=f"smtpuzzles-{spec['name']}-{time.time_ns()}"): spec
                       for spec in specs}
            try:
                for future in as_completed(futures):
                    spec = futures[future]
                    try:
                        results[spec["name"]] = future.result()
                    except Exception as exc:
                        results[spec["name"]] = _died(spec, exc)
                    board.finish(results[spec["name"]])
            finally:
                client.close()  # or it keeps reconnecting, and logging so, after the cluster is gone
        else:
            takes_ctrl_c = signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
            with ProcessPoolExecutor(max_workers=max(1, jobs), initializer=_ctrl_c_only_in_a_run,
                                     initargs=(takes_ctrl_c,)) as pool:
                try:
                    pending = {pool.submit(run_job, spec): spec for spec in specs}
                    while pending:
                        done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                        for future in done:
                            spec = pending.pop(future)
                            try:
                                results[spec["name"]] = future.result()
                            except Exception as exc:  # the worker process itself died
                                results[spec["name"]] = _died(spec, exc)
                            board.finish(results[spec["name"]])
                        board.poll()
                except KeyboardInterrupt:
                    # The same Ctrl-C reached the workers: each running job seals its ledger as
                    # interrupted (resumable) and returns; jobs not yet started are dropped.
                    pool.shutdown(wait=True, cancel_futures=True)
                    raise
    finally:
        ticker.__exit__()
        if live:
            live.stop()
    ordered = [results[job.name] for job in batch.jobs]
    write_summary(batch.out, ordered)
    return ordered


def write_summary(out: Path, rows: list[dict]) -> None:
    from smtpuzzles.folders.ledger import write_atomic

    out.mkdir(parents=True, exist_ok=True)
    # Atomic: a second batch sharing OUT may write its own summary at the same moment; each file
    # is then one batch's whole summary, never a mixture.
    write_atomic(out / "summary.json", json.dumps([{k: r.get(k) for k in SUMMARY_FIELDS + ["skipped"]} for r in rows],
                                                  indent=2) + "\n")
    import io

    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=SUMMARY_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (json.dumps(row.get(k)) if isinstance(row.get(k), list) else row.get(k))
                         for k in SUMMARY_FIELDS})
    write_atomic(out / "summary.csv", buffer.getvalue())


def run_batch_cli(args) -> int:
    batch = load_batch(Path(args.jobs_file), args.out)
    require_locks()  # every job writes a locked folder: a platform without fcntl stops here, in one line
    if args.scheduler:  # fail with one line before anything runs
        require_dask()
    console = Console()
    rows = run_batch(batch, jobs=args.jobs, scheduler=args.scheduler, console=console,
                     progress_every=getattr(args, "progress_every", EVERY))
    console.print(summary_table(rows))
    # Shown with "a/../b" folded (a job file's `out = "../runs"`); the folder itself is as written.
    console.print(f"summary: {os.path.normpath(batch.out / 'summary.json')} (and .csv)", markup=False, highlight=False)
    return 0 if all(r["status"] in ANSWERED for r in rows) else 1
