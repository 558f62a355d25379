"""A command's localizations, checked as Discord checks them when a bot registers it
(developers/interactions/application-commands, "Localization", and the command, option
and choice objects; the locales: developers/reference#locales):

- ``name_localizations`` and ``description_localizations`` of a command, subcommand, group
  and option, ``name_localizations`` of a choice: null or a dictionary whose keys are
  Discord locales, each value under the same rules as the field it localizes (a name 1-32
  characters of the naming regex, lowercase; a description 1-100; a choice name 1-100);
- a localized option name differs from every other option's default name on the same
  level, and from every other option's name in that locale;
- a slash command's name, description and choice names and values come to at most 8,000
  characters, each field counted at its longest localization (the default included).

A refusal is 400 / 50035 "Invalid Form Body" with every error in Discord's nested tree, and
is recorded like the message limits (``fake.limit_refusals``): the bot's sync logs a
refused tree and goes on, so a test would otherwise only see commands missing. As Discord
answers (discord/discord-api-docs issue 7712), a bad top-level command name localization is
reported on the dictionary, an option's per locale. Discord documents no answer to a key
that is no locale: the fake answers ``BASE_TYPE_CHOICES`` on that key, its code for a
value outside an enumeration.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .limits import FormErrors
from .models import JSON

#: Discord's locales (developers/reference#locales).
LOCALES = frozenset(
    {
        "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt",
        "hu", "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg",
        "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko",
    }
)  # fmt: skip
DESCRIPTION_MAX = 100
CHOICE_NAME_MAX = 100
COMMAND_SIZE_MAX = 8000
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
INVALID_NAME = ("APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")

Path = tuple[str | int, ...]
#: Whether Discord takes a text as a slash command's or option's name.
NameCheck = Callable[[Any], bool]


def check_locale(locale: str) -> str:
    """``locale`` when Discord has it (a user's client language, a guild's preferred
    locale), else ValueError: Discord sends no other value, so a test must not either."""
    if locale not in LOCALES:
        raise ValueError(
            f"fakediscord: {locale!r} is no Discord locale (developers/reference#locales): "
            f"one of {', '.join(sorted(LOCALES))}"
        )
    return locale


def check_localizations(raw: JSON, at: Path, name_ok: NameCheck) -> None:
    """Raise LimitRefused (400 / 50035) when ``raw``, a command as registered (at ``at`` of
    the request body: ``(index,)`` in a bulk overwrite), has a localization Discord refuses.
    ``name_ok(text)``: whether Discord takes ``text`` as a command or option name."""
    errors = FormErrors()
    if int(raw.get("type", 1)) == 1:
        _names(errors, raw.get("name_localizations"), at, name_ok, per_locale=False)
        _descriptions(errors, raw.get("description_localizations"), at, DESCRIPTION_MAX)
        _options(errors, list(raw.get("options") or []), at, name_ok)
        size = command_size(raw)
        if size > COMMAND_SIZE_MAX:
            errors.add(
                at,
                "APPLICATION_COMMAND_TOO_LARGE",
                f"Command exceeds maximum size ({COMMAND_SIZE_MAX})",
            )
    else:  # a user or message command: mixed case and spaces allowed, 1-32 characters
        _names(errors, raw.get("name_localizations"), at, lambda t: 1 <= len(t) <= 32, False)
    errors.raise_any()


def _entries(
    errors: FormErrors, localizations: Any, at: Path
) -> list[tuple[str, Any]]:
    """The (locale, text) pairs of a localization dictionary; a key that is no locale, or
    a dictionary that is none, is an error."""
    if localizations is None:
        return []
    if not isinstance(localizations, dict):
        errors.add(at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return []
    entries = []
    for locale, text in localizations.items():
        if locale not in LOCALES:
            errors.add(
                (*at, locale),
                "BASE_TYPE_CHOICES",
                f"Value must be one of {sorted(LOCALES)}.",
            )
        else:
            entries.append((locale, text))
    return entries


def _names(
    errors: FormErrors, localizations: Any, at: Path, name_ok: NameCheck, per_locale: bool
) -> None:
    where = (*at, "name_localizations")
    for locale, text in _entries(errors, localizations, where):
        if not isinstance(text, str) or not name_ok(text):
            errors.add((*where, locale) if per_locale else where, *INVALID_NAME)
            if not per_locale:
                return  # one error on the dictionary, whichever locales are wrong


def _descriptions(errors: FormErrors, localizations: Any, at: Path, limit: int) -> None:
    where = (*at, "description_localizations")
    for locale, text in _entries(errors, localizations, where):
        if not isinstance(text, str) or not 1 <= len(text.strip()) <= limit:
            errors.add(
                (*where, locale),
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 1 and {limit} in length.",
            )


def _options(errors: FormErrors, options: list[JSON], at: Path, name_ok: NameCheck) -> None:
    defaults = [str(option.get("name")) for option in options]
    taken: dict[str, dict[str, int]] = {}  # locale -> localized name -> option index
    for index, option in enumerate(options):
        here = (*at, "options", index)
        _names(errors, option.get("name_localizations"), here, name_ok, per_locale=True)
        _descriptions(errors, option.get("description_localizations"), here, DESCRIPTION_MAX)
        localized = option.get("name_localizations")
        for locale, text in localized.items() if isinstance(localized, dict) else ():
            others = [name for i, name in enumerate(defaults) if i != index]
            seen = taken.setdefault(locale, {})
            if text in others or text in seen:
                errors.add(
                    (*here, "name_localizations", locale),
                    "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                    "Option names must be unique",
                )
            seen[text] = index
        for number, choice in enumerate(option.get("choices") or []):
            where = (*here, "choices", number, "name_localizations")
            for locale, text in _entries(errors, choice.get("name_localizations"), where):
                if not isinstance(text, str) or not 1 <= len(text) <= CHOICE_NAME_MAX:
                    errors.add(
                        (*where, locale),
                        "BASE_TYPE_BAD_LENGTH",
                        f"Must be between 1 and {CHOICE_NAME_MAX} in length.",
                    )
        if int(option.get("type", 0)) in (SUB_COMMAND, SUB_COMMAND_GROUP):
            _options(errors, list(option.get("options") or []), here, name_ok)


def _longest(default: Any, localizations: Any) -> int:
    texts = [default, *(localizations.values() if isinstance(localizations, dict) else ())]
    return max((len(str(text)) for text in texts if text is not None), default=0)


def command_size(raw: JSON) -> int:
    """What Discord counts against a slash command's 8,000 characters: name, description
    and each option's and choice's, and the choices' values, each field at its longest
    localization."""
    size = _longest(raw.get("name"), raw.get("name_localizations"))
    size += _longest(raw.get("description"), raw.get("description_localizations"))
    for option in raw.get("options") or []:
        size += command_size(option)
        for choice in option.get("choices") or []:
            size += _longest(choice.get("name"), choice.get("name_localizations"))
            size += len(str(choice.get("value", "")))
    return size
