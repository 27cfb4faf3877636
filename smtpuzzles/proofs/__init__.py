"""Clausal proofs: made by proof-logging solvers and trimmed (proof), checked by the trusted LRAT
checker (lrat), or by the DRUP checker of the older path (drup)."""
