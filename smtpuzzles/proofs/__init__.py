"""Clausal proofs: the query as DIMACS (query), made by proof-logging solvers in a child process
(child, prover), trimmed (trim) and certified (certify, parts) within a budget (budget), checked
(checking: the DRUP checker of the older path, drup, and the trusted LRAT checker) and stored
(stored); proof gathers the names the rest of the project uses."""
