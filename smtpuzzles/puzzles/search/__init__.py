"""Brute-force searches written from the rules: each puzzle's `brute_force(instance, limit)` hook.

`smtpuzzles.auditing.crosscheck` holds every answer of the solver against these on small instances. Like the
reference encodings in `puzzles/rules/`, they share no code with the main encoders and import no
solver: only the standard library, and the puzzle's instance as its module defines it.
"""
