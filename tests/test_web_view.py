"""The web view (`smtpuzzles serve DIR`, `results --html FILE`) in a real browser: headless
Chromium from Debian's packages, driven through its chromedriver by Selenium. The runs table, a
chart that changes while a run goes on, and a hostile folder name shown as text, never as markup.

Chromium missing is a failure, not a skip: `.ci/run` installs it (apt-get install chromium
chromium-driver)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# A folder name a page would run as markup if it were not escaped: the page's title is its tell.
HOSTILE = "<img src=x onerror=\"document.title='pwned'\">&amp;<b>bold</b>"
SCREENSHOT = os.environ.get("SMTPUZZLES_WEB_SCREENSHOT")  # where to keep the screenshot, to look at it


def browser(tmp_path: Path):
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, "the browser test needs Debian's chromium and chromium-driver (see .ci/run)"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1280,1600",
                 f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    # The driver is named: Selenium would otherwise look for one to download.
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def finished_run(out: Path) -> Path:
    from smtpuzzles import puzzles, run as runner

    module = puzzles.get("kingtour")
    instance = module.load(None, "options", {"size": 6, "box": "2x3", "clues": None})
    _, ledger = runner.solve(module, instance, "", out_dir=out)
    return ledger.dir


def start(*args, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "smtpuzzles", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def served_at(server: subprocess.Popen) -> str:
    line = server.stdout.readline()
    assert line.startswith("serving the runs under "), line
    return line.split(" at ", 1)[1].split(" ", 1)[0]


def chart_of(driver, name_part: str) -> str | None:
    """The chart's data URI in the section of the run whose name holds `name_part`."""
    return driver.execute_script(
        "for (const s of document.querySelectorAll('section.detail')) {"
        "  if (s.querySelector('h2').textContent.includes(arguments[0])) {"
        "    const img = s.querySelector('img.chart'); return img ? img.getAttribute('src') : null; } }"
        "return null;", name_part)


def wait_for(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"waited {seconds:.0f} s for {what}")


def test_the_live_page_in_a_browser_tables_runs_charts_a_run_going_on_and_escapes_a_hostile_name(tmp_path):
    runs = tmp_path / "runs"
    done = finished_run(runs)
    shutil.copytree(done, runs / HOSTILE, ignore=shutil.ignore_patterns(".lock"))
    before = {p: p.stat().st_mtime_ns for p in runs.rglob("*") if p.is_file()}
    # 12x12: a minute of solving, still going when the page is read (10x10 now ends within seconds).
    solving = start("solve", "kingtour", "--size", 12, "--box", "3x4", "--out", runs, "--progress-every", 0,
                    cwd=tmp_path)
    server = start("serve", runs, "--port", 0, cwd=tmp_path)
    driver = None
    try:
        url = served_at(server)
        assert url.startswith("http://127.0.0.1:")  # loopback unless told otherwise
        driver = browser(tmp_path)
        driver.get(url)
        rows = lambda: driver.find_elements("css selector", "#runs-table tr.run")  # noqa: E731
        wait_for(lambda: len(rows()) == 3, 60, "three runs in the table")
        names = [row.find_element("css selector", "td.name").text for row in rows()]
        assert HOSTILE in names, names  # shown as the text it is
        assert driver.title != "pwned" and "pwned" not in driver.title
        assert driver.execute_script("return document.querySelectorAll('img[src=\"x\"], b').length") == 0
        # The finished run: optimal, audited in the background, drawn, charted.
        wait_for(lambda: "consistent" in driver.find_element("css selector", "#runs").text, 90, "the audit's verdict")
        assert chart_of(driver, done.name).startswith("data:image/svg+xml;base64,")
        # The run going on: its chart changes as it proves positions, without reloading the page.
        going = "kingtour-2b3b523e65"
        first = wait_for(lambda: chart_of(driver, going), 120, "the running run's chart")
        wait_for(lambda: chart_of(driver, going) not in (None, first), 120, "the chart to change")
        text = driver.find_element("css selector", "#runs").text
        assert "running" in text and "open question" in text
        shot = Path(SCREENSHOT) if SCREENSHOT else tmp_path / "serve.png"
        driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
    finally:
        if driver is not None:
            driver.quit()
        for process in (server, solving):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    # The server wrote nothing into the folder it showed.
    assert all(p.stat().st_mtime_ns == t for p, t in before.items())


def test_the_saved_report_is_one_page_with_no_script_and_nothing_fetched(tmp_path):
    runs = tmp_path / "runs"
    done = finished_run(runs)
    shutil.copytree(done, runs / HOSTILE, ignore=shutil.ignore_patterns(".lock"))
    report = tmp_path / "report.html"
    finished = subprocess.run([sys.executable, "-m", "smtpuzzles", "results", runs, "--html", report],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    page = report.read_text()
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://', "")
    assert HOSTILE not in page and "&lt;img src=x onerror=" in page
    assert page.count('class="chart"') == 2 and page.count('class="drawing"') == 2
    # Opened in the browser from the file: the same table, the name as text.
    driver = browser(tmp_path)
    try:
        driver.get(report.as_uri())
        names = [e.text for e in driver.find_elements("css selector", "#runs-table td.name")]
        assert HOSTILE in names and driver.title != "pwned"
    finally:
        driver.quit()


def test_serve_refuses_a_missing_folder_and_a_taken_port_in_one_line(tmp_path):
    missing = subprocess.run([sys.executable, "-m", "smtpuzzles", "serve", tmp_path / "nowhere"], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no such folder" in missing.stderr
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = subprocess.run([sys.executable, "-m", "smtpuzzles", "serve", tmp_path, "--port", str(port)],
                              capture_output=True, text=True, timeout=60)
    assert busy.returncode == 2 and "cannot listen there" in busy.stderr and busy.stderr.count("\n") == 1


@pytest.mark.parametrize("steps", [0, 3])
def test_the_chart_follows_the_ledger(steps):
    """The chart's points are the progress `show` counts, at steps through the ledger."""
    from smtpuzzles.live import summarise
    from smtpuzzles.web import series

    ledger = ROOT / "results" / "kingtour-033a4d9697-20261201-094928" / "steps.jsonl.gz"
    import gzip

    all_steps = [json.loads(line) for line in gzip.open(ledger, "rt")]
    label, points = series(all_steps[:steps] if steps else all_steps, "lex")
    if steps == 0:
        assert label == "positions proved" and points[-1][1] == 81 and len(points) <= 61
        assert [y for _, y in points] == sorted(y for _, y in points)
    else:
        assert points[-1] == (round(summarise(all_steps[:3], "lex").solver_seconds, 3),
                              summarise(all_steps[:3], "lex").proved)
