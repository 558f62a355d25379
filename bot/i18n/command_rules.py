"""What Discord accepts as a command's localized texts (developers/interactions/
application-commands, "Application Command Naming" and the object's fields), and the
catalog contexts that tell those texts apart from the bot's other messages.

A command's name in German is not the same message as the word in a sentence: "start" the
subcommand becomes ``starten``, lowercase and without spaces, while a reply may say "Start".
So the command tree's texts carry a gettext context (msgctxt) of their own.
"""

from __future__ import annotations

import unicodedata

#: Command, subcommand, group and option names: 1-32 characters, lowercase.
NAME_CONTEXT = "command name"
#: Their descriptions: 1-100 characters.
DESCRIPTION_CONTEXT = "command description"
#: An option's choice names: 1-100 characters.
CHOICE_CONTEXT = "command choice"
COMMAND_CONTEXTS = (NAME_CONTEXT, DESCRIPTION_CONTEXT, CHOICE_CONTEXT)

NAME_MAX = 32
DESCRIPTION_MAX = 100
CHOICE_MAX = 100
#: Beside letters and digits, Discord's name regex
#: ``^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$`` allows these, and the Devanagari and
#: Thai scripts whole (their vowel signs are marks, not letters).
NAME_PUNCTUATION = "-_'"
_SCRIPT_BLOCKS = ((0x0900, 0x097F), (0x0E00, 0x0E7F))


def _name_character(char: str) -> bool:
    if char in NAME_PUNCTUATION or unicodedata.category(char)[0] in "LN":
        return True
    return any(low <= ord(char) <= high for low, high in _SCRIPT_BLOCKS)


def name_problem(name: str) -> str | None:
    """Why Discord refuses ``name`` as a command or option name (None: it accepts it)."""
    if not 1 <= len(name) <= NAME_MAX:
        return f"a name has 1 to {NAME_MAX} characters, this one {len(name)}"
    bad = sorted({char for char in name if not _name_character(char)})
    if bad:
        return "a name has only letters, digits, - _ and ', no " + " ".join(
            repr(char) for char in bad
        )
    if name != name.lower():
        return "a name is lowercase"
    return None


def command_text_problem(context: str, text: str) -> str | None:
    """Why Discord refuses ``text`` as a localization of the kind ``context`` names (None:
    it accepts it; any other context is no command text)."""
    if context == NAME_CONTEXT:
        return name_problem(text)
    limit = {DESCRIPTION_CONTEXT: DESCRIPTION_MAX, CHOICE_CONTEXT: CHOICE_MAX}.get(context)
    if limit is not None and not 1 <= len(text) <= limit:
        return f"Discord takes 1 to {limit} characters here, this has {len(text)}"
    return None
