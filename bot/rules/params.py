"""Per-duel options and their one normalisation: house rules (where the seed text allows
several readings), typed per-duel settings (``DuelParam``) and the legacy keys older duels
were started with (``LegacyParam``). ``Ruleset.parse_house_rules`` and
``Ruleset.normalize_params`` (bot/rules/base.py) are these functions over the ruleset's own
declarations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bot.rules.errors import InvalidHouseRule
from bot.rules.text import RulesetText

_ = RulesetText(__package__)


@dataclass(frozen=True, slots=True)
class HouseRule:
    """A per-duel option where the seed text allows several readings.

    ``key`` and ``values`` are what a commander types (``flight=after-blows``); ``default``
    is the reading a player of the game would expect (the ruleset's docs say why).
    ``aliases``: (alias, value) pairs also accepted (a yes/no rule takes true/false, and
    so reads the boolean an older duel stored under its key)."""

    key: str
    values: tuple[str, ...]
    default: str
    help: str
    aliases: tuple[tuple[str, str], ...] = ()
    #: A `/config` subcommand of its own that sets the server's default of this house rule
    #: (besides `/config house-rule`); only for a yes/no rule (it takes ``enabled``).
    server_alias: str = ""
    #: The server setting this yes/no house rule was before it was a house rule, when it was
    #: one: config.toml's ``[duels]`` key of that name turns it on for a new server, and a
    #: duel started then stored it in its options under that name (``make_options`` reads it).
    former_setting: str = ""

    def __post_init__(self) -> None:
        if self.default not in self.values:
            raise ValueError(f"house rule {self.key}: default {self.default!r} not in values")
        if self.server_alias and tuple(sorted(self.values)) != ("no", "yes"):
            raise ValueError(f"house rule {self.key}: a server alias needs values no and yes")

    def allowed_text(self) -> str:
        return ", ".join(self.values)


@dataclass(frozen=True, slots=True)
class DuelParam:
    """A per-duel setting that is not a house rule (``allot_all``, ``locked``): its key as
    stored, its declared type and default. ``kind``: ``bool`` (true/false, yes/no, 1/0, as
    JSON or text) or ``choice`` (one of ``values``; ``aliases`` are (alias, value) pairs)."""

    key: str
    kind: Literal["bool", "choice"]
    default: Any
    help: str
    values: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()

    def allowed_text(self) -> str:
        return _("true or false") if self.kind == "bool" else ", ".join(self.values)


@dataclass(frozen=True, slots=True)
class LegacyParam:
    """A key older duels were started with, still accepted: ``key`` maps to the house rule or
    param ``canonical``, each legacy value (``values``: (legacy, canonical) pairs) to its
    canonical value. Normalisation rewrites it, so nothing downstream ever sees it."""

    key: str
    canonical: str
    values: tuple[tuple[str, str], ...]


#: The aliases of a house rule whose values are ("no", "yes"): the other ways of saying it,
#: and a boolean stored under its key by an older duel (``_house_value`` spells it "true").
YES_NO_ALIASES = (
    ("true", "yes"),
    ("false", "no"),
    ("on", "yes"),
    ("off", "no"),
    ("1", "yes"),
    ("0", "no"),
)

#: Booleans as a commander may type them; anything else is refused (``bool("false")`` is
#: True, which once started a duel locked while its status said it was not).
_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})


def _house_key(key: object) -> str:
    return str(key).strip().casefold().replace("_", "-")


def _house_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip().casefold().replace("_", "-").replace(" ", "-")


def _param_value(param: DuelParam, raw_value: object) -> Any:
    """``raw_value`` parsed by ``param``'s declared type (InvalidHouseRule when it is not)."""
    if param.kind == "bool":
        if isinstance(raw_value, bool):
            return raw_value
        if isinstance(raw_value, int) and raw_value in (0, 1):
            return raw_value == 1
        text = str(raw_value).strip().casefold() if isinstance(raw_value, str) else None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise InvalidHouseRule(
            _(
                "{key} must be true or false (true/false, yes/no, 1/0), not {value}.",
                key=param.key,
                value=repr(raw_value),
            )
        )
    given = _house_value(raw_value) if isinstance(raw_value, str) else None
    for value in param.values:
        if given == _house_value(value):
            return value
    for alias, value in param.aliases:
        if given == _house_value(alias):
            return value
    raise InvalidHouseRule(
        _(
            "{key} must be one of {allowed}, not {value}.",
            key=param.key,
            allowed=param.allowed_text(),
            value=repr(raw_value),
        )
    )


def house_rule_values(
    rules: tuple[HouseRule, ...],
    params: Mapping[str, Any],
    *,
    title: str,
    ignore_unknown: bool = False,
) -> dict[str, str]:
    """Every house rule's value (``Ruleset.parse_house_rules``): ``params`` validated,
    defaults filled in; an unknown key is refused unless ``ignore_unknown``."""
    by_key = {rule.key: rule for rule in rules}
    chosen = {key: rule.default for key, rule in by_key.items()}
    for raw_key, raw_value in params.items():
        key = _house_key(raw_key)
        rule = by_key.get(key)
        if rule is None:
            if ignore_unknown:
                continue
            raise InvalidHouseRule(_unknown_house_rule(str(raw_key), rules, title))
        chosen[key] = _house_rule_value(rule, raw_value)
    return chosen


def explicit_house_rule_values(
    rules: tuple[HouseRule, ...], params: Mapping[str, Any], *, title: str
) -> dict[str, str]:
    """Only the house rules ``params`` names (validated), other keys ignored."""
    given = {_house_key(k) for k in params}
    values = house_rule_values(rules, params, title=title, ignore_unknown=True)
    return {key: value for key, value in values.items() if key in given}


def normalize(
    params: Mapping[str, Any],
    *,
    title: str,
    rules: tuple[HouseRule, ...],
    settings: tuple[DuelParam, ...],
    legacy: tuple[LegacyParam, ...],
) -> dict[str, Any]:
    """``Ruleset.normalize_params`` over the ruleset's declarations: every key spelt as
    declared, a legacy key mapped to its canonical one, every value parsed by its type."""
    by_rule = {_house_key(r.key): r for r in rules}
    by_setting = {_house_key(p.key): p for p in settings}
    by_legacy = {_house_key(x.key): x for x in legacy}
    out: dict[str, Any] = {}
    mapped: dict[str, tuple[str, Any]] = {}  # canonical key -> (legacy key, value)
    for raw_key, raw_value in params.items():
        key = _house_key(raw_key)
        if key in by_legacy:
            old = by_legacy[key]
            value = dict(old.values).get(_house_value(raw_value).replace("-", "_"))
            if value is None:
                allowed = ", ".join(v for v, _canonical in old.values)
                raise InvalidHouseRule(
                    _(
                        "{key} (the older name of {canonical}) must be one of {allowed}, "
                        "not {value}.",
                        key=old.key,
                        canonical=old.canonical,
                        allowed=allowed,
                        value=repr(str(raw_value)),
                    )
                )
            mapped[_house_key(old.canonical)] = (old.key, value)
            continue
        if key in by_rule:
            rule = by_rule[key]
            out[rule.key] = _house_rule_value(rule, raw_value)
        elif key in by_setting:
            out[by_setting[key].key] = _param_value(by_setting[key], raw_value)
        else:
            raise InvalidHouseRule(_unknown_param(str(raw_key), title, rules, settings, legacy))
    for key, (old_key, value) in mapped.items():
        name = by_rule[key].key if key in by_rule else by_setting[key].key
        canonical = (
            _house_rule_value(by_rule[key], value)
            if key in by_rule
            else _param_value(by_setting[key], value)
        )
        if name in out and out[name] != canonical:
            raise InvalidHouseRule(
                _(
                    "{old} and {name} disagree ({old} means {name}={canonical}, but "
                    "{name}={given} was given): give {name} alone.",
                    old=old_key,
                    name=name,
                    canonical=canonical,
                    given=out[name],
                )
            )
        out[name] = canonical
    return out


def _house_rule_value(rule: HouseRule, raw_value: object) -> str:
    value = _house_value(raw_value)
    value = dict(rule.aliases).get(value, value)
    if value not in rule.values:
        raise InvalidHouseRule(
            _(
                "{key} must be one of {allowed}, not {value}.",
                key=rule.key,
                allowed=rule.allowed_text(),
                value=repr(str(raw_value)),
            )
        )
    return value


def _unknown_house_rule(key: str, rules: tuple[HouseRule, ...], title: str) -> str:
    if not rules:
        return _("{key} is not a house rule: {title} has no house rules.",
                 key=repr(key), title=title)
    listed = "; ".join(f"{r.key} ({r.allowed_text()})" for r in rules)
    return _("{key} is not a house rule of {title}. House rules: {listed}.",
             key=repr(key), title=title, listed=listed)


def _unknown_param(
    key: str,
    title: str,
    rules: tuple[HouseRule, ...],
    settings: tuple[DuelParam, ...],
    legacy: tuple[LegacyParam, ...],
) -> str:
    listed = [f"{p.key} ({p.allowed_text()})" for p in settings]
    listed += [f"{r.key} ({r.allowed_text()})" for r in rules]
    listed += [
        _("{key} (older name of {canonical})", key=x.key, canonical=x.canonical)
        for x in legacy
    ]
    if not listed:
        if rules:
            return _("{key} is not a {title} duel setting: it takes none.",
                     key=repr(key), title=title)
        return _("{key} is not a {title} duel setting: it takes none. {title} has no "
                 "house rules.", key=repr(key), title=title)
    allowed = "; ".join(listed)
    if rules:
        return _("{key} is not a {title} duel setting. Allowed: {allowed}.",
                 key=repr(key), title=title, allowed=allowed)
    return _("{key} is not a {title} duel setting. {title} has no house rules. Allowed: "
             "{allowed}.", key=repr(key), title=title, allowed=allowed)
