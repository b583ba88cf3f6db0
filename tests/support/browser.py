"""Debian's headless Chromium through its chromedriver, for the tests that drive a page (the
report's layout, the studio): never a browser downloaded by a Python package. Without
/usr/bin/chromium or /usr/bin/chromedriver a module marked with `needs_browser` is skipped with
one line saying what to install (.ci/run installs them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

needs_browser = pytest.mark.skipif(
    not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)),
    reason=f"needs {CHROMIUM} and {CHROMEDRIVER} (apt-get install chromium chromium-driver)",
)

# Chromium on a closed network: no background connections (they are refused and retried), no
# sandbox (we run as root in a container), a fresh profile per session (chromium_driver's)
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)


def chromium_driver(profile: Path):
    """A WebDriver session of Debian's Chromium with a fresh profile in `profile`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
