"""Headless Chromium for the archive tests (Debian's chromium + chromium-driver, driven by
Selenium). Without them the tests skip loudly; with DUELBOT_REQUIRE_BROWSER=1 (CI) they fail."""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: Without the background-networking flags Chromium phones home at start, which a closed
#: network refuses; --disable-quic likewise.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
PHONE = (390, 844)
DESKTOP = (1280, 900)


def browser_required() -> bool:
    return os.environ.get("DUELBOT_REQUIRE_BROWSER") == "1"


def find_chromium() -> tuple[str, str] | str:
    """(browser, driver) paths, or why they cannot be used."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    browser = next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser")) if p is not None), None
    )
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        return (
            "chromium and/or chromedriver not found "
            "(Debian: apt-get install chromium chromium-driver)"
        )
    return browser, driver


def artifacts_dir() -> Path:
    path = Path(os.environ.get("DUELBOT_ARTIFACTS") or ROOT / "tests" / "artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def chromium(browser: str, driver: str, *extra_flags: str) -> Iterator[Any]:
    """A Chrome WebDriver on a fresh profile, with its performance (DevTools) log on."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*CHROMIUM_FLAGS, *extra_flags):
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="duelbot-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    web = webdriver.Chrome(service=Service(driver), options=options)
    try:
        web.set_window_size(*DESKTOP)
        yield web
    finally:
        web.quit()
        shutil.rmtree(profile, ignore_errors=True)


def requested_urls(web: Any) -> list[str]:
    """Every URL the browser asked for since the last call (DevTools Network events)."""
    urls = []
    for entry in web.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def open_page(web: Any, url: str) -> None:
    web.get("about:blank")
    web.get_log("performance")  # drain what came before
    web.get(url)


def verify(web: Any, timeout: float = 60) -> dict[str, str | None]:
    """Click Verify and wait for #verify-summary[data-state=done]; its attributes."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    web.find_element(By.ID, "verify-button").click()
    summary = web.find_element(By.ID, "verify-summary")
    WebDriverWait(web, timeout).until(
        lambda _: summary.get_attribute("data-state") in ("done", "error")
    )
    return {
        name: summary.get_attribute(name)
        for name in (
            "data-state",
            "data-total",
            "data-ok",
            "data-rounds",
            "data-rounds-ok",
            "data-result",
            "data-engine",
            "data-dice",
            "data-log",
            "data-outcome",
        )
    } | {"text": summary.text}


def marks(web: Any) -> dict[str, Any]:
    """data-verify of every roll (by "round:k") and every round (by number), from the DOM."""
    return dict(
        web.execute_script(
            """
            const rolls = {}, rounds = {};
            document.querySelectorAll('.roll').forEach(n => {
              rolls[n.dataset.round + ':' + n.dataset.roll] = n.getAttribute('data-verify');
            });
            document.querySelectorAll('.round').forEach(n => {
              rounds[n.dataset.round] = n.getAttribute('data-verify');
            });
            return {rolls, rounds};
            """
        )
    )


def resource_entries(web: Any) -> list[str]:
    return list(
        web.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
        )
    )


def screenshot(web: Any, path: Path, size: tuple[int, int], *, dark: bool = False) -> Path:
    """A full-page PNG at ``size`` CSS pixels wide (a phone when narrow)."""
    width, height = size
    web.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    web.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
    )
    try:
        full = int(web.execute_script("return document.documentElement.scrollHeight"))
        shot = web.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": min(full, 12000), "scale": 1},
            },
        )
        path.write_bytes(base64.b64decode(shot["data"]))
    finally:
        web.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        web.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    return path


def viewport_screenshot(web: Any, path: Path, size: tuple[int, int]) -> Path:
    """What a visitor sees first, at ``size``."""
    width, height = size
    web.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    try:
        web.execute_script("window.scrollTo(0, 0)")
        shot = web.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(shot["data"]))
    finally:
        web.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return path
