"""The wheel as a user gets it: built from what the repository tracks, installed (not editable) into a
fresh virtual environment, and run from a folder that is not the checkout.

Installing the dependencies from the registry would take minutes, so the new environment gets no
copy of them: a .pth file in its site-packages lists this environment's site-packages instead. A .pth
line only adds a folder to sys.path (the .pth files inside that folder are not run), so the
editable install of the checkout is not picked up: the test checks that smtpuzzles is imported from
the new environment, and clears PYTHONPATH for every command it runs there.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGED = ROOT / "smtpuzzles" / "examples"
SETUPTOOLS_NEEDED = (77,)  # pyproject.toml's build-system: `license = "MIT"` needs it


def tracked_copy(where: Path) -> Path:
    """The files git tracks, copied: the wheel is built from what a clone holds, never from a build/
    folder or an egg-info left in the checkout."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, names):
        source = ROOT / name.decode()
        if source.is_file():  # a file deleted but not yet committed is not copied
            target = where / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return where


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    have = tuple(int(part) for part in metadata.version("setuptools").split(".")[:1])
    assert have >= SETUPTOOLS_NEEDED, "the test extra installs setuptools>=77 (pip install -e '.[test]')"
    source = tracked_copy(tmp_path_factory.mktemp("source"))
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation", "--no-index",
                    "-q", "-w", str(dist)], check=True, capture_output=True, timeout=300)
    (built,) = dist.glob("smtpuzzles-*.whl")
    return built


@pytest.fixture(scope="session")
def environment(wheel, tmp_path_factory) -> dict:
    """A fresh venv with the wheel installed; the dependencies reach it through a .pth file."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    new_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    outer = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()}
    (new_site / "outer-dependencies.pth").write_text("".join(f"{p}\n" for p in sorted(outer) if Path(p).is_dir()))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", COLUMNS="100")
    return {"venv": venv, "python": python, "env": env}


def run_in(environment: dict, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=environment["env"], capture_output=True, text=True,
                          timeout=600)


def test_the_wheel_carries_the_examples_the_licence_and_what_an_index_shows(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (info,) = {name.split("/", 1)[0] for name in names if name.endswith(".dist-info/METADATA")}
        meta = Parser().parsestr(archive.read(f"{info}/METADATA").decode("utf-8"))
        licence = archive.read(f"{info}/licenses/LICENSE").decode("utf-8")
    bundled = {f"smtpuzzles/examples/{p.relative_to(PACKAGED)}" for p in PACKAGED.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert len(bundled) > 25 and bundled <= names, sorted(bundled - names)[:5]
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    assert licence.startswith("MIT License") and "the smtpuzzles authors" in licence
    classifiers = meta.get_all("Classifier")
    for needed in ("Operating System :: POSIX :: Linux", "Operating System :: MacOS", "Topic :: Scientific/Engineering",
                   "Programming Language :: Python :: 3.10"):
        assert needed in classifiers, needed
    assert not any(c.startswith("Operating System :: Microsoft") for c in classifiers)  # fcntl: not Windows
    urls = dict(entry.split(", ", 1) for entry in meta.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(urls) and urls["Documentation"].endswith("README.md")
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == (ROOT / "README.md").read_text(encoding="utf-8").strip()  # the long description
    assert meta["Requires-Python"] == ">=3.10"


def test_the_installed_wheel_runs_its_examples_from_another_folder(environment, tmp_path):
    where = run_in(environment, tmp_path, environment["python"], "-c", "import smtpuzzles; print(smtpuzzles.__file__)")
    assert Path(where.stdout.strip()).is_relative_to(environment["venv"]), where  # the wheel's copy, not the checkout
    done = run_in(environment, tmp_path, "smtpuzzles", "--help")
    assert done.returncode == 0 and "examples" in done.stdout, done.stderr

    done = run_in(environment, tmp_path, "smtpuzzles", "examples")
    assert done.returncode == 0, done.stderr
    written = tmp_path / "smtpuzzles-examples"
    for source in PACKAGED.rglob("*"):
        if source.is_file() and "__pycache__" not in source.parts:
            assert (written / source.relative_to(PACKAGED)).read_bytes() == source.read_bytes(), source

    done = run_in(environment, tmp_path, "smtpuzzles", "export", "--out", "enc")
    assert done.returncode == 0, done.stderr
    exported = sorted(p.relative_to(tmp_path / "enc") for p in (tmp_path / "enc").rglob("*.smt2"))
    kept = sorted(p.relative_to(ROOT / "encodings") for p in (ROOT / "encodings").rglob("*.smt2"))
    assert exported == kept  # every puzzle's examples found in the installed package, as in a checkout

    expected = json.loads((PACKAGED / "nonary" / "expected.json").read_text())["01.json"]
    done = run_in(environment, tmp_path, "smtpuzzles", "solve", "nonary", "smtpuzzles-examples/nonary/01.json", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["value"] == expected, done.stderr
    done = run_in(environment, tmp_path, "smtpuzzles", "solve", "tatamibari", "smtpuzzles-examples/tatamibari/05.txt",
                  "--unique", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["unique"] is True, done.stderr

    done = run_in(environment, tmp_path, "smtpuzzles", "batch", "smtpuzzles-examples/examples.toml")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = json.loads((tmp_path / "runs" / "examples" / "summary.json").read_text())
    assert len(summary) == 27 and all(row["status"] in ("optimal", "solved") for row in summary), summary
    done = run_in(environment, tmp_path, "smtpuzzles", "results", "runs/examples", "--json")
    assert done.returncode == 0 and len(json.loads(done.stdout)) == len(summary), done.stderr
