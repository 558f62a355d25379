"""A duel as published (issue 25 gathered these from bot/'s top level): the versioned JSON
document (document.py), its text formats (formats.py), a round's record for `duelbot
adjudicate` (report.py), and the whole-duel check behind `duelbot verify` (verify.py).
Pure: no Discord, no database, no I/O. Nothing is wired here: import each module by name.
"""
