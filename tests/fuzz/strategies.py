"""Hypothesis strategies for hostile user text: move words, unicode tricks, mentions,
markdown, oversized and malformed input."""

from __future__ import annotations

from hypothesis import strategies as st

from bot.rules.rule_2_14.moves import MOVES

MOVE_WORDS = [w for m in MOVES for w in (m.id, m.label, *m.aliases)]
ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]
BIDI = ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u200e"]
HOMOGLYPHS = {"e": "\u0435", "a": "\u0430", "o": "\u043e", "s": "\u0455", "i": "\u0456"}
INJECTION = [
    "@everyone",
    "@here",
    "<@&123456789012345678>",
    "<@123456789012345678>",
    "<#123456789012345678>",
    "**",
    "__",
    "~~",
    "||",
    "`",
    "```",
    "[link](http://x)",
    "> ",
    "# ",
    "\\",
    "\n",
    "\x00",
    "\ud800",
    "\U0001f600",
    "ｅｖａｄｅ",
]


def homoglyphed(word: str) -> st.SearchStrategy[str]:
    """``word`` with some Latin letters swapped for Cyrillic look-alikes."""
    return st.lists(st.booleans(), min_size=len(word), max_size=len(word)).map(
        lambda flips: "".join(
            HOMOGLYPHS.get(c, c) if flip else c for c, flip in zip(word, flips, strict=True)
        )
    )


def sprinkled(word: str) -> st.SearchStrategy[str]:
    """``word`` with zero-width / bidi characters inserted."""
    return st.lists(
        st.tuples(st.integers(0, len(word)), st.sampled_from(ZERO_WIDTH + BIDI)), max_size=4
    ).map(lambda ins: _insert(word, ins))


def _insert(word: str, inserts: list[tuple[int, str]]) -> str:
    out = word
    for pos, ch in sorted(inserts, reverse=True):
        out = out[:pos] + ch + out[pos:]
    return out


token = st.one_of(
    st.sampled_from(MOVE_WORDS),
    st.sampled_from(MOVE_WORDS).flatmap(homoglyphed),
    st.sampled_from(MOVE_WORDS).flatmap(sprinkled),
    st.sampled_from(MOVE_WORDS).map(str.upper),
    st.sampled_from(INJECTION + ZERO_WIDTH + BIDI),
    st.sampled_from(["#", "#1", "#12", "# 7:", "#999999999999", "#0", " ", "-", "_", ":", ","]),
    st.text(max_size=8),
)

# DM-like text: tokens glued together, plain random text, or oversized text.
dm_text = st.one_of(
    st.lists(token, max_size=6).map("".join),
    st.lists(token, max_size=6).map(" ".join),
    st.text(max_size=300),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=190, max_size=2500),
)

# Names and reasons: anything a Discord display name or a slash string could carry, and more.
hostile_text = st.one_of(
    st.lists(
        st.one_of(st.sampled_from(INJECTION + ZERO_WIDTH + BIDI), st.text(max_size=6)), max_size=12
    ).map("".join),
    st.text(max_size=400),
)
