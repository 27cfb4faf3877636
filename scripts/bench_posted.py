"""The posted Python + Z3 answer to the King's-tour record (the program in the puzzle's statement,
after its line "Kode"), run as posted with the z3 installed here, timed as a whole process.

  python scripts/bench_posted.py STATEMENT.txt [--python PYTHON]

The program is taken from the statement file unchanged and run in a fresh process; the script
prints its CPU seconds (user + system, from wait4), wall seconds and peak memory, the last 81-digit
number it printed, and whether that is the record the statement states. Run it niced: it takes
minutes (the statement says about half an hour on its author's machine).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def posted_program(statement: str) -> tuple[str, str]:
    """(the program, the record it claims): the text after the line "Kode", and the first 81-digit
    number of the statement."""
    head, marker, code = statement.partition("\nKode\n")
    if not marker:
        raise SystemExit("no line 'Kode' in the statement: no posted program to run")
    claimed = re.search(r"\b\d{81}\b", head)
    if not claimed:
        raise SystemExit("no 81-digit number in the statement before its program")
    return code, claimed.group(0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("statement", type=Path)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    code, claimed = posted_program(args.statement.read_text(encoding="utf-8"))
    import z3  # only for its version, in this interpreter

    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "posted.py"
        program.write_text(code)
        out_path = Path(tmp) / "out.txt"
        with open(out_path, "w") as out:
            started = time.perf_counter()
            proc = subprocess.Popen([args.python, str(program)], stdout=out, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - started
        printed = out_path.read_text()
    numbers = re.findall(r"^\d{81}$", printed, re.M)
    last = numbers[-1] if numbers else "(none)"
    print(f"z3 {z3.get_version_string()}, exit {os.waitstatus_to_exitcode(status)}")
    print(f"CPU {usage.ru_utime + usage.ru_stime:.1f} s, wall {wall:.1f} s, peak {usage.ru_maxrss / 1024:.0f} MB")
    print(f"numbers printed {len(numbers)}, last {last}")
    print(f"the statement's record: {'yes' if last == claimed else 'NO'}")
    return 0 if last == claimed else 1


if __name__ == "__main__":
    raise SystemExit(main())
