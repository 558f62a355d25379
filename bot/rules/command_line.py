"""What a ruleset gives `duelbot` on the command line (issue 11), as plain data: the flags
of its `duelbot odds` report and the report itself, and its short `duelbot adjudicate`
round input. bot/cli builds the parser and reads the input from these alone, so it
names no ruleset. Pure: no argparse, no I/O (the CLI turns a flag into an argument).

Errors are ``RulesError``s whose message names the flag or JSON field and what is allowed;
the CLI prints them as one line with exit code 2, as its own input errors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bot.rules.errors import InvalidRoundInput

Side = Literal["a", "b"]


@dataclass(frozen=True, slots=True)
class OddsFlag:
    """One `duelbot odds` flag of a ruleset: ``--a-skill`` has dest ``a_skill``.

    ``kind``: ``int`` (a whole number), ``text`` or ``switch`` (present or not);
    ``required``: the ruleset's report needs it (checked when that ruleset is chosen)."""

    dest: str
    help: str
    kind: Literal["int", "text", "switch"] = "text"
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    required: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.dest.replace("_", "-")


@dataclass(frozen=True, slots=True)
class OddsArguments:
    """A ruleset's part of `duelbot odds`: one line on what it computes, its flags, and an
    example of them (for --help)."""

    summary: str
    flags: tuple[OddsFlag, ...]
    example: str = ""


@dataclass(frozen=True, slots=True)
class OddsReport:
    """An odds report as `duelbot odds` prints it: ``data`` with --json, else ``text``."""

    data: dict[str, Any]
    text: str


@dataclass(frozen=True, slots=True)
class ShortRound:
    """A round read from a ruleset's short `duelbot adjudicate` input: the state before
    it, each side's choice and the options, ready for ``Ruleset.resolve``."""

    state: Any
    choices: dict[Side, str | None]
    options: Any


# -- JSON field checks for short inputs (messages as the CLI's own) ---------------------


def describe(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def json_object(value: Any, field: str, allowed: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InvalidRoundInput(f"{field} must be a JSON object with keys {', '.join(allowed)}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise InvalidRoundInput(
            f"{field} has unknown key(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}"
        )
    return value


def required(data: Mapping[str, Any], key: str, field: str) -> Any:
    if key not in data:
        raise InvalidRoundInput(f"{field}{key} is missing")
    return data[key]


def whole_number(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRoundInput(f"{field} must be a whole number, not {describe(value)}")
    return value


def true_or_false(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidRoundInput(f"{field} must be true or false, not {describe(value)}")
    return value
