"""Issue 26: the bot edits its DM prompts when their round is over, so their move buttons
show disabled as in Discord. The close writes a ``buttons_closed`` outbox row in its own
transaction; the poster PATCHes each prompt (through the real discord.py client against the
stand-in, which keeps the edited components)."""

from __future__ import annotations

import json
from typing import Any

from bot.db.engine import Database
from bot.standin.interactions import wait_until
from bot.standin.models import FakeMessage
from tests.discord.harness import running_world
from tests.discord.test_full_duel import setup_duel
from tests.fakediscord import FakeDiscord


def buttons(message: FakeMessage) -> list[dict[str, Any]]:
    return [item for row in message.components for item in row.get("components", [])]


def all_disabled(message: FakeMessage) -> bool:
    found = buttons(message)
    return bool(found) and all(item.get("disabled") is True for item in found)


async def wait_disabled(message: FakeMessage) -> None:
    await wait_until(
        lambda: True if all_disabled(message) else None,
        15.0,
        lambda: f"the buttons of DM {message.id} disabled (they are {message.components})",
    )


async def test_a_closed_round_disables_the_buttons_of_both_prompts(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        [ann_prompt] = await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        [bob_prompt] = await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        before = (json.dumps(ann_prompt.embeds), ann_prompt.content, ann_prompt.custom_ids())
        assert buttons(ann_prompt) and not any(b.get("disabled") for b in buttons(ann_prompt))

        evade = f"duelbot:move:{duel_id}:1:evade"
        await (await fake.click_button(w.ann.id, ann_prompt, evade)).reply()
        strike = f"duelbot:move:{duel_id}:1:full_frontal_strike"
        await (await fake.click_button(w.bob.id, bob_prompt, strike)).reply()
        await w.slash(w.commander, "round", "close", duel=duel_id)
        # The round is closed: both prompts are edited, nothing else about them.
        await wait_disabled(ann_prompt)
        await wait_disabled(bob_prompt)
        assert (json.dumps(ann_prompt.embeds), ann_prompt.content) == before[:2]
        assert ann_prompt.custom_ids() == before[2]  # the same buttons, now disabled
        assert ann_prompt.edited_timestamp is not None
        edits = fake.requests_to("PATCH", "/channels/{channel_id}/messages/{message_id}")
        edited = {int(r.path.rsplit("/", 1)[1]) for r in edits if r.status == 200}
        assert {ann_prompt.id, bob_prompt.id} <= edited

        # Discord's clients send no press of a disabled button...
        try:
            await fake.click_button(w.ann.id, ann_prompt, evade)
        except LookupError as refused:
            assert "disabled" in str(refused)
        else:  # pragma: no cover - the assertion's message
            raise AssertionError("a disabled button was pressed")
        # ...but one sent just before the edit landed still gets its clear refusal.
        late = await fake.click_button(w.ann.id, ann_prompt, evade, allow_disabled=True)
        answer = (await late.reply()).content
        assert "no open round" in answer and "not recorded" in answer, answer


async def test_ending_a_duel_with_a_round_open_disables_its_prompts(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        [ann_prompt] = await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        [bob_prompt] = await fake.wait_for_dms(w.bob.id, 1, timeout=15)
        await w.slash(w.commander, "duel", "end", duel=duel_id, reason="out of time")
        await wait_disabled(ann_prompt)
        await wait_disabled(bob_prompt)


async def test_the_next_rounds_prompt_keeps_its_buttons(
    fake_discord: FakeDiscord, database: Database
) -> None:
    fake = fake_discord
    async with running_world(fake, database) as w:
        duel_id = await setup_duel(w)
        await w.slash(w.commander, "round", "open", duel=duel_id)
        [first] = await fake.wait_for_dms(w.ann.id, 1, timeout=15)
        await w.slash(w.commander, "round", "close", duel=duel_id)
        await wait_disabled(first)
        await w.slash(w.commander, "round", "open", duel=duel_id)

        def second_prompt() -> FakeMessage | None:
            prompts = [m for m in fake.dms_to(w.ann.id) if m.custom_ids() and m.id != first.id]
            return prompts[-1] if prompts else None

        second = await wait_until(second_prompt, 15.0, lambda: "round 2's prompt")
        assert all(f":{duel_id}:2:" in cid for cid in second.custom_ids())
        assert not any(b.get("disabled") for b in buttons(second))
        assert all_disabled(first)
