"""The challenge post in the ruleset's words: the headline is the title, the outcome and
penalty sentences lead, the roll is revealed with its seed; user text stays inert."""

from __future__ import annotations

from bot.presentation.discord_posts import challenge
from bot.services.messages import ChallengePost, Party

ROLL = {"label": "duel:0:round:0:roll:0", "sides": 6, "value": 2, "for": "a", "purpose": "x"}


def test_the_post_says_the_rulesets_sentences_and_reveals_the_roll() -> None:
    post = ChallengePost(
        None, "some-ruleset", "Ann throws down the glove before *Bob*", "declined",
        "Bob declines the glove: no bout", Party(1, "Ann"), Party(2, "*Bob*"),
        ("Bob is posted as a coward",), ("glove: Bob leaves the glove",), ROLL,
        "ab" * 32, "cd" * 32,
    )
    content, [embed] = challenge(post)
    assert content is None
    assert embed.title == "Ann throws down the glove before \\*Bob\\*"
    lines = (embed.description or "").split("\n")
    assert lines[:3] == [
        "Bob declines the glove: no bout.",
        "**Bob is posted as a coward.**",
        "glove: Bob leaves the glove",
    ]
    assert lines[3] == (
        f"Roll `duel:0:round:0:roll:0`: d6 = 2; seed `{'ab' * 32}` (commitment `{'cd' * 32}`)."
    )
    assert "declined" not in (embed.description or "")  # the code is never shown


def test_a_duel_fought_is_announced_and_a_long_headline_fits_discord() -> None:
    post = ChallengePost(
        7, "some-ruleset", "A" * 400, "taken_up", "Bob takes up the glove",
        Party(1, "Ann"), Party(2, "Bob"), (), (), None, None, None, True,
    )
    _, [embed] = challenge(post)
    assert embed.title is not None and len(embed.title) <= 256
    assert "Duel #7 begins: a commander opens round 1." in (embed.description or "")
    assert "Roll" not in (embed.description or "")
