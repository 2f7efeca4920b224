"""LAYER 4 — ``mobridge farm init``: the NATS configuration and per-hub credentials of a farm.

``farm init --hubs host-a,host-b`` writes ``nats-server.conf`` (one NATS user per hub with
the subject permissions of ``bridge.farm.identities``) and ``<hub>.creds.json`` per hub into
``--out`` (default ``./farm``); each hub then runs ``mobridge serve --farm-credentials
<hub>.creds.json``. Exit 2 with one line for a bad hub name or option.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bridge.cli.failures import EXIT_USAGE


def add_farm_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "farm",
        help="set up a farm: NATS config and one credentials file per hub (farm init)",
        description="Farm administration. See docs/farm.md.",
    )
    verbs = p.add_subparsers(dest="farm_verb", metavar="VERB", required=True)
    init = verbs.add_parser(
        "init",
        help="write nats-server.conf and one <hub>.creds.json per hub",
        description="Writes the nats-server configuration (one user per hub, each allowed "
        "only its own subjects) and one credentials file per hub (mode 0600). Running it "
        "again makes new passwords: restart NATS and the hubs with the new files.",
    )
    init.add_argument("--hubs", required=True, metavar="A,B,...", help="the hubs' farm names")
    init.add_argument(
        "--out", type=Path, default=Path("farm"), metavar="DIR", help="where (default ./farm)"
    )
    init.add_argument(
        "--url",
        default="nats://127.0.0.1:4222",
        help="the URL the hubs reach NATS at (default nats://127.0.0.1:4222)",
    )
    init.add_argument(
        "--listen",
        default=None,
        metavar="HOST:PORT",
        help="what nats-server listens on (default: the URL's host and port)",
    )
    init.add_argument("--prefix", default="mobridge.farm", help="NATS subject prefix")
    init.set_defaults(handler=_init)


def _init(args: argparse.Namespace) -> int:
    from urllib.parse import urlsplit

    from bridge.farm.config import FarmConfig, FarmConfigError
    from bridge.farm.identities import IdentityError, farm_init, parse_hubs

    try:
        hubs = parse_hubs(args.hubs)
        FarmConfig(url=args.url, hub=hubs[0], prefix=args.prefix)  # checks URL and prefix
    except (IdentityError, FarmConfigError) as exc:
        print(f"mobridge farm init: {exc}", file=sys.stderr)
        return EXIT_USAGE
    parts = urlsplit(args.url)
    listen = args.listen or f"{parts.hostname}:{parts.port or 4222}"
    conf, files = farm_init(hubs, args.out, url=args.url, listen=listen, prefix=args.prefix)
    print(f"wrote {conf} (start NATS: nats-server -c {conf})")
    for hub, path in zip(hubs, files, strict=True):
        print(f"wrote {path} (on {hub}: mobridge serve --farm-credentials {path})")
    return 0
