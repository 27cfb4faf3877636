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
import threading
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

from rich.console import Console
from rich.live import Live

from smtpuzzles import children, puzzles
from smtpuzzles.folders.statuses import ANSWERED
from smtpuzzles.tables import ProgressBoard, answer_fields, summary_table
from smtpuzzles.cluster import dask_client, require_dask
from smtpuzzles.errors import InputError, LedgerError
from smtpuzzles.jobfile import Batch, Job, load_batch
from smtpuzzles.folders.locking import FolderBusy, FolderLock, require_locks
from smtpuzzles.render import print_all
from smtpuzzles.results import collect_results, results_table
from smtpuzzles.durations import duration
from smtpuzzles.engines import ctrl_c_held
from smtpuzzles.ticker import EVERY, Ticker, pace

__all__ = ["Batch", "Job", "load_batch", "run_batch", "run_batch_cli", "run_job", "collect_results",
           "results_table", "summary_table", "dask_client", "write_summary"]

# seconds: solving done by this batch (0 for a job finished before: reading it again is no solving);
# solver_seconds: the run's solver time over all its sessions, from its ledger.
SUMMARY_FIELDS = ["job", "puzzle", "status", "value", "count", "count_complete", "unique", "seconds", "solver_seconds",
                  "note", "run_dir", "error"]
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
    from smtpuzzles.auditing.readback import recorded_instance
    from smtpuzzles.folders.runfolder import open_run

    try:
        run = open_run(run_dir).run
        recorded_instance(run, str(run_dir / "run.json"))
    except LedgerError as exc:
        raise LedgerError(f"broken ledger, left as it is ({exc})", str(run_dir)) from None


def run_job(spec: dict) -> dict:
    """Run (or resume, or skip) one job. Runs in a worker process or on a Dask worker."""
    folder = Path(spec["folder"])
    summary = {"job": spec["name"], "puzzle": spec["puzzle"], "status": "failed", "value": None, "count": None,
               "count_complete": None, "unique": None, "seconds": 0.0, "solver_seconds": None, "note": "",
               "run_dir": None, "error": None}
    if _stopping is not None and _stopping.is_set():  # `batch --stop` came before this job started
        summary.update(status="interrupted", note="stopped")
        return summary
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
    summary["seconds"] = round(summary["seconds"], 3)
    if summary["run_dir"]:
        summary["solver_seconds"] = _solver_seconds(Path(summary["run_dir"]))
    return summary


def _solver_seconds(run_dir: Path) -> float | None:
    """The run's solver time over all its sessions, as `show` and `results` count it."""
    from smtpuzzles.folders.runfolder import open_run

    try:
        return round(sum(float(s.get("seconds", 0)) for s in open_run(run_dir).steps), 3)
    except (LedgerError, OSError, ValueError):
        return None


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
    share = spec.get("share")
    # The batch's cluster takes the cubes or the shared checks.
    cube_scheduler = spec.get("scheduler") if spec["cubes"] or share else None
    if chosen is not None:
        run_dir, run = chosen
        check_intact(run_dir)
        if run.get("status") in ANSWERED:
            summary.update(status=run["status"], value=run.get("value"), run_dir=str(run_dir), skipped=True,
                           note="done before", **answer_fields(run))
            return
        # A job without cubes resumes a run as it was split (None: the recorded depth), as `solve
        # --resume` without --cubes does.
        started = time.perf_counter()
        try:
            outcome, ledger = runner.resume(run_dir, time_limit=spec["time_limit"], split_after=spec["split_after"],
                                            cubes=spec["cubes"] or None, scheduler=cube_scheduler,
                                            budget=spec.get("budget"), share=share)
        finally:
            summary["seconds"] = time.perf_counter() - started
        summary["note"] = "resumed"
    else:
        module = puzzles.get(spec["puzzle"])
        instance = module.load(spec["text"], spec["source"], spec["options"])
        started = time.perf_counter()
        try:
            outcome, ledger = runner.solve(module, instance, spec["text"] or "", out_dir=folder, engine=spec["engine"],
                                           encoding=spec["encoding"], time_limit=spec["time_limit"], mode=spec["mode"],
                                           limit=spec["options"].get("count_limit"), params=spec["params"],
                                           cubes=spec["cubes"], split_after=spec["split_after"],
                                           scheduler=cube_scheduler, budget=spec.get("budget"), share=share)
        finally:
            summary["seconds"] = time.perf_counter() - started
        if earlier:
            summary["note"] = "job changed: new run"
    summary.update(status=outcome.status, value=ledger.run.get("value"), run_dir=str(ledger.dir),
                   **answer_fields(ledger.run))


# -------------------------------------------------------------------------------------------- running
def _died(spec: dict, exc: BaseException) -> dict:
    return {"job": spec["name"], "puzzle": spec["puzzle"], "status": "failed", "value": None, "count": None,
            "count_complete": None, "unique": None, "seconds": 0.0, "solver_seconds": None, "note": "",
            "run_dir": None, "error": f"the worker died ({exc.__class__.__name__}: {exc})"}


def _not_started(spec: dict) -> dict:
    return {**_died(spec, RuntimeError()), "status": "interrupted", "note": "stopped", "error": None}


# Set in a worker by `batch --stop` (through its batch): jobs it has not started are not started.
_stopping = None


def _start_worker(batch_takes_ctrl_c: bool, stopping) -> None:
    """A pool worker dies with its batch, however the batch dies (kill -9 included): otherwise it
    would go on solving, and holding its job's lock, with nobody to report to (smtpuzzles.children)."""
    global _stopping
    children.tie_to_parent()
    _stopping = stopping
    _ctrl_c_only_in_a_run(batch_takes_ctrl_c)
    if stopping is not None:
        threading.Thread(target=_stop_when_told, args=(stopping,), name="batch-stop", daemon=True).start()


def _stop_when_told(stopping) -> None:
    """`batch --stop` reaches a worker as an event, not a signal (a batch started in the background
    ignores Ctrl-C, and SIGTERM would end an idle worker): the run under way stops as at a first
    Ctrl-C, sealing its ledger `interrupted`. Pressed again and again, since a run clears it when it
    starts, and a job handed over just before the stop must not run on."""
    from smtpuzzles.engines import press_ctrl_c

    stopping.wait()
    while True:
        press_ctrl_c()
        time.sleep(0.2)


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
              progress_every: float = EVERY, progress_form: str | None = None) -> list[dict]:
    console = console or Console()
    board = ProgressBoard(batch.jobs)
    # Off a terminal (a log, nohup) the live table becomes a plain line (or a JSON one) every few seconds.
    ticker = Ticker(board.plain_line, pace(progress_every, console.is_terminal, progress_form), record=board.records,
                    form=progress_form)
    # A job split into cubes sends them to the batch's own cluster (from the worker running it).
    specs = [{**job.spec(), "scheduler": scheduler} for job in batch.jobs]
    results: dict[str, dict] = {}
    live = Live(board, console=console, refresh_per_second=2, transient=False) \
        if console.is_terminal and ticker.form != "json" else None
    client = dask_client(scheduler) if scheduler else None  # an unreachable one: one line, before any progress
    if live:
        live.start()
    ticker.__enter__()
    try:
        with Running(batch):
            if client is not None:
                _run_on_dask(client, specs, results, board)
            else:
                _run_here(specs, jobs, results, board)
    finally:
        ticker.__exit__()
        if live:
            live.stop()
    ordered = [results[job.name] for job in batch.jobs]
    write_summary(batch.out, ordered)
    return ordered


def _run_on_dask(client, specs: list[dict], results: dict, board: ProgressBoard) -> None:
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


def _run_here(specs: list[dict], jobs: int, results: dict, board: ProgressBoard) -> None:
    """The jobs in local worker processes, each tied to this process (they die with it). SIGTERM
    (`batch --stop`) stops the batch as Ctrl-C does: each running job seals its ledger as
    interrupted, the jobs not started are not started, and the summary is written."""
    import multiprocessing

    takes_ctrl_c = signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    stopping = multiprocessing.get_context().Event()
    told = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: told.set())
    try:
        with ProcessPoolExecutor(max_workers=max(1, jobs), initializer=_start_worker,
                                 initargs=(takes_ctrl_c, stopping)) as pool:
            try:
                pending = {pool.submit(run_job, spec): spec for spec in specs}
                while pending:
                    if told.is_set() and not stopping.is_set():
                        stopping.set()  # each worker's run stops (_stop_when_told)
                        for future in pending:
                            future.cancel()
                    done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                    for future in done:
                        spec = pending.pop(future)
                        if future.cancelled():
                            results[spec["name"]] = _not_started(spec)
                        else:
                            try:
                                results[spec["name"]] = future.result()
                            except Exception as exc:  # the worker process itself died
                                results[spec["name"]] = _died(spec, exc)
                        board.finish(results[spec["name"]])
                    board.poll()
            except KeyboardInterrupt:
                # The same Ctrl-C reached the workers: each running job seals its ledger as
                # interrupted (resumable) and returns; jobs not yet started are dropped. More
                # Ctrl-Cs (a key held down) are let pass meanwhile: one raised inside the shutdown
                # left the pool's threads on closed pipes.
                with ctrl_c_held():
                    pool.shutdown(wait=True, cancel_futures=True)
                raise
    finally:
        signal.signal(signal.SIGTERM, previous)


# ------------------------------------------------------------------------- a batch while it runs
RUNNING_DIR = ".batches"  # under OUT: one file per running batch, locked while it runs


class Running:
    """While a batch runs, OUT/.batches/PID.json names it (its pid, its job file, when it started)
    under an exclusive flock: `batch --status` and `--stop` find it there, and tell a running batch
    from one that was killed (the kernel drops the lock). Removed when the batch ends."""

    def __init__(self, batch: Batch):
        self.batch = batch
        self.path = Path(batch.out) / RUNNING_DIR / f"{os.getpid()}.json"
        self.fd: int | None = None

    def __enter__(self) -> "Running":
        fcntl = require_locks()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(self.fd, json.dumps({"pid": os.getpid(), "job_file": str(getattr(self.batch, "source", None)),
                                          "started": time.time()}).encode())
        except OSError:  # status and stop will not see this batch; it runs all the same
            self.__exit__()
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            try:
                self.path.unlink()
            except OSError:
                pass
            os.close(self.fd)
            self.fd = None


def running_batches(batch: Batch) -> list[dict]:
    """The batches of this job file running now with this OUT: each file under OUT/.batches whose
    lock is held (one whose batch was killed is left out, and removed)."""
    fcntl = require_locks()
    found = []
    for path in sorted((Path(batch.out) / RUNNING_DIR).glob("*.json")):
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:  # held: that batch is running
                try:
                    record = json.loads(os.read(fd, 4096).decode() or "{}")
                except (ValueError, UnicodeDecodeError):
                    continue
                if isinstance(record, dict) and isinstance(record.get("pid"), int) \
                        and str(record.get("job_file")) == str(getattr(batch, "source", None)):
                    found.append(record)
                continue
            try:
                path.unlink()  # nobody holds it: its batch died without removing it
            except OSError:
                pass
        finally:
            os.close(fd)
    return found


def batch_status(batch: Batch, console: Console) -> int:
    """`batch --status`: whether a batch of this job file runs, and each job's row as the live
    board shows it (from the jobs' own ledgers). Exit 0 when one runs, 1 when none does."""
    running = running_batches(batch)
    board = ProgressBoard(batch.jobs)
    board.poll(settled=True)
    if running:
        for record in running:
            console.print(f"running: batch pid {record['pid']}, started {duration(time.time() - record['started'])} ago",
                          markup=False, highlight=False)
    else:
        console.print("no batch of this job file is running", markup=False, highlight=False)
    console.print(board)
    return 0 if running else 1


def stop_batches(batch: Batch, console: Console, wait_seconds: float = 60.0) -> int:
    """`batch --stop`: SIGTERM to each running batch of this job file, then wait for it to seal its
    jobs' ledgers and end. Exit 0 when they ended, 1 when none was running or one is still going."""
    running = running_batches(batch)
    if not running:
        console.print("no batch of this job file is running", markup=False, highlight=False)
        return 1
    for record in running:
        try:
            os.kill(record["pid"], signal.SIGTERM)
        except (ProcessLookupError, PermissionError) as exc:
            console.print(f"batch pid {record['pid']}: {exc.strerror}", markup=False, highlight=False)
    deadline = time.monotonic() + wait_seconds
    while running_batches(batch) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = running_batches(batch)
    if left:
        console.print(f"still running after {wait_seconds:.0f} s: pid {', '.join(str(r['pid']) for r in left)}",
                      markup=False, highlight=False)
        return 1
    console.print(f"stopped: {', '.join('batch pid ' + str(r['pid']) for r in running)}; run the batch again to "
                  "resume", markup=False, highlight=False)
    return 0


def write_summary(out: Path, rows: list[dict]) -> None:
    from smtpuzzles.folders.durable import write_atomic

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
    batch.source = Path(args.jobs_file).resolve()
    require_locks()  # every job writes a locked folder: a platform without fcntl stops here, in one line
    console = Console()
    if getattr(args, "status", False):
        return batch_status(batch, console)
    if getattr(args, "stop", False):
        return stop_batches(batch, console)
    if args.scheduler:  # fail with one line before anything runs
        require_dask()
    if getattr(args, "budget", None) is not None:  # for each job without a budget of its own
        for job in batch.jobs:
            job.budget = args.budget if job.budget is None else job.budget
    rows = run_batch(batch, jobs=args.jobs, scheduler=args.scheduler, console=console,
                     progress_every=getattr(args, "progress_every", EVERY), progress_form=getattr(args, "progress", None))
    print_all(console, [summary_table(rows)])  # each job's error whole on its line
    # Shown with "a/../b" folded (a job file's `out = "../runs"`); the folder itself is as written.
    console.print(f"summary: {os.path.normpath(batch.out / 'summary.json')} (and .csv)", markup=False, highlight=False)
    return 0 if all(r["status"] in ANSWERED for r in rows) else 1
