"""What ``pybabel extract`` finds in bot/ (its methods, named in babel.cfg).

Two kinds of English text become messages of the template (bot/locales/duelbot.pot):

1. Calls of the translation functions (bot/i18n/translate.py), read with Babel's own Python
   extractor: ``translate(language, "text")``, ``translate_plural(language, "one", "many",
   n)``, ``translate_in(language, "context", "text")`` and the marker ``N_("text")``. The
   language comes first in them, so each is reported to Babel as the standard gettext
   function of the same shape (``dgettext`` and so on): no ``-k`` option is needed.
2. The slash commands as discord.py declares them, in bot/discord: no marker needed, since
   discord.py hands every command text to the translator (bot/discord/translator.py) by
   itself. Read from the source: ``name=`` and ``description=`` of ``command(...)``,
   ``Command(...)`` and ``Group(...)``; each keyword of ``describe(...)`` (an option's name)
   and its text (the option's description); ``rename(...)`` values; ``Choice(name=...)``;
   a command function's parameters (its options) and the strings of a ``Literal[...]``
   annotation (choices). Each gets its context (bot/i18n/command_rules.py), so that the
   translator sees which of Discord's rules the translation has to meet.

Texts built at run time (an f-string, a ruleset's declarations) are no literal and are not
extracted. A ruleset's own words are its package's business: babel.cfg leaves bot/rules
out of the bot's template, and `make catalogs` extracts each ruleset package (and the texts
bot/rules shares) into a template of its own with the same methods (bot/rules/text.py).
"""

from __future__ import annotations

import ast
import io
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, cast

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_python
from babel.messages.frontend import parse_mapping_cfg

from bot.i18n.catalogs import DOMAIN
from bot.i18n.command_rules import CHOICE_CONTEXT, DESCRIPTION_CONTEXT, NAME_CONTEXT

#: Our functions, and the standard gettext keyword each one is reported as (same
#: argument positions: the language where gettext's domain is).
MARKERS = {
    "translate": "dgettext",  # (language, msgid)
    "translate_in": "dpgettext",  # (language, context, msgid)
    "translate_plural": "dngettext",  # (language, singular, plural, n)
    "N_": "N_",  # (msgid)
    # bot/i18n/context.py: the language is the scope's, not an argument.
    "_": "gettext",  # (msgid)
    "_n": "ngettext",  # (singular, plural, n)
    "_p": "pgettext",  # (context, msgid)
    # bot/rules/text.py: a declaration's text with its context, not translated there.
    "NP_": "pgettext",  # (context, msgid)
}
#: Comments shown to translators with each command text (extracted comments, ``#.``).
HINTS = {
    NAME_CONTEXT: "A slash command's or option's name: lowercase, no spaces, at most 32 "
    "letters, digits, - or _.",
    DESCRIPTION_CONTEXT: "A slash command's or option's description: at most 100 characters.",
    CHOICE_CONTEXT: "One of an option's choices: at most 100 characters.",
}
#: Tag of comments a developer writes for translators above a marked line.
COMMENT_TAG = "Translators:"
#: The discord.py calls whose ``name=`` and ``description=`` are a command's (see 2. above).
DECLARING = frozenset({"command", "Command", "Group"})
#: The parameters of a command function that are no option.
NOT_OPTIONS = ("self", "interaction")

ExtractionResult = tuple[int, str, tuple[str | None, ...], list[str]]


def extract_markers(
    fileobj: IO[bytes],
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[ExtractionResult]:
    """Babel extraction method: the calls of our translation functions."""
    # Any: Babel's annotation says its extractors yield (line, message, comments, context),
    # but extract_python yields what extract() expects, (line, function, arguments,
    # comments), as this does.
    found: Iterable[Any] = extract_python(
        fileobj, dict.fromkeys(MARKERS), comment_tags, cast(Any, options)
    )
    for lineno, funcname, messages, comments in found:
        arguments = messages if isinstance(messages, tuple | list) else (messages,)
        yield lineno, MARKERS[funcname], tuple(arguments), list(comments)


def extract_discord(
    fileobj: IO[bytes],
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[ExtractionResult]:
    """Babel extraction method for bot/discord: the marked calls and the command texts."""
    source = fileobj.read()
    yield from extract_markers(io.BytesIO(source), keywords, comment_tags, options)
    for lineno, context, text in command_texts(ast.parse(source)):
        yield lineno, "pgettext", (context, text), [HINTS[context]]


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _text(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return node.value
    return None


def _literal_choices(annotation: ast.expr | None) -> Iterator[tuple[int, str]]:
    for node in ast.walk(annotation) if annotation is not None else ():
        if isinstance(node, ast.Subscript) and (
            getattr(node.value, "id", None) == "Literal"
            or getattr(node.value, "attr", None) == "Literal"
        ):
            values = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for value in values:
                if (text := _text(value)) is not None:
                    yield value.lineno, text


def _is_command(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and _called_name(d) == "command" for d in function.decorator_list
    )


def command_texts(tree: ast.AST) -> Iterator[tuple[int, str, str]]:
    """(line, context, English text) of every command text declared in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_command(node):
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            for argument in arguments:
                if argument.arg in NOT_OPTIONS:
                    continue
                yield argument.lineno, NAME_CONTEXT, argument.arg
                for lineno, choice in _literal_choices(argument.annotation):
                    yield lineno, CHOICE_CONTEXT, choice
        if not isinstance(node, ast.Call):
            continue
        called = _called_name(node)
        for keyword in node.keywords:
            text = _text(keyword.value)
            if called in DECLARING and keyword.arg == "name" and text:
                yield node.lineno, NAME_CONTEXT, text
            elif called in DECLARING and keyword.arg == "description" and text:
                yield node.lineno, DESCRIPTION_CONTEXT, text
            elif called == "describe" and keyword.arg:
                yield keyword.value.lineno, NAME_CONTEXT, keyword.arg
                if text:
                    yield keyword.value.lineno, DESCRIPTION_CONTEXT, text
            elif called == "rename" and text:
                yield keyword.value.lineno, NAME_CONTEXT, text
            elif called == "Choice" and keyword.arg == "name" and text:
                yield keyword.value.lineno, CHOICE_CONTEXT, text


def _no_directory(path: str) -> bool:
    return False


def extract_template(
    source_dir: Path, mapping_file: Path, *, subdirectories: bool = True
) -> Catalog:
    """What ``pybabel extract -F <mapping_file> <source_dir>`` puts in the template, as a
    catalog (messages and contexts; no header dates), for the catalog test to compare.
    ``subdirectories=False``: ``source_dir``'s own files only, as ``--ignore-dirs="* .*"``
    extracts them (the texts bot/rules shares, without its ruleset packages: `make
    catalogs`)."""
    with mapping_file.open(encoding="utf-8") as file:
        # Babel's own reader of the file, as `pybabel extract -F` uses it (unannotated).
        mapping = parse_mapping_cfg(file, str(mapping_file))  # type: ignore[no-untyped-call]
    method_map, options_map = mapping
    template = Catalog(domain=DOMAIN)

    found = extract_from_dir(
        source_dir,
        method_map,
        options_map,
        comment_tags=(COMMENT_TAG,),
        # None: Babel's own filter (no hidden directories, babel.cfg's ignore patterns).
        directory_filter=None if subdirectories else _no_directory,
    )
    for filename, lineno, message, comments, context in found:
        template.add(
            message,
            locations=[(f"{source_dir.name}/{filename}", lineno)],
            auto_comments=comments,
            context=context,
        )
    return template
