"""Studio benchmark: how soon an edit's paired figures reach the page (the issue's targets, at
5 players with a warm kernel: the first paired result on screen within 2 s, 20,000 paired games
within 3 s, on this 2-core VM).

    python benchmarks/studio.py [--config configs/5p.toml] [--games 20000] [--edits 6]
                                [--browser] [--screenshot docs/figures/studio.png]

Starts a studio (its kernel loaded and the baseline played first, timed apart), serves it on a
free port, then times edits one after another through the HTTP API, polling every 20 ms as the
page does every 150 ms: from the POST of the edit to the first answer with paired figures, and to
the last block. With --browser, Debian's Chromium drives the page as a designer does (a value
typed into a cell) and the same two times are read off the screen; --screenshot saves the page
after the last edit."""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from simcell.studio.server import serve
from simcell.studio.session import Session

EDITS = [('cards."Insulin".atp', "3"), ('cards."Amylase".hp', "3"), ('cards."Glucagon".atp', "3"),
         ('cards."Insulin Receptor".hp', "4"), ('cards."Trypsin".atp', "3"), ('cards."Leptin".hp', "2")]


def _get(url: str) -> dict:
    with urllib.request.urlopen(url) as r:
        return json.loads(r.read())


def _post(url: str, payload: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(payload).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


def api_times(url: str, edits) -> list[tuple[str, float, float]]:
    out = []
    for key, value in edits:
        t = time.perf_counter()
        g = _post(url + "api/edit", {"values": {key: value}, "changed": key})["generation"]
        first, end = None, t + 60
        while True:
            if time.perf_counter() > end:
                raise SystemExit(f"no result of {key} = {value} within 60 s")
            r = _get(url + "api/results")
            if r["generation"] == g and r["figures"] and first is None:
                first = time.perf_counter() - t
            if r["generation"] == g and r["done"]:
                out.append((f"{key} = {value}", first, time.perf_counter() - t))
                break
            time.sleep(0.02)
    return out


def browser_times(url: str, edits, screenshot: Path | None) -> list[tuple[str, float, float]]:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from tests.support.browser import chromium_driver

    driver = chromium_driver(Path(tempfile.mkdtemp(prefix="simcell-chromium-")))
    driver.set_window_size(1280, 1400)
    out = []
    try:
        driver.get(url)
        while not driver.find_elements(By.CSS_SELECTOR, "td[data-key] input"):
            time.sleep(0.05)
        for key, value in edits:
            box = driver.find_element(By.CSS_SELECTOR, f"td[data-key='{key}'] input")
            box.send_keys(Keys.CONTROL, "a", Keys.BACKSPACE)
            box.send_keys(value)
            before = int(driver.find_element(By.ID, "status").get_attribute("data-generation") or 0)
            t = time.perf_counter()
            box.send_keys(Keys.TAB)
            first, end = None, t + 60
            while True:  # a newer generation on screen, its first pair of blocks, then its last
                if time.perf_counter() > end:
                    raise SystemExit(f"the page showed no result of {key} = {value} within 60 s")
                generation, widths, done = driver.execute_script(
                    "const r = document.getElementById('results'), s = document.getElementById('status');"
                    "return [Number(s.dataset.generation || 0), r.dataset.generation === s.dataset.generation ?"
                    " JSON.parse(r.dataset.halfwidths || '[]').length : 0, s.dataset.done || ''];")
                if generation > before and first is None and widths > 0:
                    first = time.perf_counter() - t
                if generation > before and done == "1" and first is not None:
                    out.append((f"{key} = {value}", first, time.perf_counter() - t))
                    break
                time.sleep(0.01)
            box.send_keys(Keys.CONTROL, "a", Keys.BACKSPACE)
            box.send_keys(box.get_attribute("defaultValue") or "", Keys.TAB)  # back to the baseline
        if screenshot is not None:
            edit = [e for e in edits[:1]]
            key, value = edit[0]
            box = driver.find_element(By.CSS_SELECTOR, f"td[data-key='{key}'] input")
            box.send_keys(Keys.CONTROL, "a", Keys.BACKSPACE)
            box.send_keys(value, Keys.TAB)
            while driver.find_element(By.ID, "status").get_attribute("data-done") != "1" or key.split('"')[1] not in driver.find_element(By.ID, "status").text:
                time.sleep(0.05)
            driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0);")
            time.sleep(0.5)
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(screenshot))
    finally:
        driver.quit()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=Path("configs/5p.toml"))
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--edits", type=int, default=6)
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--screenshot", type=Path)
    args = parser.parse_args()
    edits = (EDITS * 4)[: args.edits]
    t = time.perf_counter()
    session = Session(args.config, Path(tempfile.mkdtemp(prefix="simcell-studio-")), games=args.games)
    session.start()
    loaded = time.perf_counter() - t
    session.wait_baseline()
    baseline = time.perf_counter() - t - loaded
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ready = threading.Event()
    threading.Thread(target=serve, args=(session,), kwargs={"port": port, "ready": lambda _: ready.set()},
                     daemon=True).start()
    ready.wait(30)
    url = f"http://127.0.0.1:{port}/"
    print(f"studio benchmark: {args.config}, {session.players} players, field {session.field.name}, "
          f"{session.games:,} games in blocks of {session.block:,}, {session.workers} warm workers")
    print(f"  start: kernel loaded in {loaded:.1f} s; workers started and the baseline played in {baseline:.1f} s")
    runs = [("API (HTTP, polled every 20 ms)", api_times(url, edits))]
    if args.browser or args.screenshot:
        runs.append(("page (Chromium: typed into a cell, read off the screen)", browser_times(url, edits, args.screenshot)))
    for name, times in runs:
        print(f"  {name}:")
        for label, first, done in times:
            print(f"    {label:<32} first paired result {first:5.2f} s, all {session.games:,} paired games {done:5.2f} s")
        firsts, dones = [x[1] for x in times], [x[2] for x in times]
        print(f"    median: first {statistics.median(firsts):.2f} s (max {max(firsts):.2f}), "
              f"all {statistics.median(dones):.2f} s (max {max(dones):.2f})")
    session.close()


if __name__ == "__main__":
    main()
