"""The commands that hand over to a module of their own: audit, export, examples, convert,
results, batch."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from smtpuzzles import puzzles
from smtpuzzles.bundled import JOB_FILE
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import check_writable_folder, read_input
from smtpuzzles.shown import escaped
from smtpuzzles.ticker import Ticker


def cmd_audit(args) -> int:
    from smtpuzzles.auditview import run_audit_command

    return run_audit_command(args)


def cmd_proofs(args) -> int:
    from smtpuzzles.auditview import run_proofs_command

    return run_proofs_command(args)


def cmd_export(args) -> int:
    from smtpuzzles.export import export_all

    written = export_all(check_writable_folder(args.out, "--out"), args.puzzle)
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_examples(args) -> int:
    from smtpuzzles.bundled import write_examples

    out = check_writable_folder(args.out, "--out")
    written = write_examples(out)
    print(f"wrote {len(written)} files to {escaped(str(out))}/\n"  # two lines: each fits 80 columns
          f"run them with: smtpuzzles batch {escaped(str(out / JOB_FILE))}")
    return 0


def cmd_convert(args) -> int:
    if args.puzzle:
        module = puzzles.get(args.puzzle)
        if module.convert is None:
            raise InputError(f"{module.NAME} has no other input form to convert to", "--puzzle")
    else:
        converters = [p for p in puzzles.all_puzzles() if p.convert]
        if len(converters) != 1:
            names = " or ".join(p.NAME for p in converters) or "none installed"
            raise InputError(f"name the puzzle whose input this is ({names})", "--puzzle")
        module = converters[0]
    text, source = read_input(args.input)
    print(module.convert(text, source))
    return 0


def cmd_results(args) -> int:
    from smtpuzzles.batch import collect_results, results_table

    # Reading every folder is fast; auditing each is not (the 12x12 record's symmetry lemma alone takes
    # seconds), so the audit is asked for with --audit, with a progress line off a terminal.
    current: list[str] = []
    every = 0 if Console(stderr=True).is_terminal else args.progress_every
    with Ticker(lambda: current[0] if current else "results: looking for run folders", every):
        rows = collect_results(Path(args.dir), with_audit=args.audit, progress=current)
    if args.json:
        print(json.dumps(rows))
    else:
        Console().print(results_table(Path(args.dir), rows=rows))
    return 0


def cmd_batch(args) -> int:
    from smtpuzzles.batch import run_batch_cli

    return run_batch_cli(args)
