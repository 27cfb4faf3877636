"""Batch jobs from a TOML file: validated up front, run in parallel (local processes or a Dask
cluster), each job its own run ledger, resumable by running the same batch again.

Every job writes under OUT/jobs/NAME/. Running a batch again skips jobs whose ledger holds a finished
answer and resumes the others from their ledgers. The live table is read from the ledgers themselves,
so it looks the same whether the jobs run here or on a cluster sharing the output folder.
"""

from __future__ import annotations

import csv
import glob
import json
import os
import sys
import time
import traceback
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from smtpuzzles import puzzles
from smtpuzzles.errors import InputError
from smtpuzzles.render import STATUS_STYLE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FINISHED = ("optimal", "solved", "infeasible")
# key -> accepted types; a job may carry any of these, [defaults] the shared subset
JOB_KEYS = {
    "name": (str,), "puzzle": (str,), "input": (str,), "grid": (str,), "map": (str,), "doors": (list,),
    "url": (str,), "size": (int,), "box": (str,), "clues": (str,), "unique": (bool,), "count": (bool, int),
    "engine": (str,), "encoding": (str,), "time_limit": (int, float), "params": (dict,),
}
DEFAULT_KEYS = {"time_limit": (int, float), "out": (str,), "engine": (str,), "params": (dict,)}
INLINE = ("grid", "map", "doors", "url")


@dataclass
class Job:
    name: str
    puzzle: str
    text: str | None
    source: str
    options: dict
    mode: str
    engine: str | None
    encoding: str | None
    time_limit: float | None
    params: dict
    folder: str = ""

    def spec(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Batch:
    jobs: list[Job]
    out: Path
    defaults: dict = field(default_factory=dict)


def _type_name(types) -> str:
    return " or ".join({"str": "a string", "int": "an integer", "float": "a number", "bool": "true/false",
                        "list": "a list", "dict": "a table"}[t.__name__] for t in types)


def _check(table: dict, allowed: dict, where: str) -> None:
    for key, value in table.items():
        if key not in allowed:
            raise InputError(f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})", where)
        types = allowed[key]
        if isinstance(value, bool) and bool not in types:
            raise InputError(f"{key} must be {_type_name(types)}, not {value!r}", where)
        if not isinstance(value, types):
            raise InputError(f"{key} must be {_type_name(types)}, not {type(value).__name__} {value!r}", where)


def load_batch(path: Path, out: str | None = None) -> Batch:
    """Read and validate the whole job file before anything runs."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such file", str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", str(path)) from None
    unknown = set(data) - {"defaults", "job"}
    if unknown:
        raise InputError(f"unknown top-level key {sorted(unknown)[0]!r} (expected [defaults] and [[job]])", str(path))
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise InputError("[defaults] must be a table", str(path))
    _check(defaults, DEFAULT_KEYS, f"{path} [defaults]")
    entries = data.get("job", [])
    if not isinstance(entries, list) or not entries:
        raise InputError("no [[job]] entries", str(path))
    base = path.resolve().parent
    jobs: list[Job] = []
    for number, entry in enumerate(entries, 1):
        label = entry.get("name") if isinstance(entry.get("name"), str) else f"#{number}"
        where = f"{path} job {label}"
        _check(entry, JOB_KEYS, where)
        if "puzzle" not in entry:
            raise InputError("missing key 'puzzle'", where)
        if entry["puzzle"] not in puzzles.NAMES:
            raise InputError(f"puzzle {entry['puzzle']!r} is not one of {', '.join(puzzles.NAMES)}", where)
        module = puzzles.get(entry["puzzle"])
        given = [k for k in ("input",) + INLINE if k in entry]
        if len(given) > 1:
            raise InputError(f"give one input, not {' and '.join(given)}", where)
        mode = "unique" if entry.get("unique") else ("count" if entry.get("count") not in (None, False) else module.MODES[0])
        if mode not in module.MODES:
            raise InputError(f"{entry['puzzle']} has no {mode} mode", where)
        options = {"size": entry.get("size"), "box": entry.get("box")}
        inputs: list[tuple[str | None, str, str]] = []  # (text, source, name suffix)
        if "input" in entry:
            files = sorted(glob.glob(str(base / entry["input"])))
            if not files:
                raise InputError(f"input {entry['input']!r} matches no file", where)
            for file in files:
                inputs.append((Path(file).read_text(encoding="utf-8"), file, Path(file).stem if len(files) > 1 or "name" not in entry else ""))
        elif given:
            key = given[0]
            value = entry[key]
            inputs.append((json.dumps(value) if key == "doors" else value, f"job {label} {key}", ""))
        elif entry["puzzle"] == "kingtour":
            clues = entry.get("clues")
            text = (base / clues).read_text(encoding="utf-8") if clues else None
            inputs.append((text, clues or "options", ""))
        else:
            raise InputError("missing its input (input, grid, map, doors or url)", where)
        for text, source, suffix in inputs:
            name = entry.get("name") or f"{entry['puzzle']}-{number}"
            if suffix:
                name = f"{name}-{suffix}"
            try:
                module.load(text, source, options)  # validate now, before anything runs
            except InputError as exc:
                raise InputError(str(exc), where) from None
            limit = entry.get("time_limit", defaults.get("time_limit"))
            count_limit = entry.get("count") if isinstance(entry.get("count"), int) and not isinstance(entry.get("count"), bool) else None
            jobs.append(Job(name, entry["puzzle"], text, source, {**options, "count_limit": count_limit}, mode,
                            entry.get("engine", defaults.get("engine")), entry.get("encoding"),
                            float(limit) if limit is not None else None,
                            {**defaults.get("params", {}), **entry.get("params", {})}))
    names = [job.name for job in jobs]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise InputError(f"two jobs are named {duplicate!r}; give them distinct names", str(path))
    folder = Path(out) if out else (base / defaults["out"] if "out" in defaults else Path("results"))
    for job in jobs:
        job.folder = str(folder / "jobs" / job.name)
    return Batch(jobs, folder, defaults)


def latest_run(folder: Path) -> Path | None:
    runs = sorted(p.parent for p in folder.glob("*/run.json"))
    return runs[-1] if runs else None


def run_job(spec: dict) -> dict:
    """Run (or resume, or skip) one job. Runs in a worker process or on a Dask worker."""
    from smtpuzzles import run as runner

    started = time.perf_counter()
    folder = Path(spec["folder"])
    summary = {"job": spec["name"], "puzzle": spec["puzzle"], "status": "failed", "value": None, "seconds": 0.0, "run_dir": None, "error": None}
    try:
        previous = latest_run(folder)
        if previous is not None:
            run = json.loads((previous / "run.json").read_text())
            if run["status"] in FINISHED:
                summary.update(status=run["status"], value=run.get("value"), run_dir=str(previous), skipped=True)
                return summary
            outcome, ledger = runner.resume(previous, time_limit=spec["time_limit"])
        else:
            module = puzzles.get(spec["puzzle"])
            instance = module.load(spec["text"], spec["source"], spec["options"])
            outcome, ledger = runner.solve(module, instance, spec["text"] or "", out_dir=folder, engine=spec["engine"],
                                           encoding=spec["encoding"], time_limit=spec["time_limit"], mode=spec["mode"],
                                           limit=spec["options"].get("count_limit"), params=spec["params"])
        summary.update(status=outcome.status, value=ledger.run.get("value"), run_dir=str(ledger.dir))
    except Exception as exc:  # a crashing job is reported, the others go on
        summary["error"] = f"{exc.__class__.__name__}: {exc}"
        summary["trace"] = traceback.format_exc(limit=3)
    summary["seconds"] = round(time.perf_counter() - started, 3)
    return summary


# -------------------------------------------------------------------------------------------- running
def dask_client(address: str):
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'smtpuzzles[dask]'", "--scheduler") from None
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError) as exc:
        raise InputError(f"cannot reach the Dask scheduler ({exc})", address) from None


def run_batch(batch: Batch, jobs: int = 2, scheduler: str | None = None, console: Console | None = None) -> list[dict]:
    console = console or Console()
    board = ProgressBoard(batch.jobs)
    specs = [job.spec() for job in batch.jobs]
    results: dict[str, dict] = {}
    live = Live(board, console=console, refresh_per_second=2, transient=False) if console.is_terminal else None
    if live:
        live.start()
    try:
        if scheduler:
            from dask.distributed import as_completed

            client = dask_client(scheduler)
            futures = {client.submit(run_job, spec, pure=False, key=f"smtpuzzles-{spec['name']}-{time.time_ns()}"): spec for spec in specs}
            for future in as_completed(futures):
                spec = futures[future]
                try:
                    results[spec["name"]] = future.result()
                except Exception as exc:
                    results[spec["name"]] = {"job": spec["name"], "puzzle": spec["puzzle"], "status": "failed", "value": None,
                                             "seconds": 0.0, "run_dir": None, "error": str(exc)}
                board.finish(results[spec["name"]])
        else:
            with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
                pending = {pool.submit(run_job, spec): spec for spec in specs}
                while pending:
                    done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                    for future in done:
                        spec = pending.pop(future)
                        try:
                            results[spec["name"]] = future.result()
                        except Exception as exc:  # the worker process itself died
                            results[spec["name"]] = {"job": spec["name"], "puzzle": spec["puzzle"], "status": "failed",
                                                     "value": None, "seconds": 0.0, "run_dir": None, "error": str(exc)}
                        board.finish(results[spec["name"]])
                    board.poll()
    finally:
        if live:
            live.stop()
    ordered = [results[job.name] for job in batch.jobs]
    write_summary(batch.out, ordered)
    return ordered


def write_summary(out: Path, rows: list[dict]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    fields = ["job", "puzzle", "status", "value", "seconds", "run_dir", "error"]
    (out / "summary.json").write_text(json.dumps([{k: r.get(k) for k in fields + ["skipped"]} for r in rows], indent=2) + "\n")
    with open(out / "summary.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (json.dumps(row.get(k)) if isinstance(row.get(k), list) else row.get(k)) for k in fields})


class ProgressBoard:
    """The live table: one row per job, read from the job's own ledger."""

    def __init__(self, jobs: list[Job]):
        self.jobs = jobs
        self.started = time.perf_counter()
        self.done: dict[str, dict] = {}
        self.seen: dict[str, dict] = {}

    def finish(self, summary: dict) -> None:
        self.done[summary["job"]] = summary

    def poll(self) -> None:
        for job in self.jobs:
            if job.name in self.done:
                continue
            run_dir = latest_run(Path(job.folder))
            if run_dir is None:
                continue
            info = {"state": "running", "best": "", "progress": ""}
            try:
                solution = run_dir / "solution.json"
                if solution.exists():
                    info["best"] = _short(json.loads(solution.read_text()).get("value"))
                steps = (run_dir / "steps.jsonl").read_bytes().splitlines()
                if steps:
                    last = json.loads(steps[-1])
                    claim = last["claim"]
                    if claim["op"] == "exceed":
                        info["progress"] = f"{claim['pos'] + (last['result'] == 'unsat')} digits fixed"
                    else:
                        info["progress"] = f"{len(steps)} checks, last {last['result']}"
            except (OSError, ValueError):
                pass  # a line being written; next poll
            self.seen[job.name] = info

    def __rich__(self) -> Table:
        table = Table(title=f"batch: {len(self.done)}/{len(self.jobs)} done, {time.perf_counter() - self.started:.0f}s")
        for col in ("job", "puzzle", "state", "best", "progress", "seconds"):
            table.add_column(col)
        for job in self.jobs:
            if job.name in self.done:
                s = self.done[job.name]
                state = s["status"] + (" (done before)" if s.get("skipped") else "")
                table.add_row(job.name, job.puzzle, Text(state, style=STATUS_STYLE.get(s["status"], "")), _short(s.get("value")),
                              (s.get("error") or "")[:60], f"{s['seconds']:.1f}")
            else:
                info = self.seen.get(job.name, {"state": "waiting", "best": "", "progress": ""})
                table.add_row(job.name, job.puzzle, Text(info["state"], style="cyan" if info["state"] == "running" else "dim"),
                              info["best"], info["progress"], "")
        return table


def _short(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return f"{len(value)} rows"
    text = str(value)
    return text if len(text) <= 24 else text[:21] + "..."


def summary_table(rows: list[dict]) -> Table:
    table = Table(title="batch summary")
    for col in ("job", "puzzle", "status", "value", "seconds", "run"):
        table.add_column(col)
    for r in rows:
        status = r["status"] + (" (done before)" if r.get("skipped") else "")
        table.add_row(r["job"], r["puzzle"], Text(status, style=STATUS_STYLE.get(r["status"], "")), _short(r.get("value")),
                      f"{r['seconds']:.1f}", r.get("run_dir") or (r.get("error") or ""))
    return table


def run_batch_cli(args) -> int:
    batch = load_batch(Path(args.jobs_file), args.out)
    if args.scheduler:  # fail with one line before anything runs
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise InputError("--scheduler needs Dask: pip install 'smtpuzzles[dask]'", "--scheduler") from None
    console = Console()
    rows = run_batch(batch, jobs=args.jobs, scheduler=args.scheduler, console=console)
    console.print(summary_table(rows))
    console.print(f"summary: {batch.out / 'summary.json'} and summary.csv")
    return 0 if all(r["status"] in FINISHED for r in rows) else 1


# -------------------------------------------------------------------------------------------- results
def results_table(folder: Path, with_audit: bool = True) -> Table:
    table = Table(title=f"runs under {folder}")
    for col in ("run", "puzzle", "instance", "status", "value", "solver s", "audit"):
        table.add_column(col, overflow="fold", no_wrap=col in ("status", "audit"), min_width=7 if col == "audit" else None)
    for row in collect_results(folder, with_audit):
        verdict = row["audit"] or ""
        table.add_row(row["run"], row["puzzle"], row["instance"], Text(row["status"], style=STATUS_STYLE.get(row["status"], "")),
                      _short(row["value"]), f"{row['seconds']:.1f}", Text(verdict, style="green" if verdict == "clean" else "bold red"))
    return table


def collect_results(folder: Path, with_audit: bool = True) -> list[dict]:
    """One row per run folder found under `folder`: what it solved, its status, whether it audits."""
    from smtpuzzles.audit import audit
    from smtpuzzles.errors import LedgerError

    if not folder.exists():
        raise InputError("no such folder", str(folder))
    rows = []
    for run_json in sorted(folder.rglob("run.json")):
        run_dir = run_json.parent
        row = {"run": os.path.relpath(run_dir, folder), "puzzle": "?", "instance": "", "status": "unreadable",
               "value": None, "seconds": 0.0, "audit": None}
        rows.append(row)
        try:
            run = json.loads(run_json.read_text())
        except (OSError, ValueError):
            continue
        for line in (run_dir / "steps.jsonl").read_bytes().splitlines() if (run_dir / "steps.jsonl").exists() else []:
            try:
                row["seconds"] += json.loads(line).get("seconds", 0.0)
            except ValueError:
                break
        row.update(puzzle=run.get("puzzle", "?"), instance=_describe(run), status=run.get("status", "?"), value=run.get("value"))
        if with_audit:
            try:
                row["audit"] = "clean" if audit(run_dir).ok else "FAILED"
            except LedgerError as exc:
                row["audit"] = f"unreadable: {exc}"
    return rows


def _describe(run: dict) -> str:
    try:
        module = puzzles.get(run.get("puzzle", "?"))
        return module.describe(module.from_canonical(run["instance"]))
    except (InputError, KeyError, TypeError):
        return "?"
