"""Placeholders in messages: ``str.format`` fields with a name, ``{duel}``, ``{count}``.

Why ``str.format`` and not ``%(duel)s``: the code writes its texts as f-strings already, so
a marked message reads like the code around it; a translator sees ``{duel}``, which needs
no explaining; and duelbot's texts hold percentages (odds, "+30 %"), each of which would be
``%%`` in the other style. A literal brace is doubled, ``{{`` and ``}}``: every message is
formatted, with fields or without, so that rule has no exception.

Only named fields are allowed (no ``{}``, ``{0}``, ``{duel.id}``, ``{sides[0]}``): a
translation comes from a contributor, and attribute or index access in a format string can
read any attribute of the values passed in. A field may carry a conversion or a format
spec (``{rate:.1f}``); a translation must then use it alike, since the field, conversion and
spec are compared as written.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

_FORMATTER = string.Formatter()


class PlaceholderError(ValueError):
    """A message that is no valid format string of named fields."""


def fields_of(text: str) -> frozenset[str]:
    """Each placeholder of ``text`` as written, e.g. ``{"{duel}", "{rate:.1f}"}``.
    Raises PlaceholderError on a stray brace or a field that is not a plain name."""
    found: set[str] = set()
    try:
        parsed = list(_FORMATTER.parse(text))
    except ValueError as exc:
        raise PlaceholderError(f"{exc} (a literal brace is written {{{{ or }}}})") from None
    for _literal, name, spec, conversion in parsed:
        if name is None:
            continue
        if not name.isidentifier():
            raise PlaceholderError(
                f"placeholder {{{name}}} is not a plain name: write {{duel}}, never {{}}, "
                "{0}, {duel.id} or {sides[0]}"
            )
        if spec and ("{" in spec or "}" in spec):
            raise PlaceholderError(f"placeholder {{{name}}} nests a field in its format spec")
        found.add("{" + name + (f"!{conversion}" if conversion else "") +
                  (f":{spec}" if spec else "") + "}")
    return frozenset(found)


def placeholder_problem(msgid: str, translation: str) -> str | None:
    """Why ``translation`` cannot stand for ``msgid`` (None: it can): it must have exactly
    the English placeholders, each used at least once, none added."""
    try:
        wanted = fields_of(msgid)
    except PlaceholderError as exc:
        return f"the English text is no valid message: {exc}"
    try:
        got = fields_of(translation)
    except PlaceholderError as exc:
        return str(exc)
    return _difference(wanted, got)


def plural_placeholder_problem(ids: Sequence[str], forms: Sequence[str]) -> str | None:
    """The same for a plural message: every form uses only placeholders of the English
    forms (the singular may drop ``{count}``: "one duel"), and the forms together use them
    all."""
    try:
        wanted = frozenset().union(*(fields_of(i) for i in ids))
    except PlaceholderError as exc:
        return f"the English text is no valid message: {exc}"
    used: set[str] = set()
    for index, form in enumerate(forms):
        try:
            got = fields_of(form)
        except PlaceholderError as exc:
            return f"plural form {index}: {exc}"
        if got - wanted:
            return f"plural form {index}: " + str(_difference(wanted, got | wanted))
        used |= got
    return _difference(wanted, frozenset(used))


def _difference(wanted: frozenset[str], got: frozenset[str]) -> str | None:
    missing, added = sorted(wanted - got), sorted(got - wanted)
    if not missing and not added:
        return None
    parts = []
    if missing:
        parts.append("missing " + ", ".join(missing))
    if added:
        parts.append("not in the English " + ", ".join(added))
    return "placeholders differ: " + "; ".join(parts)
