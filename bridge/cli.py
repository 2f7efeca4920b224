"""LAYER 4 — the ``mobridge`` command: argument parsing -> config -> run; no logic here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mobridge",
        description="A hub that lets many programs share one phone at once.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    sub.add_parser("serve", help="start the hub (default device: the simulated one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        print("mobridge serve: the hub is not built yet (see issue 4)", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
