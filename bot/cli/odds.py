"""`duelbot odds`: exact odds of a round, by enumeration of every die face; each ruleset
declares its own flags (``odds_arguments`` of its ``ExactOdds`` capability)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from bot.cli.common import EXIT_OK, InputError
from bot.rules import registry
from bot.rules.base import Ruleset
from bot.rules.capabilities import ExactOdds, HouseRules, capability
from bot.rules.command_line import OddsFlag
from bot.rules.errors import RulesError
from bot.rules.params import HouseRule
from bot.rules.registry import DEFAULT_RULESET_ID, all_rulesets


def odds_rulesets() -> list[Ruleset]:
    """The rulesets with an odds report, the default first (as `--ruleset` offers them)."""
    found = [r for r in all_rulesets() if capability(r, ExactOdds) is not None]
    return sorted(found, key=lambda r: r.id != DEFAULT_RULESET_ID)


def odds_flags(ruleset: Ruleset) -> tuple[OddsFlag, ...]:
    exact = capability(ruleset, ExactOdds)
    return exact.odds_arguments().flags if exact is not None else ()


def house_rules_of(ruleset: Ruleset) -> tuple[HouseRule, ...]:
    """The house rules ``ruleset`` declares (none without the ``HouseRules`` capability)."""
    house = capability(ruleset, HouseRules)
    return () if house is None else house.house_rules()


def _given(args: argparse.Namespace, flag: OddsFlag) -> bool:
    return getattr(args, flag.dest, None) not in (None, False)


def odds_house_rules(ruleset_id: str, pairs: Sequence[str] | None) -> dict[str, str]:
    """``--option KEY=VALUE`` pairs, validated by the ruleset (every house rule's value,
    defaults filled in); a bad pair is one InputError line naming what is allowed."""
    ruleset = registry.get(ruleset_id)
    given: dict[str, str] = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(f"--option wants KEY=VALUE, not {pair!r}")
        given[key.strip()] = value.strip()
    house = capability(ruleset, HouseRules)
    if house is None:
        if given:
            raise InputError(f"--option: {ruleset.title} has no house rules")
        return {}
    try:
        house.parse_house_rules(given)
    except RulesError as exc:
        raise InputError(f"--option: {exc.message}") from None
    return house.explicit_house_rules(given)


def cmd_odds(args: argparse.Namespace) -> int:
    """The chosen ruleset's odds report from its own flags; another ruleset's flag is
    refused, naming the ruleset chosen."""
    house = odds_house_rules(args.ruleset, args.option)
    ruleset = registry.get(args.ruleset)
    own = odds_flags(ruleset)
    own_dests = {flag.dest for flag in own}
    foreign: list[str] = []
    for other in odds_rulesets():
        for flag in odds_flags(other):
            if flag.dest not in own_dests and flag.flag not in foreign and _given(args, flag):
                foreign.append(flag.flag)
    if foreign:
        raise InputError(f"{', '.join(foreign)} cannot be used with --ruleset {ruleset.id}")
    missing = [f.flag for f in own if f.required and getattr(args, f.dest) is None]
    if missing:
        raise InputError(f"the following arguments are required: {', '.join(missing)}")
    values = {flag.dest: getattr(args, flag.dest) for flag in own}
    values.update(a_name=args.a_name, b_name=args.b_name)
    exact = capability(ruleset, ExactOdds)
    if exact is None:  # --ruleset offers only the rulesets with exact odds
        raise InputError(f"{ruleset.title} has no exact odds")
    report = exact.odds_from_arguments(values, house)
    if args.json:
        print(json.dumps(report.data, indent=2))
    else:
        print(report.text, end="")
    return EXIT_OK


def add_parser(sub: Any) -> None:
    """`duelbot odds`: the shared flags, then each ruleset's own (``odds_arguments``), as
    the registry holds them when the parser is built."""
    rulesets = odds_rulesets()
    default = DEFAULT_RULESET_ID
    declared = [
        (r, exact.odds_arguments())
        for r in rulesets
        if (exact := capability(r, ExactOdds)) is not None
    ]
    lines = [
        f"{r.id}{' (the default)' if r.id == default else ''}: {args.summary}."
        for r, args in declared
    ]
    examples = [
        f"duelbot odds --ruleset {r.id} {args.example}"
        for r, args in declared
        if args.example and r.id != default
    ]
    odds = sub.add_parser(
        "odds",
        help="exact odds of a round: "
        + ", ".join(r.short_name() for r in rulesets),
        description="Exact probabilities (fractions), by enumeration of every die face.\n"
        + "\n".join(lines),
        epilog="\n".join(f"example: {e}" for e in examples) or None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    odds.add_argument(
        "--ruleset",
        choices=tuple(r.id for r in rulesets),
        default=default,
        help=f"default: {default}",
    )
    odds.add_argument("--a-name", default="A", help="name of duellist A in the table")
    odds.add_argument("--b-name", default="B", help="name of duellist B in the table")
    seen: set[str] = {"ruleset", "a_name", "b_name", "option", "json"}
    for ruleset in rulesets:
        for flag in odds_flags(ruleset):
            if flag.dest in seen:  # two rulesets share it: declared once
                continue
            seen.add(flag.dest)
            help_text = f"{ruleset.id}: {flag.help}"
            if flag.kind == "switch":
                odds.add_argument(flag.flag, action="store_true", help=help_text)
            else:
                odds.add_argument(
                    flag.flag,
                    type=int if flag.kind == "int" else str,
                    default=None,
                    metavar=flag.metavar,
                    choices=flag.choices or None,
                    help=help_text,
                )
    house = [
        f"{r.id}: " + ", ".join(f"{h.key}={'|'.join(h.values)}" for h in declared_rules)
        for r in rulesets
        if (declared_rules := house_rules_of(r))
    ]
    odds.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="a house rule of the ruleset (repeatable), e.g. flight=after-blows"
        + "".join(f"; {text}" for text in house),
    )
    odds.add_argument("--json", action="store_true", help="machine-readable output")
    odds.set_defaults(func=cmd_odds)
