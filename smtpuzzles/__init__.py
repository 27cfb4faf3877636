"""smtpuzzles: optimal puzzle solving on SMT with recorded, re-checkable proofs.

    import smtpuzzles
    result = smtpuzzles.solve(PUZZLE, source)      # a path, text, a URL or a dict of options
    report = smtpuzzles.audit(result.run_dir, proof=True)

(The README's "Using from Python" has examples for each puzzle.)

See `smtpuzzles.api` for `solve`, `audit`, `Result` and `AuditResult`.
"""

from smtpuzzles.version import __version__
__all__ = ["solve", "audit", "Result", "AuditResult", "InputError", "LedgerError", "__version__"]


def __getattr__(name: str):
    # Loaded on first use: `import smtpuzzles.trusted.lrat` alone (an auditor's checker) pulls in no solver.
    if name in ("solve", "audit", "Result", "AuditResult"):
        from smtpuzzles import api

        return getattr(api, name)
    if name in ("InputError", "LedgerError"):
        from smtpuzzles import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'smtpuzzles' has no attribute {name!r}")
