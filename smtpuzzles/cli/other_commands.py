"""The commands that hand over to a module of their own: audit, unpack, export, examples, convert,
results, batch."""

from __future__ import annotations

import shlex
from pathlib import Path

from smtpuzzles import puzzles
from smtpuzzles.bundled import JOB_FILE
from smtpuzzles.durations import counted
from smtpuzzles.errors import InputError
from smtpuzzles.inputs import check_writable_folder, read_input
from smtpuzzles.shown import escaped


def cmd_audit(args) -> int:
    from smtpuzzles.auditview import run_audit_command

    return run_audit_command(args)


def cmd_proofs(args) -> int:
    from smtpuzzles.auditview import run_proofs_command

    return run_proofs_command(args)


def cmd_unpack(args) -> int:
    from smtpuzzles.folders.runfolder import read_run_json
    from smtpuzzles.unpacking import working_copy

    copy = working_copy(Path(args.run_dir), check_writable_folder(args.out, "--out"))
    puzzle = read_run_json(copy)["puzzle"]
    print(f"unpacked into {escaped(str(copy))}\n"  # two lines: each fits 80 columns; a command to paste
          f"resume it with: smtpuzzles solve {escaped(shlex.quote(puzzle))} --resume "
          f"{escaped(shlex.quote(str(copy) if copy.is_absolute() or not str(copy).startswith('-') else f'./{copy}'))}")
    return 0


def cmd_export(args) -> int:
    from smtpuzzles.export import export_all

    written = export_all(check_writable_folder(args.out, "--out"), args.puzzle)
    for path in written:
        print(f"wrote {escaped(str(path))}")
    return 0


def cmd_examples(args) -> int:
    from smtpuzzles.bundled import write_examples

    out = check_writable_folder(args.out, "--out")
    written = write_examples(out)
    print(f"wrote {counted(len(written), 'file')} to {escaped(str(out))}/\n"  # two lines: each fits 80 columns
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
    from smtpuzzles.results import run_results_command

    return run_results_command(args)


def cmd_serve(args) -> int:
    from smtpuzzles.web.app import serve

    serve(Path(args.dir), host=args.host, port=args.port)
    return 0


def cmd_batch(args) -> int:
    from smtpuzzles.batch import run_batch_cli

    return run_batch_cli(args)
