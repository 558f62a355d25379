"""Rulesets installed as packages: the entry-point group ``duelbot.rulesets``.

Each entry point names a ``Ruleset`` object (``module:OBJECT``), or a zero-argument factory
that returns one (a ``Ruleset`` subclass, or a function). duelbot's own pyproject.toml
declares its rulesets in the same group, so the registry (bot/rules/registry.py) finds the
built-in rulesets and a community's package the same way (docs/rulesets.md).

``load`` takes the entry points in a fixed order, duelbot's own first, then the others by
distribution and entry-point name, and refuses, each with one warning naming the entry
point, its distribution and why, one that fails to import, one whose object is not a
Ruleset, and one whose id is already loaded (so a plug-in can never replace a built-in
ruleset or an earlier plug-in); the others load. Nothing here names a ruleset.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from bot.rules.base import Ruleset
from bot.rules.capabilities import capability_problems

GROUP = "duelbot.rulesets"

#: The distribution whose entry points are the built-in rulesets.
HOST_DISTRIBUTION = "duelbot"

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Refusal:
    """An entry point that did not load, and why (one log line)."""

    entry_point: str  # "fencing-bout = duelbot_fencing.ruleset:FENCING"
    distribution: str  # "duelbot-fencing 0.1.0"
    reason: str

    def line(self) -> str:
        return (
            f"Ruleset plug-in refused: entry point {self.entry_point!r} (group {GROUP}) of "
            f"{self.distribution}: {self.reason}"
        )


@dataclass(frozen=True, slots=True)
class Loaded:
    """What ``load`` found: the rulesets by id in load order, the ids that are duelbot's
    own (its distribution's entry points, or the fallback), and the refusals."""

    rulesets: dict[str, Ruleset]
    own: tuple[str, ...]
    refused: tuple[Refusal, ...]


class _Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def installed_entry_points() -> tuple[EntryPoint, ...]:
    """Every entry point of the group in the installed distributions' metadata."""
    return tuple(entry_points(group=GROUP))


def distribution_of(entry_point: EntryPoint) -> str:
    """``name version`` of the distribution declaring ``entry_point``."""
    dist = entry_point.dist
    if dist is None:
        return "no distribution (not from installed metadata)"
    return f"{dist.name} {dist.version}"


def is_own(entry_point: EntryPoint) -> bool:
    dist = entry_point.dist
    return dist is not None and _normalized(dist.name) == HOST_DISTRIBUTION


def load(found: Iterable[EntryPoint], fallback: Sequence[EntryPoint] = ()) -> Loaded:
    """Load the rulesets ``found`` names (``installed_entry_points()``): duelbot's own
    first, in their order, then the others sorted by distribution and name. ``fallback``
    stands for duelbot's own when no duelbot distribution declares any: a source tree run
    without installing, or an install made before the group existed."""
    found = tuple(found)
    own = [(ep, distribution_of(ep)) for ep in found if is_own(ep)]
    if not own and fallback:
        logger.info(
            "No installed %s distribution declares the %s entry points (a source tree not "
            "installed, or installed before they existed: reinstall it); using its "
            "built-in list", HOST_DISTRIBUTION, GROUP,
        )
        own = [(ep, f"{HOST_DISTRIBUTION} (its built-in list)") for ep in fallback]
    others = sorted(
        ((ep, distribution_of(ep)) for ep in found if not is_own(ep)),
        key=lambda pair: (pair[1], pair[0].name, pair[0].value),
    )
    rulesets: dict[str, Ruleset] = {}
    origin: dict[str, str] = {}
    own_ids: list[str] = []
    refused: list[Refusal] = []
    ordered = [(ep, dist, True) for ep, dist in own] + [(ep, dist, False) for ep, dist in others]
    for entry_point, distribution, is_duelbots in ordered:
        try:
            ruleset = ruleset_of(entry_point)
            if ruleset.id in rulesets:
                raise _Refused(
                    f"its ruleset id {ruleset.id!r} is already loaded from {origin[ruleset.id]}"
                )
        except _Refused as refusal:
            refused.append(Refusal(_spelt(entry_point), distribution, refusal.reason))
            logger.warning("%s", refused[-1].line())
            continue
        rulesets[ruleset.id] = ruleset
        origin[ruleset.id] = f"{_spelt(entry_point)!r} of {distribution}"
        if is_duelbots:
            own_ids.append(ruleset.id)
    return Loaded(rulesets, tuple(own_ids), tuple(refused))


def ruleset_of(entry_point: EntryPoint) -> Ruleset:
    """The Ruleset ``entry_point`` names: the object itself, or what calling it with no
    argument returns (a class or a factory); ``_Refused`` saying why not."""
    try:
        target: Any = entry_point.load()
    # A plug-in's import may raise anything (a missing dependency, a syntax error, its own
    # bug): it is that plug-in's failure, never the bot's start-up's.
    except Exception as exc:
        raise _Refused(f"it failed to import: {type(exc).__name__}: {exc}") from None
    if isinstance(target, type) or (not isinstance(target, Ruleset) and callable(target)):
        try:
            target = target()
        except Exception as exc:
            raise _Refused(
                f"calling {entry_point.value} with no argument failed: "
                f"{type(exc).__name__}: {exc}"
            ) from None
    if isinstance(target, type) or not isinstance(target, Ruleset):
        raise _Refused(
            f"{entry_point.value} is {_a(target)}, not a bot.rules.base.Ruleset (nor a "
            "class or function that returns one when called with no argument)"
        )
    if not isinstance(target.id, str) or not target.id.strip():
        raise _Refused(f"{entry_point.value} has no ruleset id (its id is {target.id!r})")
    problems = capability_problems(target)
    if problems:  # a capability claimed in part, or members of one not claimed
        raise _Refused("; ".join(problems))
    return target


def _a(value: object) -> str:
    name = type(value).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def _spelt(entry_point: EntryPoint) -> str:
    return f"{entry_point.name} = {entry_point.value}"


def _normalized(name: str) -> str:
    # Distribution names compare as PEP 503 normalises them ("Duel_Bot" is "duel-bot").
    return re.sub(r"[-_.]+", "-", name).lower()
