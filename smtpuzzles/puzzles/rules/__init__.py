"""Reference encodings: each puzzle's rules written a second time, as plain CNF, from the rules alone.

A checked proof that the main encoder's formula has no better solution shows only that *that
formula* has none: an encoder with one clause too many gives a false "optimal" that audits clean.
The modules here state each puzzle's rules once more, top to bottom, one commented block per rule,
with no symmetry breaking, no guesses and no auxiliary variables beyond what a rule itself needs, so
that each claim a run makes ("some solution beats this", "some plan gets k out", "there is a
solution other than these") can also be decided, and proved, on a formula that shares nothing with
the main encoder.

They share no code with the main encoders, `smtpuzzles.formula` or `smtpuzzles.objective`, and do
not import the puzzle modules: only the Python standard library and `smtpuzzles.trusted.cnf`, their
own small CNF builder, which is part of the trust base. Each puzzle module exports
`reference(instance, claim) -> cnf.Reference`, `witness(instance, solution)` and
`decode(instance, model) -> solution` (the puzzle's JSON form, for its referee to check).
"""
