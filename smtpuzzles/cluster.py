"""Connecting to a Dask cluster, for the batch runner and the audit's re-solving.

Dask is optional (`pip install 'smtpuzzles[dask]'`); without it, asking for a scheduler is bad
input, reported in one line before anything runs.
"""

from __future__ import annotations

from smtpuzzles.errors import InputError

NEEDS_DASK = "--scheduler needs Dask: pip install 'smtpuzzles[dask]'"


def require_dask() -> None:
    """Fail with one line, before anything runs, when Dask is not installed."""
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise InputError(NEEDS_DASK, "--scheduler") from None


def dask_client(address: str):
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError(NEEDS_DASK, "--scheduler") from None
    try:
        return Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:  # ValueError: a malformed address
        raise InputError(f"cannot reach the Dask scheduler ({exc})", address) from None
