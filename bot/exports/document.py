"""The duel export format, version 1 (docs/export-format.md): one JSON document per duel that
anyone can re-check with `duelbot verify`. Pure: built from the export read model
(``ExportService.duel_export``), which has already withheld what is still secret.

`/duel export format:json` and `duelbot export --format json` both print ``duel_document``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.presentation.words import older_house_rules
from bot.rules import registry
from bot.rules.base import SIDES
from bot.services.views import DuelHistory, RoundRecord

FORMAT = "duelbot-duel"
VERSION = 1
#: The round statuses a document may hold.
ROUND_STATUSES = ("open", "closed", "undone", "cancelled")


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def _id(value: int | None) -> str | None:
    # Discord snowflakes exceed what JavaScript numbers hold exactly: written as strings.
    return None if value is None else str(value)


def round_document(r: RoundRecord) -> dict[str, Any]:
    """One round: today's fields, then what re-adjudicating it needs."""
    follows = (r.result or {}).get("follows_undo_of")
    return {
        "number": r.number,
        "status": r.status,
        "opened_by": _id(r.opened_by),
        "opened_at": _iso(r.opened_at),
        "deadline": _iso(r.deadline),
        "commitment": r.commitment,
        "closed_by": _id(r.closed_by),
        "closed_at": _iso(r.closed_at),
        "close_reason": r.close_reason,
        "outcome": r.outcome,
        "seed": r.seed,
        "result": r.result,
        "undone_by": _id(r.undone_by),
        "undone_at": _iso(r.undone_at),
        "undo_reason": r.undo_reason,
        "follows_undo_of": None if follows is None else int(follows),
        "state_before": r.state_before,
        "choices": r.choices,
        "options": r.options,
        "withheld": list(r.withheld),
    }


def _start_snapshot(history: DuelHistory, side: str) -> dict[str, Any]:
    """A duellist as the duel started: the state before round 1 (the duel's state when no
    round has opened yet)."""
    first = history.rounds[0].state_before if history.rounds else None
    entry = first.get(side) if isinstance(first, Mapping) else None
    if isinstance(entry, Mapping):
        return dict(entry)
    view = history.duel.duellist(side)
    return {"name": view.name, **view.sheet}


def duel_document(history: DuelHistory) -> dict[str, Any]:
    """The whole duel as the versioned export document."""
    d = history.duel
    rules = registry.get_or_none(d.ruleset)
    # The house rules the duel runs: those fixed at its start (older duels: its params,
    # normalised as read), never defaults guessed over what it was given.
    recorded = d.options.get("house_rules")
    params = d.options.get("params")
    house_rules: dict[str, str] = {}
    if rules is not None:
        given = recorded if isinstance(recorded, Mapping) else {
            # An older duel: a server setting it recorded that is now a house rule (rule
            # 2.14's locked_blocks_retreat), and its params.
            **older_house_rules(rules, d.options),
            **(params if isinstance(params, Mapping) else {}),
        }
        house_rules = dict(rules.house_rules_summary(given))
    duellists: dict[str, Any] = {}
    for side in SIDES:
        view = d.duellist(side)
        snapshot = _start_snapshot(history, side)
        duellists[side] = {
            **{k: v for k, v in snapshot.items() if k != "name"},
            "user_id": str(view.user_id),
            "name": view.name,
            "summary": [list(pair) for pair in rules.fighter_summary(snapshot)]
            if rules is not None
            else [],
        }
    return {
        "format": FORMAT,
        "version": VERSION,
        "duel_id": d.id,
        "guild_id": str(d.guild_id),
        "channel_id": str(d.post_channel_id),
        "ruleset": d.ruleset,
        "ruleset_title": rules.title if rules is not None else d.ruleset,
        "status": d.status,
        # Once the duel has ended nothing is withheld: every round can be re-adjudicated.
        "secrets_revealed": d.status == "ended",
        "winner": d.winner,
        "winner_name": d.winner_name,
        "locked": d.locked,
        "end_reason": d.end_reason,
        "end_kind": d.end_kind,
        # The rules fixed when the duel started; each round's result repeats what it used.
        "options": d.options,
        "house_rules": house_rules,
        "created_at": _iso(d.created_at),
        "duellists": duellists,
        "rounds": [round_document(r) for r in history.rounds],
    }
