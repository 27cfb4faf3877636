"""`smtpuzzles proofs RUN_DIR --out DIR`: every proof the audit checks or makes for a run's claim,
written out as DIMACS and LRAT files with a README.txt saying what each claims and a check.sh that
checks them all with cake_lpr (or any LRAT checker), so an auditor with no Python can re-check a
record. The audit itself checks each proof with smtpuzzles.trusted.lrat before it is written here.

It is a sink the audit hands proofs to, as it hands them to an outside checker: the formula is the
one the audit built (never a folder's copy), and a proof made in parts is written as the formula
once and each part's proof, which refutes the formula with the part's case as one more unit clause.
Files are only ever created anew in a folder created anew, never written through a link.
"""

from __future__ import annotations

import os
from pathlib import Path

from smtpuzzles.proofs.external import write_proof
from smtpuzzles.shown import escaped
from smtpuzzles.trusted.dimacs import Dimacs

STEM = {"proof": "encoder", "reference_proof": "reference"}  # the audit's proof labels, as file names
ACCEPTED = "s VERIFIED UNSAT"


def _create(path: Path):
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.fdopen(os.open(path, flags, 0o644), "wb")


class ProofFiles:
    """The sink: `check` writes a proof and says so; `finish` writes README.txt and check.sh."""

    name = "proof files"
    counts = False  # it keeps proofs, it does not judge them: no finding of its own in the report

    def __init__(self, folder: Path):
        self.folder = folder
        self.whole: list[tuple[str, str]] = []  # (stem, what it refutes)
        self.parts: dict[str, dict] = {}  # stem -> {"what", "nvars", "clauses", "cases": {cube: file}}

    @property
    def path(self) -> str:
        return str(self.folder)

    def check(self, query: Dimacs, lrat, timeout=None, label: str = "proof", what: str = "", case=None):
        stem = STEM.get(label, label.replace(" ", "-"))
        if case is None:
            self._write(f"{stem}.cnf", query.data)
            self._write(f"{stem}.lrat", lrat)
            self.whole.append((stem, what))
            return True, f"written to {self.folder / (stem + '.lrat')}"
        kept = self.parts.get(stem)
        if kept is None:  # the part's formula is the claim's and its cube's units: the claim's is written once
            header, body = query.text.split("\n", 1)
            for _ in case:  # the part's units, its last lines, left out
                body = body[:body.rstrip("\n").rfind("\n") + 1]
            nvars, clauses = header.split()[2], int(header.split()[3]) - len(case)
            self._write(f"{stem}.cnf", f"p cnf {nvars} {clauses}\n{body}".encode())
            (self.folder / f"{stem}-parts").mkdir()
            kept = self.parts[stem] = {"what": what, "nvars": nvars, "clauses": clauses, "cases": {}}
        name = kept["cases"].get(case) or (f"{stem}-parts/case{case[0]:+d}.lrat" if len(case) == 1 else
                                           f"{stem}-parts/cube{len(kept['cases']) + 1}.lrat")
        if case in kept["cases"]:  # a part made anew: the earlier file gives way
            (self.folder / name).unlink()
        self._write(name, lrat)
        kept["cases"][case] = name
        return True, f"written to {self.folder / f'{stem}-parts'}"

    def _clause_of(self, stem: str, cases: list[int]) -> str:
        """Which clause of the written formula the cases are, in words ("clause N, line N+1")."""
        with open(self.folder / f"{stem}.cnf", "rb") as formula:
            for number, line in enumerate(formula):
                if number and sorted(set(map(int, line.split()[:-1]))) == cases:
                    return f"clause {number} (line {number + 1})"
        return "no clause"  # never: the audit checked they are one clause's

    def _write(self, name: str, data) -> None:
        with _create(self.folder / name) as out:
            write_proof(out, data)

    def finish(self, report, run_dir: str) -> int:
        """README.txt and check.sh; the number of files written in all."""
        lines = ["#!/bin/sh", "# Checks every proof in this folder with an LRAT checker: cake_lpr, unless CHECKER",
                 "# names another program called as CHECKER FORMULA.cnf PROOF.lrat.", "set -e",
                 'cd "$(dirname "$0")"', 'CHECKER="${CHECKER:-cake_lpr}"',
                 "# A proof is verified when the checker prints the line below and exits 0, as the audit requires.",
                 f'verified() {{ said=$("$CHECKER" "$1" "$2") && printf "%s\\n" "$said" | grep -qx \'{ACCEPTED}\' '
                 '|| { echo "NOT VERIFIED: $2"; exit 1; }; }']
        instance = report.instance or {}
        text = [f"Proofs of the claim of the run {escaped(run_dir)}:",
                f"{escaped(report.puzzle)}, {escaped(str(instance.get('description', '')))} (instance sha-256 "
                f"{escaped(str(instance.get('sha256', '')))}), claimed {escaped(report.status)} with the value "
                f"{escaped(str(report.value))[:200]}; audit {report.verdict}.", "",
                "Each FORMULA.cnf below is DIMACS that smtpuzzles built itself from the recorded instance (a run",
                "folder's own formulas are never used), and each .lrat file an LRAT proof that it has no",
                "solution, which smtpuzzles.trusted.lrat checked before writing it. Check them with any LRAT",
                "checker, such as cake_lpr, the formally verified checker the SAT Competition uses:", "",
                "    sh check.sh                     # cake_lpr on PATH",
                "    CHECKER=/path/to/checker sh check.sh", "",
                "Each check must print 's VERIFIED UNSAT'. What each file claims:", ""]
        count = 0
        for stem, what in self.whole:
            text += [f"{stem}.cnf, {stem}.lrat: refutes {what}.", ""]
            lines.append(f"verified {stem}.cnf {stem}.lrat")
            count += 2
        for stem, kept in self.parts.items():
            cases = kept["cases"]
            if all(len(cube) == 1 for cube in cases):
                literals = sorted(cube[0] for cube in cases)
                text += [f"{stem}.cnf, {stem}-parts/: refutes {kept['what']}, in {len(cases)} parts. The proof",
                         f"{stem}-parts/caseL.lrat refutes {stem}.cnf with the unit clause 'L 0' added (check.sh",
                         f"writes that formula); the cases L ({', '.join(map(str, literals[:8]))}"
                         f"{', ...' if len(literals) > 8 else ''})",
                         f"are exactly the literals of {self._clause_of(stem, literals)} of {stem}.cnf, so the parts",
                         "together refute it", ""]
            else:
                text += [f"{stem}.cnf, {stem}-parts/: refutes {kept['what']}, in {len(cases)} parts, the leaves",
                         "of the tree of cubes the run recorded for it. The proof cubeN.lrat refutes",
                         f"{stem}.cnf with the cube's literals added as unit clauses (check.sh writes that",
                         "formula, its units in the last lines); that the cubes are the leaves of a complete",
                         "decision tree, so the parts together refute it, smtpuzzles checked (`audit`).", ""]
            for cube, name in sorted(cases.items(), key=lambda item: item[1]):
                units = "".join(f' echo "{lit} 0";' for lit in cube)
                lines.append(f'{{ echo "p cnf {kept["nvars"]} {kept["clauses"] + len(cube)}"; tail -n +2 {stem}.cnf;'
                             f'{units} }} > part.cnf')
                lines.append(f"verified part.cnf {name}")
            lines.append("rm -f part.cnf")
            count += 1 + len(cases)
        text += ["What a checker cannot see: the audit found the claim to rest on", *[
            f"  - {escaped(item)}" for item in report.rests_on],
            "A formula holding a symmetry-breaking clause is refuted here with that clause; that it",
            "loses no solution up to symmetry is a lemma smtpuzzles.symmetry checked on the formula",
            "itself (docs/trust.md), which no LRAT checker sees. That the cases of a proof in parts",
            "are one clause's literals is checked by smtpuzzles and said above; check it by eye too.", ""]
        if report.verdict == "clean":
            lines.append('echo "all proofs here verified"')
        else:  # whatever is here checks, but the claim does not rest on it: never "all verified"
            text[0:0] = [f"THE AUDIT WAS NOT CLEAN ({report.verdict}): not every proof of the claim is here, and "
                         "check.sh fails after checking what is.", ""]
            lines += [f'echo "the audit of this run was {report.verdict}: not every proof of its claim is here"',
                      "exit 1"]
        self._write("README.txt", _in_80_columns(text).encode())
        self._write("check.sh", ("\n".join(lines) + "\n").encode())
        return count + 2


def _in_80_columns(lines: list[str]) -> str:
    """The README's lines as paragraphs (blocks between empty lines) wrapped to 80 columns: a
    block of indented command lines is kept as it is, a "  - " item is wrapped under its own
    indent, and prose after a list is a paragraph of its own. A long number or name is never
    broken, so its line alone may be longer."""
    import textwrap

    def wrapped(words: str, first: str = "", rest: str = "") -> list[str]:
        return textwrap.wrap(words, width=80, initial_indent=first, subsequent_indent=rest,
                             break_long_words=False, break_on_hyphens=False)

    out: list[str] = []
    block: list[str] = []
    for line in lines + [""]:
        if line:
            block.append(line)
            continue
        if block and block[0].startswith("    "):
            out += block
        else:
            pieces: list[tuple[bool, list[str]]] = []  # (a list item?, its lines)
            for part in block:
                item = part.startswith("  - ")
                if item or not pieces or pieces[-1][0]:
                    pieces.append((item, [part[4:] if item else part]))
                else:
                    pieces[-1][1].append(part)
            for item, text in pieces:
                out += wrapped(" ".join(text), "  - ", "    ") if item else wrapped(" ".join(text))
        out.append("")
        block = []
    return "\n".join(out[:-1]) + "\n"
