"""A round result a player reads at a glance (issue 26; the ruleset's own facts: issue 24):
the outcome's sentence first, each duellist's move with the dice they rolled under it, the
rule-cited log after, the seed and commitment shortened in the footer (in full in `/duel
history`); only the ruleset names its own facts, and no internal outcome id reaches the
text. Heights on a phone: tests/sandbox/test_sandbox_result_height.py."""

from __future__ import annotations

import json
import random
from typing import Any

from bot.presentation.discord_posts import render_message
from bot.presentation.discord_result import result_embed, short_hex
from bot.presentation.markup import BBCODE, MARKDOWN, round_result
from bot.presentation.views import round_result_view
from bot.rules.base import Fighter, Side
from bot.rules.dice import FairDice, ScriptedDice
from bot.rules.registry import get as get_ruleset
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState, Options
from bot.services.messages import Party, RoundResultPost
from bot.services.published import read_published
from bot.standin.limits import FormErrors, check_embeds

SEED = "5e" * 32
COMMITMENT = "c0" * 32


def _rule_2_14() -> dict[str, Any]:
    state = DuelState(Duellist("Ann", 5, 3), Duellist("Bob", 4, 2))
    # Bob's Evade is DICE-3 (always 0), Ann's Full Frontal Strike DICE3 rolls 1: no effect.
    result = RULE_2_14.resolve(
        state, {"a": "full_frontal_strike", "b": "evade"}, ScriptedDice([1]), Options()
    )
    return result.to_dict()


def _by_this_axe() -> dict[str, Any]:
    rules = get_ruleset("by-this-axe")
    a = rules.validate_sheet({"character": "champion", "armor_save": 5, "wounds": 2})
    b = rules.validate_sheet({"character": "hero", "wounds": 2})
    state = rules.initial_state(Fighter("Ann", a), Fighter("Bob", b), {})
    choices: dict[Side, str | None] = {
        "a": rules.parse_choice("a6 p4 t1", state, "a"),
        "b": rules.parse_choice("2/2/0", state, "b"),
    }
    seed = random.Random(3).randbytes(32).hex()
    return rules.resolve(state, choices, FairDice(seed, 1, 1), rules.make_options({})).to_dict()


def _text(embed: Any) -> str:
    return json.dumps(embed.to_dict())


def test_the_outcome_then_each_move_with_its_dice_come_first() -> None:
    view = round_result_view(
        read_published(_rule_2_14()), seed=SEED, commitment=COMMITMENT, duel_id=4, round_no=2
    )
    embed = result_embed(view)
    lines = (embed.description or "").split("\n")
    assert lines[0] == "**No effect; the duel goes on.**"
    assert lines[1] == "Ann: **Full Frontal Strike** · rolled Full Frontal Strike DICE3 = **1**"
    assert lines[2] == "Bob: **Evade** · rolled Evade DICE-3 = **0** (X ≤ 0 gives 0)"
    assert lines[3] == "Locked in combat: **no**"
    # Then the rule-cited log, and nothing else: no fields of moves, rolls, winner, seed.
    assert [f.name for f in embed.fields] == ["Adjudication (rule 2.14)"]
    assert "2.14 Attacks, Full Frontal Strike" in (embed.fields[0].value or "")
    footer = embed.footer.text or ""
    assert short_hex(SEED) in footer and short_hex(COMMITMENT) in footer
    assert SEED not in footer and "/duel history" in footer


def test_only_rule_2_14_says_locked_in_combat() -> None:
    bta = round_result_view(read_published(_by_this_axe()), seed=SEED, commitment=COMMITMENT)
    assert bta.facts == ()
    assert "Locked in combat" not in _text(result_embed(bta))
    assert "Locked in combat" not in round_result(bta, MARKDOWN)
    rule = round_result_view(read_published(_rule_2_14()))
    assert rule.facts == (("Locked in combat", "no"),)
    assert "Locked in combat: no" in round_result(rule, MARKDOWN)


def test_no_internal_outcome_id_reaches_the_text() -> None:
    for stored in (_rule_2_14(), _by_this_axe()):
        view = round_result_view(
            read_published(stored), seed=SEED, commitment=COMMITMENT, duel_id=1, round_no=1
        )
        for text in (_text(result_embed(view)), round_result(view, MARKDOWN),
                     round_result(view, BBCODE)):
            assert stored["outcome"] not in text, (stored["outcome"], text)


def test_a_by_this_axe_log_cites_each_clause_once_per_run_of_lines() -> None:
    stored = _by_this_axe()
    view = round_result_view(read_published(stored), seed=SEED, commitment=COMMITMENT)
    embed = result_embed(view)
    log = "\n".join(f.value or "" for f in embed.fields)
    assert [f.name for f in embed.fields] == ["Adjudication (By This Axe)"]
    # "By This Axe, Reveal: ..." twice is one bullet under the field that names the ruleset.
    assert log.count("**Reveal**") == 1 and "By This Axe, " not in log
    for line in stored["log"]:  # every line's text is there
        assert line.split(": ", 1)[1].split(" (")[0] in log.replace("\\", "")
    # Each duellist's dice, in the order rolled, on their own line.
    rolled = [r for r in stored["rolls"] if r["for"] == "a" and r["purpose"] == "attack"]
    values = ", ".join(str(r["value"]) for r in rolled)
    assert f"Attack **{values}**" in (embed.description or "")


def test_the_post_fits_discord_and_links_to_the_archive_page() -> None:
    stored = _by_this_axe()
    post = RoundResultPost(
        duel_id=9, round_no=1, guild_id=77, a=Party(1, "Ann"), b=Party(2, "Bob"),
        result=read_published(stored), seed=SEED, commitment=COMMITMENT, reason="commander",
        winner_name="Ann", ended=True, closed_by=5,
    )
    rendered = render_message(post, post_id=31, archive_base_url="https://duels.example/")
    embed = rendered.embeds[0]
    errors = FormErrors()
    check_embeds([dict(embed.to_dict())], errors)  # Discord's limits, as the stand-in checks them
    assert errors.tree == {}
    assert (embed.footer.text or "").startswith("duelbot post #31 · seed ")
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Check every roll in your browser"] == "https://duels.example/duel-9.html"
    assert "Round 1 was closed by a commander; the duel is over." in (embed.description or "")


def test_duel_history_shows_every_seed_and_commitment_in_full() -> None:
    from dataclasses import replace

    from bot.presentation.discord_replies import LINE_MAX, history_text
    from bot.services.views import DuelHistory
    from tests.discord.test_text_limits import closed_round, duel

    long_reason = "the DM was lost " * 20
    closed = replace(closed_round(1), seed=SEED, commitment=COMMITMENT, status="undone",
                     undone_by=9, undo_reason=long_reason)
    sealed = replace(closed_round(2), status="open", seed=None, result=None,
                     commitment="0f" * 32)
    text = history_text(DuelHistory(duel(7), (closed, sealed)))
    assert f"seed `{SEED}` · commitment `{COMMITMENT}`" in text  # the round line was cut
    assert f"commitment `{'0f' * 32}`" in text and text.count("seed `") == 1  # still sealed
    assert all(len(entry) <= LINE_MAX for entry in text.split("\nRound"))


def test_a_forced_challenge_says_the_roll_and_keeps_its_seed_in_full() -> None:
    from bot.services.messages import ChallengePost

    post = ChallengePost(
        None, "by-this-axe", "Ann challenges Bob", "refused", "Bob refuses the challenge",
        Party(1, "Ann"), Party(2, "Bob"), ("Bob loses his leadership for this turn",),
        ("By This Axe, Challenges: Bob refuses",),
        {"label": "challenge:1:force", "value": 5, "sides": 6, "for": "a", "purpose": "force"},
        SEED, COMMITMENT,
    )
    embed = render_message(post, post_id=4).embeds[0]
    assert "Roll: d6 = **5**." in (embed.description or "")
    assert SEED not in (embed.description or "")
    # No duel, so no history or archive page: the footer is where it is checked, in full.
    footer = embed.footer.text or ""
    assert footer.startswith("duelbot post #4 · roll challenge:1:force")
    assert f"seed {SEED} · commitment {COMMITMENT}" in footer
