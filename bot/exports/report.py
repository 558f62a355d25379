"""Round results for the command line (`duelbot adjudicate`): the published JSON record, and
thin callers of the presentation package for Markdown and BBCode (bot/presentation/markup.py
holds the one layout of a round result for every text format). Pure: no Discord, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.presentation.markup import BBCODE, MARKDOWN, Markup, round_result
from bot.presentation.views import round_result_view
from bot.rules import registry
from bot.rules.base import RoundResult
from bot.rules.capabilities import ShortAdjudication, capability
from bot.services.published import PublishedRound, published_of

#: A result as the command line has it: fresh from a ruleset, published, or stored JSON.
AnyResult = PublishedRound | RoundResult | Mapping[str, Any]

__all__ = [
    "adjudication_dict",
    "escape_bbcode",
    "escape_markdown",
    "render_round_bbcode",
    "render_round_markdown",
    "winner_name",
]


def winner_name(result: AnyResult) -> str | None:
    """The winner's name (as given in the duel state), or None."""
    return published_of(result).winner_name


escape_markdown = MARKDOWN.escape
escape_bbcode = BBCODE.escape


def adjudication_dict(result: AnyResult, *, seed: str, commitment: str) -> dict[str, Any]:
    """The published record of a round: exactly the `duelbot adjudicate --json` shape."""
    published = published_of(result)
    # The ruleset's own keys of its short shape (``ShortAdjudication.short_result``), read
    # from the state after the round; none for a ruleset without one.
    short = capability(registry.get_or_none(published.ruleset), ShortAdjudication)
    own = short.short_result(published.state) if short is not None else {}
    return {
        "outcome": published.outcome,
        "winner": published.winner_name,
        **own,
        "rolls": [
            {
                "label": r.label,
                "sides": r.sides,
                "value": r.value,
                "for": r.for_side,
                "purpose": r.purpose,
            }
            for r in published.rolls
        ],
        "log": list(published.log),
        "seed": seed,
        "commitment": commitment,
    }


def _render(
    markup: Markup,
    result: AnyResult,
    *,
    seed: str | None = None,
    commitment: str | None = None,
    duel_id: int | None = None,
    round_no: int | None = None,
    verify_hint: bool = True,
) -> str:
    view = round_result_view(
        published_of(result), seed=seed, commitment=commitment, duel_id=duel_id, round_no=round_no
    )
    return round_result(view, markup, verify_hint=verify_hint)


def render_round_markdown(result: AnyResult, **where: Any) -> str:
    """A round's result as a Markdown post, ready to paste (Discord, forums, GitHub)."""
    return _render(MARKDOWN, result, **where)


def render_round_bbcode(result: AnyResult, **where: Any) -> str:
    """A round's result as a BBCode forum post."""
    return _render(BBCODE, result, **where)
