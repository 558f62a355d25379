"""The ladder's pure parts: how each ruleset's ending outcome counts (Ruleset.outcome_kind),
the record and streak arithmetic, and the inline SVG rating chart."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from bot.archive.rating_chart import rating_chart_svg
from bot.rules import registry
from bot.services.ladder_model import Standing, counted, play

RULE_2_14, BY_THIS_AXE, FOEQ = "rule-2.14", "by-this-axe", "foeq-spell-duel"


@pytest.mark.parametrize(
    ("ruleset", "outcome", "winner", "a", "b"),
    [
        (RULE_2_14, "a_wins", "a", "win", "loss"),
        (RULE_2_14, "b_wins", "b", "loss", "win"),
        (RULE_2_14, "a_retreats", None, "retreat", "draw"),
        (RULE_2_14, "b_retreats", None, "draw", "retreat"),
        (RULE_2_14, "both_retreat", None, "retreat", "retreat"),
        (BY_THIS_AXE, "b_wins", "b", "loss", "win"),
        (BY_THIS_AXE, "a_flees", None, "retreat", "draw"),
        (BY_THIS_AXE, "both_flee", None, "retreat", "retreat"),
        (BY_THIS_AXE, "both_defeated", None, "draw", "draw"),
        (FOEQ, "a_wins", "a", "win", "loss"),
        (FOEQ, "tie", None, "draw", "draw"),
        (FOEQ, "no_winner", None, "draw", "draw"),
    ],
)
def test_each_ruleset_says_how_its_ending_counts(
    ruleset: str, outcome: str, winner: str | None, a: str, b: str
) -> None:
    rules = registry.get(ruleset)
    assert rules.outcome_kind(outcome, winner, "a") == a  # type: ignore[arg-type]
    assert rules.outcome_kind(outcome, winner, "b") == b  # type: ignore[arg-type]


def test_streaks_and_counts() -> None:
    s = Standing.fresh()
    for kind in ("win", "win", "commander", "win"):
        s = counted(s, kind)  # type: ignore[arg-type]
    assert (s.duels, s.wins, s.commander_ended, s.streak, s.rated) == (4, 3, 1, 3, 3)
    s = counted(counted(s, "loss"), "loss")
    assert s.streak == -2
    assert counted(s, "retreat").streak == 0 and counted(s, "draw").streak == 0


def test_ratings_come_from_openskill_and_a_commander_end_rates_nothing() -> None:
    fresh = Standing.fresh()
    assert fresh.rating == 0.0
    winner, loser = play(fresh, fresh, "win", "loss")
    assert winner.rating > 0 > loser.rating and winner.mu + loser.mu == pytest.approx(50)
    same_a, same_b = play(winner, loser, "commander", "commander")
    assert (same_a.mu, same_a.sigma, same_b.mu) == (winner.mu, winner.sigma, loser.mu)
    tied_a, tied_b = play(fresh, fresh, "retreat", "draw")
    assert tied_a.mu == tied_b.mu == fresh.mu  # a retreat rates as a draw


@dataclass
class Point:
    ended_at: datetime
    rating: float


def test_the_rating_chart_is_inline_svg_with_one_point_per_duel() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    points = [Point(start + timedelta(days=i), r) for i, r in enumerate([0.0, 3.4, -1.2, 5.0])]
    svg = rating_chart_svg(points, title='Ann <"the bold">')
    root = ET.fromstring(svg)
    assert root.tag == "svg" and root.get("viewBox") == "0 0 600 200"
    assert len(root.findall("circle")) == 4
    assert len(root.find("polyline").get("points").split()) == 4  # type: ignore[union-attr]
    assert root.find("line[@class='zero']") is not None  # the range crosses 0
    assert "<\"the bold\">" not in svg and "Ann &lt;&quot;the bold&quot;&gt;" in svg
    assert "2026-01-01" in svg and "2026-01-04" in svg
    for external in ("http", "href", "<script", "url(", "@import"):
        assert external not in svg
    # The highest rating is drawn highest (smallest y).
    ys = [float(c.get("cy")) for c in root.findall("circle")]  # type: ignore[arg-type]
    assert ys.index(min(ys)) == 3


def test_the_rating_chart_of_nobody_and_of_one_duel() -> None:
    assert "No rated duel yet" in rating_chart_svg([])
    one = ET.fromstring(rating_chart_svg([Point(datetime(2026, 1, 1, tzinfo=UTC), 2.5)]))
    assert len(one.findall("circle")) == 1
