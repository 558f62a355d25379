"""`duelbot sandbox` as a process: a whole round driven through its JSON API (docs/sandbox.md)
on SQLite and PostgreSQL, what each member may see, bad requests, and clean stops."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import pytest

from tests.sandbox.support import Sandbox, running_sandbox, wait_until


def text_of(message: dict[str, object]) -> str:
    return json.dumps([message.get("content"), message.get("embeds")])


def dms(sandbox: Sandbox, user: str) -> list[dict[str, object]]:
    return list(sandbox.ok("GET", f"/api/people/{user}/dms")["messages"])


def channel(sandbox: Sandbox, channel_id: str, viewer: str = "") -> list[dict[str, object]]:
    return list(sandbox.ok("GET", f"/api/channels/{channel_id}/messages?as={viewer}")["messages"])


def test_a_round_through_the_json_api(tmp_path: Path, db_url: str) -> None:
    with running_sandbox(tmp_path, "--database", db_url) as sb:
        commands = {c["path"]: c for c in sb.wait_for_commands()}
        assert {"stats set", "duel start", "round open", "round close", "move"} <= set(commands)
        assert {o["name"] for o in commands["duel start"]["options"]} >= {"a", "b"}
        world = sb.world()
        roles = {p["username"]: p["role"] for p in world["people"]}
        assert roles["morgan"] == "commander" and roles["avery"] == "admin"
        assert [r for r in roles.values() if r == "duellist"] == ["duellist"] * 3
        who = sb.people()
        cmdr, ann, bob = who["morgan"], who["ann"], who["bob"]
        duels = world["duel_channel_id"]

        reply = sb.slash(cmdr, "stats set", duels, member=ann, str="5", agi=3)["reply"]
        assert "STR 5" in reply["content"] and reply["ephemeral"]
        sb.slash(cmdr, "stats set", duels, member=bob, str=4, agi="2")
        started = sb.slash(cmdr, "duel start", duels, a=ann, b=bob)["reply"]["content"]
        duel = started.split("Duel #")[1].split()[0]
        # The bot's autocomplete, asked through the stand-in.
        choices = sb.ok("POST", f"/api/people/{cmdr}/autocomplete", {
            "channel_id": duels, "command": "round", "subcommand": "open", "options": {},
            "focused": "duel",
        })["choices"]
        assert [c["value"] for c in choices] == [int(duel)]
        sb.slash(cmdr, "round open", duels, duel=duel)
        prompt = wait_until(lambda: [m for m in dms(sb, bob) if m["components"]], 15, "buttons")
        evade = next(
            c["custom_id"]
            for row in prompt[-1]["components"]
            for c in row["components"]
            if c["custom_id"].endswith(":evade")
        )
        receipt = sb.ok("POST", f"/api/people/{bob}/click",
                        {"message_id": prompt[-1]["id"], "custom_id": evade})["reply"]
        assert "Evade" in receipt["content"]
        sb.ok("POST", f"/api/people/{ann}/dm", {"content": "ffs"})
        wait_until(lambda: any("Full Frontal Strike" in text_of(m) for m in dms(sb, ann)), 15,
                   "Ann's receipt")
        # Ann's DM is in her DMs (both sides), and nowhere else.
        assert any(m["content"] == "ffs" and m["author"]["id"] == ann for m in dms(sb, ann))
        assert not any(m["content"] == "ffs" for m in dms(sb, bob))
        # An ephemeral reply is the commander's alone.
        mine = channel(sb, duels, cmdr)
        assert any(m["ephemeral"] and "Stats saved" in text_of(m) for m in mine)
        for viewer in (ann, ""):
            assert not any(m["ephemeral"] for m in channel(sb, duels, viewer))
        before = channel(sb, duels)
        assert not any("Evade" in text_of(m) for m in before)  # secret until the close

        sb.slash(cmdr, "round close", duels, duel=duel)
        posts = wait_until(
            lambda: [m for m in channel(sb, duels) if "Evade" in text_of(m)], 15, "the result"
        )
        assert "Full Frontal Strike" in text_of(posts[-1])
        # A few seconds: on a loaded machine (the whole suite on 2 cores) it took 5.4 s once.
        status, elapsed = sb.stop(signal.SIGINT, timeout=20)
        assert status == 0 and elapsed < 10, (status, elapsed, sb.stderr_text())
        assert "Traceback" not in sb.stderr_text()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_bot_and_the_standin_cleanly(tmp_path: Path, sig: int) -> None:
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        status, elapsed = sb.stop(sig)
        err = sb.stderr_text()
        assert status == 0 and elapsed < 5, (status, elapsed, err)
        assert "Traceback" not in err and "Task was destroyed" not in err
        assert "Unclosed" not in err, err
        # Nothing left listening on the page's port.
        port = int(sb.url.rsplit(":", 1)[1])
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) != 0
    assert "a temporary SQLite file" in (tmp_path / "sandbox.out").read_text()
    assert not list(tmp_path.glob("*.db")), "the default database is not in the working dir"


def test_bad_requests_get_one_clear_answer(tmp_path: Path) -> None:
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()
        duels = sb.world()["duel_channel_id"]
        cases = [
            ("GET", "/api/people/123/dms", None, 404, "no person 123"),
            ("POST", f"/api/people/{who['ann']}/dm", {"content": "  "}, 400, "content"),
            ("POST", f"/api/people/{who['ann']}/dm", {"content": "x" * 2001}, 400, "2000"),
            ("POST", f"/api/people/{who['ann']}/dm", [1], 400, "JSON object"),
            ("POST", f"/api/people/{who['morgan']}/slash",
             {"channel_id": duels, "command": "stats", "subcommand": "set",
              "options": {"member": who["ann"], "str": "five", "agi": 3}}, 400, "options.str"),
            ("POST", f"/api/people/{who['morgan']}/slash",
             {"channel_id": duels, "command": "nope", "options": {}}, 404, "not registered"),
            ("POST", f"/api/people/{who['morgan']}/slash",
             {"channel_id": duels, "command": "stats", "subcommand": "set",
              "options": {"member": who["ann"]}}, 400, "required"),
            ("POST", f"/api/people/{who['ann']}/click",
             {"message_id": "1", "custom_id": "x"}, 404, "no message"),
            ("GET", "/api/channels/42/messages", None, 404, "no channel 42"),
        ]
        for method, path, body, status, words in cases:
            got, data = sb.call(method, path, body)
            assert (got, words in data.get("error", "")) == (status, True), (path, got, data)
        page = sb.call("GET", "/api/world")[0]
        assert page == 200  # still serving after every refusal


def test_a_port_in_use_exits_2_with_one_line(tmp_path: Path) -> None:
    import subprocess

    from tests.sandbox.support import DUELBOT

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [DUELBOT, "sandbox", "--port", str(port)], cwd=tmp_path, capture_output=True,
            timeout=60, text=True,
        )
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if "duelbot sandbox:" in line]
    assert len(lines) == 1 and f"{port}" in lines[0] and "--port" in lines[0]
    assert "make sandbox PORT=" in lines[0], lines
    assert "Traceback" not in done.stderr
