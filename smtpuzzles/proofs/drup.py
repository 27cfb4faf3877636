"""A small backward DRUP checker, in pure Python, sharing no code with any solver.

A DRUP proof lists clauses ("lemmas") a solver derived and clauses it deleted. The proof refutes the
formula when the empty clause follows by unit propagation from the formula and the lemmas, and every
lemma the refutation uses is RUP: assuming its negation, unit propagation over the clauses present
before it reaches a conflict. Checking backwards (as drat-trim does) verifies only the lemmas the
refutation depends on, each against exactly the clauses present at its time:

1. forward: add the lemmas and apply the deletions, keeping the top-level unit-propagation closure,
   until the empty clause follows (a proof that never gets there is rejected as cut short);
2. backward: mark the clauses the final conflict rests on, then undo the proof step by step;
   each marked lemma is removed and checked by RUP, and the clauses its check used are marked.

Soundness rests on two rules kept here: a RUP check propagates only over clauses present before the
lemma (lemmas removed on the way back, deletions restored), and every clause a successful check or
the final conflict depends on is marked, so it is checked in its turn or belongs to the formula.
Deleting a clause that is the reason of a top-level assignment is ignored (as drat-trim does):
keeping an implied clause cannot make a false lemma RUP. RAT lemmas are not accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence


@dataclass
class Verdict:
    ok: bool
    message: str
    lemmas: int = 0  # lemmas in the proof
    checked: int = 0  # lemmas the refutation used, each verified by RUP
    used: list[int] = field(default_factory=list)  # their places among the steps, last first
    core: list[int] = field(default_factory=list)  # the formula's clauses the refutation rests on


class _Refuted(Exception):
    """The top-level propagation reached a conflict (carries the conflicting clause)."""

    def __init__(self, cid: int):
        self.cid = cid


def check_drup(nvars: int, formula: Sequence[Sequence[int]], steps: Sequence[tuple[bool, list[int]]],
               step_names: Sequence[str] | None = None) -> Verdict:
    """Check a DRUP proof: `steps` are (is_deletion, literals) in proof order. Literals must be
    non-zero ints with variables in 1..nvars (the caller validates the text)."""
    return _Checker(nvars).run(formula, steps, step_names)


class _Checker:
    def __init__(self, nvars: int):
        size = 2 * nvars + 1
        # Indexed by literal: a negative literal wraps to the upper half of the list.
        self.val = [0] * size  # 1 true, -1 false, 0 unassigned
        self.watches: list[list[int]] = [[] for _ in range(size)]
        # Binary clauses, most of the clauses and of the propagations, are looked up directly:
        # binaries[l] holds (other literal, clause id) for each binary clause containing l.
        self.binaries: list[list[tuple[int, int]]] = [[] for _ in range(size)]
        self.reason: list[int] = [-1] * (nvars + 1)  # clause id, -1 none, -2 an assumption
        self.pos: list[int] = [0] * (nvars + 1)  # place on the trail
        self.cone_done = bytearray(nvars + 1)  # top-level var whose reasons are all marked
        self.trail: list[int] = []
        self.qhead = 0
        self.clauses: list[list[int]] = []
        self.alive = bytearray()
        self.marked = bytearray()
        self.listed = bytearray()  # a binary clause already in `binaries` (entries are never removed)

    # ---------------------------------------------------------------------------------- propagation
    def _assign(self, lit: int, cid: int) -> None:
        self.val[lit] = 1
        self.val[-lit] = -1
        v = lit if lit > 0 else -lit
        self.reason[v] = cid
        self.pos[v] = len(self.trail)
        self.trail.append(lit)

    def _propagate(self) -> int:
        """Unit propagation from qhead; the id of a conflicting clause, or -1."""
        val, watches, clauses, alive, trail = self.val, self.watches, self.clauses, self.alive, self.trail
        reason, pos, binaries = self.reason, self.pos, self.binaries
        qhead = self.qhead
        while qhead < len(trail):
            false = -trail[qhead]
            qhead += 1
            for other, cid in binaries[false]:
                if val[other] == 1 or not alive[cid]:
                    continue
                if val[other] == -1:
                    self.qhead = len(trail)
                    return cid
                val[other] = 1
                val[-other] = -1
                v = other if other > 0 else -other
                reason[v] = cid
                pos[v] = len(trail)
                trail.append(other)
            ws = watches[false]
            i = j = 0
            n = len(ws)
            while i < n:
                cid = ws[i]
                i += 1
                if not alive[cid]:
                    continue  # removed clause: drop the entry
                c = clauses[cid]
                if c[0] == false:
                    c[0] = c[1]
                    c[1] = false
                elif c[1] != false:
                    continue  # stale entry: the clause watches other literals now
                other = c[0]
                if val[other] == 1:
                    ws[j] = cid
                    j += 1
                    continue
                for k in range(2, len(c)):
                    lit = c[k]
                    if val[lit] != -1:
                        c[1] = lit
                        c[k] = false
                        watches[lit].append(cid)
                        break
                else:
                    ws[j] = cid
                    j += 1
                    if val[other] == -1:
                        while i < n:
                            ws[j] = ws[i]
                            j += 1
                            i += 1
                        del ws[j:]
                        self.qhead = len(trail)
                        return cid
                    val[other] = 1
                    val[-other] = -1
                    v = other if other > 0 else -other
                    reason[v] = cid
                    pos[v] = len(trail)
                    trail.append(other)
            del ws[j:]
        self.qhead = qhead
        return -1

    def _attach(self, cid: int) -> None:
        """Add a clause under the current top-level assignment; raises _Refuted on a conflict."""
        c = self.clauses[cid]
        val = self.val
        if not c:
            raise _Refuted(cid)
        if len(c) == 1:
            lit = c[0]
            if val[lit] == -1:
                raise _Refuted(cid)
            if val[lit] == 0:
                self._assign(lit, cid)
            return
        if len(c) == 2:
            a, b = c
            if not self.listed[cid]:
                self.listed[cid] = 1
                self.binaries[a].append((b, cid))
                self.binaries[b].append((a, cid))
            if val[a] == -1 and val[b] == -1:
                raise _Refuted(cid)
            if val[a] == -1 and val[b] == 0:
                self._assign(b, cid)
            elif val[b] == -1 and val[a] == 0:
                self._assign(a, cid)
            return
        # Watch two literals that are not false if there are; else the latest false ones, so that
        # undoing the trail frees the watches first.
        pos = self.pos
        c.sort(key=lambda l: (val[l] == -1, -pos[abs(l)] if val[l] == -1 else 0))
        a, b = c[0], c[1]
        self.watches[a].append(cid)
        self.watches[b].append(cid)
        if val[a] == -1:
            raise _Refuted(cid)
        if val[b] == -1 and val[a] == 0:
            self._assign(a, cid)

    def _backtrack(self, size: int) -> None:
        trail, val, reason, cone_done = self.trail, self.val, self.reason, self.cone_done
        while len(trail) > size:
            lit = trail.pop()
            val[lit] = 0
            val[-lit] = 0
            v = lit if lit > 0 else -lit
            reason[v] = -1
            cone_done[v] = 0
        if self.qhead > size:
            self.qhead = size

    def _is_reason(self, cid: int) -> int:
        """The trail place of the assignment this clause is the reason of, or -1."""
        for lit in self.clauses[cid]:
            v = lit if lit > 0 else -lit
            if self.reason[v] == cid and self.val[lit] == 1:
                return self.pos[v]
        return -1

    def _mark_cone(self, cid: int, level0: int) -> None:
        """Mark `cid` and every reason its literals' assignments rest on."""
        marked, clauses, reason, pos, cone_done = self.marked, self.clauses, self.reason, self.pos, self.cone_done
        marked[cid] = 1
        stack = [cid]
        seen = set()
        while stack:
            for lit in clauses[stack.pop()]:
                v = lit if lit > 0 else -lit
                if v in seen or cone_done[v]:
                    continue
                seen.add(v)
                r = reason[v]
                if r < 0:
                    continue  # an assumption of the current check
                if pos[v] < level0:
                    # Everything this top-level assignment rests on gets marked by this loop before
                    # it returns, so later checks may stop here.
                    cone_done[v] = 1
                marked[r] = 1
                stack.append(r)

    # ------------------------------------------------------------------------------------ checking
    def run(self, formula, steps, step_names) -> Verdict:
        """Forward until the empty clause follows, then backward checking each lemma in its cone."""
        def name(i: int) -> str:
            return step_names[i] if step_names else f"proof step {i + 1}"

        nformula = len(formula)
        total = nformula + sum(1 for d, _ in steps if not d)
        self.alive = bytearray(b"\x01") * total
        self.marked = bytearray(total)
        self.listed = bytearray(total)
        lemmas = total - nformula
        conflict = self._load_formula(formula)
        if conflict >= 0:  # the formula itself is refuted by unit propagation
            self._mark_cone(conflict, len(self.trail))
            core = [c for c in range(nformula) if self.marked[c]]
            return Verdict(True, "the formula is refuted by unit propagation alone", lemmas, 0, core=core)
        step_clause, last, conflict = self._forward(steps, nformula)
        if last < 0:
            return Verdict(False, "the proof ends without deriving the empty clause (cut short?)", lemmas, 0)
        self._mark_cone(conflict, len(self.trail))
        used, failed = self._backward(steps, step_clause, last, name)
        if failed:
            return Verdict(False, failed, lemmas, len(used), used)
        core = [c for c in range(nformula) if self.marked[c]]
        return Verdict(True, f"empty clause derived; {len(used)} of {lemmas} lemmas used, each checked", lemmas,
                       len(used), used, core)

    @staticmethod
    def _key(clause) -> tuple:
        return tuple(sorted(set(clause)))

    def _load_formula(self, formula) -> int:
        """Attach the formula's clauses and propagate: the conflicting clause's id, or -1."""
        self.by_key: dict[tuple, list[int]] = {}
        for c in formula:
            self.clauses.append(list(dict.fromkeys(c)))  # duplicate literals would confuse the watches
        try:
            for cid in range(len(self.clauses)):
                self.by_key.setdefault(self._key(self.clauses[cid]), []).append(cid)
                self._attach(cid)
            return self._propagate()
        except _Refuted as refuted:
            return refuted.cid

    def _forward(self, steps, next_id: int) -> tuple[list[int], int, int]:
        """Lemmas added and deletions applied until the empty clause follows: (per step the lemma's
        id, the deleted clause's id or -1; the step that ended it, or -1; the conflicting clause)."""
        step_clause: list[int] = []
        for i, (deletion, lits) in enumerate(steps):
            if deletion:
                step_clause.append(self._delete(lits))
                continue
            cid = next_id
            next_id += 1
            self.clauses.append(list(dict.fromkeys(lits)))
            self.by_key.setdefault(self._key(self.clauses[cid]), []).append(cid)
            step_clause.append(cid)
            try:
                self._attach(cid)
                conflict = self._propagate()
            except _Refuted as refuted:
                conflict = refuted.cid
            if conflict >= 0:
                return step_clause, i, conflict
        return step_clause, -1, -1

    def _delete(self, lits) -> int:
        """The live clause a deletion step removes (-1: none, or a reason, whose deletion is ignored:
        keeping it keeps it implied)."""
        found = self.by_key.get(self._key(lits))
        cid = -1
        while found:
            candidate = found.pop()
            if self.alive[candidate]:
                cid = candidate
                break
        if cid >= 0 and self._is_reason(cid) >= 0:
            found.append(cid)
            cid = -1
        if cid >= 0:
            self.alive[cid] = 0
        return cid

    def _backward(self, steps, step_clause: list[int], last: int, name) -> tuple[list[int], str | None]:
        """Undo each step from the last; check each marked lemma against what was there before it.
        (the steps used, and the first failure in words or None)."""
        used: list[int] = []
        for i in range(last, -1, -1):
            cid = step_clause[i]
            if cid < 0:
                continue
            if steps[i][0]:
                self.alive[cid] = 1  # a deleted clause was present before its deletion
                try:
                    self._attach(cid)
                except _Refuted:
                    return used, f"internal inconsistency restoring {name(i)}"
                continue
            self.alive[cid] = 0
            place = self._is_reason(cid)
            if place >= 0:
                self._backtrack(place)
                # What the rest of the trail implied without this lemma is found again from scratch.
                self.qhead = 0
            if self.marked[cid]:
                if not self._rup(cid):
                    return used, f"{name(i)}: the clause does not follow by unit propagation"
                used.append(i)
        return used, None

    def _rup(self, cid: int) -> bool:
        conflict = self._propagate()
        if conflict >= 0:
            # Cannot happen for proofs checked forward first; kept as a check, never as a pass.
            return False
        level0 = len(self.trail)
        val, pos = self.val, self.pos
        result = True
        for lit in self.clauses[cid]:
            v = lit if lit > 0 else -lit
            if val[lit] == 1:
                if pos[v] >= level0:
                    break  # a tautology: the lemma holds without anything
                # True at the top level: the lemma is implied by that assignment's reasons.
                self._mark_cone(self.reason[v], level0)
                break
            if val[lit] == 0:
                self._assign(-lit, -2)
        else:
            conflict = self._propagate()
            if conflict >= 0:
                self._mark_cone(conflict, level0)
            else:
                result = False
        self._backtrack(level0)
        return result


# ------------------------------------------------------------------------------------ LRAT output
def to_lrat(nvars: int, formula: Sequence[Sequence[int]], steps: Sequence[tuple[bool, list[int]]],
            verdict: Verdict) -> bytes:
    """The refutation a successful backward check found, written as an LRAT proof.

    LRAT gives every lemma the ids of the clauses that make it RUP, in the order unit propagation
    uses them, so a checker needs no search: one pass, linear in the proof (`smtpuzzles.trusted.lrat`, or
    cake_lpr). Only what the check marked is kept: the core of the formula and the used lemmas, in
    their order, with no deletions, so every lemma's check sees a superset of what it used in the
    backward check and succeeds again here. Top-level assignments a lemma leans on are written as
    unit lemmas of their own the first time they are needed, so hint lists stay short.
    Nothing here is trusted: a wrong hint is rejected by the LRAT checker.
    """
    if not verdict.ok:
        raise ValueError("only an accepted proof can be written as LRAT")
    return _LratWriter(nvars).write(formula, steps, verdict)


class _LratWriter(_Checker):
    def write(self, formula, steps, verdict: Verdict) -> bytes:
        clauses = self.clauses
        lemma_order = sorted(verdict.used)
        core = verdict.core
        total = len(core) + len(lemma_order)
        self.alive = bytearray(b"\x01") * total
        self.marked = bytearray(total)
        self.listed = bytearray(total)
        self.ids: list[int] = []  # LRAT id per internal clause id
        self.unit_id: dict[int, int] = {}  # variable -> id of a unit clause holding its top-level value
        self.next_id = len(formula) + 1
        self.out: list[str] = []
        try:
            for index in core:
                clauses.append(list(dict.fromkeys(formula[index])))
                self.ids.append(index + 1)
                self._attach(len(clauses) - 1)
            conflict = self._propagate()
            if conflict >= 0:
                raise _Refuted(conflict)
            for step in lemma_order:
                lits = list(dict.fromkeys(steps[step][1]))
                hints = self._hints(lits)
                cid = len(clauses)
                clauses.append(lits)
                self.ids.append(self._emit(lits, hints))
                self._attach(cid)
                conflict = self._propagate()
                if conflict >= 0:
                    raise _Refuted(conflict)
        except _Refuted as refuted:
            c = clauses[refuted.cid]
            hints = self._units([lit if lit > 0 else -lit for lit in c]) + [self.ids[refuted.cid]]
            self._emit([], hints)
            return "".join(self.out).encode("ascii")
        raise ValueError("the used lemmas did not derive the empty clause again")

    def _emit(self, lits: list[int], hints: list[int]) -> int:
        ident = self.next_id
        self.next_id += 1
        self.out.append(f"{ident} {' '.join(map(str, lits))}{' ' if lits else ''}0 {' '.join(map(str, hints))} 0\n")
        return ident

    def _units(self, variables: list[int]) -> list[int]:
        """Ids of unit clauses for these top-level variables, writing the missing ones first
        (in trail order, so each one's reason's other literals already have theirs)."""
        need: set[int] = set()
        stack = [v for v in variables if v not in self.unit_id]
        while stack:
            v = stack.pop()
            if v in need or v in self.unit_id:
                continue
            need.add(v)
            for lit in self.clauses[self.reason[v]]:
                u = lit if lit > 0 else -lit
                if u != v and u not in self.unit_id:
                    stack.append(u)
        for v in sorted(need, key=self.pos.__getitem__):
            r = self.reason[v]
            c = self.clauses[r]
            if len(c) == 1:
                self.unit_id[v] = self.ids[r]
                continue
            lit = v if self.val[v] == 1 else -v
            others = [u if u > 0 else -u for u in c if u != lit]
            self.unit_id[v] = self._emit([lit], [self.unit_id[u] for u in others] + [self.ids[r]])
        return [self.unit_id[v] for v in dict.fromkeys(variables)]

    def _hints(self, lits: list[int]) -> list[int]:
        """The hint list of a lemma: the top-level units it leans on, then the clauses its unit
        propagation used in trail order, then the conflicting clause."""
        val, pos, reason = self.val, self.pos, self.reason
        for lit in lits:
            if val[lit] == 1:  # true at the top level: implied by that one unit
                return self._units([lit if lit > 0 else -lit])
        level0 = len(self.trail)
        for lit in lits:
            if val[lit] == 0:
                self._assign(-lit, -2)
        conflict = self._propagate()
        if conflict < 0:
            self._backtrack(level0)
            raise ValueError("a used lemma is not RUP over the used clauses")
        top: list[int] = []
        inner: set[int] = set()
        # The lemma's own variables get their values from its negation, which a checker assumes
        # first; a unit hint for one of them would already be satisfied there.
        seen: set[int] = {lit if lit > 0 else -lit for lit in lits}
        stack = [conflict]
        while stack:
            for lit in self.clauses[stack.pop()]:
                v = lit if lit > 0 else -lit
                if v in seen:
                    continue
                seen.add(v)
                if pos[v] < level0:
                    top.append(v)
                elif reason[v] >= 0:
                    inner.add(v)
                    stack.append(reason[v])
        ordered = [self.ids[reason[v]] for v in sorted(inner, key=pos.__getitem__)]
        self._backtrack(level0)
        return self._units(top) + ordered + [self.ids[conflict]]
