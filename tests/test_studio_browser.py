"""`simcell studio` in a real browser (issue 41, "Done means"): the page loads the config's card
table, an edit of one card's ATP shows the paired difference and its interval narrowing as the
games finish, a bad value shows the config layer's message beside its cell and plays nothing,
and the exported set, run with `simcell run`, gives the page's figures for the same seeds.

Debian's headless Chromium (tests/support/browser.py); skipped without it. The server runs in
this process on a free port, its session in one warm worker."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.support.browser import chromium_driver, needs_browser

pytestmark = needs_browser

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from simcell.cli import app  # noqa: E402
from simcell.reports.data import RunData  # noqa: E402
from simcell.studio.server import serve  # noqa: E402
from tests.support.studio import started_session  # noqa: E402

INSULIN = 'cards."Insulin".atp'


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("studio-browser")
    session = started_session(folder, games=6000, block=200, seed=11)
    port, ready = _free_port(), threading.Event()
    url = f"http://127.0.0.1:{port}/"
    threading.Thread(target=serve, args=(session,), kwargs={"port": port, "ready": lambda _: ready.set()},
                     daemon=True).start()
    assert ready.wait(30), "the server did not start"
    driver = chromium_driver(tmp_path_factory.mktemp("chromium-profile"))
    driver.set_window_size(1280, 1000)
    driver.get(url)
    yield driver, session, folder
    driver.quit()
    session.close()


def _cell(driver, key: str):
    return WebDriverWait(driver, 30).until(lambda d: d.find_element(By.CSS_SELECTOR, f"td[data-key='{key}']"))


def _type(driver, key: str, text: str) -> None:
    box = _cell(driver, key).find_element(By.TAG_NAME, "input")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    box.send_keys(text, Keys.TAB)


def _seat_shares(driver) -> list[str]:
    """The headline table's edited win share per seat, as the page shows it (read in one script:
    the page redraws its tables as results arrive)."""
    return driver.execute_script("""
        return [...document.querySelectorAll('#headline tr')].slice(1)
          .map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent))
          .filter((c) => c[0].endsWith('win share')).map((c) => c[3]);""")


def test_the_page_shows_an_edit_narrowing_a_bad_value_and_an_export_that_runs(page, tmp_path):
    driver, session, folder = page
    assert _cell(driver, INSULIN).find_element(By.TAG_NAME, "input").get_attribute("value") == "1"

    # an edit: the paired difference appears, then narrows as blocks arrive
    _type(driver, INSULIN, "4")
    WebDriverWait(driver, 120).until(lambda d: d.find_element(By.ID, "status").get_attribute("data-done") == "1")
    assert "changed" in _cell(driver, INSULIN).get_attribute("class")
    widths = json.loads(driver.find_element(By.ID, "results").get_attribute("data-halfwidths"))
    assert len(widths) >= 2, widths
    assert widths[0][0] < widths[-1][0] == 6000 and widths[-1][1] < widths[0][1], widths
    edited = driver.find_element(By.ID, "edited").text
    assert "Insulin" in edited and "(" in edited  # the difference with its interval
    assert driver.find_element(By.ID, "chart-seats").find_elements(By.TAG_NAME, "circle")
    shares = _seat_shares(driver)
    assert len(shares) == 3

    # a bad value: the config layer's message beside the cell; nothing plays
    generation = session.generation
    _type(driver, INSULIN, "-1")
    WebDriverWait(driver, 30).until(lambda d: "must be at least 0" in _cell(d, INSULIN).text)
    assert "bad" in _cell(driver, INSULIN).get_attribute("class")
    time.sleep(0.5)
    assert session.generation == generation

    # corrected, exported and run: the page's figures for the same seeds
    _type(driver, INSULIN, "4")
    WebDriverWait(driver, 30).until(lambda d: "must be" not in _cell(d, INSULIN).text)
    driver.find_element(By.ID, "export").click()
    link = WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "export-link"))
    config = Path(link.get_attribute("data-config"))
    assert config.is_relative_to((folder / "out").resolve()) and config.is_file()
    result = CliRunner().invoke(app, ["run", "--no-rungs", str(config), "--out", str(tmp_path / "run"), "--quiet", "--workers", "1"])
    assert result.exit_code == 0, result.output
    run = RunData(tmp_path / "run")
    assert run.meta["games"] == 6000 and run.seed == 11
    share = pd.concat(run.record_parts("players", run.segments[0], ["win_share"])).groupby("seat")["win_share"].mean()
    assert [f"{100 * x:.2f}" for x in share] == shares

    # a whole type stepped in its row: every card of it edited, each type's gap in both sets drawn
    _type(driver, INSULIN, "1")
    _type(driver, "types.detox.atp", "+1")
    WebDriverWait(driver, 120).until(lambda d: d.find_element(By.ID, "status").get_attribute("data-done") == "1"
                                     and "types.detox.atp = +1" in d.find_element(By.ID, "status").text)
    WebDriverWait(driver, 30).until(lambda d: "Sulfation" in d.find_element(By.ID, "edited").get_attribute("textContent"))
    types = driver.find_element(By.ID, "types").get_attribute("textContent")
    assert "Detoxification (edited)" in types and "Enzyme" in types
    assert len(driver.find_element(By.ID, "chart-types").find_elements(By.TAG_NAME, "circle")) >= 2 * 6
