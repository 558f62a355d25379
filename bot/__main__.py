"""``python -m bot``: the `duelbot` command line (bot/cli), as the installed script runs it."""

from bot.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
