"""The published round (issue 25): what a round's close makes public, as one frozen, typed,
versioned value. The close builds it once (:func:`publish`) from the ruleset's public result,
the rules in force, how each move came in and the labels; it is stored (``rounds.result``),
carried by the round-result outbox message, put in the export document as it is, and every
renderer reads its typed fields.

Its codec is msgspec (docs/decisions.md, "The published round"): ``to_json`` gives the JSON
object that is stored and exported, :func:`read_published` reads one back. What is common
to every ruleset is typed; the ruleset's own part (the duel state after the round) stays a
JSON object that only the ruleset interprets (it always holds each duellist's entry under
"a" and "b"): each duellist's name is taken out of it once, at the close; a renderer asks
the ruleset for their summary.

Versions: a result stored before this type has no ``version`` key (version 1, a plain dict of
``RoundResult.to_dict()`` plus ``options``, ``labels``, ``via``...); :func:`read_published`
reads it leniently, filling what it lacked as the renderers used to. Versions 2 and 3 are
read strictly (version 2 had a ruleset's own field at the top and lacked the words of
issue 24: it reads as version 3 with their defaults). Plain data: no database, no Discord
(bot.presentation and bot.exports import it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, Literal, TypeVar

import msgspec

from bot.i18n.context import _, _p
from bot.rules import registry
from bot.rules.adjudication import NOT_ASKED as NOT_ASKED  # re-exported
from bot.rules.adjudication import Adjudication
from bot.rules.base import Ruleset
from bot.rules.capabilities import VerifiableDice, capability
from bot.rules.errors import RulesError
from bot.rules.terms import RoundResult

#: The version this duelbot writes; version 1 is the unversioned dict stored before, version
#: 2 the typed one with a ruleset's own field at the top (issue 24 left it in that ruleset's
#: state and added the round's label, the outcome sentence, the facts and the awaited sides).
PUBLISHED_VERSION = 3
#: The typed version before: read as this one (its extra top-level field ignored, what it lacks
#: defaulted: renderers then ask the ruleset, as they did).
PREVIOUS_TYPED_VERSION = 2
Side = Literal["a", "b"]
SIDES: tuple[Side, Side] = ("a", "b")
T = TypeVar("T")


def json_object(value: msgspec.Struct) -> dict[str, Any]:
    """A Struct as the JSON object the codec writes, in builtins (lists, not the tuples
    ``msgspec.to_builtins`` would keep): what is stored equals what is read back."""
    out: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(value))
    return out


class PublishedFormatError(ValueError):
    """A stored or carried result this duelbot cannot read (an unknown version, a field of
    the wrong type in a versioned one)."""


class Sides(msgspec.Struct, Generic[T], frozen=True, forbid_unknown_fields=True):
    """One value per duellist."""

    a: T
    b: T

    def of(self, side: str) -> T:
        return self.a if side == "a" else self.b


class PublishedRoll(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One die of the round, in order (docs/fairness.md: the label and value re-derive from
    the seed)."""

    label: str
    sides: int
    value: int
    for_side: Side = msgspec.field(name="for")
    purpose: str


class RulesInForce(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The outcome-changing rules the duel was fixed with when it started (``duels.options``
    at the close). A key the duel did not record is left out."""

    change_of_choice: bool | None = None
    missing_move: str | None = None
    locked_blocks_retreat: bool | None = None
    # The /duel start params as normalised by the ruleset (ruleset-shaped).
    params: dict[str, Any] | None = None
    # Every house rule in force, given or default: {"flight": "before-blows", ...}.
    house_rules: dict[str, str] | None = None

    def as_mapping(self) -> dict[str, Any]:
        """These rules as the plain mapping the services pass to the ruleset."""
        return json_object(self)


class PublishedRound(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    omit_defaults=True,
    tag_field="version",
    tag=PUBLISHED_VERSION,
):
    """A closed round as published: the ruleset's public result, typed where every ruleset
    agrees, with the duellists' names, the labels of their choices, the rules it was
    adjudicated under and how each move came in."""

    ruleset: str
    outcome: str
    winner: Side | None
    ended: bool
    # The choices as published (canonical ids; a FoEQ secret step shows "secret").
    choices: Sides[str | None]
    rolls: tuple[PublishedRoll, ...]
    log: tuple[str, ...]
    # The ruleset's duel state after the round (``state.to_dict()``, its public part while
    # the duel runs): read back only by the ruleset (`duelbot verify` compares it).
    state: dict[str, Any]
    names: Sides[str]
    labels: Sides[str]
    options: RulesInForce = RulesInForce()
    # How each move came in (dm_text, dm_button, slash); None: that side sent none.
    via: Sides[str | None] = Sides(None, None)
    follows_undo_of: int | None = None
    # In the ruleset's words (issue 24), fixed at the close so that renderers ask nothing
    # again: the round's label ("round 3", "step 5", "round 1, forfeit choice"), the outcome
    # as a plain sentence with the names ("Ann wins the duel"), and the ruleset's own facts
    # of the result ((label, value) pairs, ``Ruleset.result_facts``). A result stored
    # before them has "", "" and None (renderers then ask the ruleset, as they used to).
    label: str = ""
    sentence: str = ""
    facts: tuple[tuple[str, str], ...] | None = None
    # Whether each side was asked to choose in this round (step); one that was not has the
    # label "not asked", never "no move".
    awaited: Sides[bool] = Sides(True, True)
    # Fixed at the close too (issue 25: the render reads the published round and asks no
    # ruleset): the ruleset's name inside a sentence, each duellist's summary after the
    # round ((label, value) pairs) and the house rules in force ((key, value) pairs; None:
    # none recorded). A result stored before them has "" and None: renderers ask the
    # ruleset, as they used to.
    title: str = ""
    fighters: Sides[tuple[tuple[str, str], ...]] | None = None
    house_rules_shown: tuple[tuple[str, str], ...] | None = None
    # What a move is called in this round ("move", "allotment", "choice"), and the kinds of
    # dice the ruleset rolls (a result names a die only when there are several kinds).
    move_noun: str = ""
    dice: tuple[int, ...] | None = None
    # Each roll's purpose id in the ruleset's words, in the duel's language (issue 28);
    # None (stored before): the renderer reads the id as words.
    roll_purposes: dict[str, str] | None = None

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.names.of(self.winner)

    def to_json(self) -> dict[str, Any]:
        """The JSON object stored in ``rounds.result``, carried and exported."""
        return json_object(self)

    def __post_init__(self) -> None:
        # Every ruleset's state holds each duellist's entry under "a" and "b" (the close reads
        # them; a renderer hands them to the ruleset): a result without them is not one.
        for side in SIDES:
            if not isinstance(self.state.get(side), dict):
                raise ValueError(f"state.{side}: the duellist's entry is not an object")


def _name(entry: Any, side: str) -> str:
    name = entry.get("name") if isinstance(entry, Mapping) else None
    if isinstance(name, str) and name.strip():
        return name
    return _("Duellist {side}", side=side.upper())


def _label(ruleset_id: str, choice: str | None, rules: Ruleset | None = None) -> str:
    if choice is None:
        return _p("choice label", "no move")
    rules = rules or registry.get_or_none(ruleset_id)
    if rules is None:
        return choice
    try:
        return rules.choice_label(choice)
    except RulesError:  # a choice the ruleset refuses is shown as stored
        return choice


def publish(
    public_result: Mapping[str, Any],
    *,
    judged: Adjudication | None = None,
    rules_in_force: Mapping[str, Any] | None = None,
    submitted: Mapping[str, str | None] | None = None,
    via: Mapping[str, str] | None = None,
    follows_undo_of: int | None = None,
) -> PublishedRound:
    """The published round, built once from the ruleset's public result
    (``Ruleset.public_result(result.to_dict())``). ``judged``: the close's answer from the
    rules (``bot.rules.adjudication.adjudicate``), whose words, labels, sentence, facts and
    summaries it carries as they are (the ruleset is not asked again). Without it (a result
    from outside a close, ``published_of``), the ruleset is looked up and asked: every side
    awaited; ``submitted``: each side's move as stored (a secret step's result masks its
    choices, so a label follows the result, never the submission, unless the two agree)."""
    ruleset_id = str(public_result["ruleset"])
    state = dict(public_result["state"])
    shown = public_result["choices"]
    names = {side: _name(state.get(side), side) for side in SIDES}
    data: dict[str, Any] = {
        **public_result,
        "version": PUBLISHED_VERSION,
        "state": state,
        "choices": {side: shown.get(side) for side in SIDES},
        "names": names,
        "options": dict(rules_in_force or {}),
        "via": {side: (via or {}).get(side) for side in SIDES},
        "follows_undo_of": follows_undo_of,
    }
    if judged is not None:
        data.update(
            labels=judged.labels,
            label=judged.words.label,
            sentence=judged.sentence,
            facts=judged.facts,
            awaited={side: side in judged.awaited for side in SIDES},
            title=judged.title,
            fighters=judged.fighters,
            house_rules_shown=judged.house_rules,
            move_noun=judged.words.move,
            dice=judged.dice,
            roll_purposes=judged.roll_purposes or None,
        )
        return msgspec.convert(data, PublishedRound)
    rules = registry.get_or_none(ruleset_id)
    moves = submitted or {}

    def label(side: str) -> str:
        choice = shown.get(side)
        return _label(ruleset_id, moves.get(side) if moves.get(side) == choice else choice, rules)

    data["labels"] = {side: label(side) for side in SIDES}
    if rules is not None:
        data["sentence"] = rules.outcome_sentence(
            str(public_result["outcome"]), names["a"], names["b"]
        )
        data["facts"] = [tuple(fact) for fact in rules.result_facts(public_result)]
        data["title"] = rules.short_name()
        data["fighters"] = {side: rules.fighter_summary(state[side]) for side in SIDES}
        data["move_noun"] = rules.words.move.one
        data["roll_purposes"] = {
            str(roll.get("purpose")): rules.roll_purpose_label(str(roll.get("purpose")))
            for roll in public_result.get("rolls") or ()
        } or None
        verifiable = capability(rules, VerifiableDice)
        data["dice"] = None if verifiable is None else verifiable.dice
    return msgspec.convert(data, PublishedRound)


def read_published(data: Mapping[str, Any]) -> PublishedRound:
    """A stored, carried or exported result read back: versions 2 and 3 strictly, an
    unversioned (version 1) one leniently. PublishedFormatError for anything else."""
    version = data.get("version")
    if version is None:
        return _read_version_1(data)
    if isinstance(version, bool) or version not in (PREVIOUS_TYPED_VERSION, PUBLISHED_VERSION):
        raise PublishedFormatError(
            f"result version {version!r} is not one this duelbot reads "
            f"(it reads 1 to {PUBLISHED_VERSION})"
        )
    if version == PREVIOUS_TYPED_VERSION:
        data = {**data, "version": PUBLISHED_VERSION}
    try:
        return msgspec.convert(data, PublishedRound)
    except msgspec.ValidationError as exc:
        raise PublishedFormatError(f"result: {exc}") from None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _roll(raw: Mapping[str, Any]) -> PublishedRoll:
    def whole(value: Any) -> int:
        return value if _whole(value) else 0

    side = raw.get("for")
    return PublishedRoll(
        label=str(raw.get("label", "?")),
        sides=whole(raw.get("sides")),
        value=whole(raw.get("value")),
        for_side="b" if side == "b" else "a",
        purpose=str(raw.get("purpose", "?")),
    )


def _read_version_1(data: Mapping[str, Any]) -> PublishedRound:
    """A result stored before it was typed (or a hand-made one): every field it may lack or
    hold in another shape gets what the renderers used to make of it. Labels it stored are
    kept; a result from before labels were stored has them worked out from its choices."""
    ruleset = str(data.get("ruleset") or "")
    state = dict(_mapping(data.get("state")))
    for side in SIDES:  # a hand-made result without a duellist's entry: an empty one
        if not isinstance(state.get(side), dict):
            state[side] = dict(_mapping(state.get(side)))
    choices = _mapping(data.get("choices"))
    stored_labels = data.get("labels")
    labels = _mapping(stored_labels)

    def choice(side: str) -> str | None:
        value = choices.get(side)
        return None if value is None else str(value)

    def label(side: str) -> str:
        value = labels.get(side) if isinstance(stored_labels, Mapping) else None
        return str(value) if value is not None else _label(ruleset, choice(side))

    raw_rolls = data.get("rolls")
    raw_log = data.get("log")
    winner = data.get("winner")
    via = _mapping(data.get("via"))
    follows = data.get("follows_undo_of")
    try:
        options = msgspec.convert(_mapping(data.get("options")), RulesInForce, strict=False)
    except msgspec.ValidationError:
        options = RulesInForce()
    return PublishedRound(
        ruleset=ruleset,
        outcome=str(data.get("outcome") or "?"),
        winner=winner if winner in SIDES else None,
        ended=bool(data.get("ended")),
        choices=Sides(choice("a"), choice("b")),
        rolls=tuple(
            _roll(roll)
            for roll in (raw_rolls if isinstance(raw_rolls, list) else [])
            if isinstance(roll, Mapping)
        ),
        log=tuple(str(line) for line in (raw_log if isinstance(raw_log, list) else [])),
        state=state,
        names=Sides(_name(state.get("a"), "a"), _name(state.get("b"), "b")),
        labels=Sides(label("a"), label("b")),
        options=options,
        via=Sides(
            None if via.get("a") is None else str(via["a"]),
            None if via.get("b") is None else str(via["b"]),
        ),
        follows_undo_of=follows if _whole(follows) else None,
    )


def published_of(result: PublishedRound | RoundResult | Mapping[str, Any]) -> PublishedRound:
    """The one door for a result that comes from outside a close (`duelbot adjudicate`, a
    round read from a file): already published, fresh from a ruleset (everything is
    revealed offline), or a stored JSON object of either version."""
    if isinstance(result, PublishedRound):
        return result
    if isinstance(result, RoundResult):
        return publish(result.to_dict())
    return read_published(result)
