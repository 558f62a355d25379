"""A ruleset with the core alone (no capability at all) through the services: the plain game
the services play when ``capability(...)`` answers None (issue 24 item 1). Both sides are
awaited and a commander closes each round; no params are taken; no exact odds; no sheet
changes; the export verifies."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from bot.exports.formats import duel_json
from bot.exports.verify import verify_duel
from bot.rules import registry
from bot.rules.base import SIDES, Fighter, MoveSpec, RoundResult, Ruleset, Side
from bot.rules.capabilities import CAPABILITIES, capability
from bot.rules.dice import DiceSource
from bot.rules.errors import InvalidChoice, InvalidStats
from bot.rules.terms import LogEvent, SheetField
from bot.services.container import Services
from bot.services.errors import InvalidInput
from bot.services.scope import DuelScope
from tests.services.helpers import ALICE, BOB, CHANNEL, COMMANDER, GUILD

RULESET_ID = "coin-call"
CALLS = (MoveSpec("heads", "Heads", "call", ("h",)), MoveSpec("tails", "Tails", "call", ("t",)))


@dataclass(frozen=True, slots=True)
class CoinState:
    a: str
    b: str
    winner: Side | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"a": {"name": self.a}, "b": {"name": self.b}, "winner": self.winner}


class CoinCall(Ruleset):
    """Each side calls the coin; one right and the other wrong wins."""

    id = RULESET_ID
    title = "Coin Call"
    sheet_fields = (SheetField("luck", "int", "Luck (unused)", 0, 3),)

    def moves(self, state: Any = None, side: Side | None = None) -> tuple[MoveSpec, ...]:
        return CALLS

    def parse_choice(self, text: str, state: Any = None, side: Side | None = None) -> str:
        said = text.strip().casefold()
        for call in CALLS:
            if said in (call.id, *call.aliases):
                return call.id
        raise InvalidChoice(f"{text!r} is no call: heads or tails.")

    def validate_sheet(self, sheet: Mapping[str, Any]) -> dict[str, Any]:
        luck = sheet.get("luck", 0)
        if isinstance(luck, str) and luck.strip().isdecimal():
            luck = int(luck)
        if isinstance(luck, bool) or not isinstance(luck, int) or not 0 <= luck <= 3:
            raise InvalidStats("luck must be a whole number from 0 to 3.")
        return {"luck": luck}

    def initial_state(self, a: Fighter, b: Fighter, params: Mapping[str, Any]) -> CoinState:
        return CoinState(a.name, b.name)

    def state_from_dict(self, data: Mapping[str, Any]) -> CoinState:
        return CoinState(str(data["a"]["name"]), str(data["b"]["name"]), data.get("winner"))

    def make_options(self, settings: Mapping[str, Any]) -> None:
        return None

    def resolve(
        self, state: CoinState, choices: Mapping[Side, str | None], dice: DiceSource, options: Any
    ) -> RoundResult:
        roll = dice.roll(2, side="a", purpose="the coin")  # a side tosses it
        face = "heads" if roll.value == 1 else "tails"
        right = [side for side in SIDES if choices.get(side) == face]
        winner: Side | None = right[0] if len(right) == 1 else None
        return RoundResult(
            ruleset=self.id,
            outcome=f"{winner}_wins" if winner else "again",
            winner=winner,
            ended=winner is not None,
            choices=dict(choices),
            rolls=(roll,),
            log=(LogEvent("coin", f"the coin shows {face}"),),
            state=CoinState(state.a, state.b, winner),
        )


@pytest.fixture
def coin() -> Iterator[CoinCall]:
    rules = registry.register(CoinCall())
    try:
        yield rules
    finally:
        registry.unregister(RULESET_ID)


async def _start(services: Services, params: Mapping[str, Any] | None = None) -> int:
    for member in (ALICE, BOB):
        await services.profiles.set_sheet(GUILD, COMMANDER, member, RULESET_ID, {"luck": 1})
    duel = await services.duels.start_duel(
        guild_id=GUILD, channel_id=CHANNEL, actor_id=COMMANDER, a=ALICE, b=BOB,
        ruleset=RULESET_ID, params=params,
    )  # fmt: skip
    return duel.id


async def test_a_ruleset_without_capabilities_plays_as_the_plain_game(
    services: Services, coin: CoinCall
) -> None:
    assert all(capability(coin, kind) is None for kind in CAPABILITIES)
    duel_id = await _start(services)
    for round_no in range(1, 40):
        opened = await services.duels.open_round(
            duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER
        )
        assert opened.round_no == round_no
        await services.duels.submit_move(
            user_id=ALICE.user_id, move="heads", via="dm_text", duel_id=duel_id
        )
        await services.duels.submit_move(
            user_id=BOB.user_id, move="tails", via="dm_text", duel_id=duel_id
        )
        # Both sides moved, and still the round waits for a commander (no MultiStep).
        assert (await services.duels.get_duel(duel_id)).open_round is not None
        closed = await services.duels.close_round(
            duel_id=duel_id, guild_id=GUILD, actor_id=COMMANDER
        )
        if closed.result.ended:
            break
    history = await services.duels.history(duel_id, GUILD)
    assert history.duel.status == "ended"
    # No house rules: the export shows none, and it verifies round by round.
    document = duel_json(await services.exports.duel_export(duel_id, GUILD))
    assert document["house_rules"] == {}
    check = verify_duel(json.loads(json.dumps(document)))
    assert check.verified, check.first_mismatch()
    # Every round was re-adjudicated: verifying needs no capability.
    assert all(r.skipped is None for r in check.rounds), [r.skipped for r in check.rounds]


async def test_params_and_odds_are_refused_naming_the_ruleset(
    services: Services, coin: CoinCall
) -> None:
    with pytest.raises(InvalidInput, match="Coin Call has no house rules or duel settings"):
        await _start(services, {"bias": "heads"})
    duel_id = await _start(services)
    with pytest.raises(InvalidInput, match="Coin Call, which has no exact odds"):
        await services.duels.odds(duel_id, DuelScope(guild_id=GUILD))
