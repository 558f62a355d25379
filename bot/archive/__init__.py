"""The duel archive (issue 15): self-contained HTML pages that show a duel and verify every
roll in the browser, and a static site of a server's duels. Presentation only: no Discord,
no database (tests/test_layering.py).

- page.py: one duel's page (``render_duel_page``, ``page_filename``, ``PAGE_FORMAT``);
- site.py: a server's static site (``write_archive``, ``render_index_page``, ``index_entry``);
- ladder.py, rating_chart.py: the ladder page and a member's rating chart;
- links.py: a duel page's address (``duel_page_url``).

A stored duel's page is ``bot.exports.formats.export_html``. Nothing is wired here (issue
25): import each module by name.
"""
