"""The proving child: `python -m smtpuzzles.proofs.child SOLVER QUERY.cnf PROOF_OUT` refutes a
DIMACS query with a proof-logging python-sat solver and writes its proof, exiting SAT or UNSAT as
SAT solvers do. A child process, so that a solver past its time or its proof's size is killed
(smtpuzzles.proofs.prover runs and watches it), and the one module of the package that loads a
solver. Also the solvers' names, and CaDiCaL set up to write LRAT."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from smtpuzzles.engines import sat_solver_class
from smtpuzzles.trusted.dimacs import ProofError, read_dimacs

# Solvers of the installed python-sat that log proofs (Kissat cannot there; Minisat-based ones crash
# with with_proof): Glucose and Lingeling write DRUP text, CaDiCaL binary DRAT, which python-sat
# turns into text. Glucose 4.2 was the fastest on the 9x9 closing query (scripts/bench_proof.py).
PROOF_SOLVERS = ("glucose42", "glucose4", "glucose3", "lingeling", "cadical153", "cadical195", "cadical300")
DEFAULT_SOLVER = "glucose42"
# certify_query's own path: CaDiCaL 1.9.5 writing LRAT, so nothing is checked backwards in Python.
LRAT_CADICAL = "cadical195"  # python-sat's CaDiCaL 1.9.5 (3.0.0 was faster, but lrat.py rejected its proof of a 10x10 query)
LRAT_SOLVER = f"{LRAT_CADICAL}-lrat"
CERTIFY_SOLVERS = (LRAT_SOLVER, *PROOF_SOLVERS)
SAT, UNSAT = 10, 20  # the child's exit status, as SAT solvers report it


def _prove_child(solver: str, cnf_path: str, proof_path: str) -> int:
    Solver = sat_solver_class()  # here, not at the top: the parent imports this module for its names

    _, clauses = read_dimacs(Path(cnf_path).read_bytes(), cnf_path)
    if solver == LRAT_SOLVER:
        return _lrat_child(clauses, proof_path)
    with Solver(name=solver, bootstrap_with=clauses, with_proof=True) as engine:
        if engine.solve():
            return SAT
        lines = engine.get_proof() or []
    with open(proof_path, "w", encoding="ascii") as out:
        for line in lines:
            out.write(line)
            out.write("\n")
    return UNSAT


def _lrat_child(clauses: list[list[int]], proof_path: str) -> int:
    if [] in clauses:  # CaDiCaL writes nothing for an empty clause in its input: the refutation is one line
        with open(proof_path, "w", encoding="ascii") as out:
            out.write(f"{len(clauses) + 1} 0 {clauses.index([]) + 1} 0\n")
        return UNSAT
    engine = cadical_lrat_solver(open(proof_path, "w+b"))
    try:
        for clause in clauses:
            # CaDiCaL numbers the clauses it is given 1, 2, ...; a clause with a repeated literal
            # would cost a derived clause of its own. The checkers read a clause as a set too.
            engine.add_clause(list(dict.fromkeys(clause)))
        return SAT if engine.solve() else UNSAT
    finally:
        engine.delete()  # flushes and closes the proof file


# CaDiCaL's own configuration for unsatisfiable instances (`--unsat`: no stable phases, no local
# search), which every query certify refutes is meant to be, and no failed-literal probing, whose
# lemmas the LRAT proof must carry: making, trimming and checking the published records' proofs
# took about half the CPU with `probe` off (docs/benchmarks.md).
UNSAT_CONFIGURATION = {"stabilize": 0, "walk": 0, "probe": 0}


def cadical_lrat_solver(proof_file):
    """A python-sat CaDiCaL (LRAT_CADICAL) solver that writes its proof as LRAT text to `proof_file`
    (a file opened "w+b"; the solver closes it when deleted), configured for unsatisfiable instances.

    CaDiCaL fixes its proof format when a proof file is attached, from the options set then, and
    python-sat attaches its own (binary DRAT) in `new`, before `configure` can run. So the solver
    is made without one, `lrat`, `binary` and UNSAT_CONFIGURATION are set, and the file is attached
    with the call `new` makes, `pysolvers.<solver>_tracepr`. This is the project's one use of
    python-sat internals: whatever of them is missing or refuses is a ProofError that says so, and
    certify_query falls back to the DRUP path."""
    def lacks(what: str) -> ProofError:
        return ProofError(f"python-sat lacks {what}, which CaDiCaL's LRAT proofs need", "proof")

    tracepr, class_name = f"{LRAT_CADICAL}_tracepr", LRAT_CADICAL.capitalize()
    try:
        import pysolvers
        from pysat import solvers

        sat_solver_class()
    except ImportError as exc:
        raise lacks(f"a module ({exc})") from None
    solver_class = getattr(solvers, class_name, None)
    for owner, name in ((pysolvers, tracepr), (solver_class, "configure")):
        if not callable(getattr(owner, name, None)):
            raise lacks(f"{getattr(owner, '__name__', class_name)}.{name}")
    engine = solver_class()
    try:
        if not all(hasattr(engine, name) for name in ("cadical", "prfile", "prfp")):
            raise lacks(f"the {class_name} attributes cadical, prfile and prfp")
        engine.configure({"lrat": 1, "binary": 0, **UNSAT_CONFIGURATION})
        engine.prfp = getattr(pysolvers, tracepr)(engine.cadical, proof_file)
    except ProofError:
        engine.delete()
        raise
    except Exception as exc:  # noqa: BLE001 - a changed python-sat may fail in any way here
        engine.delete()
        raise lacks(f"a working pysolvers.{tracepr} ({type(exc).__name__}: {str(exc)[:40]})") from None
    engine.prfile = proof_file  # as for its own proof file: `delete` releases and closes it
    return engine


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 3 or args[0] not in CERTIFY_SOLVERS:
        print("usage: python -m smtpuzzles.proofs.child SOLVER QUERY.cnf PROOF_OUT", file=sys.stderr)
        return 2
    try:
        return _prove_child(*args)
    except ProofError as exc:
        print(exc.message, file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
