"""The `duelbot` command line: its parser, built from each subcommand group's module, and
its entry point (``bot.cli.main``, ``python -m bot``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from bot.cli import adjudicate, export, odds, operate, verify
from bot.cli.common import EXIT_BAD_INPUT, EXIT_OK, PROG, InputError, NotAvailable, _Parser
from bot.rules.errors import RulesError


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="duelbot: play-by-post duels with provably fair dice.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    odds.add_parser(sub)
    adjudicate.add_parser(sub)
    verify.add_parser(sub)
    export.add_parsers(sub)
    verify.add_seed_parser(sub)
    operate.add_parsers(sub, _Parser)
    operate.add_ratings_parser(sub, _Parser)
    operate.add_health_parser(sub)
    return parser


def _one_line(message: str) -> str:
    """Keys and values quoted from the input may hold line breaks: keep the error one line."""
    return " ".join(message.split())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = " ".join(
        part for part in (PROG, args.command, getattr(args, "db_command", None)) if part
    )
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (InputError, NotAvailable) as exc:
        print(f"{command}: error: {_one_line(str(exc))}", file=sys.stderr)
    except RulesError as exc:
        print(f"{command}: error: {_one_line(exc.message)}", file=sys.stderr)
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error of ours. Silence the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    return EXIT_BAD_INPUT
