"""A SIGTERM taken as a Ctrl-C, for the commands that prove for hours (audit, certify, proofs):
their children killed and temporary folders removed, exit 130, where SIGTERM's default left a
prover's folder of gigabytes behind.

Three things make it hold:
- it is taken once: a burst of SIGTERMs (a group's kill, a scheduler's) must not break into the
  cleanup the first one started (a later one left the prover's folder behind, 6 of 6 bursts);
- a cleanup that must not be cut short (a temporary folder half removed) holds it: raised in the
  middle of `held()`, the interrupt waits for the block's end;
- Python drops a KeyboardInterrupt raised inside a finaliser (a SIGTERM to `proofs` let it run to
  its end, exit 0, in 2 of 14 runs sent as the reference proof starts): the unraisable hook hands
  such an interrupt to `lost`, which sends it again a moment later, from a timer signal, outside
  the finaliser (and after any held cleanup), unless a timer of the caller's is running (then the
  next SIGTERM is taken again). A held cleanup has no time limit of its own: a second Ctrl-C
  (SIGINT, never held) still gets out.
"""

from __future__ import annotations

import contextlib
import signal
import threading

AGAIN = 0.05  # seconds before an interrupt lost in a finaliser is raised again

_raised: BaseException | None = None  # the SIGTERM's KeyboardInterrupt, once one was taken
_held = 0  # held() blocks the main thread is in
_waiting: BaseException | None = None  # raised inside them, raised again at their end
_alarm_before = signal.SIG_DFL  # SIGALRM's handler before `lost` took it


def take_sigterm() -> None:
    """From now on a SIGTERM is a Ctrl-C (once)."""
    global _raised
    _raised = None
    signal.signal(signal.SIGTERM, _as_ctrl_c)


def taking() -> bool:
    """Whether SIGTERM is taken as a Ctrl-C (whether one was taken or not)."""
    return signal.getsignal(signal.SIGTERM) is _as_ctrl_c


def taken() -> bool:
    """Whether a SIGTERM was taken (its interrupt raised, or waiting for a held block's end)."""
    return _raised is not None


def give_back() -> None:
    """The command is over: SIGTERM as it was before `take_sigterm` (the default), and an interrupt
    `lost` would raise again dropped."""
    global _raised
    if signal.getsignal(signal.SIGALRM) is _as_ctrl_c:  # lost's alarm still set
        _cancel_alarm()
    if taking():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _raised = None


def _as_ctrl_c(signum, frame):
    global _raised, _waiting
    if signum == signal.SIGALRM:  # lost's one alarm: SIGALRM as it was
        _cancel_alarm()
        if not taking():  # the command ended meanwhile: nothing left to stop
            return
    if _raised is not None:
        return
    _raised = KeyboardInterrupt()
    if _held:
        _waiting = _raised
        return
    raise _raised


def lost(exc: BaseException) -> None:
    """The unraisable hook's: a KeyboardInterrupt raised inside a finaliser, where Python dropped
    it. When it was the SIGTERM's, it is raised again shortly (SIGALRM), outside the finaliser."""
    global _raised, _alarm_before
    if exc is not _raised or not taking():
        return
    _raised = None  # the next SIGTERM is taken again; and, where the timer is free, this one is sent again
    try:
        if signal.getitimer(signal.ITIMER_REAL)[0]:  # a caller's own timer: left alone
            return
        _alarm_before = signal.signal(signal.SIGALRM, _as_ctrl_c)
        signal.setitimer(signal.ITIMER_REAL, AGAIN)
    except ValueError:  # not the main thread
        pass


def _cancel_alarm() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, _alarm_before)


@contextlib.contextmanager
def held():
    """A block a SIGTERM must not cut short (in the main thread, where the interrupt is raised):
    one that comes during it is raised at its end."""
    global _held, _waiting
    main = threading.current_thread() is threading.main_thread()
    if not main:
        yield
        return
    _held += 1
    try:
        yield
    finally:
        _held -= 1
        if not _held and _waiting is not None:
            waiting, _waiting = _waiting, None
            raise waiting
