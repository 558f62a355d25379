"""Export a whole duel (pure): Markdown, BBCode or JSON. Rounds still open stay sealed:
only their number, commitment and deadline appear."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from bot.report import (
    escape_bbcode,
    escape_markdown,
    render_round_bbcode,
    render_round_markdown,
    rules_in_force,
)
from bot.services.views import DuelHistory, RoundRecord

EXPORT_FORMATS = ("markdown", "bbcode", "json")


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def _round_json(r: RoundRecord) -> dict[str, Any]:
    return {
        "number": r.number,
        "status": r.status,
        "opened_by": str(r.opened_by),
        "opened_at": _iso(r.opened_at),
        "deadline": _iso(r.deadline),
        "commitment": r.commitment,
        "closed_by": None if r.closed_by is None else str(r.closed_by),
        "closed_at": _iso(r.closed_at),
        "close_reason": r.close_reason,
        "outcome": r.outcome,
        "seed": r.seed,
        "result": r.result,
        "undone_by": None if r.undone_by is None else str(r.undone_by),
        "undone_at": _iso(r.undone_at),
        "undo_reason": r.undo_reason,
    }


def duel_json(history: DuelHistory) -> dict[str, Any]:
    d = history.duel
    return {
        "duel_id": d.id,
        "guild_id": str(d.guild_id),
        "channel_id": str(d.post_channel_id),
        "ruleset": d.ruleset,
        "status": d.status,
        "winner": d.winner,
        "winner_name": d.winner_name,
        "locked": d.locked,
        "end_reason": d.end_reason,
        "end_kind": d.end_kind,
        # The rules fixed when the duel started; each round's result repeats what it used.
        "options": d.options,
        "created_at": _iso(d.created_at),
        "duellists": {
            # (the JSON part is being reworked by the export format; unchanged output here)
            s: {
                "user_id": str(x.user_id),
                "name": x.name,
                "str": x.sheet.get("str", 0),
                "agi": x.sheet.get("agi", 0),
            }
            for s, x in (("a", d.a), ("b", d.b))
        },
        "rounds": [_round_json(r) for r in history.rounds],
    }


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
