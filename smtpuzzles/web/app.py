"""`smtpuzzles serve DIR`: the page of smtpuzzles.web served by Flask, on 127.0.0.1 unless told.

Two routes, both reading DIR afresh: `/` the whole page, `/runs` the runs alone (what the page
reads again every few seconds). Nothing is written, and no route takes a path from the request.
"""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path

from smtpuzzles.errors import InputError
from smtpuzzles.web import Audits, Runs, collect, fragment, page, require_web


def make_app(folder: Path):
    from flask import Flask, Response

    app = Flask("smtpuzzles.web")
    runs_under = Runs(folder, Audits(background=True))
    lock = threading.Lock()  # one reading of the folder at a time: the page and its fragment share the views

    def views():
        with lock:
            return runs_under.views()

    def no_store(body: str) -> Response:
        return Response(body, mimetype="text/html", headers={"Cache-Control": "no-store",
                                                             "X-Content-Type-Options": "nosniff"})

    @app.get("/")
    def whole():
        return no_store(page(folder, views(), live=True))

    @app.get("/runs")
    def runs():
        return no_store(fragment(views()))

    return app


def _can_listen(host: str, port: int) -> None:
    """One line for an address or port that cannot be had (werkzeug would print its own and exit)."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
            probe.bind((host, port))
    except (OSError, OverflowError) as exc:
        raise InputError(f"cannot listen there ({getattr(exc, 'strerror', None) or exc})", f"{host}:{port}") from None


def serve(folder: Path, host: str = "127.0.0.1", port: int = 8050, ready=None) -> None:
    """Serve until interrupted; prints the address first (the port chosen, with --port 0)."""
    require_web("serve")
    from werkzeug.serving import make_server

    collect(folder)  # a missing folder: one line, before anything listens
    _can_listen(host, port)
    server = make_server(host, port, make_app(folder), threaded=True)
    shown = f"[{host}]" if ":" in host else host
    print(f"serving the runs under {folder} at http://{shown}:{server.server_port}/ (Ctrl-C stops)", flush=True)
    if ready is not None:
        ready(server)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        sys.stdout.flush()
