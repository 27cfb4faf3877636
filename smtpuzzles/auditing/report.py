"""What an audit found: its findings, section by section, what backs the claim, and the verdict and
exit status they come to."""

from __future__ import annotations

from dataclasses import dataclass, field

# Exit statuses of `smtpuzzles audit` beyond 0 (clean), 1 (a claim fails) and 2 (unreadable folder).
EXIT_UNDECIDED = 3  # a re-solve ran out of time or the solver answered unknown
EXIT_MISSING_SOLVER = 4  # a solver the audit was asked to use is not installed


@dataclass
class Finding:
    section: str
    ok: bool | None  # None: undecided (a re-solve that could not answer)
    text: str


@dataclass
class Report:
    run_dir: str
    puzzle: str = "?"
    status: str = "?"
    value: object = None
    findings: list[Finding] = field(default_factory=list)
    resolved: list[dict] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # what backs the claim, in words
    missing: list[str] = field(default_factory=list)  # solvers asked for but not installed
    # The claim rests on a recorded UNSAT answer that no solver here has re-checked (no --resolve).
    unchecked_unsat: bool = False
    proof_stored: bool = False  # the folder holds an LRAT proof (`certify`) that --proof checks
    instance: dict = field(default_factory=dict)  # which instance: puzzle, a few words, canonical sha-256
    rests_on: list[str] = field(default_factory=list)  # the formulas a checked proof refuted the claim on
    answer: str = ""  # what a unique or count run claims besides its status ("unique", "13 solutions")

    @property
    def ok(self) -> bool:
        """No check failed (a claim that is undecided or unchecked is not a failure)."""
        return all(f.ok is not False for f in self.findings)

    @property
    def exit_code(self) -> int:
        if not self.ok:
            return 1
        if self.missing:
            return EXIT_MISSING_SOLVER
        if any(f.ok is None for f in self.findings):
            return EXIT_UNDECIDED
        return 0

    @property
    def verdict(self) -> str:
        code = self.exit_code
        if code == 0 and self.unchecked_unsat:
            return "consistent"  # the ledger holds together, but its UNSAT answer was taken on trust
        return {0: "clean", 1: "FAILED", EXIT_UNDECIDED: "undecided", EXIT_MISSING_SOLVER: "incomplete"}[code]

    def add(self, section: str, ok: bool | None, text: str) -> None:
        self.findings.append(Finding(section, ok, text))

    def as_json(self) -> dict:
        return {"run_dir": self.run_dir, "puzzle": self.puzzle, "status": self.status, "value": self.value,
                "ok": self.ok, "verdict": self.verdict, "exit": self.exit_code, "evidence": self.evidence,
                "missing_solvers": self.missing, "unsat_rechecked": not self.unchecked_unsat,
                "proof_stored": self.proof_stored, "instance": self.instance, "rests_on": self.rests_on, "answer": self.answer,
                "findings": [f.__dict__ for f in self.findings],
                "resolved": self.resolved}
