"""The strict fake checks a command's localizations as Discord does (bot/standin/
localizations.py): locale keys, the same limits per locale, distinct option names, and the
8,000 characters of a command counted at each field's longest localization."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.standin.limits import LimitRefused
from bot.standin.localizations import LOCALES, check_localizations, command_size
from bot.standin.options import name_ok

JSON = dict[str, Any]

COMMAND: JSON = {
    "type": 1,
    "name": "duel",
    "description": "Duels in this server",
    "name_localizations": {"de": "duell"},
    "description_localizations": {"de": "Duelle auf diesem Server"},
    "options": [
        {
            "type": 1,
            "name": "end",
            "description": "End a duel early",
            "name_localizations": {"de": "beenden"},
            "options": [
                {
                    "type": 4,
                    "name": "duel",
                    "description": "Duel number",
                    "name_localizations": {"de": "duell", "pt-BR": "duelo"},
                    "description_localizations": {"de": "Duellnummer"},
                },
                {
                    "type": 3,
                    "name": "format",
                    "description": "File format",
                    "choices": [
                        {"name": "markdown", "value": "markdown",
                         "name_localizations": {"de": "Markdown"}},
                    ],
                },
            ],
        }
    ],
}


def refusal(command: JSON, at: tuple[int, ...] = (0,)) -> JSON:
    with pytest.raises(LimitRefused) as caught:
        check_localizations(command, at, name_ok)
    assert caught.value.status == 400
    assert caught.value.body["code"] == 50035
    assert caught.value.body["message"] == "Invalid Form Body"
    errors: JSON = caught.value.body["errors"]
    return errors


def changed(path: list[str | int], key: str, value: Any) -> JSON:
    command = copy.deepcopy(COMMAND)
    node: Any = command
    for step in path:
        node = node[step]
    node[key] = value
    return command


def test_a_well_localized_command_passes() -> None:
    check_localizations(COMMAND, (0,), name_ok)
    check_localizations({**COMMAND, "name_localizations": None}, (), name_ok)


def test_a_key_that_is_no_discord_locale_is_refused() -> None:
    errors = refusal(changed([], "description_localizations", {"de-DE": "Duelle"}))
    [error] = errors["0"]["description_localizations"]["de-DE"]["_errors"]
    assert error["code"] == "BASE_TYPE_CHOICES"
    assert "de" in LOCALES and "en-US" in LOCALES and "de-DE" not in LOCALES


def test_a_too_long_description_is_refused_for_its_locale() -> None:
    errors = refusal(
        changed(["options", 0, "options", 0], "description_localizations", {"de": "x" * 101})
    )
    leaf = errors["0"]["options"]["0"]["options"]["0"]["description_localizations"]["de"]
    assert leaf["_errors"][0]["code"] == "BASE_TYPE_BAD_LENGTH"
    check_localizations(  # exactly 100 is fine
        changed(["options", 0, "options", 0], "description_localizations", {"de": "x" * 100}),
        (0,),
        name_ok,
    )


@pytest.mark.parametrize("bad", ["Duell", "duell starten", "d" * 33, "duell!", ""])
def test_a_bad_name_localization_is_refused_like_a_bad_name(bad: str) -> None:
    # A command's own: one error on the dictionary, as Discord answers (issue 7712).
    errors = refusal(changed([], "name_localizations", {"de": bad, "fr": "duel"}))
    assert errors["0"]["name_localizations"]["_errors"][0]["code"] == (
        "APPLICATION_COMMAND_INVALID_NAME"
    )
    # An option's: per locale.
    errors = refusal(changed(["options", 0], "name_localizations", {"de": bad}))
    leaf = errors["0"]["options"]["0"]["name_localizations"]["de"]
    assert leaf["_errors"][0]["code"] == "APPLICATION_COMMAND_INVALID_NAME"


def test_names_in_other_scripts_are_names() -> None:
    for good in ("zurücknehmen", "schließen", "дуэль", "対戦", "द्वंद्व", "ดวล"):
        assert name_ok(good), good


def test_a_localized_option_name_must_differ_from_the_others() -> None:
    # "format" is the other option's default name on the same level.
    errors = refusal(
        changed(["options", 0, "options", 0], "name_localizations", {"de": "format"})
    )
    leaf = errors["0"]["options"]["0"]["options"]["0"]["name_localizations"]["de"]
    assert leaf["_errors"][0]["code"] == "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
    # Two options with the same German name.
    command = changed(["options", 0, "options", 1], "name_localizations", {"de": "duell"})
    errors = refusal(command)
    assert "1" in errors["0"]["options"]["0"]["options"]


def test_a_too_long_choice_name_is_refused() -> None:
    command = changed(
        ["options", 0, "options", 1, "choices", 0], "name_localizations", {"de": "M" * 101}
    )
    errors = refusal(command)
    choice = errors["0"]["options"]["0"]["options"]["1"]["choices"]["0"]
    assert choice["name_localizations"]["de"]["_errors"][0]["code"] == "BASE_TYPE_BAD_LENGTH"


def test_the_size_counts_each_field_at_its_longest_localization() -> None:
    bare = {"type": 1, "name": "duel", "description": "Duels in this server"}
    assert command_size(bare) == 4 + 20
    assert command_size({**bare, "name_localizations": {"de": "duell", "fr": "duel"}}) == 25
    longer = changed([], "description_localizations", {"de": "x" * 100, "fr": "y" * 40})
    assert command_size(longer) - command_size(COMMAND) == 100 - len("Duelle auf diesem Server")
    huge = copy.deepcopy(COMMAND)
    huge["options"][0]["options"][1]["choices"] = [
        {"name": f"c{i}", "value": "v" * 100, "name_localizations": {"de": "n" * 100}}
        for i in range(25)
    ]
    huge["options"] += [copy.deepcopy(huge["options"][0]) | {"name": f"e{i}"} for i in range(3)]
    assert command_size(huge) > 8000
    errors = refusal(huge)
    assert errors["0"]["_errors"][0]["code"] == "APPLICATION_COMMAND_TOO_LARGE"
