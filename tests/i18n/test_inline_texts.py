"""The inline-text scan (issue 28): no text a member may read is written inline in
bot/discord, bot/presentation or bot/archive; each goes through the catalog (``_``, ``_n``,
``_p``, ``N_``, ``translate*``), or its line says ``# i18n: not shown``. The rules are in
tests/i18n/inline_scan.py; the failure lists every text as file:line and the literal.

The second half shows the scan catches a new inline text in a copy of the code, and leaves
alone what it must: marked texts, log lines, docstrings, command declarations.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from tests.i18n.inline_scan import SCANNED, Finding, looks_like_text, report, scan, scan_source

ROOT = Path(__file__).resolve().parents[2]


def test_no_inline_text_where_members_read() -> None:
    findings = scan(ROOT)
    if findings:
        pytest.fail(report(findings), pytrace=False)


# -- the scan catches a new inline text -------------------------------------------------

ADDED = '''

async def refuse_stranger(interaction: discord.Interaction[DuelBot]) -> None:
    """Refuses a member who may not use this: a docstring is no text a member reads."""
    log.warning("refused member %s in guild %s", interaction.user.id, interaction.guild_id)
    logging.getLogger(__name__).info("a stranger tried the admin commands")
    hint = _("Ask an admin of this server for the commander role.")
    await interaction.response.send_message("You are not allowed here")
    await interaction.followup.send(hint, ephemeral=True)
'''


def copy_of_the_scanned_code(tmp_path: Path) -> Path:
    for package in SCANNED:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return tmp_path


def test_a_new_inline_text_is_caught_and_marked_texts_logs_docstrings_are_not(
    tmp_path: Path,
) -> None:
    copy = copy_of_the_scanned_code(tmp_path)
    admin = copy / "bot" / "discord" / "cogs" / "admin.py"
    before = admin.read_text(encoding="utf-8")
    admin.write_text(before + ADDED, encoding="utf-8")
    line = len((before + ADDED).splitlines()) - 1  # the send_message line

    new = sorted(set(scan(copy)) - set(scan(ROOT)))
    assert new == [
        Finding("bot/discord/cogs/admin.py", line, "'You are not allowed here'")
    ], report(new)
    assert f"bot/discord/cogs/admin.py:{line}: 'You are not allowed here'" in report(new)


def test_the_scan_reads_every_module_of_the_three_packages(tmp_path: Path) -> None:
    copy = copy_of_the_scanned_code(tmp_path)
    for package in SCANNED:
        module = copy / package / "new_module_for_the_test.py"
        module.write_text('TITLE = "Duel archive"\n', encoding="utf-8")
    new = sorted(set(scan(copy)) - set(scan(ROOT)))
    assert [(f.path, f.line) for f in new] == [
        (f"{package}/new_module_for_the_test.py", 1) for package in sorted(SCANNED)
    ]


# -- the rules, one by one ----------------------------------------------------------------


def findings_in(source: str) -> list[str]:
    return [f.literal for f in scan_source(textwrap.dedent(source), "module.py")]


@pytest.mark.parametrize(
    ("text", "is_text"),
    [
        ("Round closed.", True),
        ("has ended", True),
        ("Evade", True),  # one capitalized word
        ("Evade.", True),
        ("Reason:", True),
        ("  Round ", True),  # the word once the spaces around it are left out
        ("{duel} vs {other}", False),  # placeholders removed, "vs" is one word
        ("Duel #{duel} has ended", True),
        ("**{name}**", False),
        ("duelbot:move:{duel}:{round}:{move}", False),  # a custom_id
        ("full_frontal_strike", False),
        ("%Y-%m-%d %H:%M", False),
        ("<t:{when}:R>", False),
        ("OK", False),  # two letters: not a capitalized word of three or more
        ("JSON", False),
        ("DuelBot", False),
        ("a\nb", False),
        ("duel\nended", False),  # a line break is no space between words
        ("e.g. 24h", False),  # "g." and "24h": no two words of two letters
    ],
)
def test_what_looks_like_text(text: str, is_text: bool) -> None:
    assert looks_like_text(text) is is_text


def test_literals_and_the_constant_parts_of_f_strings_are_reported() -> None:
    source = """
        def reply(duel: int, name: str, value: float) -> list[str]:
            return [
                "Round closed.",
                f"Duel #{duel} has ended.",
                f"{name} wins the duel",
                f"{value:.1f} points left",
                f"{name} wins",  # one word of lowercase letters: no text by the rules
                "Reason",
                f"{duel}:{name}",
                "evade",
            ]
    """
    assert findings_in(source) == [
        "'Round closed.'",
        "f'Duel #{duel} has ended.'",
        "f'{name} wins the duel'",
        "f'{value:.1f} points left'",
        "'Reason'",
    ]


def test_translated_texts_are_not_reported_but_a_literal_field_value_is() -> None:
    source = """
        CONSTANT = N_("A change applies to later duels.")

        def reply(language: str, n: int, name: str) -> list[str]:
            return [
                _("Duel #{duel} has ended.", duel=n),
                _n("{count} round", "{count} rounds", n),
                _p("heading", "Round"),
                translate(language, "Round closed."),
                translate_in(language, "heading", "House rules"),
                translate_plural(language, "one duel", "{count} duels", n),
                i18n._("Round closed."),
                _(CONSTANT),
                _("{who} wins.", who="the other duellist"),
            ]
    """
    assert findings_in(source) == ["'the other duellist'"]


def test_log_calls_and_warnings_are_not_reported() -> None:
    source = """
        import logging, warnings
        log = logging.getLogger(__name__)

        class Poster:
            def post(self) -> None:
                log.warning("cannot post in channel %s", 1)
                log.exception("Posting failed")
                self.log.info("posted the result of duel %s", 2)
                self.logger.error(msg="Posting failed badly")
                logging.getLogger(__name__).debug("posted two rounds")
                logging.info("posted two rounds")
                warnings.warn("the old option is deprecated", DeprecationWarning)
                print("Posting failed")
    """
    assert findings_in(source) == ["'Posting failed'"]


def test_docstrings_and_lone_strings_are_not_reported() -> None:
    source = '''
        """The module's docstring: Duel results."""

        class Card:
            """A duel's card."""

            title: str = "Duel card"
            """The attribute's doc: a lone string."""

            def show(self) -> None:
                """Shows the card."""
                if self:
                    """A lone string in a block."""
    '''
    assert findings_in(source) == ["'Duel card'"]


def test_the_slash_commands_own_texts_and_annotations_are_not_reported() -> None:
    source = """
        class Admin(commands.Cog):
            group = app_commands.Group(name="config", description="Server settings for duels")

            @group.command(name="language", description="The language of public posts")
            @app_commands.describe(language="Leave out to follow the server's language")
            @app_commands.rename(missing_move="missing move")
            @app_commands.choices(
                policy=[app_commands.Choice(name="no move", value="none")]
            )
            async def language(
                self,
                interaction: discord.Interaction["Duel Bot"],
                policy: Literal["no move", "the other wins"],
                reason: str = "No reason given",
            ) -> "Some Type":
                await interaction.response.send_message("Language set.")

        class Duel(app_commands.Group, name="duel", description="Duels in this server"):
            pass

        __all__ = ["Admin", "Duel", "Settings"]
    """
    assert findings_in(source) == ["'No reason given'", "'Language set.'"]


def test_a_line_marked_not_shown_is_not_reported() -> None:
    source = '''
        def check(share: float) -> str:
            if share > 1:
                raise ValueError("share must be in (0, 1]")  # i18n: not shown
            css = (
                "font-family: sans serif; "  # i18n: not shown
                "color: dark red"
            )
            raise ValueError("share must be positive")  # noqa: EM101  # i18n: not shown
            return "Shown to members"  # a comment, but not the marker
    '''
    assert findings_in(source) == ["'Shown to members'"]


def test_the_report_names_file_line_and_text() -> None:
    findings = [
        Finding("bot/discord/errors.py", 78, "'You are not allowed to use this command.'"),
        Finding("bot/presentation/words.py", 21, "'Evade'"),
    ]
    text = report(findings)
    assert "2 inline text(s)" in text
    assert "bot/discord/errors.py:78: 'You are not allowed to use this command.'" in text
    assert "bot/presentation/words.py:21: 'Evade'" in text
    assert "# i18n: not shown" in text
