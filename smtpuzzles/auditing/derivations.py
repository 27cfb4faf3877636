"""Steps refuted by a derivation rather than one solver answer, checked as such: a claim refuted by
cubes (each cube an UNSAT step, the cubes covering every case of today's formula), case by case
(the claim exactly the disjunction of the listed steps' claims, each an UNSAT step), or by a shared
question's tree of refuted cubes (smtpuzzles.sharing: one step, resting on no other, its tree
checked in pure Python). The audit asks this of the step that closes a claim and of every tree
step, and the re-solve of what to re-solve in its place. Every check holds the steps to the
assumptions today's encoder builds, never to the folder's word; one check per kind, in CHECKS.
"""

from __future__ import annotations

from smtpuzzles.canonical import canonical_json
from smtpuzzles.cubes import clauses_with, coverage_problem, without_cube
from smtpuzzles.errors import LedgerError
from smtpuzzles.formula import smt2
from smtpuzzles.auditing.readback import recorded_claim_terms
from smtpuzzles.proofs.splits import Split, by_tree
from smtpuzzles.sharing.tree import summary_problem

# A step by cases or by cubes rests on the steps it lists, which may rest on others. The driver
# nests two levels at most (a closing step on its cases, a case on its cubes), and the published
# records list 466 steps in all (15x15: 210 cases and four splits); a 16x16 run split two deep and
# closed by cases would list about 67,000 (256 cases of 262 cubes). A folder past either cap is forged: refused as
# malformed, so a hostile chain costs neither a deep stack nor a long walk.
MAX_RESTS_DEPTH = 64  # steps resting on steps resting on ... under one claim
MAX_RESTS_LISTED = 1_000_000  # listings followed in one audit, each step's list once


class Derivations:
    """Steps that rest on earlier ones (by cubes, by cases), checked as such. Each step is checked
    once however many steps list it, children before parents (listed steps are earlier: the reader
    checks that), with an explicit stack rather than recursion: time linear in the ledger."""

    def __init__(self, folder, enc):
        self.folder, self.enc, self.steps = folder, enc, folder.steps
        self.problem: dict[int, str | None] = {}  # resting step -> why it does not hold (None: it holds)
        self.height: dict[int, int] = {}  # resting step -> how many levels of resting steps it tops
        self.fits: dict[int, bool] = {}  # step -> its assumptions are today's for its claim
        self.coverage: dict[tuple, str | None] = {}  # a split's cubes -> coverage_problem
        self.occurs = None  # clauses of each variable named in a cube, indexed once (cubes.clauses_with)
        self.listed = 0

    def _resting(self, index: int) -> bool:
        return self.steps[index].get("by") in RESTING

    def _listing(self, index: int) -> list[int]:
        step = self.steps[index]
        # The reader requires the list of a step by cubes or by cases; a tree step lists none.
        return step[step["by"]] if step["by"] in LISTING else []

    def _fits(self, index: int) -> bool:
        if index not in self.fits:
            step = self.steps[index]
            texts = recorded_query_texts(self.enc, step["claim"], f"{self.folder.steps_where} line {index + 1}")
            self.fits[index] = step["assumptions"] == texts
        return self.fits[index]

    def problems(self, index: int) -> list[str]:
        """Why the resting step `index` does not refute its claim, or nothing. Past a cap: LedgerError."""
        self._check_from(index)
        problem = self.problem[index]
        return [problem] if problem else []

    def leaves(self, index: int) -> list[int] | None:
        """The steps answered on their own (a solver's, a bound's) that the resting step `index`
        rests on, when its derivation holds (None when it does not)."""
        if self.problems(index):
            return None
        if self.steps[index]["by"] not in LISTING:
            return [index]  # a tree step is re-solved cube by cube (smtpuzzles.auditing.resolving)
        found, seen, stack = [], {index}, [index]
        while stack:
            for child in self._listing(stack.pop()):
                if child not in seen:
                    seen.add(child)
                    (stack if self.steps[child].get("by") in LISTING else found).append(child)
        return sorted(found)

    def _check_from(self, root: int) -> None:
        if root in self.problem:
            return
        where = self.folder.steps_where
        order, seen, stack = [], {root}, [root]  # the resting steps below root not checked yet
        while stack:
            index = stack.pop()
            order.append(index)
            listing = self._listing(index)
            self.listed += len(listing)
            if self.listed > MAX_RESTS_LISTED:
                raise LedgerError(f"steps by cases or cubes list more than {MAX_RESTS_LISTED:,} listed steps in all",
                                  f"{where} line {index + 1}")
            for child in listing:
                if child not in seen and child not in self.problem and self._resting(child):
                    seen.add(child)
                    stack.append(child)
        order.sort()  # children first
        for index in order:  # the depth is bounded before anything costly is built
            height = 1 + max((self.height[c] for c in self._listing(index) if self._resting(c)), default=0)
            if height > MAX_RESTS_DEPTH:
                raise LedgerError(f"step {index} rests on steps by cases or cubes more than {MAX_RESTS_DEPTH} deep",
                                  f"{where} line {index + 1}")
            self.height[index] = height
        for index in order:
            step = self.steps[index]
            self.problem[index] = CHECKS[step["by"]](self, step)

    # ------------------------------------------------------------- one check per kind of resting step
    def _split(self, step: dict) -> str | None:
        """A claim refuted by cubes: each listed step an UNSAT answer to the claim under one cube,
        with today's assumptions, and the cubes covering every case of today's formula."""
        claim = canonical_json(step["claim"])
        cubes = []
        for index in step["cubes"]:
            cube_step = self.steps[index]
            if cube_step["result"] != "unsat" or "cube" not in cube_step["claim"] \
                    or canonical_json(without_cube(cube_step["claim"])) != claim:
                return f"step {step['index']} lists step {index}, which is no UNSAT answer to one of its cubes"
            if not self._fits(index):
                return f"step {index} refuted other assumptions than today's encoder builds for its cube"
            if self.problem.get(index):  # a cube step resting on others is checked as such
                return self.problem[index]
            cubes.append(tuple(cube_step["claim"]["cube"]))
        key = tuple(cubes)
        if key not in self.coverage:
            cnf = self.enc.formula.cnf
            if self.occurs is None and cnf is not None:  # every cube variable of the ledger, in one pass
                self.occurs = clauses_with(cnf, {n for s in self.steps for n in s["claim"].get("cube", ())})
            self.coverage[key] = coverage_problem(cnf, cubes, self.occurs)
        problem = self.coverage[key]
        return f"step {step['index']}'s {len(cubes)} cubes: {problem}" if problem else None

    def _cases(self, step: dict) -> str | None:
        """A claim refuted case by case: its formula, as today's encoder builds it, must be exactly
        the disjunction of the listed steps' claims (each the conjunction of its assumptions), and
        each listed step an UNSAT answer with today's assumptions (one resting on others checked as
        such). Then base and claim have no model, for each disjunct has none."""
        listed = step["cases"]
        for index in listed:
            fits = self._fits(index)  # first: a claim today's encoder cannot build is a malformed ledger
            if self.steps[index]["result"] != "unsat" or not fits:
                return f"step {step['index']} lists step {index}, which is no UNSAT answer with today's assumptions"
            if self.problem.get(index):
                return self.problem[index]
        own = step["assumptions"]  # today's, once _fits says so
        cases = [self.steps[i]["assumptions"] for i in listed]
        if not self._fits(step["index"]) or len(own) != 1 or not _is_disjunction(own[0], cases):
            return f"step {step['index']}'s {len(listed)} cases are not the cases of its claim as today's encoder builds it"
        return None

    def _tree(self, step: dict) -> str | None:
        """A claim refuted by a shared question's cubes: its tree (smtpuzzles.sharing.tree) complete,
        every leaf refuted, every split a variable of the formula built here, and the tree of this
        step's claim and this run's base formula; the step's assumptions today's. It rests on no
        other step; whether each leaf is UNSAT is the solver's word, as for any UNSAT step."""
        index = step["index"]
        if not self._fits(index):
            return f"step {index} refuted other assumptions than today's encoder builds for its claim"
        cnf = self.enc.formula.cnf
        if cnf is None:
            return f"step {index} was shared out as cubes of a clausal formula, which encoding {self.enc.name} lacks"
        problem = summary_problem(step["tree"], step["claim"], self.folder.run["base"]["sha256"], cnf.index)
        return f"step {index}: {problem}" if problem else None


# How each kind of step that rests on others is checked, by its `by`: a check takes the step and
# says why it does not refute its claim (None when it does), and may rely on the steps it lists
# having been checked first (`problem`). A new kind is one method of Derivations and one entry here.
CHECKS = {"cubes": Derivations._split, "cases": Derivations._cases, "tree": Derivations._tree}
RESTING = tuple(CHECKS)  # the ways a step is derived rather than answered (smtpuzzles.driver)
LISTING = ("cubes", "cases")  # those that rest on the earlier steps they list


def _is_disjunction(text: str, cases: list[list[str]]) -> bool:
    """Whether `text` is smt2(any_of(all_of(case) for case in cases)), each case given as the
    smt2 of its terms: matched piece by piece against `text`, so that a long list of long cases
    costs no more than `text` and the list themselves (never a string as long as all the cases)."""
    def conjunction(case: list[str]):
        if len(case) == 1:
            yield case[0]
            return
        if not case:
            yield "true"
            return
        yield "(and "
        for number, part in enumerate(case):
            if number:
                yield " "
            yield part
        yield ")"

    def pieces():
        if len(cases) == 1:
            yield from conjunction(cases[0])
            return
        if not cases:
            yield "false"
            return
        yield "(or "
        for number, case in enumerate(cases):
            if number:
                yield " "
            yield from conjunction(case)
        yield ")"

    at = 0
    for piece in pieces():
        if not text.startswith(piece, at):
            return False
        at += len(piece)
    return at == len(text)


def recorded_query_texts(enc, claim: dict, where: str) -> list[str]:
    """Today's assumptions for a claim read from a folder, as SMT-LIB2 terms."""
    return [smt2(t) for t in recorded_claim_terms(enc, claim, where)]


# The most leaves a tree of cubes may give a proof as its parts. Each part starts a proof-logging
# solver on the whole formula (a tenth of a second on 4x4, seconds on 16x16); a forged tree of half
# a million leaves passes the tree check and would have cost `audit --proof` about a day. Honest
# trees have tens of leaves (docs/sharing.md); past this the query is proved as if there were none.
TREE_PARTS = 1024


def tree_split(folder, enc, step: dict | None, query) -> Split | None:
    """The leaves of the tree of cubes `step` (a shared question) was refuted by, as a proof's
    parts, when its check here holds; None for any other step, one whose tree fails its check
    (that is the claims section's finding; the query is then proved as it would be without one),
    or one of more than TREE_PARTS leaves."""
    if step is None or step.get("by") != "tree" or Derivations(folder, enc).problems(step["index"]):
        return None
    if step["tree"]["tree"].count(0) > TREE_PARTS:
        return None
    summary, index = step["tree"], enc.formula.cnf.index
    return by_tree(summary["tree"], [index[name] for name in summary["variables"]], query.variables)
