"""The duel export format, version 1 (docs/export-format.md): one JSON document per duel that
anyone can re-check with `duelbot verify`. Pure: built from the export read model
(``ExportService.duel_export``), which has already withheld what is still secret.

The document is typed (``DuelDocument``, msgspec Structs, issue 25): each round's result is
the published round as the close stored it (bot/services/published.py), and the JSON is the
codec's output (``duel_document``, ``document_json``). docs/export-format.md publishes its
JSON Schema (``document_schema``); tests/cli/test_export_schema.py keeps the two equal.
`/duel export format:json` and `duelbot export --format json` both print ``document_json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final, Literal

import msgspec

from bot.i18n.catalogs import SOURCE_LANGUAGE
from bot.i18n.context import speaking
from bot.presentation.words import older_house_rules
from bot.rules import registry
from bot.rules.base import SIDES
from bot.rules.capabilities import HouseRules, capability
from bot.services.published import PublishedRound, Side, Sides, json_object
from bot.services.views import DuelHistory, RoundRecord

FORMAT: Final = "duelbot-duel"
VERSION: Final = 1
#: The round statuses a document may hold.
ROUND_STATUSES = ("open", "closed", "undone", "cancelled")
RoundStatus = Literal["open", "closed", "undone", "cancelled"]


class RoundDocument(msgspec.Struct, frozen=True, kw_only=True):
    """One round: today's fields, then what re-adjudicating it needs. Discord ids are
    strings (snowflakes exceed what JavaScript numbers hold exactly), times ISO 8601."""

    number: int
    status: RoundStatus
    opened_by: str | None
    opened_at: str | None
    deadline: str | None
    commitment: str
    closed_by: str | None
    closed_at: str | None
    close_reason: str | None
    outcome: str | None
    seed: str | None
    result: PublishedRound | None
    undone_by: str | None
    undone_at: str | None
    undo_reason: str | None
    follows_undo_of: int | None
    # The ruleset's duel state before the round (public part while the duel runs).
    state_before: dict[str, Any] | None
    choices: Sides[str | None] | None
    # The options the adjudicator was given (Ruleset.make_options).
    options: dict[str, Any] | None
    withheld: tuple[str, ...]


class DuelDocument(msgspec.Struct, frozen=True, kw_only=True):
    """The whole duel (docs/export-format.md, "The document")."""

    format: Literal["duelbot-duel"]
    version: Literal[1]
    duel_id: int
    guild_id: str
    channel_id: str
    ruleset: str
    ruleset_title: str
    # The language the duel's posts, export and archive page speak (issue 28): a catalog's
    # name ("de"), fixed when the duel started; None: English (and every document from
    # before languages). Texts of the document (house rules, summaries, notes) are in it.
    language: str | None = None
    status: Literal["live", "ended"]
    secrets_revealed: bool
    winner: Side | None
    winner_name: str | None
    # What the duel's ruleset says of it beyond its status, in plain words (its
    # ``status_notes``); a document from before them has none.
    status_notes: list[str] = msgspec.field(default_factory=list)
    end_reason: str | None
    end_kind: str | None
    # The rules fixed when the duel started (duels.options).
    options: dict[str, Any]
    house_rules: dict[str, str]
    created_at: str | None
    # Each duellist: the ruleset's sheet as snapshotted at the start (its own keys), with
    # "user_id" (a string), "name" and "summary" ([label, value] pairs).
    duellists: Sides[dict[str, Any]]
    rounds: tuple[RoundDocument, ...]


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def _id(value: int | None) -> str | None:
    # Discord snowflakes exceed what JavaScript numbers hold exactly: written as strings.
    return None if value is None else str(value)


def round_document(r: RoundRecord) -> RoundDocument:
    """One round: today's fields, then what re-adjudicating it needs."""
    return RoundDocument(
        number=r.number,
        status=r.status,  # type: ignore[arg-type]  # the read model's statuses are these four
        opened_by=_id(r.opened_by),
        opened_at=_iso(r.opened_at),
        deadline=_iso(r.deadline),
        commitment=r.commitment,
        closed_by=_id(r.closed_by),
        closed_at=_iso(r.closed_at),
        close_reason=r.close_reason,
        outcome=r.outcome,
        seed=r.seed,
        result=r.result,
        undone_by=_id(r.undone_by),
        undone_at=_iso(r.undone_at),
        undo_reason=r.undo_reason,
        follows_undo_of=None if r.result is None else r.result.follows_undo_of,
        state_before=r.state_before,
        choices=None if r.choices is None else Sides(r.choices.get("a"), r.choices.get("b")),
        options=r.options,
        withheld=r.withheld,
    )


def _start_snapshot(history: DuelHistory, side: str) -> dict[str, Any]:
    """A duellist as the duel started: the state before round 1 (the duel's state when no
    round has opened yet)."""
    first = history.rounds[0].state_before if history.rounds else None
    entry = first.get(side) if isinstance(first, Mapping) else None
    if isinstance(entry, Mapping):
        return dict(entry)
    view = history.duel.duellist(side)
    return {"name": view.name, **view.sheet}


def duel_language(history: DuelHistory) -> str | None:
    """The language a duel speaks (``duels.language``, the server's at its start; issue
    28), as the read model gives it; None: English."""
    language = getattr(history.duel, "language", None)
    return language if isinstance(language, str) and language else None


def duel_struct(history: DuelHistory, language: str | None = None) -> DuelDocument:
    """The whole duel as the versioned export document, its texts in ``language`` (else
    the duel's own, ``duel_language``)."""
    chosen = language or duel_language(history)
    with speaking(chosen):
        return _duel_struct(history, chosen)


def _duel_struct(history: DuelHistory, language: str | None) -> DuelDocument:
    d = history.duel
    rules = registry.get_or_none(d.ruleset)
    # The house rules the duel runs: those fixed at its start (older duels: its params,
    # normalised as read), never defaults guessed over what it was given.
    recorded = d.options.get("house_rules")
    params = d.options.get("params")
    house_rules: dict[str, str] = {}
    house = capability(rules, HouseRules)
    if house is not None:
        given = recorded if isinstance(recorded, Mapping) else {
            # An older duel: a server setting it recorded that is now a house rule (its
            # ``former_setting``), and its params.
            **older_house_rules(house, d.options),
            **(params if isinstance(params, Mapping) else {}),
        }
        house_rules = dict(house.house_rules_summary(given))
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
    return DuelDocument(
        format=FORMAT,
        version=VERSION,
        duel_id=d.id,
        guild_id=str(d.guild_id),
        channel_id=str(d.post_channel_id),
        ruleset=d.ruleset,
        ruleset_title=rules.title if rules is not None else d.ruleset,
        language=None if language in (None, SOURCE_LANGUAGE) else language,
        status=d.status,  # type: ignore[arg-type]  # a duel is live or ended
        # Once the duel has ended nothing is withheld: every round can be re-adjudicated.
        secrets_revealed=d.status == "ended",
        winner=d.winner,  # type: ignore[arg-type]  # a side or None
        winner_name=d.winner_name,
        status_notes=list(d.notes),
        end_reason=d.end_reason,
        end_kind=d.end_kind,
        # The rules fixed when the duel started; each round's result repeats what it used.
        options=d.options,
        house_rules=house_rules,
        created_at=_iso(d.created_at),
        duellists=Sides(duellists["a"], duellists["b"]),
        rounds=tuple(round_document(r) for r in history.rounds),
    )


def duel_document(history: DuelHistory, language: str | None = None) -> dict[str, Any]:
    """The export document as JSON-ready builtins: the codec's output (what the archive
    page embeds and the JSON file holds)."""
    return json_object(duel_struct(history, language))


def document_json(history: DuelHistory, language: str | None = None) -> str:
    """The export document as the JSON file holds it (two-space indents, UTF-8)."""
    encoded = msgspec.json.encode(duel_struct(history, language))
    return msgspec.json.format(encoded, indent=2).decode("utf-8") + "\n"


def document_schema() -> dict[str, Any]:
    """The JSON Schema of the export document, generated from its types (the one
    docs/export-format.md publishes)."""
    schema: dict[str, Any] = msgspec.json.schema(DuelDocument)
    return schema
