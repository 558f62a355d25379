"""The presentation package (issue 12): one view of a round result built from what the close
stored, rendered by one function per format (Discord embed, Markdown, BBCode)."""

from __future__ import annotations

from typing import Any

from bot.presentation.discord_result import result_embed
from bot.presentation.discord_text import safe
from bot.presentation.markup import BBCODE, MARKDOWN, round_result
from bot.presentation.views import round_result_view
from bot.presentation.words import rules_in_force
from bot.rules.dice import ScriptedDice
from bot.rules.rule_2_14.ruleset import RULE_2_14
from bot.rules.rule_2_14.state import Duellist, DuelState, Options
from bot.services.published import PublishedRound, read_published


def _stored(**extra: Any) -> PublishedRound:
    """A result as a row stored before the published round was typed (version 1: a plain
    dict), read back as every reader reads it."""
    state = DuelState(Duellist("Ann", 8, 3), Duellist("B*b [x](y)", 2, 5))
    result = RULE_2_14.resolve(
        state, {"a": "full_frontal_strike", "b": None}, ScriptedDice([2], 4, 2), Options()
    )
    return read_published({**result.to_dict(), **extra})


def test_the_labels_the_close_stored_are_the_ones_shown_in_every_format() -> None:
    stored = _stored(labels={"a": "Stored Label A", "b": "Stored Label B"})
    view = round_result_view(stored, seed="s" * 64, commitment="c" * 64, duel_id=3, round_no=1)
    assert (view.a.move, view.b.move) == ("Stored Label A", "Stored Label B")
    embed = result_embed(view)
    moves = (embed.description or "").split("\n")[1:3]  # under the outcome's sentence
    assert "**Stored Label A**" in moves[0] and "**Stored Label B**" in moves[1]
    assert "**Stored Label A**" in round_result(view, MARKDOWN)
    assert "[b]Stored Label B[/b]" in round_result(view, BBCODE)


def test_a_result_without_stored_labels_has_them_from_its_choices() -> None:
    view = round_result_view(_stored())
    assert (view.a.move, view.b.move) == ("Full Frontal Strike", "no move")


def test_each_format_escapes_names_its_own_way() -> None:
    view = round_result_view(_stored(), duel_id=3, round_no=1)
    assert "B\\*b \\[x\\](y)" in round_result(view, MARKDOWN)
    assert "B*b [\u200bx](y)" in round_result(view, BBCODE)
    assert "B\\*b \\[x](y)" in (result_embed(view).title or "")  # Discord: [ is enough


def test_a_bounded_discord_name_never_ends_in_a_cut_escape() -> None:
    # Cut first (to 99 characters and the ellipsis), then escaped: the backslash stays whole.
    assert safe("a" * 98 + "*_z", 100) == "a" * 98 + "\\*…"
    assert safe("x" * 99 + "_", 100) == "x" * 99 + "\\_"


# -- rule 2.14's house rule, before and after it left the server settings (issue 24) ------


def test_an_older_rule_2_14_duel_shows_its_recorded_setting_as_the_house_rule() -> None:
    """A duel started before migration 0007 recorded ``locked_blocks_retreat: true`` among its
    options: cards, /duel status and exports show it as the house rule it became, never the
    default over what it ran with; a later duel records it in ``house_rules``."""
    older = {"change_of_choice": False, "missing_move": "none", "locked_blocks_retreat": True}
    lines = dict(rules_in_force("rule-2.14", older))
    assert lines["House rules"] == "locked-blocks-retreat=yes"
    assert "Locked blocks retreat" not in lines
    newer = {"change_of_choice": False, "missing_move": "none",
             "house_rules": {"locked-blocks-retreat": "no"}}
    assert dict(rules_in_force("rule-2.14", newer))["House rules"] == "locked-blocks-retreat=no"
    # A By This Axe duel from before house rules were recorded still says so.
    assert dict(rules_in_force("by-this-axe", {"missing_move": "none"}))["House rules"] == (
        "not recorded (the duel predates them)"
    )
