"""A headless Chromium for the browser tests: Debian's ``chromium`` and ``chromium-driver``.

``make_driver(tmp)`` starts one (a fresh profile under ``tmp``, no network besides the pages it
is sent to: no sync, updates, QUIC or background requests), optionally with Chrome's
performance log, whose Network events give every response the page received
(``response_bodies``).  The ``browser`` fixture gives a driver and quits it; where Chromium is
not installed it skips the test, unless ``CI`` is set: CI installs it (``.ci/run``), so there a
missing browser fails.  Other test modules use the fixture with
``from tests.browser import browser  # noqa: F401``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WINDOW = (1280, 900)
ARGUMENTS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", f"--window-size={WINDOW[0]},{WINDOW[1]}")


def chromium_missing() -> str:
    """Why the browser tests cannot run here ("" when Chromium and its driver are installed)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    return f"{' and '.join(missing)} not installed (Debian: apt-get install chromium " \
           "chromium-driver)" if missing else ""


def chrome_options(profile: Path, performance_log: bool = False) -> Any:
    """Chrome options: headless, sandbox and GPU off, no background traffic, a fresh profile in
    ``profile``; with ``performance_log`` the DevTools performance log (Network events)."""
    from selenium.webdriver.chrome.options import Options

    options = Options()
    options.binary_location = CHROMIUM
    for argument in ARGUMENTS:
        options.add_argument(argument)
    options.add_argument(f"--user-data-dir={profile}")
    if performance_log:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return options


def make_driver(tmp: Path | str | None = None, performance_log: bool = False) -> Any:
    """A headless Chromium driven by ``/usr/bin/chromedriver`` with a fresh profile under
    ``tmp`` (a new temporary dir when None)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=tmp))
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER),
                              options=chrome_options(profile, performance_log))
    driver.set_page_load_timeout(30)
    if performance_log:
        driver.execute_cdp_cmd("Network.enable", {})
    return driver


def response_bodies(driver: Any, prefix: str = "") -> list[tuple[str, str]]:
    """(url, body) of every response the page received since the last call whose URL starts
    with ``prefix``, from the performance log (``Network.getResponseBody`` for each)."""
    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] != "Network.responseReceived":
            continue
        url = message["params"]["response"]["url"]
        if not url.startswith(prefix):
            continue
        try:
            body = driver.execute_cdp_cmd("Network.getResponseBody",
                                          {"requestId": message["params"]["requestId"]})
        except Exception:    # a redirect or an empty response has no body to fetch
            continue
        out.append((url, body["body"]))
    return out


def require_chromium() -> None:
    """Skip the test where Chromium is missing; fail instead when ``CI`` is set."""
    why = chromium_missing()
    if why and os.environ.get("CI"):
        pytest.fail(f"CI needs the browser: {why}")
    if why:
        pytest.skip(why)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium with the performance log (module docstring), quit after the test."""
    require_chromium()
    driver = make_driver(tmp_path, performance_log=True)
    try:
        yield driver
    finally:
        driver.quit()
