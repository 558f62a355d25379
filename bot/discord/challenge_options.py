"""The options of ``/duel challenge``, built from the pre-duel step declarations of the
rulesets registered when the commander cog loads (Discord fixes a command's options when
it is synced): one option per declared input over all of them (their union,
``services.challenges.challenge_inputs``), each described by its declaration, and a
``ruleset`` option when more than one ruleset declares a challenge step. Names no ruleset.

discord.py reads a command's options from its callback's signature; ``with_step_options``
gives the callback (``self, interaction, challenger, challenged, **inputs``) the signature
those declarations describe, so each input reaches it by its declared key."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any, Literal, Optional

from discord import app_commands

from bot.discord.ruleset_choices import ruleset_title
from bot.discord.translator import built
from bot.i18n.catalogs import SOURCE_LANGUAGE
from bot.i18n.context import _
from bot.i18n.translate import translate_in
from bot.rules.terms import PreDuelInput
from bot.services.challenges import CHALLENGE_STEP_ID, challenge_inputs, challenge_rulesets
from bot.services.pre_duel_inputs import allowed_values, step_of

DESCRIPTION_MAX = 100  # Discord's limit for a command's or an option's description
OPTIONS_MAX = 25  # Discord's limit of options on one command


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= DESCRIPTION_MAX else text[: DESCRIPTION_MAX - 1] + "…"


def challenge_description() -> str:
    """The command's description, from the steps' words: "Settle a pre-duel challenge
    (<short name>: <summary>)" for one ruleset, the rulesets' short names for several."""
    rulesets = challenge_rulesets()
    if not rulesets:
        # The command's description: the translator finds it in the catalog (its context).
        return translate_in(
            SOURCE_LANGUAGE,
            "command description",
            "Settle a pre-duel challenge (no installed duel system has one)",
        )
    if len(rulesets) == 1:
        rules = rulesets[0]
        step = step_of(rules, CHALLENGE_STEP_ID)
        name = rules.short_name()
        what = f"{name}: {step.summary}" if step.summary else name
        return _clip(_("Settle a pre-duel challenge ({what})", what=what))
    names = ", ".join(r.short_name() for r in rulesets)
    return _clip(_("Settle a pre-duel challenge ({what})", what=names))


def _annotation(spec: PreDuelInput) -> Any:
    if spec.kind == "bool":
        return bool
    if spec.kind == "int":
        if spec.minimum is None and spec.maximum is None:
            return int
        return app_commands.Range[int, spec.minimum, spec.maximum]
    return Literal[spec.choices]  # the declared choices, offered as the option's choices


def _input_description(key: str) -> str:
    """Input ``key``'s description as the rulesets declare it in the scope's language."""
    return _description(next(spec for spec in challenge_inputs() if spec.key == key))


def _description(spec: PreDuelInput) -> str:
    if spec.help:
        return _clip(spec.help)
    return _clip(f"{spec.label}: {allowed_values(spec)}")


# Any: discord.py's typing (a ParamSpec) cannot express a callback whose options arrive in
# **inputs, and the command decorator checks the signature given here at run time anyway.
def with_step_options(callback: Callable[..., Coroutine[Any, Any, None]]) -> Any:
    """Give ``callback`` one keyword parameter per declared input (a required input that
    every such ruleset requires is required; any other defaults to None: the step's own
    default applies) and, with several rulesets, ``ruleset``; with their descriptions and
    the ruleset choices. The callback receives them in ``**inputs``."""
    signature = inspect.signature(callback)
    fixed = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    added: list[inspect.Parameter] = []
    descriptions: dict[str, str | app_commands.locale_str] = {}
    for spec in challenge_inputs():
        # Optional[...], not X | None: a Range is an instance, which | refuses.
        added.append(
            inspect.Parameter(
                spec.key,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=(
                    _annotation(spec) if spec.required else Optional[_annotation(spec)]  # noqa: UP045
                ),
                default=inspect.Parameter.empty if spec.required else None,
            )
        )
        descriptions[spec.key] = built(partial(_input_description, spec.key))
    rulesets = challenge_rulesets()
    if len(rulesets) > 1:
        added.append(
            inspect.Parameter(
                "ruleset", inspect.Parameter.KEYWORD_ONLY, annotation=str | None, default=None
            )
        )
        # An option's description: the translator finds it in the catalog (its context).
        descriptions["ruleset"] = translate_in(
            SOURCE_LANGUAGE,
            "command description",
            "The duel system whose challenge this is (default: the one both have a sheet of)",
        )
        callback = app_commands.choices(
            ruleset=[app_commands.Choice(name=ruleset_title(r), value=r.id) for r in rulesets]
        )(callback)
    if len(fixed) - 2 + len(added) > OPTIONS_MAX:  # self and interaction are no options
        # A startup error for the operator, before any member sees the bot.
        raise ValueError(
            f"/duel challenge would have {len(fixed) - 2 + len(added)} options, over "
            f"Discord's {OPTIONS_MAX}: the rulesets declaring a challenge step declare "
            "too many distinct inputs."  # i18n: not shown
        )
    # inspect.signature reads __signature__ first, and discord.py reads inspect.signature.
    vars(callback)["__signature__"] = signature.replace(parameters=[*fixed, *added])
    return app_commands.describe(**descriptions)(callback)
