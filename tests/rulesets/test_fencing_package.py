"""The fencing bout as an installed package (issue 24, item 5): duelbot and
tests/rulesets/fencing_package are installed into a fresh virtual environment, and there,
in subprocesses and with no test registering anything, `duelbot run` against the fake
Discord plays a fencing duel to its end, `duelbot export` writes it and `duelbot verify`
verifies it; `duelbot odds` and `duelbot adjudicate` know the ruleset too. duelbot finds
it by its entry point in the group ``duelbot.rulesets`` alone.

The environment is made offline: ``python -m venv --without-pip``, then a ``.pth`` line
that puts on its path a folder of links to every package of the environment running the
tests except duelbot itself (``--system-site-packages`` would give the base interpreter's
packages, not this virtualenv's), then ``pip install --no-index --no-deps
--no-build-isolation`` of copies of duelbot's and the package's sources (copies: a build
writes egg-info and build/ beside its sources). The build backend is the dev extra's
setuptools and wheel. One environment per test session.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pytest

from tests.discord.harness import populate
from tests.discord.test_full_duel import all_text
from tests.fakediscord import FakeDiscord
from tests.rulesets.test_fencing_duel import ruleset_choices

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(__file__).resolve().parent / "fencing_package"
RULESET_ID = "fencing-bout"  # as the package's entry point names it; not imported here
# Everything of this environment but the distributions the new one installs itself.
NOT_LINKED = ("duelbot", "__editable__", "_duelbot")


class Venv:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"

    def run(self, *args: str, cwd: Path, env: dict[str, str], timeout: float = 120) -> Any:
        return subprocess.run(
            args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would lead a subprocess to another
    duelbot (a PYTHONPATH, an active virtualenv, a config file)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "DUELBOT_CONFIG", "PYTHONHOME")
        and not key.startswith("DUELBOT_")
    }
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def build_backend_available() -> None:
    for name in ("setuptools", "wheel"):
        try:
            version(name)
        except PackageNotFoundError:
            pytest.fail(
                f"{name} is missing from this environment: it is a dev dependency that the "
                "offline install of this test builds with (run `make install`)"
            )


@pytest.fixture(scope="session")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    build_backend_available()
    base = tmp_path_factory.mktemp("fencing-venv")
    env = clean_env()
    made = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(base / "venv")],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    target = Venv(base / "venv")
    python = str(target.bin / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True, env=env,
    ).stdout.strip()  # fmt: skip
    deps = base / "deps"
    deps.mkdir()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    for folder in sorted(ours):
        for entry in Path(folder).iterdir():
            if entry.name.startswith(NOT_LINKED) or entry.suffix == ".pth":
                continue
            link = deps / entry.name
            if not link.exists():
                link.symlink_to(entry.resolve())
    Path(site, "_duelbot_test_deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    sources = base / "duelbot"
    sources.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, sources / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    shutil.copytree(ROOT / "bot", sources / "bot", ignore=ignore)
    # A wheel of duelbot carries no migrations: an install points at them, as the
    # Dockerfile does (DUELBOT_MIGRATIONS_DIR).
    shutil.copytree(ROOT / "migrations", base / "migrations", ignore=ignore)
    plugin = base / "duelbot-fencing"
    shutil.copytree(PACKAGE, plugin, ignore=ignore)
    installed = target.run(
        python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
        "--no-build-isolation", str(sources), str(plugin), cwd=base, env=env, timeout=300,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return target


def test_the_environment_holds_installed_copies(venv: Venv, tmp_path: Path) -> None:
    """The subprocesses run duelbot and the plug-in from the new environment, not from this
    source tree, and the registry finds the plug-in by its entry point."""
    code = (
        "import bot, duelbot_fencing\n"
        "from bot.rules import plugins, registry\n"
        "print(bot.__file__); print(duelbot_fencing.__file__); print(*registry.ids())\n"
        "print(*sorted(f'{ep.name}@{ep.dist.name}' for ep in plugins.installed_entry_points()))\n"
    )
    run = venv.run(str(venv.bin / "python"), "-c", code, cwd=tmp_path, env=clean_env())
    assert run.returncode == 0, run.stderr
    bot_file, plugin_file, ids, declared = run.stdout.splitlines()
    # Every ruleset, the built-in ones too, comes from the installed metadata.
    assert declared.split() == [
        "by-this-axe@duelbot", f"{RULESET_ID}@duelbot-fencing", "foeq-spell-duel@duelbot",
        "rule-2.14@duelbot",
    ]
    assert Path(bot_file).is_relative_to(venv.root), bot_file
    assert Path(plugin_file).is_relative_to(venv.root), plugin_file
    assert ids.split() == ["by-this-axe", RULESET_ID, "foeq-spell-duel", "rule-2.14"]
    assert "refused" not in run.stderr, run.stderr


def start_choices(duel: Any) -> list[str]:
    """The values `/duel start ruleset:` offers."""
    (start,) = (o for o in duel["options"] if o["name"] == "start")
    (ruleset,) = (o for o in start["options"] if o["name"] == "ruleset")
    return [choice["value"] for choice in ruleset["choices"]]


async def wait_until(check: Any, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise TimeoutError("condition not met in time")
        await asyncio.sleep(0.05)


async def run_cli(venv: Venv, args: Sequence[str], cwd: Path, env: dict[str, str]) -> Any:
    """`duelbot ARGS` in the new environment, off the event loop (the fake Discord runs)."""
    return await asyncio.to_thread(venv.run, str(venv.bin / "duelbot"), *args, cwd=cwd, env=env)


async def test_an_installed_ruleset_plays_exports_and_verifies_in_subprocesses(
    venv: Venv, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    people = populate(fake)
    guild, channel = people["guild"], people["channel_id"]
    cmdr, ann, bob = people["commander"], people["ann"], people["bob"]
    env = clean_env(
        DUELBOT_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'duelbot.db'}",
        DUELBOT_HEARTBEAT_FILE=str(tmp_path / "heartbeat"),
        DUELBOT_MIGRATIONS_DIR=str(venv.root.parent / "migrations"),
    )
    bot_env = {
        **env,
        "DISCORD_TOKEN": fake.token,
        "DUELBOT_DISCORD_API_BASE_URL": fake.api_base_url,
        "DUELBOT_DISCORD_GATEWAY_URL": fake.gateway_url,
    }

    async def slash(user: Any, name: str, sub: str, **options: Any) -> str:
        handle = await fake.invoke_slash(
            guild.id, channel, user.id, name, subcommand=sub, options=options
        )
        return str((await handle.reply()).content)

    async def next_dm(user: Any, seen: int) -> Any:
        return (await fake.wait_for_dms(user.id, seen + 1, timeout=15))[seen]

    def results() -> list[str]:
        return [
            text for m in fake.messages_in(channel) if "Adjudication (" in (text := all_text(m))
        ]

    log_file = tmp_path / "bot.log"
    with log_file.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            str(venv.bin / "duelbot"), "run", cwd=tmp_path, env=bot_env, stdout=log, stderr=log
        )
        try:
            try:
                await wait_until(lambda: fake.command("round") is not None)
                await fake.wait_until_connected(timeout=30)
            except TimeoutError:
                pytest.fail("duelbot run never connected:\n" + log_file.read_text()[-3000:])
            await asyncio.sleep(0.3)  # READY and GUILD_CREATE processed
            # /duel start's ruleset choices (and /sheet's) come from the registry.
            assert RULESET_ID in start_choices(fake.command("duel")), fake.command("duel")
            assert RULESET_ID in ruleset_choices(fake.commands())
            for member in (ann, bob):
                reply = await slash(
                    cmdr, "sheet", "set", member=member.id, ruleset=RULESET_ID, fields="skill=1"
                )
                assert "Sheet saved" in reply, reply
            started = await slash(
                cmdr, "duel", "start", a=ann.id, b=bob.id, ruleset=RULESET_ID,
                params="touches=2",
            )  # fmt: skip
            assert "Duel #" in started, started
            duel_id = int(started.split("Duel #")[1].split()[0])
            # Round 1: the same action both, a tie-break on the fair dice; then thrust
            # beats feint until Ann has her two touches.
            for round_no in range(1, 6):
                moves = ("parry", "parry") if round_no == 1 else ("thrust", "feint")
                seen = {user.id: len(fake.dms_to(user.id)) for user in (ann, bob)}
                opened = await slash(cmdr, "round", "open", duel=duel_id)
                assert f"Round {round_no}" in opened, opened
                for user, move in zip((ann, bob), moves, strict=True):
                    prompt = await next_dm(user, seen[user.id])
                    assert "Thrust" in all_text(prompt), all_text(prompt)
                    await fake.send_dm(user.id, f"#{duel_id} {move}")
                    receipt = await next_dm(user, seen[user.id] + 1)
                    assert move.capitalize() in all_text(receipt), all_text(receipt)
                closed = await slash(cmdr, "round", "close", duel=duel_id)
                assert "Duel #" in closed or "closed" in closed.lower(), closed
                await wait_until(lambda n=round_no: len(results()) == n, timeout=15)
                if "wins the bout" in results()[-1]:
                    break
            else:
                pytest.fail(f"the bout did not end: {results()}")
            rounds = round_no
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(proc.wait(), timeout=30)
    output = log_file.read_text(errors="replace")
    assert code == 0, output[-3000:]
    assert "Ruleset plug-in refused" not in output, output[-3000:]
    assert "ann wins the bout" in results()[-1], results()[-1]

    export_file = tmp_path / "bout.json"
    exported = await run_cli(
        venv, ("export", "--duel", str(duel_id), "--format", "json", "--output",
               str(export_file)), tmp_path, env,
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    document = json.loads(export_file.read_text(encoding="utf-8"))
    assert (document["ruleset"], document["status"]) == (RULESET_ID, "ended")
    assert len(document["rounds"][0]["result"]["rolls"]) == 2  # the tie-break's dice
    first = {**document["rounds"][0], "ruleset": RULESET_ID, "duel_id": duel_id}
    round_file = tmp_path / "round1.json"
    round_file.write_text(json.dumps(first), encoding="utf-8")

    verified, odds, adjudicated, odds_help = await asyncio.gather(
        run_cli(venv, ("verify", str(export_file)), tmp_path, env),
        run_cli(venv, ("odds", "--ruleset", RULESET_ID, "--a-skill", "1", "--a-action",
                       "feint", "--b-skill", "0", "--b-action", "f", "--json"), tmp_path, env),
        run_cli(venv, ("adjudicate", "--json", str(round_file)), tmp_path, env),
        run_cli(venv, ("odds", "--help"), tmp_path, env),
    )  # fmt: skip
    assert f"--ruleset {{rule-2.14,by-this-axe,{RULESET_ID}}}" in odds_help.stdout
    assert f"{RULESET_ID}: the outcome of one exchange" in odds_help.stdout
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"OK: duel {duel_id} ({RULESET_ID}): {rounds} round(s)" in verified.stdout
    assert odds.returncode == 0, odds.stderr
    # Same action: d6 + 1 against d6 + 0. Ann scores on 21 of 36, Bob on 10, no touch on 5.
    assert json.loads(odds.stdout)["outcomes"] == {
        "a_touch": "7/12", "b_touch": "5/18", "no_touch": "5/36"
    }  # fmt: skip
    assert adjudicated.returncode == 0, adjudicated.stderr
    again = json.loads(adjudicated.stdout)
    recorded = document["rounds"][0]["result"]
    assert again["outcome"] == recorded["outcome"], (again, recorded)
    assert [r["value"] for r in again["rolls"]] == [r["value"] for r in recorded["rolls"]]
