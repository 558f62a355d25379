"""Files the bot attaches (`/duel export`) are served by the sandbox (issue 26): HTML inline
and sandboxed (no origin: it cannot call the API), other files as downloads, each only to a
member who can see its message (an ephemeral export: its commander only), through the guard;
a missing required option is refused in plain words."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from tests.sandbox.support import running_sandbox


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_exported_files_are_served_to_who_may_see_them(tmp_path: Path) -> None:
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()
        cmdr, ann, bob = who["morgan"], who["ann"], who["bob"]
        duels = sb.world()["duel_channel_id"]
        sb.slash(cmdr, "stats set", duels, member=ann, str=5, agi=3)
        sb.slash(cmdr, "stats set", duels, member=bob, str=4, agi=2)
        sb.slash(cmdr, "duel start", duels, a=ann, b=bob)

        status, refused = sb.call("POST", f"/api/people/{cmdr}/slash", {
            "channel_id": duels, "command": "round", "subcommand": "open", "options": {},
        })
        assert status == 400 and "needs these required options: duel" in refused["error"]
        assert "[" not in refused["error"], refused

        files = {}
        for fmt in ("html", "json"):
            reply = sb.slash(cmdr, "duel export", duels, duel=1, format=fmt)["reply"]
            message = next(
                m for m in sb.ok("GET", f"/api/channels/{duels}/messages?as={cmdr}")["messages"]
                if m["id"] == reply["message_id"]
            )
            files[fmt] = message["attachments"][0]
        html = files["html"]
        url = f"{sb.url}/api/attachments/{html['id']}/{html['filename']}"

        status, headers, body = fetch(f"{url}?as={cmdr}")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        assert headers["Content-Disposition"].startswith("inline")
        assert "sandbox" in headers["Content-Security-Policy"]
        assert b"<html" in body.lower()

        data = files["json"]
        status, headers, body = fetch(
            f"{sb.url}/api/attachments/{data['id']}/{data['filename']}?as={cmdr}"
        )
        assert status == 200 and headers["Content-Type"].startswith("application/json")
        assert headers["Content-Disposition"].startswith("attachment")

        # The export was ephemeral: another member does not get the file; nor another site.
        assert fetch(f"{url}?as={ann}")[0] == 403
        assert fetch(f"{url}?as={cmdr}", {"Origin": "http://evil.test"})[0] == 403
        assert fetch(f"{sb.url}/api/attachments/999/x.html?as={cmdr}")[0] == 404
