"""Child processes that die with the process that started them.

A proof or a re-solve runs in a child process (a fresh solver, a hard time limit), and a batch runs
its jobs in worker processes. If the parent is killed (`kill -9`, a CI timeout, a closed terminal),
an orphaned child would go on using a core, and a batch worker would go on holding its job's lock,
so that running the batch again finds the job "in use by another process". So:

- on Linux the kernel is asked to SIGKILL the child when its parent dies (PR_SET_PDEATHSIG), and
  a child whose parent died before it asked is ended at once;
- elsewhere (macOS), and as a second line on Linux, `watch_parent` polls for the parent in a
  thread and ends the process when it is gone (between solver calls that hold the interpreter,
  which is why the kernel's way comes first where there is one).

A child killed so leaves its run folder as `kill -9` does: the ledger loses at most the check in
progress, the kernel drops the folder's lock, and `--resume` (or the batch run again) goes on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

PR_SET_PDEATHSIG = 1  # prctl(2)
POLL_SECONDS = 0.5

# The pid of the process that forks next, set in it just before each fork (os.fork and a
# subprocess with a preexec_fn both run these hooks): the child compares its parent with it, to
# catch a parent that died between the fork and the prctl.
_forking = os.getpid()


def _before_fork() -> None:
    global _forking
    _forking = os.getpid()


os.register_at_fork(before=_before_fork)


def _find_prctl():
    """Linux's prctl from the C library, looked up as this module is imported (2 ms, where a child is
    started), never in a forked child: `die_with_parent` runs there as a preexec_fn, and an import
    in it waits for ever if another thread of the parent held that module's import lock as it forked
    (a hostile review saw a run hang so, beyond SIGTERM and its time limit). None: no prctl here."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None


_prctl = _find_prctl()


def die_with_parent() -> None:
    """For subprocess's `preexec_fn` and a pool's initializer: on Linux, SIGKILL this process when
    its parent exits; elsewhere nothing (see `watch_parent`). It imports nothing (see `_find_prctl`)."""
    if _prctl is None:  # no prctl here: watch_parent and the parent's handling remain
        return
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # The parent died before the prctl: nobody will signal us. (`_forking` is this process's own pid
    # when this module was first imported here, after the fork: then there is nothing to compare.)
    if _forking != os.getpid() and os.getppid() != _forking:
        os._exit(1)


def watch_parent(parent: int | None = None, every: float = POLL_SECONDS) -> threading.Thread:
    """End this process (at once, as SIGKILL would) when `parent` (the current parent) is gone:
    its parent pid changes when it is re-parented. A daemon thread; returns it."""
    parent = os.getppid() if parent is None else parent

    def watch() -> None:
        stop = threading.Event()
        while not stop.wait(every):
            if os.getppid() != parent:
                os._exit(1)

    thread = threading.Thread(target=watch, name="watch-parent", daemon=True)
    thread.start()
    return thread


def tie_to_parent() -> None:
    """Both ways at once: for a worker process's initializer."""
    die_with_parent()
    watch_parent()


# The package's own folder, which a Python child imports smtpuzzles from (see `python_child`).
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python_child(module: str, *args: str) -> list[str]:
    """The command line that runs `python -m MODULE ARGS` on this very smtpuzzles: isolated (-I: the
    working directory, PYTHONPATH and the user's site-packages are not read), the package imported
    from the folder this process imported it from. `python -m` alone puts the working directory
    first on the path, so a folder holding a `smtpuzzles/` of its own, or another checkout, would
    answer for it (a fake child printed `unsat` to every check: "optimal" for a wrong number)."""
    boot = (f"import runpy, sys; sys.path.insert(0, {_PACKAGE_ROOT!r}); "
            f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    return [sys.executable, "-I", "-c", boot, *args]


def reap(child: subprocess.Popen, grace: float = 5.0) -> None:
    """Wait for a child that was killed. Popen.wait() with no timeout takes the Popen's wait lock,
    which a Ctrl-C landing inside an earlier wait with a timeout can leave held: it would then wait
    for ever (seen once in a hostile review, an audit stopped in a cake_lpr check). So a wait with a
    timeout first, which never blocks on that lock, then the kernel's waitpid itself."""
    try:
        child.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        try:
            _, status = os.waitpid(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
        except ChildProcessError:  # reaped meanwhile
            pass


class Stoppable:
    """Children a stop kills, however the two come: `adopt` a child as it starts (one that comes
    after the stop is killed at once) and `stop` from any thread kills every one adopted and still
    running. The solvers of a fresh check, of a proof beside another, and of an audit's re-solves
    are stopped so; each starts its child outside this lock, so a stop never waits on a start."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._children: list = []
        self.stopped = False

    def adopt(self, child) -> bool:
        """Whether `child` may go on (False: the stop came first, and it was killed)."""
        with self._lock:
            if not self.stopped:
                self._children = [c for c in self._children if c.poll() is None] + [child]
                return True
        child.kill()
        return False

    def stop(self) -> None:
        """Kill every child adopted and still running. The list is kept (`adopt` drops the ended):
        a second Ctrl-C landing in the kills of the first must find them again in the next stop."""
        with self._lock:
            self.stopped = True
            children = list(self._children)
        for child in children:
            if child.poll() is None:
                child.kill()
