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

from smtpuzzles.errors import LedgerError

RECENT_MINUTES = 10  # the window of solver time the recent rate is measured over
RECENT_CHECKS = 5  # ...but never fewer checks than this: one 12-minute check is no rate
RECENT_POSITIONS = 5  # closed positions the time per position is averaged over
SLOWEST = 3
UNFINISHED = ("running", "interrupted", "unknown")
# Which objective a claim belongs to, for the live view (it sees steps, not the run record).
# Steps that ran no solver: a position settled by a bound, a check closed because every one of its
# cubes was refuted (smtpuzzles.cubes; the cubes are steps of their own).
NOT_SOLVER = ("bound", "cubes")
OBJECTIVE_OF_CLAIM = {"exceed": "lex", "lex_greater": "lex", "at_least": "max", "block": "satisfy"}


@dataclass
class Progress:
    objective: str  # lex, max or satisfy ("" while only the first check is known)
    steps: int  # steps recorded
    checks: int  # of them, solver checks (see NOT_SOLVER)
    solver_seconds: float
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
    if objective is None:
        objective = next((OBJECTIVE_OF_CLAIM[s["claim"]["op"]] for s in steps
                          if s["claim"]["op"] in OBJECTIVE_OF_CLAIM), "")
    solver = [s for s in steps if s.get("by") not in NOT_SOLVER]
    seconds = [float(s.get("seconds", 0)) for s in solver]
    out = Progress(objective, len(steps), len(solver), sum(seconds))
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
    if objective == "lex":
        _lex(out, steps, where)
    elif objective == "max":
        _max(out, steps, where)
    elif objective == "satisfy":
        out.found = sum(1 for s in steps if s["result"] == "sat")
        out.best = next((s.get("value") for s in steps if s["result"] == "sat"), None)
        out.closed = any(s["claim"]["op"] == "block" and s["result"] == "unsat" for s in steps)
    return out


def _bad(step: dict, where: str, message: str) -> LedgerError:
    return LedgerError(message, f"{where} line {step['index'] + 1}")


def _lex(out: Progress, steps: list[dict], where: str) -> None:
    per_position: dict[int, float] = {}
    refuted: set[tuple] = set()  # (prefix, position, than) of the UNSAT questions
    for s in steps:
        claim = s["claim"]
        if s["result"] == "sat":
            value = s.get("value")
            if not (isinstance(value, list) and value and all(isinstance(d, int) and not isinstance(d, bool)
                                                              for d in value)):
                raise _bad(s, where, "a sat step's value is not a vector of integers")
            if out.length is None:
                out.length = len(value)
            elif len(value) != out.length:
                raise _bad(s, where, f"a sat step's vector has {len(value)} positions, the first had {out.length}")
            if out.best is None or value > out.best:
                out.best, out.best_step = value, s["index"]
        if claim["op"] == "exceed":
            pos = claim["pos"]
            if out.length is None or not 0 <= pos < out.length:
                raise _bad(s, where, f"the claim's position {pos} is outside the vector")
            per_position[pos] = per_position.get(pos, 0.0) + float(s.get("seconds", 0))
            # A question at a position stands on a proved prefix. An UNSAT answer closes its
            # position when it refutes more than the best value there; refutations from the top
            # down leave it open until a SAT answer lands just below one of them. One refuted cube
            # proves nothing.
            prefix = claim.get("prefix")
            if isinstance(prefix, list):
                out.proved = max(out.proved, len(prefix))
            if "cube" in claim or not isinstance(prefix, list):
                continue
            asked = (tuple(prefix), pos, claim.get("than"))
            if s["result"] == "unsat":
                refuted.add(asked)
                if out.best is not None and claim.get("than") == out.best[pos]:
                    out.proved = max(out.proved, pos + 1)
            elif s["result"] == "sat" and isinstance(asked[2], int) and (asked[0], pos, asked[2] + 1) in refuted \
                    and out.best is not None and out.best[pos] == asked[2] + 1:
                out.proved = max(out.proved, pos + 1)  # descending: everything above it was refuted
        elif claim["op"] == "lex_greater":
            if out.length is not None:
                out.proved = out.length  # the driver asks it only once every position is closed
            if s["result"] == "unsat" and "cube" not in claim:
                out.closed = True
    if out.length is None:
        return
    out.current_seconds = per_position.get(out.proved, 0.0)
    closed = [per_position.get(p, 0.0) for p in range(max(0, out.proved - RECENT_POSITIONS), out.proved)]
    left = out.length - out.proved
    if closed:
        out.per_position = sum(closed) / len(closed)
        out.positions_averaged = len(closed)
    if out.closed:
        out.remaining, out.remaining_why = 0.0, "none: the closing check is refuted"
    elif left == 0:
        out.remaining_why = "every position is proved; the closing check is left"
    elif out.per_position == 0:
        out.remaining_why = "only positions closed by the bound so far, which cost nothing"
    elif out.per_position is not None:
        out.remaining = left * out.per_position
        out.remaining_why = f"{left} left x {duration(out.per_position)} (mean of last {len(closed)})"
    else:
        out.remaining_why = "no position closed yet"


def _max(out: Progress, steps: list[dict], where: str) -> None:
    refuted = []
    for s in steps:
        if s["result"] == "sat":
            value = s.get("value")
            if not isinstance(value, int) or isinstance(value, bool):
                raise _bad(s, where, "a sat step's value is not an integer")
            if out.best is None or value > out.best:
                out.best, out.best_step = value, s["index"]
        if s["claim"]["op"] == "at_least" and s["result"] == "unsat" and "cube" not in s["claim"]:
            refuted.append(s["claim"]["k"])
    out.lower = out.best
    if refuted:
        out.upper = min(refuted) - 1
    if out.lower is not None and out.upper is not None:
        out.closed = out.upper <= out.lower
        left = max(out.upper - out.lower, 0)
        per_check = 60 / out.rate_recent if out.rate_recent else None
        if out.closed:
            out.remaining, out.remaining_why = 0.0, "none: the bound above the best is refuted"
        elif per_check is not None:
            out.remaining = left * per_check
            out.remaining_why = f"at most {left} bounds x {duration(per_check)} (recent mean)"


# ------------------------------------------------------------------------------------------ words
def duration(seconds: float) -> str:
    """Seconds in a few characters: 0.04s, 12.3s, 4m 05s, 2h 07m, 3d 04h."""
    if seconds < 60:
        return f"{seconds:.2f}s" if seconds < 10 else f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h {minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours:02d}h"


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
    if p.objective == "lex" and p.length is not None:
        if p.position is not None:
            return f"position {p.position} of {p.length} ({p.proved} proved, {duration(p.current_seconds)} on it)"
        return f"all {p.length} positions proved" + (", the closing check refuted" if p.closed
                                                     else "; the closing check is next")
    if p.objective == "max" and p.lower is not None:
        top = "not yet bounded" if p.upper is None else str(max(p.upper, p.lower))
        return f"the optimum lies in {p.lower}..{top}" if top != str(p.lower) else f"the optimum is {p.lower}"
    if p.objective == "satisfy" and p.found:
        return f"{p.found} solution{'s' if p.found > 1 else ''} found" + (", no more" if p.closed else "")
    return "before the first answer" if p.best is None else "first answer found"


def estimate_text(p: Progress) -> str:
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
    bounds = p.steps - p.checks
    out.append(("checks", f"{p.checks} by the solver" + (f", {bounds} settled by a bound" if bounds else "")
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
    lines = [where, f"checks/min {rate_text(p)}; {p.checks} checks"]
    if p.slowest:
        lines.append("slowest " + ", ".join(f"{duration(s)} (step {i})" for i, s in p.slowest))
    lines.append("estimate " + estimate_text(p))
    return lines


def summary_line(p: Progress) -> str:
    """The progress in one line (under 80 columns for the runs this tool makes); the rate is per
    minute of solver time, as everywhere here."""
    where = where_text(p)
    if p.objective == "lex" and p.length is not None:
        where = (f"position {p.position} of {p.length}, {p.proved} proved" if p.position is not None
                 else f"all {p.length} positions proved")
    slowest = f"; slowest {duration(p.slowest[0][1])}" if p.slowest else ""
    return f"progress: {where}; {p.checks} checks, {per_minute(p.rate_overall)}/min{slowest}"


# ------------------------------------------------------------------------------------ a run folder
@dataclass
class LiveRun:
    folder: Any  # runfolder.RunFolder
    progress: Progress
    last_write: float | None  # seconds since steps.jsonl was last written


def read_live(path: Path, now: float | None = None) -> LiveRun:
    """A run folder's progress, read without its lock (a writer may hold it) through the one
    reader, which leaves out a half-written last line of a running run."""
    from smtpuzzles.runfolder import STEPS, open_run

    folder = open_run(Path(path))
    progress = summarise(folder.steps, folder.run.get("objective"), str(folder.path / STEPS))
    try:
        written = os.stat(folder.path / STEPS, follow_symlinks=False).st_mtime
        last_write = max(0.0, (time.time() if now is None else now) - written)
    except OSError:
        last_write = None
    return LiveRun(folder, progress, last_write)


FOLLOW_SECONDS = 2.0  # how often `show --follow` reads the folder again


def pause(seconds: float) -> None:
    """The wait between two readings of `show --follow` (a seam for tests)."""
    time.sleep(seconds)
