"""Entry point: ``python -m bridge.bench [--only wire,core,hub] [--quick]``."""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time
from collections.abc import Callable, Sequence

import msgspec

from bridge.bench import SECTIONS


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bridge.bench", description=__doc__)
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"comma-separated sections to run (default: {','.join(SECTIONS)})",
    )
    parser.add_argument("--quick", action="store_true", help="fewer runs, smaller inputs")
    return parser.parse_args(argv)


def _section(name: str) -> Callable[[bool], list[str]] | None:
    """The section's ``run``, or None when the section module does not exist (yet)."""
    try:
        module = importlib.import_module(f"bridge.bench.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"bridge.bench.{name}":
            return None
        raise
    run: Callable[[bool], list[str]] = module.run
    return run


def main(argv: Sequence[str]) -> int:
    args = _parse(argv)
    wanted = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in wanted if s not in SECTIONS]
    if unknown:
        print(f"unknown section(s): {', '.join(unknown)}; choose from {', '.join(SECTIONS)}")
        return 2
    print(
        f"mobridge bench — Python {platform.python_version()} ({platform.machine()}), "
        f"msgspec {msgspec.__version__}{', quick' if args.quick else ''}"
    )
    for name in wanted:
        run = _section(name)
        print()
        if run is None:
            print(f"{name}: no such section module yet (bridge/bench/{name}.py)")
            continue
        started = time.perf_counter()
        for line in run(args.quick):
            print(line)
        print(f"({name}: {time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
