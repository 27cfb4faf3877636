"""A cube running on a Dask worker sees the stop its check's runner sends (a SAT cube elsewhere): the
worker's watcher thread asks the stop event made in the task's own thread."""

from __future__ import annotations

import threading
import time

import distributed

from smtpuzzles import cluster


def _watched_until_stopped(stop_name: str, seconds: float) -> bool:
    """A task: whether a watcher thread, as solve_cube starts one, sees the stop within `seconds`."""
    stop = cluster._stop_event(stop_name)
    seen = threading.Event()

    class Engine:
        def interrupt(self):
            seen.set()

    done = threading.Event()
    threading.Thread(target=cluster._stop_when_told, args=(stop, Engine(), done), daemon=True).start()
    seen.wait(seconds)
    done.set()
    return seen.is_set()


def test_a_worker_s_watcher_sees_the_stop():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        future = client.submit(_watched_until_stopped, "smtpuzzles-stop-test", 20.0, pure=False)
        time.sleep(1.0)
        started = time.monotonic()
        distributed.Event("smtpuzzles-stop-test", client=client).set()
        assert future.result(timeout=30) is True
        assert time.monotonic() - started < 5
        unstopped = client.submit(_watched_until_stopped, "smtpuzzles-never-stopped", 1.0, pure=False)
        assert unstopped.result(timeout=30) is False
