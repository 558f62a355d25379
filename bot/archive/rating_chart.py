"""A member's rating over time as an inline SVG string (issue 17, for the archive pages).

Pure text: no I/O, no external request (no fonts, images, scripts or links; no xmlns
needed inline in HTML5). Feed it ``RatingService.rating_history(...)`` (anything with
``ended_at`` and ``rating``). Colours follow ``currentColor`` so the page's light and dark
themes apply; the chart scales to its container (viewBox, width 100%).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape
from typing import Protocol

from bot.i18n.context import _


class RatedPoint(Protocol):
    @property
    def ended_at(self) -> datetime: ...

    @property
    def rating(self) -> float: ...


WIDTH, HEIGHT = 600, 200
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 44, 12, 24, 28


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value == value else "0"


def rating_chart_svg(points: Sequence[RatedPoint], *, title: str | None = None) -> str:
    """``points`` (oldest first) as an SVG line chart: one point per ended duel, the
    duel's index on x (duels, not days: a quiet month is not a flat line), the rating on y,
    a 0 line when the range crosses it, and the first and last dates under the axis. Each
    point carries a ``<title>`` (date and rating) for a hover tooltip."""
    label = escape(_("Rating") if title is None else title, quote=True)
    head = (
        f'<svg class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" '  # i18n: not shown
        f'role="img" aria-label="{label}" preserveAspectRatio="xMidYMid meet">'  # i18n: not shown
        f"<title>{label}</title>"  # i18n: not shown
    )
    if not points:
        nothing = escape(_("No rated duel yet"))
        return (
            head
            + f'<text x="{WIDTH // 2}" y="{HEIGHT // 2}" text-anchor="middle" '
            f'fill="currentColor" font-size="14">{nothing}</text></svg>'
        )
    ratings = [float(p.rating) for p in points]
    low, high = min(ratings), max(ratings)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    plot_w = WIDTH - PAD_LEFT - PAD_RIGHT
    plot_h = HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(i: int) -> float:
        return PAD_LEFT + (plot_w * i / (len(points) - 1) if len(points) > 1 else plot_w / 2)

    def y(value: float) -> float:
        return PAD_TOP + plot_h * (high - value) / (high - low)

    parts = [head]
    parts.append(
        f'<g fill="currentColor" font-size="11" font-family="sans-serif">'
        f'<text x="{PAD_LEFT - 6}" y="{y(high) + 4:.1f}" text-anchor="end">{_num(high)}</text>'
        f'<text x="{PAD_LEFT - 6}" y="{y(low) + 4:.1f}" text-anchor="end">{_num(low)}</text>'
        f'<text x="{PAD_LEFT}" y="{HEIGHT - 8}">{points[0].ended_at:%Y-%m-%d}</text>'
        f'<text x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 8}" text-anchor="end">'
        f"{points[-1].ended_at:%Y-%m-%d}</text></g>"
    )
    parts.append(
        f'<line x1="{PAD_LEFT}" y1="{PAD_TOP}" x2="{PAD_LEFT}" y2="{HEIGHT - PAD_BOTTOM}" '
        'stroke="currentColor" stroke-opacity="0.4"/>'
    )
    if low < 0 < high:
        parts.append(
            f'<line class="zero" x1="{PAD_LEFT}" y1="{y(0):.1f}" '  # i18n: not shown
            f'x2="{WIDTH - PAD_RIGHT}" '  # i18n: not shown
            f'y2="{y(0):.1f}" stroke="currentColor" stroke-opacity="0.3" '  # i18n: not shown
            'stroke-dasharray="4 4"/>'  # i18n: not shown
        )
    coords = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(ratings))
    parts.append(
        f'<polyline points="{coords}" fill="none" '  # i18n: not shown
        'stroke="currentColor" stroke-width="2" '  # i18n: not shown
        'stroke-linejoin="round"/>'  # i18n: not shown
    )
    for i, (point, rating) in enumerate(zip(points, ratings, strict=True)):
        parts.append(
            f'<circle cx="{x(i):.1f}" cy="{y(rating):.1f}" '  # i18n: not shown
            'r="3" fill="currentColor">'  # i18n: not shown
            f"<title>{point.ended_at:%Y-%m-%d}: {rating:.1f}</title></circle>"  # i18n: not shown
        )
    parts.append("</svg>")
    return "".join(parts)
