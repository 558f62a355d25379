"""The inputs of a pre-duel step, as the rulesets declare them (``PreDuelStep.inputs``):
their union over the rulesets that declare a step (what a front end offers, once, for all of
them) and the validation of the values given for one ruleset's step. Names no ruleset."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from bot.i18n.catalogs import SOURCE_LANGUAGE
from bot.i18n.context import _, _p, current_language
from bot.rules.base import Ruleset
from bot.rules.capabilities import PreDuel, capability
from bot.rules.terms import PreDuelInput, PreDuelStep
from bot.services.errors import InvalidInput

#: A validated input value (``PreDuelInput.kind`` bool, int or choice).
InputValue = bool | int | str

_YES = ("yes", "true", "y", "1", "on")
_NO = ("no", "false", "n", "0", "off")


def step_of(rules: Ruleset, step_id: str) -> PreDuelStep:
    """The step ``step_id`` as ``rules`` declares it."""
    pre_duel = capability(rules, PreDuel)
    for step in () if pre_duel is None else pre_duel.pre_duel_steps():
        if step.id == step_id:
            return step
    raise InvalidInput(
        _(
            "{ruleset} has no pre-duel step {step}.", ruleset=rules.title, step=repr(step_id)
        ),
        ruleset=rules.id,
    )


def allowed_values(spec: PreDuelInput) -> str:
    """What an input allows, in words: "yes or no", "one of foil, epee, sabre"... (in the
    current language: it goes into the refusals below)."""
    if spec.kind == "bool":
        return _("yes or no")
    if spec.kind == "choice":
        return _("one of {choices}", choices=", ".join(spec.choices))
    if spec.minimum is not None and spec.maximum is not None:
        return _(
            "a whole number from {minimum} to {maximum}",
            minimum=spec.minimum,
            maximum=spec.maximum,
        )
    if spec.minimum is not None:
        return _("a whole number of at least {minimum}", minimum=spec.minimum)
    if spec.maximum is not None:
        return _("a whole number of at most {maximum}", maximum=spec.maximum)
    return _("a whole number")


def _same_shape(first: PreDuelInput, other: PreDuelInput) -> bool:
    return (first.kind, first.choices, first.minimum, first.maximum) == (
        other.kind,
        other.choices,
        other.minimum,
        other.maximum,
    )


def union_of_inputs(
    steps: Sequence[tuple[Ruleset, PreDuelStep]], reserved: Sequence[str] = ()
) -> tuple[PreDuelInput, ...]:
    """One input per key over the steps of several rulesets, in order of first declaration,
    required ones first: what a front end whose options are fixed in advance (Discord's
    slash commands) offers for all of them. An input is required only when every step
    declares it required; its help is its first declaration's. Two declarations of a key
    with another kind, choices or range, or a key in ``reserved`` (the front end's own
    options), cannot share one option: a ValueError naming both."""
    merged: dict[str, PreDuelInput] = {}
    declared_by: dict[str, list[str]] = {}
    required_by_all: dict[str, bool] = {}
    for rules, step in steps:
        for spec in step.inputs:
            if spec.key in reserved:
                raise ValueError(
                    f"{rules.id}'s pre-duel step {step.id!r} declares the input "
                    f"{spec.key!r}, which the command itself uses ({', '.join(reserved)})."
                )
            first = merged.setdefault(spec.key, spec)
            if not _same_shape(first, spec):
                raise ValueError(
                    f"The pre-duel input {spec.key!r} is {first.kind} "
                    f"({allowed_values(first)}) for {declared_by[spec.key][0]} but "
                    f"{spec.kind} ({allowed_values(spec)}) for {rules.id}: one option "
                    "cannot be both. Rename one of them."
                )
            declared_by.setdefault(spec.key, []).append(rules.id)
            required_by_all[spec.key] = required_by_all.get(spec.key, True) and spec.required
    union = [
        replace(
            spec,
            required=required_by_all[key] and len(declared_by[key]) == len(steps),
        )
        for key, spec in merged.items()
    ]
    return tuple(sorted(union, key=lambda spec: not spec.required))


def _parse(spec: PreDuelInput, value: object) -> InputValue:
    wrong = InvalidInput(
        _(
            "{key} ({label}) must be {allowed}, not {value}.",
            key=spec.key,
            label=spec.label,
            allowed=allowed_values(spec),
            value=repr(value),
        ),
        allowed=spec.choices,
    )
    if spec.kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().casefold()
        if text in _YES or text in _NO:
            return text in _YES
        raise wrong
    if spec.kind == "int":
        if isinstance(value, bool):
            raise wrong
        if isinstance(value, int):
            number = value
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value.strip())
        else:
            raise wrong
        if (spec.minimum is not None and number < spec.minimum) or (
            spec.maximum is not None and number > spec.maximum
        ):
            raise wrong
        return number
    text = str(value).strip().casefold()
    for choice in spec.choices:
        if text == choice.casefold():
            return choice
    raise wrong


def _step_name(step: PreDuelStep) -> str:
    """The step's title inside a sentence: lower case in English ("the glove"); as the
    ruleset writes it in another language (a German noun keeps its capital)."""
    return step.title.lower() if current_language() == SOURCE_LANGUAGE else step.title


def validated_inputs(
    rules: Ruleset, step: PreDuelStep, given: Mapping[str, object]
) -> dict[str, InputValue | None]:
    """The values of ``step``'s declared inputs from ``given`` (a value of None: not given),
    each parsed as its kind declares, defaults filled. InvalidInput names what was wrong
    and what is allowed: an input this step does not take, a required one missing, a value
    of the wrong kind or out of range."""
    declared = {spec.key: spec for spec in step.inputs}
    unknown = sorted(k for k, value in given.items() if value is not None and k not in declared)
    takes = ", ".join(f"{spec.key} ({allowed_values(spec)})" for spec in step.inputs) or _p(
        "pre-duel inputs", "none"
    )
    if unknown:
        raise InvalidInput(
            _(
                "The {step} ({ruleset}) does not take {unknown}. It takes: {takes}.",
                step=_step_name(step),
                ruleset=rules.short_name(),
                unknown=", ".join(unknown),
                takes=takes,
            ),
            ruleset=rules.id,
            allowed=tuple(declared),
        )
    values: dict[str, InputValue | None] = {}
    for spec in step.inputs:
        value = given.get(spec.key)
        if value is None:
            if spec.required:
                raise InvalidInput(
                    _(
                        "The {step} ({ruleset}) needs {key} ({label}): {allowed}.",
                        step=_step_name(step),
                        ruleset=rules.short_name(),
                        key=spec.key,
                        label=spec.label,
                        allowed=allowed_values(spec),
                    ),
                    ruleset=rules.id,
                    allowed=spec.choices,
                )
            values[spec.key] = spec.default
        else:
            values[spec.key] = _parse(spec, value)
    return values
