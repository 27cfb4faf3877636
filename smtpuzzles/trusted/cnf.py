"""A small CNF builder for the reference encodings: named variables, clauses as lists of non-zero
ints, pairwise at-most-one, and one sequential counter. DIMACS text out."""

from __future__ import annotations


class Reference:
    def __init__(self) -> None:
        self.nvars = 0
        self.clauses: list[list[int]] = []
        self.names: dict[str, int] = {}
        self.ladders: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # at-most-one ladders: (literals, steps)

    def var(self, name: str) -> int:
        """A fresh variable; each name is given once."""
        if name in self.names:
            raise ValueError(f"variable {name!r} made twice")
        self.nvars += 1
        self.names[name] = self.nvars
        return self.nvars

    def add(self, clause) -> None:
        """A clause: literals of variables made so far (the empty clause is false)."""
        clause = list(clause)
        if clause and (set(map(type, clause)) != {int} or 0 in clause or max(clause) > self.nvars or -min(clause) > self.nvars):
            raise ValueError(f"clause {clause} names a literal that is not a variable")
        self.clauses.append(clause)

    def true(self) -> int:
        """A literal that holds in every model (one variable, made on first use)."""
        if "true" not in self.names:
            self.add([self.var("true")])
        return self.names["true"]

    def at_least_one(self, lits) -> None:
        self.add(lits)

    def at_most_one(self, lits) -> None:
        """No two hold: every pair for a few literals; for more, a ladder (3 clauses a literal
        instead of n(n-1)/2 pairs), where step i holds once any of the first i does:
        lit i -> step i, step i-1 -> step i, and never lit i with step i-1."""
        lits = list(lits)
        if len(lits) <= 5:
            for i in range(len(lits)):
                for j in range(i + 1, len(lits)):
                    self.add([-lits[i], -lits[j]])
            return
        number = len(self.ladders) + 1
        steps = [self.var(f"at most one #{number}: one of the first {i + 1}") for i in range(len(lits) - 1)]
        self.ladders.append((tuple(lits), tuple(steps)))
        for i, x in enumerate(lits):
            if i < len(steps):
                self.add([-x, steps[i]])
            if i > 0:
                self.add([-x, -steps[i - 1]])
                if i < len(steps):
                    self.add([-steps[i - 1], steps[i]])

    def exactly_one(self, lits) -> None:
        self.at_least_one(lits)
        self.at_most_one(lits)

    def count(self, lits, name: str) -> list[int]:
        """Literals out[0..n]: out[j] holds exactly when at least j of `lits` hold. A sequential
        counter: row i is "at least j of the first i", each defined in both directions by
        at-least-j-of-first-i  <->  at-least-j-of-first-(i-1)  or  (lit i and at-least-(j-1)-of-first-(i-1))."""
        top = self.true()
        row = [top]  # before any literal: at least 0 holds, at least 1 does not
        for i, x in enumerate(lits, 1):
            new = [top]
            for j in range(1, i + 1):
                stay = row[j] if j < len(row) else -top
                step = row[j - 1]
                v = self.var(f"{name}:{i}>={j}")
                self.add([-stay, v])          # already j before: still j
                self.add([-x, -step, v])      # j-1 before and this one: j
                self.add([-v, stay, x])       # j now: j before or this one holds
                self.add([-v, stay, step])    # j now: j before or j-1 before
                new.append(v)
            row = new
        return row

    def at_least(self, lits, k: int, name: str) -> None:
        lits = list(lits)
        if k > len(lits):
            self.add([])
        elif k > 0:
            self.add([self.count(lits, name)[k]])

    def at_most(self, lits, k: int, name: str) -> None:
        lits = list(lits)
        if k < 0:
            self.add([])
        elif k < len(lits):
            self.add([-self.count(lits, name)[k + 1]])

    def dimacs(self) -> str:
        lines = [f"p cnf {self.nvars} {len(self.clauses)}"]
        lines += [" ".join(map(str, clause)) + " 0" for clause in self.clauses]
        return "\n".join(lines) + "\n"


def true_vars(model) -> set[int]:
    """The variables a model makes true: from a list of signed literals (a solver's model) or a set
    of the true variables."""
    return {x for x in model if x > 0}
