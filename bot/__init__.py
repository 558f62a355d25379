"""duelbot. Importing it gives the rules engine its translations (issue 28): the rules read
no file, so the lookup of each ruleset package's catalog is installed here, once, before
any ruleset writes a text (bot/rules/text.py)."""

from bot.i18n.ruleset_catalogs import PackageCatalogs
from bot.rules.text import install_lookup

install_lookup(PackageCatalogs())
