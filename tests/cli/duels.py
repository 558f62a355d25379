"""Whole duels of each ruleset played through the services, for the export and verify tests.

Each player returns the duel's number once the duel has ended (or, with ``finish=False``,
while it still runs, an open round or step waiting)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.db.engine import Database, make_database
from bot.db.models import Duel
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.capabilities import MultiStep, capability
from bot.services.container import Services
from tests.services.helpers import ALICE, BOB, CHANNEL, COMMANDER, GUILD
from tests.services.test_foeq_flow import ALICE_SHEET, BOB_SHEET, choose

DUELBOT = str(Path(sys.executable).with_name("duelbot"))
USERS = {"a": ALICE.user_id, "b": BOB.user_id}
RULE_2_14, BY_THIS_AXE, FOEQ = "rule-2.14", "by-this-axe", "foeq-spell-duel"
RULESETS = (RULE_2_14, BY_THIS_AXE, FOEQ)


def duelbot(
    *args: str, url: str | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed `duelbot` command (with DUELBOT_DATABASE_URL when ``url``)."""
    env = {**os.environ}
    env.pop("DUELBOT_CONFIG", None)
    if url is not None:
        env["DUELBOT_DATABASE_URL"] = url
    return subprocess.run(
        [DUELBOT, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120
    )


async def _state(db: Database, duel_id: int) -> tuple[str, dict[str, Any]]:
    async with db.transaction() as s:
        duel = (await s.execute(select(Duel).where(Duel.id == duel_id))).scalar_one()
        return duel.status, dict(duel.state)


Chooser = Callable[[Ruleset, dict[str, Any], str], str]


def _rule_2_14(rules: Ruleset, state: dict[str, Any], side: str) -> str:
    return "ffs" if side == "a" else "evade"


def _by_this_axe(rules: Ruleset, state: dict[str, Any], side: str) -> str:
    """A: everything on attack; B: one die on a dirty trick, the rest on parry (so tricks,
    forfeits and blows all happen); a forfeit victim takes the first offer."""
    legal = rules.moves(rules.state_from_dict(state), side)  # type: ignore[arg-type]
    if legal and legal[0].kind == "forfeit":
        return legal[0].id
    allotments = [m for m in legal if m.kind == "allotment"]
    if side == "a":
        return max(allotments, key=lambda m: int(m.aliases[0].split("/")[0])).id
    tricky = [m for m in allotments if m.aliases[0].endswith("/1")]
    return max(tricky or allotments, key=lambda m: int(m.aliases[0].split("/")[1])).id


def _foeq(rules: Ruleset, state: dict[str, Any], side: str) -> str:
    return choose(state, side)


async def _play(
    services: Services,
    db: Database,
    duel_id: int,
    chooser: Chooser,
    *,
    steps: int = 40,
    stop: Callable[[int], bool] = lambda step: False,
    before_close: Callable[[int], Awaitable[None]] | None = None,
) -> None:
    rules = registry.get((await services.duels.get_duel(duel_id)).ruleset)
    for step in range(steps):
        if before_close is not None and step > 0:
            # Also at a round boundary reached by a step that closed by itself (a By This
            # Axe forfeit choice) and after the last round (an ended duel can be undone).
            await before_close(step - 1)
        status, state = await _state(db, duel_id)
        if status != "live" or stop(step):
            return
        view = await services.duels.get_duel(duel_id)
        if view.open_round is None:
            await services.duels.open_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
        steps = capability(rules, MultiStep)  # None: both sides, a commander closes
        current = rules.state_from_dict(state)
        awaiting = ("a", "b") if steps is None else steps.awaiting_sides(current)
        closes_itself = steps is not None and steps.advances_at_once(current)
        for side in awaiting:
            await services.duels.submit_move(
                user_id=USERS[side],
                move=chooser(rules, state, side),
                via="dm_text",
                duel_id=duel_id,
            )
        view = await services.duels.get_duel(duel_id)
        if view.open_round is not None and not closes_itself:
            await services.duels.close_round(duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER)
            if before_close is not None:
                await before_close(step)
    raise AssertionError(f"duel {duel_id} did not end in {steps} steps")


async def play_duel(url: str, ruleset: str, *, finish: bool = True) -> int:
    """A whole duel of ``ruleset`` on the database at ``url``; its number."""
    db = make_database(url)
    try:
        services = Services.create(db)
        params: dict[str, Any] | None = None
        if ruleset == RULE_2_14:
            # Alice's strike (DICE2) ends the duel half the time; in a duel left running it
            # can never succeed (DICE-1).
            await services.profiles.set_stats(GUILD, COMMANDER, ALICE, 6 if finish else 3, 3)
            await services.profiles.set_stats(GUILD, COMMANDER, BOB, 2, 4)
            chooser: Chooser = _rule_2_14
        elif ruleset == BY_THIS_AXE:
            wounds = 2 if finish else 9
            await services.profiles.set_sheet(
                GUILD, COMMANDER, ALICE, ruleset, {"character": "hero", "wounds": wounds}
            )
            await services.profiles.set_sheet(
                GUILD, COMMANDER, BOB, ruleset, {"character": "champion", "wounds": wounds}
            )
            params = {"forfeit": "victim-chooses"}
            chooser = _by_this_axe
        else:
            await services.profiles.set_sheet(GUILD, COMMANDER, ALICE, ruleset, ALICE_SHEET)
            await services.profiles.set_sheet(GUILD, COMMANDER, BOB, ruleset, BOB_SHEET)
            params = {"public_stake": "pride", "challenger": "a"}
            chooser = _foeq
        duel = await services.duels.start_duel(
            guild_id=GUILD,
            channel_id=CHANNEL,
            actor_id=COMMANDER,
            a=ALICE,
            b=BOB,
            ruleset=ruleset,
            params=params,
        )
        undone = False

        async def undo_once(step: int) -> None:
            # One accountable undo (then the round is played again): the export keeps the
            # undone round, and the next one follows its undo.
            nonlocal undone
            # A By This Axe round halted for a forfeit choice has opened that step at once:
            # undo waits for a round boundary (undo needs no round open).
            if not undone and (await services.duels.get_duel(duel.id)).open_round is None:
                undone = True
                await services.duels.undo_round(
                    duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER, reason="misclick"
                )

        if finish:
            await _play(services, db, duel.id, chooser, before_close=undo_once)
        else:
            await _play(services, db, duel.id, chooser, stop=lambda step: step >= 3)
            view = await services.duels.get_duel(duel.id)
            if view.open_round is None:
                await services.duels.open_round(
                    duel_id=duel.id, guild_id=GUILD, actor_id=COMMANDER
                )
            _, state = await _state(db, duel.id)
            rules = registry.get(ruleset)
            steps = capability(rules, MultiStep)
            awaiting = (
                ("a", "b") if steps is None else steps.awaiting_sides(rules.state_from_dict(state))
            )
            # one side has chosen in the open round (or step): that choice must stay sealed
            if len(awaiting) == 2:
                await services.duels.submit_move(
                    user_id=USERS[awaiting[0]],
                    move=chooser(rules, state, awaiting[0]),
                    via="dm_text",
                    duel_id=duel.id,
                )
        return duel.id
    finally:
        await db.dispose()
