"""The trust base: the little code a claim checked with `audit --proof` rests on, besides each
puzzle's referee and reference encoding. The LRAT checker (`lrat`), DIMACS read and written
(`dimacs`), the check of a symmetry lemma on a DIMACS formula (`symmetry`) and the CNF builder the
reference encodings write with (`cnf`). Nothing here runs a solver, and nothing here imports the
rest of the project but its exception types (smtpuzzles.errors): tests/test_trust_base.py holds it
to that, and docs/trust.md lists these files with their line counts, which the same test keeps true.
"""
