"""Issue 28's acceptance: a whole duel of each ruleset (rule 2.14, FoEQ, By This Axe) played
through the fake Discord in a German server by German members shows German posts, DMs,
ephemeral replies and command localizations; an English member of the same server gets
English ephemeral replies.

The server is German three ways, one per ruleset: by its primary language alone
(``guild_locale`` "de", rule 2.14), by ``/config language de`` alone in an English server
(FoEQ), and by both (By This Axe). The commander and the duellists use Discord in German
(``locale`` "de"); Eve uses it in English (``en-US``).

The duels are driven without reading any text (the database says whose turn it is; the
buttons' custom_ids are language-free), so that what is asserted on the texts is only their
language: no English function word outside code spans and mentions, and German words in
every sentence.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Iterable
from typing import Any

import pytest
from sqlalchemy import select

from bot.config import LimitSettings
from bot.db.engine import Database
from bot.db.models import Duel
from bot.i18n.catalogs import catalog_path, read_catalog
from bot.rules.foeq.tables import RULESET_ID as FOEQ
from tests.discord.harness import World, running_world
from tests.discord.test_foeq_duel import ANN as FOEQ_ANN
from tests.discord.test_foeq_duel import BOB as FOEQ_BOB
from tests.discord.test_foeq_duel import choice as foeq_choice
from tests.fakediscord import MANAGE_GUILD, FakeDiscord, FakeMessage

JSON = dict[str, Any]
AXE = "by-this-axe"

# -- what a text's language is ------------------------------------------------------------

#: Words only English sentences have (none is a German word).
ENGLISH = re.compile(
    r"\b(the|your|you|has|have|is|are|and|not|with|been|wins|won|lost|yet|when|which|"
    r"Round|Duel|Step|Deadline|Winner|choice|move)\b"
)
#: Words German sentences have (the style of docs/translating.md and the brief's glossary).
GERMAN = re.compile(
    r"\b(Duell|Duells|Duellant|Duellanten|Runde|Runden|Schritt|Zug|Züge|Wahl|Ansage|Frist|"
    r"Ergebnis|Sieger|Würfel|Wurf|Kommandant|Charakterbogen|Werte|Gegner|"
    r"der|die|das|den|dem|des|ein|eine|einen|und|oder|ist|sind|nicht|kein|keine|wurde|"
    r"du|dein|deine|deinen|dir|dich|hat|hast|bis|noch|jetzt|mit|gegen|für|von)\b"
)
#: Not language: code spans (English command names and inputs stay English in replies),
#: mentions and timestamps, links, hex digests, and the games' own proper names.
NOT_LANGUAGE = re.compile(
    r"```.*?```|`[^`]*`|<[^<>\s]*>|https?://\S+|\b[0-9a-f]{8,}\b|By This Axe|FoEQ",
    re.DOTALL,
)


def texts_of(message: FakeMessage | Any) -> str:
    """What a member reads in a message or a reply: its content, its embeds' texts, its
    buttons' and menus' labels."""
    parts: list[str] = [getattr(message, "content", None) or ""]
    for embed in getattr(message, "embeds", None) or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [(embed.get(k) or {}).get(f) or "" for k, f in (("author", "name"),
                                                                 ("footer", "text"))]
        for item in embed.get("fields") or []:
            parts += [item.get("name") or "", item.get("value") or ""]
    for row in getattr(message, "components", None) or []:
        for component in row.get("components") or [row]:
            parts.append(component.get("label") or "")
            parts.append(component.get("placeholder") or "")
            parts += [option.get("label") or "" for option in component.get("options") or []]
    return "\n".join(p for p in parts if p)


def prose(text: str) -> str:
    return NOT_LANGUAGE.sub(" ", text)


def words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]{2,}", prose(text))


def english_in(text: str) -> list[str]:
    return sorted({m.group(0) for m in ENGLISH.finditer(prose(text))})


def assert_german(what: str, texts: Iterable[str]) -> None:
    """Every text is German: no English function word, and a German word in each text of
    four words or more; together they hold some German at all."""
    texts = [t for t in texts if t.strip()]
    assert texts, f"{what}: nothing to read"
    problems = []
    for text in texts:
        if found := english_in(text):
            problems.append(f"English {found} in {text!r}")
        elif len(words(text)) >= 4 and not GERMAN.search(prose(text)):
            problems.append(f"no German word in {text!r}")
    assert not problems, f"{what} are not German:\n" + "\n".join(problems)
    assert GERMAN.search(prose("\n".join(texts))), f"{what}: no German at all: {texts}"


def assert_english(what: str, text: str) -> None:
    assert english_in(text), f"{what} is not English: {text!r}"
    german = {m.group(0) for m in GERMAN.finditer(prose(text))} - {"die", "bis", "von"}
    assert not german, f"{what} has German words {sorted(german)}: {text!r}"


def test_the_language_checks_themselves() -> None:
    assert english_in("Round 1 of duel #3 is open: `/round close duel:3` closes it.")
    assert not english_in("Runde 1 von Duell #3 ist offen: `/round close duel:3` schließt sie.")
    assert_german("a post", ["Runde 1 von Duell #3 ist offen. <t:1700000000:R>"])
    with pytest.raises(AssertionError, match="English"):
        assert_german("a post", ["Runde 1 is open"])
    with pytest.raises(AssertionError, match="no German word"):
        assert_german("a post", ["Lorem ipsum dolor sit amet"])
    assert_english("a reply", "Only a commander can do this: you need the commander role.")
    with pytest.raises(AssertionError):
        assert_english("a reply", "Nur ein Kommandant darf das.")


# -- the German server -------------------------------------------------------------------


def german_server(fake: FakeDiscord, *, guild_locale: str) -> dict[str, Any]:
    """The harness's people (tests/discord/harness.py), the commander and the duellists
    using Discord in German; the outsider is Eve, in English."""
    guild = fake.add_guild("Duellhalle", locale=guild_locale)
    referee = fake.add_role(guild.id, "Schiedsrichter", permissions=MANAGE_GUILD)
    commander_role = fake.add_role(guild.id, "Kommandanten", permissions=0)
    return {
        "guild": guild,
        "channel_id": guild.channel_ids[0],
        "commander": fake.add_member(guild.id, "kommandant", roles=[referee], locale="de").user,
        "role_commander": fake.add_member(
            guild.id, "rollenkommandant", roles=[commander_role], locale="de"
        ).user,
        "commander_role_id": commander_role.id,
        "ann": fake.add_member(guild.id, "anna", locale="de").user,
        "bob": fake.add_member(guild.id, "bernd", locale="de").user,
        "outsider": fake.add_member(guild.id, "eve", locale="en-US").user,
    }


class Replies:
    """The ephemeral replies each member got, by language."""

    def __init__(self) -> None:
        self.german: list[str] = []

    async def slash(self, w: World, user: Any, name: str, sub: str | None = None,
                    **options: Any) -> Any:
        """A German member's command: its reply must be ephemeral and is checked later."""
        reply = await w.slash(user, name, sub, **options)
        assert reply.ephemeral, (name, sub, texts_of(reply))
        self.german.append(texts_of(reply))
        return reply


async def newest_duel(database: Database) -> int:
    async with database.transaction() as s:
        found = (await s.execute(select(Duel.id).order_by(Duel.id.desc()))).scalars().first()
    assert found is not None, "no duel was started"
    return int(found)


async def duel_row(database: Database, duel_id: int) -> tuple[str, dict[str, Any]]:
    async with database.transaction() as s:
        duel = (await s.execute(select(Duel).where(Duel.id == duel_id))).scalar_one()
        return duel.status, dict(duel.state)


async def until(condition: Any, what: str, timeout: float = 15.0) -> Any:
    for _ in range(int(timeout / 0.05)):
        found = await condition()
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def prompt_with(fake: FakeDiscord, user_id: int, custom_id: str) -> FakeMessage | None:
    """The DM holding a button ``custom_id`` (language-free), if one comes in time."""

    async def find() -> FakeMessage | None:
        return next((m for m in fake.dms_to(user_id) if custom_id in m.custom_ids()), None)

    try:
        return await until(find, custom_id, timeout=5.0)  # type: ignore[no-any-return]
    except AssertionError:
        return None


@functools.cache
def same_in_german() -> frozenset[str]:
    """Command texts German writes as English does (``status``, ``format``, ``a``): the bot
    registers no localization for them, Discord shows the English (bot/discord/
    translator.py)."""
    catalog = read_catalog(catalog_path("de"))
    return frozenset(str(m.id) for m in catalog if m.id and m.context and m.string == m.id)


#: Choices named in their own language on purpose: /config language's languages.
ENDONYMS = frozenset({"English", "Deutsch"})


def every_localization_is_german(command: JSON, where: str = "") -> list[str]:
    """The command texts without a German localization (names, descriptions, choices)."""
    here = f"{where}/{command['name']}"
    same = same_in_german()
    missing = []
    if "de" not in (command.get("name_localizations") or {}) and command["name"] not in same:
        missing.append(f"{here}: name")
    description = command.get("description")
    if description and "de" not in (command.get("description_localizations") or {}) and (
        description not in same
    ):
        missing.append(f"{here}: description {description!r}")
    for choice in command.get("choices") or []:
        if "de" not in (choice.get("name_localizations") or {}) and (
            choice["name"] not in same | ENDONYMS
        ):
            missing.append(f"{here}: choice {choice['name']!r}")
    for option in command.get("options") or []:
        missing += every_localization_is_german(option, here)
    return missing


async def common_checks(w: World, duel_id: int, replies: Replies) -> None:
    """What every German duel shows, once it is over: the posts in its channel and the
    duellists' DMs in German, the German members' replies in German, the commands
    localized, and Eve's replies in English."""
    fake = w.fake
    posts = [texts_of(m) for m in fake.messages_in(w.channel_id)]
    assert len(posts) >= 3, posts
    assert_german("the duel's channel posts", posts)
    assert any(re.search(r"\bDuell\b", prose(p)) for p in posts), posts
    assert any(re.search(r"\bRunde|Schritt\b", prose(p)) for p in posts), posts
    for user in (w.ann, w.bob):
        dms = [texts_of(m) for m in fake.dms_to(user.id)]
        assert len(dms) >= 2, dms
        assert_german(f"the DMs to {user.username}", dms)

    history = await replies.slash(w, w.commander, "duel", "history", duel=duel_id)
    assert str(duel_id) in texts_of(history)
    await replies.slash(w, w.ann, "duel", "status", duel=duel_id)
    await replies.slash(w, w.ann, "duel", "list", include_ended=True)
    refused = await w.slash(w.ann, "config", "language", language="de")  # not an admin
    replies.german.append(texts_of(refused))
    assert_german("the German members' ephemeral replies", replies.german)

    # Eve, in the same server, reads English.
    status = await w.slash(w.outsider, "duel", "status", duel=duel_id)
    assert status.ephemeral
    assert_english("Eve's /duel status", texts_of(status))
    listed = await w.slash(w.outsider, "duel", "list", include_ended=True)
    assert_english("Eve's /duel list", texts_of(listed))
    refused = await w.slash(w.outsider, "round", "status", duel=duel_id)  # not a commander
    assert refused.ephemeral
    assert_english("Eve's refusal", texts_of(refused))
    refused = await w.slash(w.outsider, "config", "language", language="de")
    assert_english("Eve's refusal", texts_of(refused))

    # The commands are registered with German names and descriptions, every one.
    duel = fake.command("duel")
    assert duel is not None and duel["name_localizations"]["de"] == "duell"
    missing = [
        text for command in fake.commands() for text in every_localization_is_german(command)
    ]
    assert missing == [], "command texts with no German localization:\n" + "\n".join(missing)
    assert fake.limit_refusals == []


# -- rule 2.14: the server German by its primary language alone ---------------------------


async def test_a_whole_rule_2_14_duel_in_german(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = german_server(fake, guild_locale="de")
    replies = Replies()
    async with running_world(fake, database, people) as w:
        await replies.slash(w, w.commander, "stats", "set", member=w.ann.id, str=5, agi=3)
        await replies.slash(w, w.commander, "stats", "set", member=w.bob.id, str=4, agi=2)
        await replies.slash(w, w.commander, "duel", "start", a=w.ann.id, b=w.bob.id)
        duel_id = await newest_duel(database)
        await fake.wait_for_messages(w.channel_id, 1, timeout=15)

        for round_no in range(1, 6):
            await replies.slash(w, w.commander, "round", "open", duel=duel_id, deadline="36h")
            evade = f"duelbot:move:{duel_id}:{round_no}:evade"
            prompt = await prompt_with(fake, w.ann.id, evade)
            assert prompt is not None, [texts_of(m) for m in fake.dms_to(w.ann.id)]
            if round_no == 1:
                # Ann presses a button: the receipt is a reply in her language.
                receipt = await (await fake.click_button(w.ann.id, prompt, evade)).reply()
                replies.german.append(texts_of(receipt))
                await fake.send_dm(w.bob.id, "FFS")  # typed: the receipt is a German DM
            else:
                await fake.send_dm(w.ann.id, f"#{duel_id} retreat")  # her retreat ends it
                await fake.send_dm(w.bob.id, f"#{duel_id} evade")

            async def both_moved() -> bool:
                status = await w.services.duels.round_status(duel_id)
                return bool(status.submitted == {"a": True, "b": True})

            await until(both_moved, f"both moves of round {round_no}")
            await replies.slash(w, w.commander, "round", "status", duel=duel_id)
            await replies.slash(w, w.commander, "round", "close", duel=duel_id)
            await fake.wait_for_messages(w.channel_id, 1 + 2 * round_no, timeout=15)
            if (await w.services.duels.get_duel(duel_id)).status == "ended":
                break
        assert (await w.services.duels.get_duel(duel_id)).status == "ended"
        await asyncio.sleep(0.3)  # the last DMs and posts of the outbox
        await common_checks(w, duel_id, replies)


# -- FoEQ: an English server set to German with /config language ----------------------------


async def test_a_whole_foeq_duel_in_german(fake_discord: FakeDiscord, database: Database) -> None:
    fake = fake_discord
    people = german_server(fake, guild_locale="en-US")
    replies = Replies()
    async with running_world(fake, database, people, limits=LimitSettings(dm_burst=0)) as w:
        await replies.slash(w, w.commander, "config", "language", language="de")
        for member, fields in ((w.ann, FOEQ_ANN), (w.bob, FOEQ_BOB)):
            await replies.slash(
                w, w.commander, "sheet", "set", member=member.id, ruleset=FOEQ, fields=fields
            )
        await replies.slash(
            w, w.commander, "duel", "start", a=w.ann.id, b=w.bob.id, ruleset=FOEQ,
            params="public_stake=pride challenger=a",
        )
        duel_id = await newest_duel(database)
        await replies.slash(w, w.commander, "round", "open", duel=duel_id)

        users = {"a": w.ann, "b": w.bob}
        clicked = 0
        for step in range(1, 20):
            status, state = await duel_row(database, duel_id)
            if status != "live":
                break
            for side in state["awaiting"]:
                move_id, text = foeq_choice(state, side)
                user = users[side]
                custom_id = f"duelbot:move:{duel_id}:{step}:{move_id}"
                prompt = None if "=" in move_id else await prompt_with(fake, user.id, custom_id)
                if prompt is not None:
                    receipt = await (await fake.click_button(user.id, prompt, custom_id)).reply()
                    replies.german.append(texts_of(receipt))
                    clicked += 1
                else:
                    await fake.send_dm(user.id, f"#{duel_id} {text}")

            async def moved_on(step: int = step) -> bool:
                """The step resolved: the duel is over, or another step is open."""
                view = await w.services.duels.get_duel(duel_id)
                return view.status != "live" or (
                    view.open_round is not None and view.open_round.number != step
                )

            await until(moved_on, f"step {step} to be resolved")
        status, state = await duel_row(database, duel_id)
        assert status == "ended" and state["winner"] == "a"
        assert clicked > 0
        rounds = len((await w.services.duels.history(duel_id)).rounds)
        await fake.wait_for_messages(w.channel_id, 1 + 2 * rounds, timeout=15)
        await asyncio.sleep(0.3)
        # The private notes, too, are DMs in German (checked with every DM below).
        await common_checks(w, duel_id, replies)


# -- By This Axe: a German server, and /config language de as well ---------------------------


async def test_a_whole_by_this_axe_duel_in_german(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    people = german_server(fake, guild_locale="de")
    replies = Replies()
    async with running_world(fake, database, people) as w:
        await replies.slash(w, w.commander, "config", "language", language="de")
        for member, fields in (
            (w.ann, "character=champion armor_save=5 wounds=2"),
            (w.bob, "character=hero wounds=1"),
        ):
            await replies.slash(
                w, w.commander, "sheet", "set", member=member.id, ruleset=AXE, fields=fields
            )
        refused = await replies.slash(
            w, w.commander, "sheet", "set", member=w.bob.id, ruleset=AXE, fields="character=dragon"
        )
        assert "dragon" in texts_of(refused)
        await replies.slash(
            w, w.commander, "duel", "start", a=w.ann.id, b=w.bob.id, ruleset=AXE,
            params="forfeit=parry-first",
        )
        duel_id = await newest_duel(database)
        ann_dms = bob_dms = 0
        for round_no in range(1, 13):
            await replies.slash(w, w.commander, "round", "open", duel=duel_id)
            ann_dms += 1
            bob_dms += 1
            await fake.wait_for_dms(w.ann.id, ann_dms, timeout=15)
            await fake.wait_for_dms(w.bob.id, bob_dms, timeout=15)
            if round_no == 1:
                await fake.send_dm(w.bob.id, "flee")  # not in the first round: refused
                bob_dms += 1
                await fake.wait_for_dms(w.bob.id, bob_dms, timeout=15)
            attack = 1 + (round_no * 3) % 10
            await fake.send_dm(w.ann.id, f"a{attack} p{11 - attack} t1")
            ann_dms += 1
            await fake.wait_for_dms(w.ann.id, ann_dms, timeout=15)
            await fake.send_dm(w.bob.id, f"#{duel_id} 2/2/0")
            bob_dms += 1
            await fake.wait_for_dms(w.bob.id, bob_dms, timeout=15)
            await replies.slash(w, w.commander, "round", "close", duel=duel_id)
            if (await w.services.duels.get_duel(duel_id)).status == "ended":
                break
        assert (await w.services.duels.get_duel(duel_id)).status == "ended"
        rounds = len((await w.services.duels.history(duel_id)).rounds)
        await fake.wait_for_messages(w.channel_id, 1 + 2 * rounds, timeout=15)
        await asyncio.sleep(0.3)
        await common_checks(w, duel_id, replies)
