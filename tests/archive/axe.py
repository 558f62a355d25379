"""axe-core 4.x (vendored in tests/browser_support/axe.min.js, MPL-2.0, so CI needs no
network) run in the page the WebDriver shows, in light or dark colour scheme."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

AXE_JS = Path(__file__).resolve().parents[1] / "browser_support" / "axe.min.js"
#: What issue 26 forbids; "moderate" and "minor" findings are reported, not failed.
BLOCKING = ("serious", "critical")


def prefer_colour_scheme(web: Any, scheme: str) -> None:
    """prefers-color-scheme: ``light`` or ``dark`` (CDP, like Chromium's own emulation)."""
    web.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )


def axe_violations(web: Any, scheme: str = "light") -> list[dict[str, Any]]:
    """Serious and critical axe-core violations of the current page in ``scheme``, each as
    {id, impact, help, targets}. axe is evaluated through CDP (Runtime.evaluate), which a
    page's Content-Security-Policy does not govern, so pages keep their strict CSP."""
    prefer_colour_scheme(web, scheme)
    try:
        web.execute_cdp_cmd(
            "Runtime.evaluate", {"expression": AXE_JS.read_text(encoding="utf-8")}
        )
        result = web.execute_cdp_cmd(
            "Runtime.evaluate",
            {
                "expression": (
                    "axe.run(document, {resultTypes: ['violations']})"
                    ".then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: "
                    "v.impact, help: v.help, targets: v.nodes.slice(0, 8).map(n => "
                    "[n.target.join(' '), n.failureSummary || ''].join(': '))}))))"
                ),
                "awaitPromise": True,
                "returnByValue": True,
            },
        )
    finally:
        web.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    found: list[dict[str, Any]] = json.loads(result["result"]["value"])
    return [v for v in found if v.get("impact") in BLOCKING]


def assert_accessible(web: Any, where: str) -> None:
    """No serious or critical axe-core violation in light and in dark mode."""
    for scheme in ("light", "dark"):
        bad = axe_violations(web, scheme)
        assert not bad, f"{where} ({scheme}): {bad}"
