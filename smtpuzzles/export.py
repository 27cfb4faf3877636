"""SMT-LIB2 exports of every puzzle's canonical instances, kept in `encodings/` and checked by a test
to be what today's encoders write. Anyone can feed these files to z3 or cvc5 directly."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from smtpuzzles import puzzles
from smtpuzzles.bundled import regular_below, write_below


def canonical_instances(names: tuple[str, ...] | None = None) -> Iterator[tuple[str, str, object, str]]:
    """(puzzle, file stem, instance, encoding) for every bundled example of every registered puzzle
    (or of those named)."""
    for puzzle in puzzles.all_puzzles():
        if names is None or puzzle.NAME in names:
            for example in puzzle.examples():
                yield puzzle.NAME, example.stem, example.instance, example.encoding


def documents(names: tuple[str, ...] | None = None) -> Iterator[tuple[str, str]]:
    """(path relative to encodings/, SMT-LIB2 text)."""
    for name, stem, instance, encoding in canonical_instances(names):
        formula = puzzles.get(name).encode(instance, encoding).formula
        header = f"; smtpuzzles {name} {stem}: base formula of encoding {encoding}\n"
        yield f"{name}/{stem}.smt2", header + formula.document() + "(check-sat)\n"


def export_all(out: Path, names: list[str] | None = None) -> list[Path]:
    for name in names or ():
        puzzles.get(name)  # an unknown name is one line, before anything is written
    # All made before any is written (4 MB today): a puzzle whose examples are missing stops the
    # export before it has written anything; so does a link or a FIFO planted at any of its names.
    made = list(documents(tuple(names) if names else None))
    for relative, _ in made:
        regular_below(out, relative)
    return [write_below(out, relative, text) for relative, text in made]
