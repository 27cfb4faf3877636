"""Engines: one persistent solver over a base formula, checked again and again under assumptions.

Every engine answers `check(assumptions, timeout)` with a `CheckResult`; the driver never sees which
solver sits underneath, and the ledger records the same thing for all of them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from smtpuzzles.formula import Formula, Term


class Model(Protocol):
    def __getitem__(self, name: str) -> Any: ...


@dataclass
class CheckResult:
    status: str  # "sat" | "unsat" | "unknown" | "interrupted"
    model: Model | None = None
    core: list[int] | None = None  # indices into the assumptions of an UNSAT check
    stats: dict = field(default_factory=dict)
    reason: str = ""


class Engine(Protocol):
    name: str
    version: str
    params: dict

    def check(self, assumptions: Sequence[Term], timeout: float | None) -> CheckResult: ...

    def hint(self, model: Model) -> None: ...

    def guide(self, guess: Callable[[], Sequence[Term]]) -> None: ...


# Conflicts a guided attempt may spend before the engine drops the guess and solves the check as
# asked: a guess that fits the claim is settled by propagation, one that does not fails at once.
GUIDE_CONFLICTS = 1000


def run_interruptibly(work: Callable[[], Any], stop: Callable[[], None], timeout: float | None):
    """Run a native solver call in a thread so that Ctrl-C and time limits can stop it.

    Returns (value, why) where why is "", "timeout" or "interrupted". Native solvers do not look at
    Python's signal flag; the main thread waits here and calls `stop` on their behalf.
    """
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed back to the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    why = ""
    thread.start()
    timer = None
    if timeout is not None:
        def on_timeout() -> None:
            box.setdefault("why", "timeout")
            stop()
        timer = threading.Timer(timeout, on_timeout)
        timer.daemon = True
        timer.start()
    try:
        while thread.is_alive():
            thread.join(0.1)
    except KeyboardInterrupt:
        box["why"] = "interrupted"
        stop()
        thread.join()
    finally:
        if timer is not None:
            timer.cancel()
    if "error" in box:
        raise box["error"]
    why = box.get("why", "")
    return box.get("value"), why


def make_engine(name: str, formula: Formula, params: dict | None = None) -> Engine:
    params = dict(params or {})
    if name == "z3":
        from smtpuzzles.engines.z3engine import Z3Engine

        return Z3Engine(formula, params)
    if name == "sat":
        from smtpuzzles.engines.satengine import SatEngine

        return SatEngine(formula, params)
    raise ValueError(f"unknown engine {name!r} (z3 or sat)")
