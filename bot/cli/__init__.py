"""The `duelbot` command line (issue 25: one module per subcommand group).

- main.py: the parser and the entry point; common.py: exit codes, input errors, the database;
- odds.py, adjudicate.py, verify.py (verify, seed), export.py (export, archive),
  ratings.py (ratings rebuild), operate.py (run, sync-commands, sandbox, db upgrade, health);
- run.py, sync_commands.py: `duelbot run` and `duelbot sync-commands`, imported when they run.

``duelbot = "bot.cli:main"`` (pyproject.toml) is the one name this package exports.
"""

from bot.cli.main import main

__all__ = ["main"]
