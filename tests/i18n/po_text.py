"""Editing a .po file as text, as a contributor would (the catalog tests break copies)."""

from __future__ import annotations


def without_entry(po_text: str, lineno: int | None) -> str:
    """``po_text`` without the entry whose ``msgid`` is on line ``lineno`` (1-based): its
    comments, context, ids and strings, up to the blank lines around it."""
    if lineno is None:
        raise ValueError("the entry was not read from a file: it has no line")
    lines = po_text.splitlines(keepends=True)
    start = end = lineno - 1
    while start > 0 and lines[start - 1].strip():
        start -= 1
    while end < len(lines) and lines[end].strip():
        end += 1
    return "".join(lines[:start] + lines[end + 1 :])
