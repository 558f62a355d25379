"""Bad input through the services on a real (SQLite) database: DM text through
Intake.handle_dm, stats through ProfileService.set_stats, names and reasons through
start_duel / end_duel. Nothing crashes; every refusal is a specific error; nothing is stored
from a refused input; names and reasons come out inert in the posts they feed."""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sqlalchemy import func, select

from bot.config import DuelSettings
from bot.db.engine import Database
from bot.db.models import AuditEntry, OutboxPost, Submission
from bot.discord.cogs.intake import MAX_DM_LENGTH, Intake, split_duel_prefix
from bot.discord.errors import UNEXPECTED
from bot.presentation.discord_posts import render_post
from bot.rules.errors import InvalidChoice
from bot.rules.rule_2_14.moves import LABELS, parse_move
from bot.services.container import Services
from bot.services.errors import DomainError, InvalidInput
from bot.services.profiles import clean_name
from bot.services.views import MemberRef
from tests.db.support import make_test_database
from tests.fuzz import budget
from tests.fuzz.strategies import dm_text, hostile_text

T = TypeVar("T")
GUILD = 77
ACTOR = 1
ANN, BOB, CARL, DORA, NOBODY = 1001, 1002, 1003, 1004, 9999
P, Q = 2001, 2002  # duellists of the reason/name duels


def no_surrogates(text: str) -> bool:
    """Discord sends UTF-8 JSON: lone surrogates never reach the bot."""
    return not any("\ud800" <= c <= "\udfff" for c in text)


@dataclass
class SyncWorld:
    loop: asyncio.AbstractEventLoop
    db: Database
    services: Services
    intake: Intake
    duels: dict[str, int]

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coro)

    def submissions(self) -> list[tuple[int, int, str, str]]:
        async def read() -> list[tuple[int, int, str, str]]:
            async with self.db.transaction() as session:
                rows = (
                    await session.execute(
                        select(Submission).where(Submission.superseded_at.is_(None))
                    )
                ).scalars()
                return sorted((r.id, r.user_id, r.side, r.move) for r in rows)

        return self.run(read())


@pytest.fixture(scope="module")
def world(_sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncWorld]:
    path = tmp_path_factory.mktemp("fuzz-db") / "duelbot.db"
    shutil.copyfile(_sqlite_template, path)
    loop = asyncio.new_event_loop()
    db = make_test_database(f"sqlite+aiosqlite:///{path}")
    services = Services.create(db, DuelSettings())
    bot = SimpleNamespace(services=services, outbox_wakeup=asyncio.Event(), user=None)
    intake = Intake(bot)  # type: ignore[arg-type]

    async def setup() -> dict[str, int]:
        for uid in (ANN, BOB, CARL, DORA, P, Q):
            await services.profiles.set_stats(GUILD, ACTOR, MemberRef(uid, f"u{uid}"), 3, 3)
        await services.settings.set_change_of_choice(GUILD, ACTOR, True)
        ids = {}
        for name, (a, b) in {"ab": (ANN, BOB), "cd": (CARL, DORA), "ac": (ANN, CARL)}.items():
            view = await services.duels.start_duel(
                guild_id=GUILD,
                channel_id=5,
                actor_id=ACTOR,
                a=MemberRef(a, f"u{a}"),
                b=MemberRef(b, f"u{b}"),
            )
            await services.duels.open_round(duel_id=view.id, guild_id=GUILD, actor_id=ACTOR)
            ids[name] = view.id
        return ids

    duels = loop.run_until_complete(setup())
    try:
        yield SyncWorld(loop, db, services, intake, duels)
    finally:
        loop.run_until_complete(db.dispose())
        loop.close()


# -- DM text through handle_dm ----------------------------------------------------------

dm_users = st.sampled_from([ANN, BOB, CARL, NOBODY])


def check_dm(world: SyncWorld, user_id: int, text: str) -> None:
    before = world.submissions()
    reply = world.run(world.intake.handle_dm(user_id, text))
    after = world.submissions()
    assert isinstance(reply, str) and reply.strip() and reply != UNEXPECTED
    stripped = text.strip()
    if len(stripped) > MAX_DM_LENGTH:
        assert "too long" in reply
    if not reply.startswith(("Move received", "Move changed")):
        assert before == after, reply  # a refusal stores nothing
        return
    _, rest = split_duel_prefix(stripped)
    move = parse_move(rest)  # accepted text must be a move
    assert LABELS[move] in reply
    changed = [s for s in after if s not in before]
    assert len(changed) == 1 and changed[0][1] == user_id and changed[0][3] == move


def check_bad_move_reply(world: SyncWorld, user_id: int, text: str) -> None:
    try:
        parse_move(split_duel_prefix(text.strip())[1])
    except InvalidChoice:
        reply = world.run(world.intake.handle_dm(user_id, text))
        assert not reply.startswith("Move")


@budget.fast()
@given(user_id=dm_users, text=dm_text)
@example(user_id=BOB, text="\u0435vade")  # Cyrillic e: refused, not guessed
@example(user_id=BOB, text="\u200be\u200dvade\u202e")
@example(user_id=ANN, text="evade")  # two open duels: asks which
@example(user_id=ANN, text="#999999999999 evade")
@example(user_id=BOB, text="#1 @everyone")
def test_handle_dm(world: SyncWorld, user_id: int, text: str) -> None:
    check_dm(world, user_id, text)
    check_bad_move_reply(world, user_id, text)


@pytest.mark.slow
@budget.slow("handle_dm")
@given(user_id=dm_users, text=dm_text)
def test_handle_dm_100k(world: SyncWorld, user_id: int, text: str) -> None:
    check_dm(world, user_id, text)


def test_handle_dm_specific_answers(world: SyncWorld) -> None:
    ab = world.duels["ab"]
    assert "several open duels" in world.run(world.intake.handle_dm(ANN, "evade"))
    assert "not a move" in world.run(world.intake.handle_dm(BOB, "\u0435vade"))
    assert "no open round" in world.run(world.intake.handle_dm(NOBODY, "evade"))
    cd = world.duels["cd"]
    not_mine = world.run(world.intake.handle_dm(BOB, f"#{cd} ev"))
    # Another's duel is answered exactly as a number that names no duel (issue 10).
    assert not_mine == world.run(world.intake.handle_dm(BOB, "#999999 ev")).replace(
        "999999", str(cd)
    )
    assert f"You have no duel #{cd}:" in not_mine
    assert "no duel #999999999999" in world.run(world.intake.handle_dm(BOB, "#999999999999 ev"))
    assert "too long" in world.run(world.intake.handle_dm(BOB, "evade " * 100))
    assert "Evade" in world.run(world.intake.handle_dm(BOB, f"#{ab} \u200bev\u202e"))


# -- stats ------------------------------------------------------------------------------

stat_values = st.one_of(
    st.integers(-5, 1005),
    st.integers(),
    st.sampled_from([True, False, None, 2**63, -(2**63) - 1, 10**100, 1.5, "5", float("nan")]),
)


def check_stats(world: SyncWorld, uid: int, name: str, strength: Any, agility: Any) -> None:
    member = MemberRef(uid, name)
    try:
        view = world.run(world.services.profiles.set_stats(GUILD, ACTOR, member, strength, agility))
    except InvalidInput as exc:
        assert ("STR" in exc.message or "AGI" in exc.message) and exc.message.endswith(".")
        ok = [type(v) is int and 0 <= v <= 1000 for v in (strength, agility)]
        assert not all(ok)
        return
    # /stats sets the quick sheet: rule 2.14's STR and AGI in the profile's sheets.
    assert view.sheets["rule-2.14"] == {"str": strength, "agi": agility}
    assert view.display_name == clean_name(name) and "\n" not in view.display_name
    assert 1 <= len(view.display_name) <= 80


@budget.fast()
@given(
    uid=st.integers(3000, 3010),
    name=hostile_text.filter(no_surrogates),
    strength=stat_values,
    agility=stat_values,
)
def test_stats(world: SyncWorld, uid: int, name: str, strength: Any, agility: Any) -> None:
    check_stats(world, uid, name, strength, agility)


@pytest.mark.slow
@budget.slow("stats")
@given(
    uid=st.integers(3000, 3010),
    name=hostile_text.filter(no_surrogates),
    strength=stat_values,
    agility=stat_values,
)
def test_stats_100k(world: SyncWorld, uid: int, name: str, strength: Any, agility: Any) -> None:
    check_stats(world, uid, name, strength, agility)


# -- names and reasons -------------------------------------------------------------------

_live: dict[str, int] = {}


def rendered_parts(kind: str, payload: dict[str, Any]) -> list[str]:
    """Every text part of a rendered post: content, titles, descriptions, fields, footers."""
    out = render_post(kind, payload, post_id=1, behalf="x")
    parts = [out.content or ""]
    for embed in out.embeds:
        parts += [embed.title or "", embed.description or "", embed.footer.text or ""]
        parts += [embed.author.name or ""]
        parts += [f.name or "" for f in embed.fields] + [f.value or "" for f in embed.fields]
    return parts


# a masked link [text](http://x) whose "[" is not escaped (an even number of backslashes
# before it) would render as a link
ROLE_MENTION = re.compile(r"<@&\d+>")
MASKED_LINK = re.compile(r"(?<!\\)(?:\\\\)*\[[^\[\]]*\]\(\s*<?https?:")


def assert_inert(parts: list[str]) -> None:
    for text in parts:
        for ping in ("@everyone", "@here"):
            assert ping not in text, text
        assert ROLE_MENTION.search(text) is None, text  # (a cut-off "<@&123" pings nobody)
        assert MASKED_LINK.search(text) is None, text


def check_reason(world: SyncWorld, name_a: str, name_b: str, reason: Any) -> None:
    async def go() -> None:
        duels = world.services.duels
        if "duel" in _live:  # a duel left live by a refused reason: end it first
            await duels.end_duel(
                duel_id=_live.pop("duel"), guild_id=GUILD, actor_id=ACTOR, reason="reset"
            )
        view = await duels.start_duel(
            guild_id=GUILD,
            channel_id=5,
            actor_id=ACTOR,
            a=MemberRef(P, name_a),
            b=MemberRef(Q, name_b),
        )
        _live["duel"] = duel_id = view.id
        try:
            view = await duels.end_duel(
                duel_id=duel_id, guild_id=GUILD, actor_id=ACTOR, reason=reason
            )
        except DomainError as exc:
            assert isinstance(exc, InvalidInput) and exc.message
            flat = " ".join(str(reason).split())
            assert not flat or len(flat) > 300
            return
        del _live["duel"]
        assert view.status == "ended" and view.end_reason == " ".join(str(reason).split())
        async with world.db.transaction() as session:
            posts = (
                (await session.execute(select(OutboxPost).where(OutboxPost.duel_id == duel_id)))
                .scalars()
                .all()
            )
            assert {p.kind for p in posts} == {"duel_start", "duel_end"}
            for post in posts:
                assert_inert(rendered_parts(post.kind, post.payload))
            ends = await session.execute(
                select(func.count())
                .select_from(AuditEntry)
                .where(AuditEntry.duel_id == duel_id, AuditEntry.action == "duel.end")
            )
            assert ends.scalar_one() == 1

    world.run(go())


reasons = st.one_of(hostile_text.filter(no_surrogates), st.sampled_from(["", "   ", "x" * 301]))
names = hostile_text.filter(no_surrogates)


@budget.fast()
@given(name_a=names, name_b=names, reason=reasons)
@example(name_a="@everyone", name_b="<@&123456789012345678>", reason="**bold** [link](http://x)")
@example(name_a="[a] [link](http://x)", name_b="\\[b [c](https://y)", reason="[x] [y](http://z)")
@example(name_a="\u202eevil", name_b="`code`", reason="@here `x` \u200b")
def test_names_and_reasons(world: SyncWorld, name_a: str, name_b: str, reason: Any) -> None:
    check_reason(world, name_a, name_b, reason)


@pytest.mark.slow
@budget.slow("reason_names")
@given(name_a=names, name_b=names, reason=reasons)
def test_names_and_reasons_100k(world: SyncWorld, name_a: str, name_b: str, reason: Any) -> None:
    check_reason(world, name_a, name_b, reason)
