"""How a run splits a check the solver does not settle within --split-after seconds: into the
puzzle's own cubes (`--cubes`, each cube its own step, smtpuzzles.cubes), or shared out by
look-ahead (`--share`, one step by tree, smtpuzzles.sharing); and where that work runs: here, or
on the Dask cluster of `--scheduler`. Each is refused here, before the run's ledger is made."""

from __future__ import annotations

from smtpuzzles.cubes import DEPTHS as CUBE_DEPTHS, coverage_problem
from smtpuzzles.errors import InputError


def split_cubes(enc, depth: int) -> list[list[str]] | None:
    """The puzzle's cubes of this depth, once they are shown to cover every case (None for 0)."""
    if not depth:
        return None
    if not enc.advice.on("cubes") or enc.formula.cnf is None:  # (a puzzle's SPLITS says so before encoding)
        raise InputError(f"the {enc.name} encoding cannot split its checks into cubes", "--cubes")
    if depth not in CUBE_DEPTHS:
        raise InputError(f"cube depth {depth} is not one of {', '.join(map(str, CUBE_DEPTHS))}", "--cubes")
    cubes = enc.advice.cubes(depth)
    problem = coverage_problem(enc.formula.cnf, cubes)
    if problem:
        raise RuntimeError(f"encoding {enc.name}: its cubes of depth {depth} do not cover every case: {problem}")
    return cubes


def check_shared(enc, workers: int) -> None:
    """A check is shared out as cubes of its clauses: only an encoding with a clausal formula can be."""
    if workers and enc.formula.cnf is None:
        raise InputError(f"the {enc.name} encoding has no clausal formula to share a check of", "--share")


def cube_client(settings):
    """A Dask client when cubes or shared checks are to run on a cluster, else None (here)."""
    if settings.scheduler and not (settings.cubes or settings.share):
        raise InputError("--scheduler spreads the cubes of a split or shared check: give --cubes or --share too",
                         "--scheduler")
    if not settings.scheduler:
        return None
    from smtpuzzles.cluster import dask_client

    return dask_client(settings.scheduler)


def split_work(steering, settings, client, job: dict) -> None:
    """Where a split check's cubes run (here one by one, or on the Dask cluster `client` reaches,
    whose workers rebuild the formula from `job`), and how a check is shared (on `settings.share`
    local processes, or on that cluster): set on `steering`, which shares when both are set."""
    if steering.cubes:
        from smtpuzzles.cluster import DaskCubes, LocalCubes  # only a split run needs it (and uuid, threads)

        steering.cube_runner = LocalCubes(steering) if client is None else DaskCubes(client, job)
    if settings.share:
        from smtpuzzles.sharing.runner import Sharing

        # The run's own SAT solver where it runs on one, else the sharing's default.
        solver = settings.params.get("solver", "glucose4") if settings.engine == "sat" else "glucose4"
        if client is None:
            steering.sharing = Sharing.local(settings.share, solver=solver)
        else:
            from smtpuzzles.cluster import job_base

            steering.sharing = Sharing.on_dask(client, job_base(job), solver=solver)
