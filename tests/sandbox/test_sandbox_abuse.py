"""Issue 23: `duelbot sandbox` as a process, attacked through its JSON API. Another web
page (a foreign Origin, a text/plain body, a DNS-rebinding Host) cannot drive or read it;
text Discord could not carry and numbers no id can be are a 400 with {"error"} and never
stop the bot."""

from __future__ import annotations

import http.client
import json
import signal
from pathlib import Path
from typing import Any

from tests.sandbox.support import Sandbox, running_sandbox, wait_until


def raw_call(
    sb: Sandbox, method: str, path: str, body: bytes | None = None, **headers: str
) -> tuple[int, Any]:
    """One request with exactly these headers (Host included), as any client may send."""
    port = int(sb.url.rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        headers.setdefault("Host", f"127.0.0.1:{port}")
        for name, value in headers.items():
            connection.putheader(name.replace("_", "-"), value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data or b"null")
        except ValueError:
            return response.status, data.decode(errors="replace")
    finally:
        connection.close()


def dm_texts(sb: Sandbox, user: str) -> list[str]:
    messages = sb.ok("GET", f"/api/people/{user}/dms")["messages"]
    return [str(m["content"]) for m in messages]


def test_another_origin_or_host_cannot_drive_or_read_the_sandbox(tmp_path: Path) -> None:
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()
        port = sb.url.rsplit(":", 1)[1]
        dm = f"/api/people/{who['ann']}/dm"
        hostile = json.dumps({"content": "hostile evade"}).encode()
        cases: list[tuple[str, str, bytes | None, dict[str, str], int, str]] = [
            # A page on another site posts a CORS-simple request: no preflight.
            ("POST", dm, hostile, {"Origin": "http://evil.example",
                                   "Content_Type": "text/plain;charset=UTF-8"}, 403, "Origin"),
            ("POST", dm, hostile, {"Origin": "http://evil.example",
                                   "Content_Type": "application/json"}, 403, "Origin"),
            # Another port of the same machine is another origin too.
            ("POST", dm, hostile, {"Origin": "http://127.0.0.1:1",
                                   "Content_Type": "application/json"}, 403, "Origin"),
            ("POST", dm, hostile, {"Origin": "null", "Content_Type": "application/json"},
             403, "Origin"),
            # No Origin (a script) but not JSON: refused as well.
            ("POST", dm, hostile, {"Content_Type": "text/plain"}, 415, "application/json"),
            ("POST", dm, hostile, {"Content_Type": "application/x-www-form-urlencoded"},
             415, "application/json"),
            ("POST", dm, hostile, {}, 415, "application/json"),
            # DNS rebinding: evil.example now resolves to 127.0.0.1.
            ("GET", "/api/world", None, {"Host": "rebind.evil.example"}, 403, "Host"),
            ("GET", "/api/world", None, {"Host": f"rebind.evil.example:{port}"}, 403, "Host"),
            ("GET", "/", None, {"Host": "rebind.evil.example"}, 403, "Host"),
            ("POST", dm, hostile, {"Host": "rebind.evil.example",
                                   "Content_Type": "application/json"}, 403, "Host"),
            # A no-cors read from another site (an <img> or <script> tag).
            ("GET", "/api/world", None, {"Sec_Fetch_Site": "cross-site"}, 403, "another site"),
            ("GET", "/api/world", None, {"Sec_Fetch_Site": "same-site"}, 403, "another site"),
        ]
        for method, path, body, headers, status, words in cases:
            got, data = raw_call(sb, method, path, body, **headers)
            assert got == status and words in data["error"], (headers, got, data)
            assert "people" not in data and "guild" not in data
        assert not any("hostile" in text for text in dm_texts(sb, who["ann"]))

        # Its own page and local scripts keep working, by either of its names.
        own = json.dumps({"content": "hello from my own page"}).encode()
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            got, data = raw_call(sb, "GET", "/api/world", Host=host,
                                 Sec_Fetch_Site="same-origin")
            assert got == 200 and data["people"], data
            got, data = raw_call(sb, "POST", dm, own, Host=host, Origin=f"http://{host}",
                                 Content_Type="application/json", Sec_Fetch_Site="same-origin")
            assert got == 200 and data["message_id"], data
        assert dm_texts(sb, who["ann"]).count("hello from my own page") == 2
        got, page = raw_call(sb, "GET", "/", Sec_Fetch_Site="none")
        assert got == 200 and "<html" in str(page).lower()
        status, _ = sb.stop(signal.SIGINT, timeout=20)
        assert status == 0, sb.stderr_text()


def stats_body(channel_id: str, member: str, strength: str) -> str:
    """A raw /stats set body, each value as written (JSON text, quoted or not)."""
    return (f'{{"channel_id": {channel_id}, "command": "stats", "subcommand": "set", '
            f'"options": {{"member": {member}, "str": {strength}, "agi": 3}}}}')


def wrong_answers(sb: Sandbox, cases: list[tuple[str, str, str]]) -> list[Any]:
    """(path, raw JSON body, words the error must hold): every case that was not 400 with
    those words (all of them are tried, so a failure lists every wrong answer)."""
    wrong = []
    for path, body, words in cases:
        got, data = raw_call(sb, "POST", path, body.encode(), Content_Type="application/json")
        if not (got == 400 and isinstance(data, dict) and words in str(data.get("error"))):
            wrong.append((path, body[:80], got, str(data)[:160]))
    return wrong


def assert_the_bot_still_answers(sb: Sandbox) -> None:
    """The bot is still connected: it answers a DM (an emoji is a valid surrogate pair) and a
    command, and stops cleanly."""
    who = sb.people()
    ann, cmdr = who["ann"], who["morgan"]
    assert sb.proc.poll() is None, sb.stderr_text()
    sb.ok("POST", f"/api/people/{ann}/dm", {"content": "evade \U0001f600"})
    wait_until(lambda: any(m["author"].get("bot") for m in
                           sb.ok("GET", f"/api/people/{ann}/dms")["messages"]),
               15, "the bot's answer to Ann")
    duels = sb.world()["duel_channel_id"]
    reply = sb.slash(cmdr, "stats set", duels, member=ann, str=5, agi=3)["reply"]
    assert "STR 5" in reply["content"]
    status, _ = sb.stop(signal.SIGINT, timeout=20)
    err = sb.stderr_text()
    assert status == 0 and "Traceback" not in err, err


def test_text_discord_cannot_carry_is_400_and_never_stops_the_bot(tmp_path: Path) -> None:
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()
        ann, cmdr = who["ann"], who["morgan"]
        duels = sb.world()["duel_channel_id"]
        cases = [
            (f"/api/people/{ann}/dm", '{"content": "\\ud800"}', "lone surrogate U+D800"),
            (f"/api/people/{ann}/dm", '{"content": "evade \\udfff"}', "lone surrogate"),
            (f"/api/people/{ann}/dm", '{"content": "eva\\u0000de"}', "control character"),
            (f"/api/people/{ann}/dm", '{"content": "\\u001b[31mevade"}', "control character"),
            (f"/api/people/{ann}/dm", '{"content": "evade", "\\ud800": 1}', "lone surrogate"),
            (f"/api/people/{ann}/dm", json.dumps({"content": "x" * 4001}), "at most 2000"),
            (f"/api/people/{ann}/click",
             '{"message_id": "1", "custom_id": "duelbot:move:1:1:\\ud800"}', "lone surrogate"),
            (f"/api/people/{ann}/click", '{"message_id": "1", "custom_id": "x", '
             '"values": ["\\udc00"]}', "lone surrogate"),
            (f"/api/people/{cmdr}/slash", stats_body(f'"{duels}"', f'"{ann}"', '"\\ud800"'),
             "lone surrogate"),
            (f"/api/people/{cmdr}/autocomplete", f'{{"channel_id": "{duels}", "command": '
             '"round", "subcommand": "open", "options": {"duel": "\\ud800"}, '
             '"focused": "duel"}', "lone surrogate"),
            *[(f"/api/people/{ann}/dm", '{"content": "x", "a": ' + "[" * depth + "]" * depth
               + "}", "nested too deeply") for depth in (990, 100_000)],
        ]
        assert wrong_answers(sb, cases) == []
        got, data = raw_call(sb, "POST", f"/api/people/{ann}/dm", b'{"content": "\xed\xa0\x80"}',
                             Content_Type="application/json")
        assert got == 400 and "UTF-8" in data["error"], data
        # None of it reached the bot, which still answers.
        assert not any("\ud800" in t or "\x00" in t for t in dm_texts(sb, ann))
        assert_the_bot_still_answers(sb)


def test_every_bad_number_is_400_with_an_error(tmp_path: Path) -> None:
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()
        ann, cmdr = who["ann"], who["morgan"]
        duels = sb.world()["duel_channel_id"]
        slash, click = f"/api/people/{cmdr}/slash", f"/api/people/{ann}/click"
        ann_, duels_ = f'"{ann}"', f'"{duels}"'  # as JSON strings
        cases = [
            (slash, stats_body("1e400", ann_, "5"), "1e400"),
            (slash, stats_body("-1e400", ann_, "5"), "-1e400"),
            (slash, stats_body("NaN", ann_, "5"), "JSON"),
            (slash, stats_body("Infinity", ann_, "5"), "JSON"),
            (slash, stats_body('"1e400"', ann_, "5"), "channel_id"),
            (slash, stats_body(f'"{2**64}"', ann_, "5"), "channel_id"),
            (slash, stats_body('"-5"', ann_, "5"), "channel_id"),
            (slash, stats_body("12.5", ann_, "5"), "channel_id"),
            (slash, stats_body(duels_, ann_, "1e400"), "JSON"),
            (slash, stats_body(duels_, ann_, "-Infinity"), "JSON"),
            (slash, stats_body(duels_, ann_, "1e300"), "options.str"),
            (slash, stats_body(duels_, ann_, str(2**80)), "options.str"),
            (slash, stats_body(duels_, '"1e400"', "5"), "options.member"),
            (slash, stats_body(duels_, "1e400", "5"), "1e400"),
            (click, '{"message_id": 1e400, "custom_id": "x"}', "1e400"),
            (click, '{"message_id": "1e400", "custom_id": "x"}', "message_id"),
            (click, '{"message_id": 1e308, "custom_id": "x"}', "message_id"),
            (click, f'{{"message_id": "{2**64}", "custom_id": "x"}}', "message_id"),
            (click, '{"message_id": "\\u0663", "custom_id": "x"}', "message_id"),
        ]
        wrong = wrong_answers(sb, cases)
        for path in ("/api/changes?since=1e400", f"/api/channels/{duels}/messages?as=1e400",
                     "/api/people/1e400/dms", f"/api/channels/{2**64}/messages"):
            got, data = raw_call(sb, "GET", path)
            if not (got == 400 and isinstance(data, dict) and data.get("error")):
                wrong.append((path, got, str(data)[:160]))
        assert wrong == []
        assert_the_bot_still_answers(sb)
