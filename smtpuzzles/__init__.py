"""smtpuzzles: optimal puzzle solving on SMT with recorded, re-checkable proofs."""

__version__ = "0.1.0"
