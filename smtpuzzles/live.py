"""Where a long run stands, computed from its steps: the position being decided, the proved prefix,
the best value so far, checks per minute, the slowest checks and a rough estimate of what remains.

It knows objectives, never a puzzle: values stay as the steps hold them and the caller shows them.
The same summary serves `smtpuzzles show` on a folder someone else is writing (read through
`runfolder.open_run`, which takes no lock and leaves out a half-written last line) and the live view
of `solve`, which hands it the steps as they come.

Steps carry no wall-clock time, only each check's solver seconds, so rates and the estimate are per
minute of solver time; the seconds between checks (building claims, refereeing) are not in them.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from smtpuzzles.durations import counted, duration
from smtpuzzles.errors import LedgerError
from smtpuzzles.objectives import kind_of_claim, known
from smtpuzzles.folders.statuses import RESUMABLE

RECENT_MINUTES = 10  # the window of solver time the recent rate is measured over
RECENT_CHECKS = 5  # ...but never fewer checks than this: one 12-minute check is no rate
SLOWEST = 3
UNFINISHED = RESUMABLE  # runs still going, or stopped and resumable: the live view shows their progress
# Steps that ran no solver: a position settled by a bound, a check closed because every one of its
# cubes was refuted (smtpuzzles.cubes; the cubes are steps of their own), a closing claim refuted by
# its cases (each a step of its own, refuted before), an answer a linear search gave and refereed
# (a puzzle whose search is the whole work: no solver was loaded).
NOT_SOLVER = ("bound", "cubes", "cases", "search")


@dataclass
class Progress:
    objective: str  # lex, max or satisfy ("" while only the first check is known)
    steps: int  # steps recorded
    checks: int  # of them, solver checks (see NOT_SOLVER)
    solver_seconds: float
    bounds: int = 0  # of them, positions settled by a bound
    best: Any = None  # the best value any SAT step holds (a vector for lex, an integer for max)
    best_step: int | None = None
    length: int | None = None  # lex: positions in the vector
    proved: int = 0  # lex: positions fixed by an UNSAT answer (the proved prefix)
    closed: bool = False  # the closing claim (lex_greater, or at_least best + 1) was refuted
    lower: int | None = None  # max: the best value found...
    upper: int | None = None  # ...and the lowest bound refuted, less one (None: no bound refuted yet)
    found: int = 0  # satisfy: solutions found
    rate_overall: float | None = None  # solver checks per minute of solver time
    rate_recent: float | None = None  # the same over the last `recent_minutes` of solver time
    recent_minutes: float = 0.0
    recent_checks: int = 0
    slowest: list[tuple[int, float]] = field(default_factory=list)  # (step index, seconds), slowest first
    current_seconds: float = 0.0  # lex: solver seconds spent on the current position so far
    per_position: float | None = None  # lex: mean solver seconds of the last closed positions
    positions_averaged: int = 0
    remaining: float | None = None  # rough solver seconds left; None when there is nothing to go on
    remaining_why: str = ""  # how `remaining` was reckoned, in words
    open_question: str | None = None  # the last step's question when it was left unanswered (unknown, split)
    open_seconds: float = 0.0  # solver seconds spent on it so far (its cubes and earlier sessions included)

    @property
    def position(self) -> int | None:
        """The position being decided (1-based), None once every position is proved."""
        if self.length is None or self.proved >= self.length:
            return None
        return self.proved + 1


def summarise(steps: list[dict], objective: str | None = None, where: str = "steps.jsonl",
              window_minutes: float = RECENT_MINUTES) -> Progress:
    """The progress the steps show. `objective` is the run's (lex, max, satisfy); without it, it is
    read off the claims. A value of the wrong shape is refused naming its line of `where`."""
    if objective is None:  # read off the claims: the live view sees steps, not the run record
        objective = next((kind_of_claim(s["claim"]).KIND for s in steps if kind_of_claim(s["claim"])), "")
    solver = [s for s in steps if s.get("by") not in NOT_SOLVER]
    seconds = [float(s.get("seconds", 0)) for s in solver]
    out = Progress(objective, len(steps), len(solver), sum(seconds))
    out.bounds = sum(1 for s in steps if s.get("by") == "bound")
    out.slowest = sorted(((s["index"], float(s.get("seconds", 0))) for s in solver),
                         key=lambda pair: (-pair[1], pair[0]))[:SLOWEST]
    if out.solver_seconds > 0:
        out.rate_overall = 60 * out.checks / out.solver_seconds
    # The recent window: the last checks back to `window_minutes` of solver time, at least
    # RECENT_CHECKS of them.
    spent, count = 0.0, 0
    for value in reversed(seconds):
        if spent >= 60 * window_minutes and count >= RECENT_CHECKS:
            break
        spent += value
        count += 1
    out.recent_minutes, out.recent_checks = spent / 60, count
    if spent > 0:
        out.rate_recent = 60 * count / spent
    kind = known(objective)
    if kind:
        kind.progress(out, steps, lambda step, message: _bad(step, where, message))
    _open_question(out, steps)
    outlived(out)
    return out


def _open_question(out: Progress, steps: list[dict]) -> None:
    """The question the last step left open (a check that ran out of time or was stopped, or one
    split into cubes still being asked), and the solver seconds spent on it so far."""
    from smtpuzzles.cubes import without_cube

    if not steps or steps[-1]["result"] in ("sat", "unsat") and "cube" not in steps[-1]["claim"]:
        return
    asked = without_cube(steps[-1]["claim"])
    seconds = 0.0
    for step in reversed(steps):
        if without_cube(step["claim"]) != asked or ("cube" not in step["claim"] and step["result"] in ("sat", "unsat")):
            break
        seconds += float(step.get("seconds", 0))
    words = str(steps[-1].get("words") or "")
    if not words:
        try:
            from smtpuzzles.objectives import describe

            words = describe(asked)
        except (KeyError, TypeError, ValueError):
            words = "?"
    # the question itself, not the cube of it the last step asked (its words end so)
    out.open_question = words.rsplit(", in cube", 1)[0] if "cube" in steps[-1]["claim"] else words
    out.open_seconds = seconds


def outlived(p: Progress, running_for: float = 0.0) -> None:
    """The estimate is "unknown" once the question open now has taken longer than the estimate of
    everything left: the pace of the last positions says nothing about it (16x16: ~43 s left by the
    last five positions, while position 166 had been open for two hours). `running_for`: seconds
    the question has been asked since the last step (a run going on)."""
    age = max(p.current_seconds, p.open_seconds) + running_for
    if p.remaining and age > p.remaining:
        p.remaining_why = (f"unknown: the open question has taken {duration(age)}, more than the "
                           f"~{duration(p.remaining)} the last positions' pace gives for all that is left")
        p.remaining = None


def checks_text(p: Progress) -> str:
    """The one count of checks every view shows: steps a solver answered (a step settled by a
    bound, or closed by its cubes or cases, is none), with the positions a bound settled beside."""
    return counted(p.checks, "check") + (f", {p.bounds} settled by a bound" if p.bounds else "")


def record(p: Progress, show_value: Callable[[Any], Any] | None = None, running_for: float | None = None) -> dict:
    """Where a run stands as one JSON object (`--progress json`): `running_for`, seconds since the
    last step while the run goes on (the question being asked is that old, at least)."""
    best = None if p.best is None else (show_value(p.best) if show_value else p.best)
    stage = "starting" if not p.steps else "closing" if (p.length is not None and p.position is None) else "searching"
    age = p.open_seconds + (running_for or 0.0)
    return {"stage": stage, "position": p.position, "length": p.length, "proved": p.proved, "best": best,
            "checks": p.checks, "bounds": p.bounds, "solver_seconds": round(p.solver_seconds, 3),
            "open_question": p.open_question, "open_seconds": round(age, 1),
            "estimate_seconds": None if p.remaining is None else round(p.remaining, 1), "estimate": estimate_text(p)}


def _bad(step: dict, where: str, message: str) -> LedgerError:
    return LedgerError(message, f"{where} line {step['index'] + 1}")


# ------------------------------------------------------------------------------------------ words
def per_minute(rate: float | None) -> str:
    if rate is None:
        return "—"
    return f"{rate:.0f}" if rate >= 100 else f"{rate:.3g}"


def rate_text(p: Progress) -> str:
    """Solver checks per minute of solver time, recent and overall."""
    recent = f"{per_minute(p.rate_recent)} recent ({p.recent_checks} in {duration(60 * p.recent_minutes)})"
    return f"{recent}, {per_minute(p.rate_overall)} overall"


def where_text(p: Progress) -> str:
    """Where the run is, in one short phrase."""
    kind = known(p.objective)
    phrase = kind.where(p) if kind else None
    if phrase:
        return phrase
    return "before the first answer" if p.best is None else "first answer found"


def brief_where(p: Progress) -> str | None:
    """Where the run is in a few words, as its objective kind says it (None before it can say)."""
    kind = known(p.objective)
    return kind.where(p, brief=True) if kind else None


def estimate_text(p: Progress) -> str:
    if p.remaining is None and p.remaining_why.startswith("unknown"):
        return p.remaining_why
    if p.remaining is None:
        return f"none yet: {p.remaining_why}" if p.remaining_why else "none: nothing to go on yet"
    if p.remaining == 0:
        return p.remaining_why
    return f"rough: ~{duration(p.remaining)} solver time = {p.remaining_why}"


def fields(p: Progress, show_value: Callable[[Any], Any] | None = None) -> list[tuple[str, str]]:
    """(key, value) lines of the picture; values fold within 80 columns in a summary panel."""
    out = [("where", where_text(p))]
    if p.best is not None:
        shown = show_value(p.best) if show_value else p.best
        if isinstance(shown, list):
            shown = " ".join(map(str, shown))
        out.append(("best", f"{shown}"))
    out.append(("checks", f"{p.checks} by the solver" + (f", {p.bounds} settled by a bound" if p.bounds else "")
                + f", {duration(p.solver_seconds)} of solver time"))
    out.append(("checks/min", rate_text(p) + ", per solver-minute"))
    if p.slowest:
        out.append(("slowest", ", ".join(f"{duration(s)} (step {i})" for i, s in p.slowest)))
    out.append(("estimate", estimate_text(p)))
    return out


def view_lines(p: Progress, this_check: float | None = None) -> list[str]:
    """The picture in a few short lines, for a live display (each under 80 columns for the runs
    this tool makes: a vector of 144 positions included)."""
    where = where_text(p) + ("" if this_check is None else f"; this check {duration(this_check)}")
    lines = [where, f"checks/min {rate_text(p)}; {counted(p.checks, 'check')}"]
    if p.slowest:
        lines.append("slowest " + ", ".join(f"{duration(s)} (step {i})" for i, s in p.slowest))
    lines.append("estimate " + estimate_text(p))
    return lines


def summary_line(p: Progress) -> str:
    """The progress in one line (under 80 columns for the runs this tool makes); the rate is per
    minute of solver time, as everywhere here."""
    where = brief_where(p) or where_text(p)
    slowest = f"; slowest {duration(p.slowest[0][1])}" if p.slowest else ""
    return f"progress: {where}; {counted(p.checks, 'check')}, {per_minute(p.rate_overall)}/min{slowest}"


# ------------------------------------------------------------------------------------ a run folder
@dataclass
class LiveRun:
    folder: Any  # runfolder.RunFolder
    progress: Progress
    last_write: float | None  # seconds since steps.jsonl was last written


def read_live(path: Path, now: float | None = None) -> LiveRun:
    """A run folder's progress, read without its lock (a writer may hold it) through the one
    reader, which leaves out a half-written last line of a running run."""
    from smtpuzzles.folders.runfolder import open_run, steps_name

    folder = open_run(Path(path))
    progress = summarise(folder.steps, folder.run.get("objective"), folder.steps_where)
    try:
        written = os.stat(folder.path / steps_name(folder.path), follow_symlinks=False).st_mtime
        last_write = max(0.0, (time.time() if now is None else now) - written)
    except OSError:
        last_write = None
    if folder.run.get("status") == "running" and last_write is not None:
        outlived(progress, last_write)  # the question being asked now has been open that long, at least
    return LiveRun(folder, progress, last_write)


FOLLOW_SECONDS = 2.0  # how often `show --follow` reads the folder again


def pause(seconds: float) -> None:
    """The wait between two readings of `show --follow` (a seam for tests)."""
    time.sleep(seconds)
