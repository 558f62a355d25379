"""Export a whole duel (pure): Markdown, BBCode or JSON. Rounds still open stay sealed:
only their number, commitment and deadline appear."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bot.duel_export import duel_document
from bot.report import (
    escape_bbcode,
    escape_markdown,
    render_round_bbcode,
    render_round_markdown,
    rules_in_force,
)
from bot.services.views import DuelHistory, RoundRecord

EXPORT_FORMATS = ("markdown", "bbcode", "json")


def duel_json(history: DuelHistory) -> dict[str, Any]:
    """The versioned JSON export (docs/export-format.md); bot.duel_export builds it."""
    return duel_document(history)


def _undone_note(r: RoundRecord, escape: Callable[[str], str]) -> str:
    """" (undone by user N: reason)" for an undone round, "" otherwise."""
    if r.status != "undone":
        return ""
    by = f" by user {r.undone_by}" if r.undone_by is not None else ""
    why = f": {escape(r.undo_reason)}" if r.undo_reason else ""
    return f" (undone{by}{why})"


def _follows_note(r: RoundRecord) -> str:
    follows = (r.result or {}).get("follows_undo_of")
    return "" if follows is None else f" (follows the undo of round {int(follows)})"


def _sealed_line(r: RoundRecord) -> str:
    if r.status == "open":
        return f"Round {r.number}: open (commitment {r.commitment})"
    return f"Round {r.number}: {r.status}"


def export_duel(history: DuelHistory, fmt: str) -> str:
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}")
    if fmt == "json":
        return json.dumps(duel_json(history), indent=2, ensure_ascii=False) + "\n"
    d = history.duel
    if fmt == "markdown":
        parts = [
            f"# Duel {d.id}: {escape_markdown(d.a.name)} vs {escape_markdown(d.b.name)}",
            f"Status: {d.status}"
            + (f", winner {escape_markdown(d.winner_name)}" if d.winner_name else ""),
            "",
            "Rules fixed for this duel:",
            *(
                f"- {name}: {escape_markdown(meaning)}"
                for name, meaning in rules_in_force(d.ruleset, d.options)
            ),
            "",
        ]
        for r in history.rounds:
            if r.result is None:
                parts.append(f"## {_sealed_line(r)}\n")
                continue
            title = f"## Round {r.number}{_undone_note(r, escape_markdown)}{_follows_note(r)}"
            parts.append(title)
            parts.append(
                render_round_markdown(
                    r.result,
                    seed=r.seed,
                    commitment=r.commitment,
                    duel_id=d.id,
                    round_no=r.number,
                    verify_hint=False,
                )
            )
        return "\n".join(parts)
    parts = [
        f"[b]Duel {d.id}: {escape_bbcode(d.a.name)} vs {escape_bbcode(d.b.name)}[/b]",
        f"Status: {d.status}"
        + (f", winner {escape_bbcode(d.winner_name)}" if d.winner_name else ""),
        "",
        "Rules fixed for this duel:",
        "[list]",
        *(
            f"[*]{name}: {escape_bbcode(meaning)}"
            for name, meaning in rules_in_force(d.ruleset, d.options)
        ),
        "[/list]",
        "",
    ]
    for r in history.rounds:
        if r.result is None:
            parts.append(f"[b]{_sealed_line(r)}[/b]\n")
            continue
        if r.status == "undone" or _follows_note(r):
            parts.append(
                f"[b]Round {r.number}{_undone_note(r, escape_bbcode)}{_follows_note(r)}[/b]"
            )
        parts.append(
            render_round_bbcode(
                r.result,
                seed=r.seed,
                commitment=r.commitment,
                duel_id=d.id,
                round_no=r.number,
                verify_hint=False,
            )
        )
    return "\n".join(parts)
