"""Round results for the command line (`duelbot adjudicate`): the published JSON record, and
thin callers of the presentation package for Markdown and BBCode (bot/presentation/markup.py
holds the one layout of a round result for every text format). Pure: no Discord, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.presentation.markup import BBCODE, MARKDOWN, Markup, round_result
from bot.presentation.views import round_result_view, winner_name
from bot.rules.base import RoundResult

__all__ = [
    "adjudication_dict",
    "escape_bbcode",
    "escape_markdown",
    "render_round_bbcode",
    "render_round_markdown",
    "winner_name",
]

escape_markdown = MARKDOWN.escape
escape_bbcode = BBCODE.escape


def adjudication_dict(
    result: RoundResult | Mapping[str, Any], *, seed: str, commitment: str
) -> dict[str, Any]:
    """The published record of a round: exactly the `duelbot adjudicate --json` shape."""
    data = result.to_dict() if isinstance(result, RoundResult) else result
    return {
        "outcome": data["outcome"],
        "winner": winner_name(data),
        "locked": bool(data["locked"]),
        "rolls": [
            {
                "label": r["label"],
                "sides": r["sides"],
                "value": r["value"],
                "for": r["for"],
                "purpose": r["purpose"],
            }
            for r in data["rolls"]
        ],
        "log": [str(line) for line in data["log"]],
        "seed": seed,
        "commitment": commitment,
    }


def _render(
    markup: Markup,
    result: RoundResult | Mapping[str, Any],
    *,
    seed: str | None = None,
    commitment: str | None = None,
    duel_id: int | None = None,
    round_no: int | None = None,
    verify_hint: bool = True,
) -> str:
    view = round_result_view(
        result, seed=seed, commitment=commitment, duel_id=duel_id, round_no=round_no
    )
    return round_result(view, markup, verify_hint=verify_hint)


def render_round_markdown(result: RoundResult | Mapping[str, Any], **where: Any) -> str:
    """A round's result as a Markdown post, ready to paste (Discord, forums, GitHub)."""
    return _render(MARKDOWN, result, **where)


def render_round_bbcode(result: RoundResult | Mapping[str, Any], **where: Any) -> str:
    """A round's result as a BBCode forum post."""
    return _render(BBCODE, result, **where)
