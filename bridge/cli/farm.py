"""LAYER 4 — ``mobridge farm init`` (the NATS configuration and per-hub credentials of a
farm) and ``mobridge acquire`` (lease any free device a selector accepts).

``farm init --hubs host-a,host-b`` writes ``nats-server.conf`` (one NATS user per hub with
the subject permissions of ``bridge.farm.identities``) and ``<hub>.creds.json`` per hub into
``--out`` (default ``./farm``); each hub then runs ``mobridge serve --farm-credentials
<hub>.creds.json``. Exit 2 with one line for a bad hub name or option.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from bridge.cli.durations import seconds_option
from bridge.cli.failures import EXIT_USAGE, UsageError, check_url
from bridge.client import DEFAULT_URL, HubError, connect
from bridge.wire.acquire import MAX_ACQUIRE_TIMEOUT_MS, OS_RANGE_PATTERN, DeviceSelector


def add_farm_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _add_init(subparsers)
    add_acquire_command(subparsers)


def _add_init(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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


# ---- acquire --------------------------------------------------------------------------------

PLATFORMS = {"android": "ANDROID", "ios": "IOS"}
_SELECTOR_TERM = re.compile(r"^\s*(platform|os|model|tag|owner)\s*(>=|<=|=|>|<)\s*(.+?)\s*$")


def parse_selector(text: str) -> DeviceSelector:
    """``platform=ios,os>=17,model=Pixel,tag=usb3,owner=host-a`` -> a selector; several
    ``os`` terms make a range (``os>=14,os<16``). UsageError with one line otherwise."""
    fields: dict[str, Any] = {}
    tags: list[str] = []
    ranges: list[str] = []
    for term in filter(None, (t.strip() for t in text.split(","))):
        found = _SELECTOR_TERM.match(term)
        if found is None:
            raise UsageError(
                f"--device-selector term {term!r}: use platform=ios, os>=17, model=TEXT, "
                "tag=TAG or owner=HUB, joined by commas"
            )
        key, op, value = found.groups()
        if key == "os":
            ranges.append(f"{op}{value}")
        elif op != "=":
            raise UsageError(f"--device-selector term {term!r}: only os takes {op}")
        elif key == "tag":
            tags.append(value)
        else:
            fields[key] = value
    return selector_of(
        platform=fields.get("platform"),
        os=",".join(ranges) or None,
        model=fields.get("model"),
        tags=tags,
        owner=fields.get("owner"),
    )


def selector_of(
    *,
    platform: str | None,
    os: str | None,
    model: str | None,
    tags: Sequence[str],
    owner: str | None,
) -> DeviceSelector:
    """The selector of these options, checked as the hub will check it (UsageError)."""
    if os is not None and not re.fullmatch(OS_RANGE_PATTERN, os):
        raise UsageError(f'os range {os!r}: use ">=17", ">=14,<16" or "17" (dotted numbers)')
    raw: dict[str, Any] = {"tags": list(tags)}
    if platform is not None:
        if platform.lower() not in PLATFORMS:
            raise UsageError(f"platform {platform!r}: use android or ios")
        raw["platform"] = PLATFORMS[platform.lower()]
    raw.update({k: v for k, v in (("os", os), ("model", model), ("owner", owner)) if v})
    try:
        return msgspec.convert(raw, DeviceSelector)
    except msgspec.ValidationError as exc:
        raise UsageError(f"bad device selector: {exc}") from None


def add_acquire_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from bridge.cli.client import common_options

    p = subparsers.add_parser(
        "acquire",
        parents=[common_options()],
        help="lease any free matching device (waits its turn); --hold keeps it",
        description="Leases any free device the selector accepts, across the whole farm with "
        "a farm token, waiting in the hub's FIFO queue up to --timeout. Prints the device id. "
        "Without --hold the lease ends when the command exits (use it to check); with --hold "
        "it is kept until Ctrl-C or the duration. Exit 1 when none became free in time.",
    )
    p.add_argument("--platform", choices=sorted(PLATFORMS), help="android or ios")
    p.add_argument("--os", metavar="RANGE", help='OS version range: ">=17", ">=14,<16", "17"')
    p.add_argument("--model", metavar="TEXT", help="model contains TEXT (any case)")
    p.add_argument("--tag", action="append", default=[], metavar="TAG", help="has TAG (repeatable)")
    p.add_argument("--owner", metavar="HUB", help="attached to this farm hub")
    p.add_argument(
        "--timeout",
        type=seconds_option(high_ms=MAX_ACQUIRE_TIMEOUT_MS),
        default=30.0,
        metavar="DURATION",
        help="wait at most this long for a free one (default 30s, at most 10m; 0: no wait)",
    )
    p.add_argument(
        "--hold",
        nargs="?",
        const=0.0,
        type=seconds_option(),
        metavar="DURATION",
        help="keep the lease this long (30s, 5m), or until Ctrl-C without a duration",
    )
    p.set_defaults(handler=_acquire)


def _acquire(args: argparse.Namespace) -> int:
    import anyio

    from bridge.cli.client import refused
    from bridge.cli.failures import explain

    url = args.url or os.environ.get("MOBRIDGE_URL") or DEFAULT_URL
    try:
        check_url(url)
        selector = selector_of(
            platform=args.platform, os=args.os, model=args.model, tags=args.tag, owner=args.owner
        )
        return int(anyio.run(lambda: _acquire_session(args, url, selector)))
    except HubError as exc:
        return refused(exc, args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        explained = explain(exc, url)
        if explained is None or getattr(args, "debug", False):
            raise
        status, line = explained
        print(line, file=sys.stderr)
        return status


async def _acquire_session(args: argparse.Namespace, url: str, selector: DeviceSelector) -> int:
    import anyio

    async with connect(
        url, token=args.token, name=args.name, kind="cli", format=args.format,
        request_timeout=args.request_timeout,
    ) as hub:  # fmt: skip
        got = await hub.acquire(selector, timeout_s=args.timeout)
        where = f" on hub {got.owner}" if got.owner else ""
        if args.json or not sys.stdout.isatty():
            print(msgspec.json.encode(got).decode(), flush=True)
        else:
            print(got.device, flush=True)
        print(
            f"mobridge: leased {got.device}{where} ({got.platform.value.lower()}"
            f"{' ' + got.os_version if got.os_version else ''}) after {got.waited_ms} ms"
            + (
                "; Ctrl-C releases it"
                if args.hold == 0.0
                else f"; held for {args.hold:g} s"
                if args.hold is not None
                else "; released now, as this command ends (--hold S keeps it)"
            ),
            file=sys.stderr,
            flush=True,
        )
        if args.hold is not None:
            if args.hold > 0:
                await anyio.sleep(args.hold)
            else:
                await anyio.sleep_forever()
    return 0
