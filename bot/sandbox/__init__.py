"""`duelbot sandbox`: the real bot against the local Discord stand-in (bot.standin), with a
web page to act as every member of a rehearsal server (docs/sandbox.md).

Nothing in the bot's layers imports this package or the stand-in (tests/test_layering.py);
the command line reaches it lazily.
"""
