"""SMT-LIB2 exports of every puzzle's canonical instances, kept in `encodings/` and checked by a test
to be what today's encoders write. Anyone can feed these files to z3 or cvc5 directly."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from smtpuzzles import puzzles
from smtpuzzles.errors import InputError

EXAMPLES = Path(__file__).resolve().parents[1] / "scripts" / "examples"


def canonical_instances() -> Iterator[tuple[str, str, object, str]]:
    """(puzzle, file stem, instance, encoding) for every exported instance."""
    kingtour = puzzles.get("kingtour")
    for size, box in ((4, "2x2"), (6, "2x3")):
        board = kingtour.parse(size, box, None)
        for encoding in kingtour.ENCODINGS:
            yield "kingtour", f"{size}x{size}-{encoding}", board, encoding
    for name in ("nonary", "tatamibari", "rogue"):
        module = puzzles.get(name)
        for path in sorted((EXAMPLES / name).iterdir()):
            if path.name == "expected.json":
                continue
            instance = module.load(path.read_text(encoding="utf-8"), path.name, {})
            yield name, path.stem, instance, module.ENCODINGS[0]


def documents() -> Iterator[tuple[str, str]]:
    """(path relative to encodings/, SMT-LIB2 text)."""
    for name, stem, instance, encoding in canonical_instances():
        module = puzzles.get(name)
        formula = module.encode(instance, encoding).formula
        header = f"; smtpuzzles {name} {stem}: base formula of encoding {encoding}\n"
        yield f"{name}/{stem}.smt2", header + formula.document() + "(check-sat)\n"


def export_all(out: Path) -> list[Path]:
    written = []
    for relative, text in documents():
        path = out / relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:  # a file where a folder goes, a folder where a file goes, no space
            raise InputError(f"cannot write ({exc.strerror or exc.__class__.__name__})", str(exc.filename or path)) from None
        written.append(path)
    return written
