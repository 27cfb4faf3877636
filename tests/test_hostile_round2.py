"""The second round of hostile folders: each attack that still reached the auditor's machine, made
again here as a real process under a memory limit and a time bound. Each must end in one line and
the right exit status, with nothing printed that holds an escape byte.

1. a 0.5 MB proof.lrat.gz of 512 MiB comment lines (cost gigabytes: the proof was split whole);
2. a 57 MiB run.json of 20,000,000 empty lists (4.2 GB), and the same in solution.json and steps;
3. folder names holding OSC 52, ESC[8m and rich markup (printed raw, or read as markup);
4. float and boolean digits in a King's-tour solution.json (a TypeError traceback);
5. an LRAT proof whose few-byte hints name very wide clauses (seconds per megabyte, no time bound).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import copy_of_run, solved_once

MEMORY_MB = 1500  # the attacks cost 3.9 to 10 GB before; an honest audit of these runs needs ~300 MB
ESCAPES = ("\x1b", "\x07", "\x9b", "\x9d")


def smtpuzzles(*args, cwd: Path, timeout: int = 120) -> subprocess.CompletedProcess:
    """`smtpuzzles ARGS` as a real process under an address-space limit and a time bound."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MB << 20, MEMORY_MB << 20))
    env = {**os.environ, "HOME": str(cwd)}
    return subprocess.run([sys.executable, "-m", "smtpuzzles", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, preexec_fn=limit, timeout=timeout)


def one_line_refusal(done: subprocess.CompletedProcess, code: int, fragment: str) -> None:
    # progress lines (off a terminal, every 10 s: a loaded machine prints some) are not the refusal
    lines = [line for line in done.stderr.splitlines()
             if line.strip() and not line.startswith("audit: ") and not re.match(r"\[\d+:\d\d:\d\d\] ", line)]
    assert done.returncode == code, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr[-2000:]
    assert len(lines) == 1 and fragment in lines[0], lines
    assert not any(e in done.stdout + done.stderr for e in ESCAPES)


@pytest.fixture(scope="module")
def certified_4x4(tmp_path_factory) -> Path:
    """`smtpuzzles solve kingtour --size 4 --box 2x2 --certify`, solved once for this file."""
    return Path(solved_once(tmp_path_factory.mktemp("certified"), "kingtour", "--size", 4, "--box", "2x2",
                            "--certify")["run_dir"])


@pytest.fixture
def kingtour_4x4(certified_4x4, tmp_path) -> Path:
    """A 4x4 King's-tour run, optimal, with its stored LRAT proof (885 variables): this test's own
    copy, at TMP_PATH/runs/NAME, of the one solved for this file."""
    return copy_of_run(certified_4x4, tmp_path)


def store_proof(run_dir: Path, chunks) -> None:
    """Write `chunks` (bytes) as the folder's proof.lrat.gz, streamed, and record its sha-256, as
    a forger would (run.json is not chained to the proof)."""
    digest, pack = hashlib.sha256(), zlib.compressobj(6, zlib.DEFLATED, 31)
    with open(run_dir / "proof.lrat.gz", "wb") as out:
        for chunk in chunks:
            digest.update(chunk)
            out.write(pack.compress(chunk))
        out.write(pack.flush())
    run = json.loads((run_dir / "run.json").read_text())
    run["proof"]["sha256"] = digest.hexdigest()
    (run_dir / "run.json").write_text(json.dumps(run))


def test_1_half_a_megabyte_of_comment_lines_is_refused_in_bounded_memory(kingtour_4x4, tmp_path):
    block = b"cc\n" * (1 << 20)  # 3 MiB; 512 MiB in all, as the attack had
    store_proof(kingtour_4x4, (block for _ in range(512 // 3)))
    assert (kingtour_4x4 / "proof.lrat.gz").stat().st_size < 1 << 20
    done = smtpuzzles("audit", kingtour_4x4, "--proof", cwd=tmp_path)
    one_line_refusal(done, 2, "more than 4,000,000 lines")


def test_1_a_proof_past_the_text_cap_is_refused_before_it_is_checked(kingtour_4x4, tmp_path):
    block = b"c" * (1 << 20)
    store_proof(kingtour_4x4, (block for _ in range(513)))
    done = smtpuzzles("audit", kingtour_4x4, "--proof", cwd=tmp_path)
    one_line_refusal(done, 2, "expands past 536,870,912 bytes")


EMPTY_LISTS = 20_000_000


@pytest.mark.parametrize("name", ["run.json", "solution.json", "steps.jsonl"])
def test_2_twenty_million_empty_lists_are_refused_unparsed(kingtour_4x4, tmp_path, name):
    lists = "[" + "[]," * (EMPTY_LISTS - 1) + "[]]"
    path = kingtour_4x4 / name
    if name == "run.json":
        run = json.loads(path.read_text())
        run["value"] = "VALUE"
        path.write_text(json.dumps(run).replace('"VALUE"', lists))
    elif name == "solution.json":
        path.write_text(json.dumps({"value": "VALUE", "solution": {}}).replace('"VALUE"', lists))
    else:  # lines of the chain, as a forger who rewrites the chain would write them: 16 MiB each at most
        line = '{"junk": [' + "[]," * (5_000_000 - 1) + "[]]}\n"
        path.write_text(line * 4)
    assert path.stat().st_size > 57 << 20 or name == "steps.jsonl"
    for command in (("audit", kingtour_4x4), ("show", kingtour_4x4)):
        done = smtpuzzles(*command, cwd=tmp_path)
        one_line_refusal(done, 2, "JSON values; refusing to")
    done = smtpuzzles("results", kingtour_4x4.parent, "--json", cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    (row,) = json.loads(done.stdout)
    assert row["status"] == "unreadable" and "JSON values" in row["audit"]


def test_2_json_nested_past_64_levels_is_refused(kingtour_4x4, tmp_path):
    (kingtour_4x4 / "solution.json").write_text('{"value": ' + "[" * 65 + "]" * 65 + ', "solution": {}}')
    done = smtpuzzles("audit", kingtour_4x4, cwd=tmp_path)
    one_line_refusal(done, 2, "JSON nested too deeply")


HOSTILE_NAME = "run\x1b]52;c;aGVsbG8=\x07\x1b[8mhidden[reverse]markup[bold red]x[link=https:example.org]y"


def test_3_a_hostile_folder_name_is_shown_escaped_everywhere(kingtour_4x4, tmp_path):
    hostile = kingtour_4x4.parent / HOSTILE_NAME
    kingtour_4x4.rename(hostile)
    outputs = []
    for command in (("audit", hostile), ("audit", hostile, kingtour_4x4.parent / "missing"), ("show", hostile),
                    ("results", hostile.parent, "--audit"), ("audit", hostile.parent / (HOSTILE_NAME + "-gone"))):
        done = smtpuzzles(*command, cwd=tmp_path)
        assert "Traceback" not in done.stderr, done.stderr
        outputs.append(done.stdout + done.stderr)
    for text in outputs:
        assert not any(e in text for e in ESCAPES), text
    joined = " ".join(" ".join(t.split()) for t in outputs)
    assert "\\x1b]52;c;aGVsbG8=\\x07" in joined  # shown, escaped, not sent
    assert "[reverse]markup" in joined  # not read as markup
    audit_one = "".join(outputs[0].split())  # rich folds a long path across lines
    assert "hidden[reverse]markup[boldred]x[link=https:example.org]y" in audit_one and "auditconsistent" in audit_one


NAME_PIECES = st.sampled_from(["\x1b", "\x07", "\x9b", "\x9d", "\x00"[:0], "[bold]", "[italic]", "[link=x]", ":smile:",
                               "\u202e", "\r", "\t", "\x7f", "]", "[", "\\", "a", "é"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.lists(NAME_PIECES | st.characters(max_codepoint=0x9f), min_size=1, max_size=12))
def test_3_any_control_character_or_markup_in_a_name_is_escaped_on_every_printed_path(cli, kingtour_4x4, pieces):
    name = "".join(pieces).replace("/", "").replace("\x00", "") or "x"
    if name in (".", ".."):
        name = "x" + name
    folder = kingtour_4x4.parent / name
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(kingtour_4x4, folder)
    try:
        for args in (("audit", folder), ("audit", folder, kingtour_4x4), ("show", folder), ("results", folder.parent, "--audit"),
                     ("audit", str(folder) + "-missing")):
            code, out, err = cli(*args)
            printed = out + err
            assert not any(ord(c) < 32 and c != "\n" or 127 <= ord(c) < 160 or c == "\u202e" for c in printed), \
                (args, printed)
            assert "Traceback" not in printed
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("digit,kind", [(4.0, "float"), (True, "bool")])
def test_4_a_digit_that_is_not_a_real_int_is_a_broken_rule_not_a_traceback(kingtour_4x4, tmp_path, digit, kind):
    saved = json.loads((kingtour_4x4 / "solution.json").read_text())
    grid = saved["solution"]["grid"]
    r, c = next((r, c) for r in range(4) for c in range(4) if grid[r][c] == int(digit))
    grid[r][c] = digit
    (kingtour_4x4 / "solution.json").write_text(json.dumps(saved))
    done = smtpuzzles("audit", kingtour_4x4, "--json", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    texts = [f["text"] for f in json.loads(done.stdout)["findings"] if f["ok"] is False]
    assert texts[0] == f"solution.json breaks the rules: r{r + 1}c{c + 1} holds {digit!r}, not a whole number (a digit 1..4)"
    assert texts[1:] == ["run.json claims 4443342132113221, which solution.json does not reach"]
    done = smtpuzzles("show", kingtour_4x4, cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr and "breaks the rules" in done.stdout


def wide_hint_proof(nvars: int, formula_first: list[int], lemmas: int, chain: int):
    """A valid proof that is expensive per byte: `chain` wide clauses W_i = P + (-q_(i-1), q_i),
    each RUP by the formula's clause 1 (a subset of P), then lemma lines equal to P whose hints
    walk the whole chain (each few-byte hint names a clause of about nvars literals)."""
    qs = list(range(nvars - chain, nvars + 1))
    pad = [v for v in range(1, nvars - chain) if v not in {abs(x) for x in formula_first}]
    wide = formula_first + pad
    first_id = 10 ** 7
    ids = []
    yield b"c wide hints\n"
    for i, q in enumerate(qs):
        lits = wide + ([-qs[i - 1]] if i else []) + ([q] if i < len(qs) - 1 else [])
        ids.append(first_id + i)
        yield f"{ids[-1]} {' '.join(map(str, lits))} 0 1 0\n".encode()
    hints = " ".join(map(str, ids))
    for j in range(lemmas):
        yield f"{first_id + len(qs) + j} {' '.join(map(str, wide))} 0 {hints} 0\n".encode()


def test_5_hints_that_name_wide_clauses_are_bounded_by_their_cost_per_byte(kingtour_4x4, tmp_path):
    cnf = gzip.decompress((kingtour_4x4 / "certificate.cnf.gz").read_bytes()).decode().splitlines()
    nvars = int(cnf[0].split()[2])
    first = [int(x) for x in cnf[1].split()[:-1]]
    store_proof(kingtour_4x4, wide_hint_proof(nvars, first, lemmas=20_000, chain=300))
    assert (kingtour_4x4 / "proof.lrat.gz").stat().st_size < 1 << 20
    done = smtpuzzles("audit", kingtour_4x4, "--proof", cwd=tmp_path, timeout=60)
    one_line_refusal(done, 2, "per byte of proof")


def test_5_the_time_limit_bounds_the_proof_check(kingtour_4x4, tmp_path):
    honest = gzip.decompress((kingtour_4x4 / "proof.lrat.gz").read_bytes())
    store_proof(kingtour_4x4, [b"c padding\n" * 50_000, honest])
    done = smtpuzzles("audit", kingtour_4x4, "--proof", "--time-limit", "0.001", "--json", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    (finding,) = [f for f in report["findings"] if f["section"] == "proof"]
    assert finding["ok"] is None and "ran out of --time-limit" in finding["text"]
    assert report["verdict"] == "undecided"
    done = smtpuzzles("audit", kingtour_4x4, "--proof", "--json", cwd=tmp_path)  # the same proof, unhurried
    assert done.returncode == 0 and json.loads(done.stdout)["verdict"] == "clean", done.stderr
