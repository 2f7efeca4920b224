"""LAYER 4 — the ``mobridge`` command: argument parsing -> config -> run; no logic here.

Every mistake ends in one line on stderr saying what to do and exit status 2; a traceback is
printed only with ``--debug`` (``mobridge --debug COMMAND`` or ``COMMAND --debug``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from bridge import __version__

if TYPE_CHECKING:
    from pathlib import Path

    from bridge.farm.config import FarmConfig

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line (and the --help to read), with a
    "did you mean" for a mistyped command or choice. Abbreviated options are off
    (``allow_abbrev=False``): ``--timeout`` never silently means ``--timeout-ms``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._words: list[str] = []

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if args is not None:
            self._words = list(args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        owner = self._command_parser()
        unknown = owner._unknown_option(self._words)
        if unknown is not None:  # say it first: the other complaint is its consequence
            message = unknown
        self.exit(EXIT_USAGE, f"{owner.prog}: {did_you_mean(message)} (see {owner.prog} --help)\n")

    def _command_parser(self) -> OneLineParser:
        """The parser of the command the words name (``mobridge wait``), else this one."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word in self._words:
                    chosen = action.choices.get(word)
                    if isinstance(chosen, OneLineParser):
                        chosen._words = chosen._words or self._words
                        return chosen._command_parser()
                    if not word.startswith("-"):
                        break
        return self

    def _unknown_option(self, words: list[str]) -> str | None:
        """``unrecognized option --scr; did you mean --screen?`` for the first ``--word``
        this parser does not know, else None."""
        import difflib

        known = sorted(self._option_string_actions)
        for word in words:
            if word == "--":
                break
            name = word.split("=", 1)[0]
            if name.startswith("--") and name not in self._option_string_actions:
                close = difflib.get_close_matches(name, known, n=2, cutoff=0.7)
                hint = f"; did you mean {' or '.join(close)}?" if close else ""
                return f"unrecognized option {name}{hint}"
        return None


_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<got>[^']*)' \(choose from (?P<choices>.*)\)")


def did_you_mean(message: str) -> str:
    """argparse's "invalid choice" message, shortened to the closest choices when there are
    any (``argument COMMAND: invalid choice: 'scren'; did you mean screen?``)."""
    found = _INVALID_CHOICE.search(message)
    if found is None:
        return message
    import difflib

    choices = [c.strip().strip("'") for c in found.group("choices").split(",")]
    close = difflib.get_close_matches(found.group("got"), choices, n=3, cutoff=0.6)
    head = message[: found.start()] + f"invalid choice: {found.group('got')!r}"
    if close:
        return f"{head}; did you mean {' or '.join(close)}?"
    if message.startswith("argument COMMAND"):
        return f"{head}: not a command"
    return f"{head}; choose from {', '.join(choices)}"


def _sim_scenes() -> tuple[str, ...]:
    from bridge.devices.sim.device import START_SCENES

    return START_SCENES


SERVE_HELP = "start the hub (default device: the simulated one)"


def _serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from pathlib import Path

    from bridge.cli.hub_options import add_sim_options
    from bridge.hub.event_loop import LOOPS

    p = sub.add_parser("serve", help=SERVE_HELP)
    p.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )
    p.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any)")
    p.add_argument(
        "--token",
        default=os.environ.get("MOBRIDGE_TOKEN"),
        help="controller token (env MOBRIDGE_TOKEN; generated when absent)",
    )
    p.add_argument(
        "--observer-token",
        default=os.environ.get("MOBRIDGE_OBSERVER_TOKEN"),
        help="read-only token (env MOBRIDGE_OBSERVER_TOKEN)",
    )
    p.add_argument(
        "--allow-unsafe-anonymous",
        action="store_true",
        help="accept clients without a token (never on a shared network)",
    )
    p.add_argument("--no-sim", action="store_true", help="do not start the simulated device")
    add_sim_options(p, scene="menu", scenes=_sim_scenes())
    p.add_argument(
        "--sim-id",
        metavar="ID",
        help="the simulated device's id instead of sim-android / sim-ios (farm hubs each "
        "need their own)",
    )
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="URL",
        help="attach an agent by websocket URL (repeatable)",
    )
    p.add_argument(
        "--takeover-after-s",
        type=float,
        default=300.0,
        help="an idle lease can be taken over after this many seconds",
    )
    p.add_argument(
        "--veto-window",
        type=float,
        default=0.0,
        metavar="S",
        help="announced mutating actions wait S seconds (max 30) so a person can veto them "
        "from the dashboard (default 0: off)",
    )
    p.add_argument(
        "--lease-priority",
        action="append",
        default=[],
        metavar="KIND=N",
        help="lease priority of a client kind (default person=30 dashboard=30 agent=10, "
        "others 20); a higher one takes a lower one's lease at once; repeatable",
    )
    p.add_argument("--secrets-file", type=Path, help="JSON {name: value} for secret:// refs")
    p.add_argument(
        "--install-dir",
        type=Path,
        metavar="DIR",
        help="allow app.install of the packages in DIR, named by file name (off by default)",
    )
    p.add_argument("--log-json", action="store_true", help="JSON log lines even on a TTY")
    p.add_argument(
        "--loop",
        choices=LOOPS,
        default="asyncio",
        help="event loop: asyncio (default) or uvloop (extra mobridge[fast]; faster fan-out)",
    )
    p.add_argument("--no-dashboard", action="store_true", help="do not serve /dashboard")
    p.add_argument(
        "--name",
        metavar="NAME",
        help="this hub's name: clients see it, and its default journal is keyed by it "
        "instead of by the port",
    )
    p.add_argument(
        "--journal",
        type=Path,
        metavar="PATH",
        help="the history database (default: this hub's own, "
        "$XDG_STATE_HOME/mobridge/journals/<port or name>+<devices>.sqlite3)",
    )
    p.add_argument("--no-journal", action="store_true", help="keep no history on disk")
    p.add_argument(
        "--vision",
        action="store_true",
        help="read text where the accessibility tree is blind (canvases): the vision extra",
    )
    p.add_argument(
        "--journal-max-age",
        type=float,
        default=7.0,
        metavar="DAYS",
        help="drop history older than this (default 7 days)",
    )
    p.add_argument(
        "--journal-max-mb",
        type=float,
        default=1024.0,
        metavar="MB",
        help="keep the journal under this size (default 1024 MB)",
    )
    p.add_argument(
        "--android",
        nargs="?",
        const="*",
        metavar="SERIAL",
        help="drive real Android phones over adb (every one, or only SERIAL)",
    )
    p.add_argument("--android-agent-apk", type=Path, metavar="PATH", help="the agent APK")
    p.add_argument(
        "--android-agentless",
        action="store_true",
        help="no APK: uiautomator dump + adb input (slow)",
    )
    p.add_argument(
        "--ios",
        nargs="?",
        const="*",
        metavar="UDID",
        help="drive real iPhones over usbmux (every one, or only UDID; the ios extra)",
    )
    p.add_argument(
        "--ios-simulator",
        metavar="UDID",
        help="attach to the runner of this Simulator on 127.0.0.1 (starts it with --ios-xctestrun)",
    )
    p.add_argument("--ios-port", type=int, metavar="P", help="the runner's port (default 8200)")
    p.add_argument("--ios-runner", metavar="BUNDLE_ID", help="the runner app's bundle id")
    p.add_argument("--ios-app", metavar="BUNDLE_ID", help="the app under test (captured in front)")
    p.add_argument(
        "--ios-xctestrun",
        type=Path,
        metavar="PATH",
        help="Simulator: run xcodebuild test-without-building with this .xctestrun (macOS)",
    )
    p.add_argument(
        "--device-tag",
        action="append",
        default=[],
        metavar="DEVICE=TAG",
        help="tag a device for `acquire --tag` (repeatable; TAG: letters, digits, _.:=-)",
    )
    p.add_argument(
        "--webdriver",
        nargs="?",
        type=int,
        const=4723,
        metavar="PORT",
        help="also serve W3C WebDriver for Appium clients on 127.0.0.1:PORT (default 4723; "
        "0 = any; the webdriver extra; docs/webdriver.md)",
    )
    _farm_arguments(p)


def _device_tags(items: list[str]) -> dict[str, tuple[str, ...]]:
    """``--device-tag DEVICE=TAG`` values; ValueError with a one-line reason."""
    tags: dict[str, list[str]] = {}
    for item in items:
        device, sep, tag = item.partition("=")
        if not sep or not device or not re.fullmatch(r"[A-Za-z0-9_.:=-]{1,64}", tag):
            raise ValueError(f"--device-tag {item!r}: use DEVICE=TAG (TAG: letters, digits, _.:=-)")
        if len(tags.setdefault(device, [])) >= 16:
            raise ValueError(f"--device-tag: at most 16 tags for {device}")
        tags[device].append(tag)
    return {device: tuple(values) for device, values in tags.items()}


def _farm_arguments(p: argparse.ArgumentParser) -> None:
    from pathlib import Path

    farm = p.add_argument_group("farm (several hubs, one view, over NATS: docs/farm.md)")
    farm.add_argument("--farm", metavar="URL", help="join a farm: nats://HOST:PORT or tls://...")
    farm.add_argument(
        "--farm-name", metavar="NAME", help="this hub's name in the farm (default: host name)"
    )
    farm.add_argument("--farm-user", default=os.environ.get("MOBRIDGE_FARM_USER"))
    farm.add_argument(
        "--farm-password",
        default=os.environ.get("MOBRIDGE_FARM_PASSWORD"),
        help="NATS password (env MOBRIDGE_FARM_PASSWORD)",
    )
    farm.add_argument(
        "--farm-token",
        default=os.environ.get("MOBRIDGE_FARM_TOKEN"),
        help="NATS token (env MOBRIDGE_FARM_TOKEN)",
    )
    farm.add_argument("--farm-tls-ca", type=Path, metavar="PEM", help="CA to verify NATS with")
    farm.add_argument("--farm-tls-cert", type=Path, metavar="PEM", help="client certificate")
    farm.add_argument("--farm-tls-key", type=Path, metavar="PEM", help="client certificate key")
    farm.add_argument(
        "--farm-prefix",
        default=None,
        help="NATS subject prefix (one per farm; default mobridge.farm)",
    )
    farm.add_argument(
        "--farm-controller-token",
        default=os.environ.get("MOBRIDGE_FARM_CONTROLLER_TOKEN"),
        help="a client controller token that reaches every hub's devices (env "
        "MOBRIDGE_FARM_CONTROLLER_TOKEN); --token reaches only this hub's",
    )
    farm.add_argument(
        "--farm-observer-token",
        default=os.environ.get("MOBRIDGE_FARM_OBSERVER_TOKEN"),
        help="a read-only token that reaches every hub's devices (env "
        "MOBRIDGE_FARM_OBSERVER_TOKEN)",
    )
    farm.add_argument(
        "--farm-credentials",
        type=Path,
        metavar="FILE",
        help="this hub's NATS identity from `mobridge farm init` (gives URL, name, prefix)",
    )


FARM_EXTRA_MISSING = (
    "joining a farm needs the farm extra (nats-py): pip install 'mobridge[farm]' "
    "(in a checkout, scripts/run adds it when given --farm)"
)


def _farm_config(args: argparse.Namespace) -> FarmConfig | None:
    """The ``FarmConfig`` of ``serve``'s farm options (None without ``--farm``); raises
    ``ValueError`` with a one-line reason when they do not fit."""
    creds = None
    if args.farm_credentials is not None:
        from bridge.farm.identities import load_credentials

        creds = load_credentials(args.farm_credentials)  # IdentityError is a ValueError
        if args.farm_user or args.farm_password or args.farm_token:
            raise ValueError(
                "--farm-credentials gives the NATS login: drop --farm-user/password/token"
            )
        if args.farm_name is not None and args.farm_name != creds.hub:
            raise ValueError(f"--farm-name {args.farm_name} but the credentials are {creds.hub}'s")
    if args.farm is None and creds is None:
        return None
    import importlib.util

    try:  # the farm link's client (nats-py, the farm extra), imported by bridge.farm only
        present = importlib.util.find_spec("nats") is not None
    except (ImportError, ValueError):  # a module blocked or half-installed
        present = False
    if not present:
        raise ValueError(FARM_EXTRA_MISSING)
    import re
    import socket

    from bridge.farm.config import FarmConfig

    for option in ("farm_tls_ca", "farm_tls_cert", "farm_tls_key"):
        path = getattr(args, option)
        if path is not None and not path.is_file():
            raise ValueError(f"--{option.replace('_', '-')} {path}: no such file")
    if creds is not None:
        return FarmConfig(
            url=args.farm or creds.url,
            hub=creds.hub,
            user=creds.user,
            password=creds.password,
            tls_ca=args.farm_tls_ca,
            tls_cert=args.farm_tls_cert,
            tls_key=args.farm_tls_key,
            prefix=args.farm_prefix or creds.prefix,
        )
    name = args.farm_name or re.sub(r"[^A-Za-z0-9_-]", "-", socket.gethostname())[:64] or "hub"
    return FarmConfig(
        url=args.farm,
        hub=name,
        user=args.farm_user,
        password=args.farm_password,
        token=args.farm_token,
        tls_ca=args.farm_tls_ca,
        tls_cert=args.farm_tls_cert,
        tls_key=args.farm_tls_key,
        prefix=args.farm_prefix or "mobridge.farm",
    )


COMMAND_GROUPS: tuple[tuple[str, str, dict[str, str | None]], ...] = (
    (
        "bridge.cli.offline",
        "add_offline_commands",
        {
            "snapshot": "normalize a dump file into a ScreenSnapshot",
            "find": "run a SemanticQuery on a dump FILE, or on a DEVICE's screen through the hub",
            "ref": "build a NodeRef for a node of a dump file",
            "resolve": "resolve a NodeRef against a dump file",
            "diff": "ScreenDiff between two dump files",
        },
    ),
    (
        "bridge.cli.client",
        "add_client_commands",
        {
            "devices": "list the hub's devices",
            "screen": "the live screen as an outline (handles, roles, texts, state)",
            "watch": "one line per settled screen change, as it happens",
            "hub-find": None,
            "tap": "tap one node (the hub refuses when none or several match), or --at X,Y",
            "long-press": "long-press one node, or --at X,Y",
            "type": "set the text of one field, or (no target) type into the focused one",
            "scroll": "scroll a container forward (or --back)",
            "swipe": "swipe a container up/down/left/right (scrolls it as a finger would)",
            "press": "press back, home, recents or notifications",
            "back": None,
            "app": "open/launch, front, close, url, terminate, clear, install or uninstall an app",
            "key": "press a key: enter, del, tab, volume_up, dpad_down, ... (see --help)",
            "apps": "list the apps installed on a device",
            "orientation": "show the screen's size and orientation, or turn it",
            "lease": "show who holds a device's lease, or hold it (--hold) until Ctrl-C",
            "screenshot": "save a PNG of the device's screen",
            "wait": "wait until a condition holds on a device",
        },
    ),
    (
        "bridge.cli.capabilities",
        "add_capability_commands",
        {
            "alert": "list the alerts on screen, or accept, dismiss or press a button of one",
            "permission": "grant, revoke or reset an app's permission (camera, location, ...)",
            "location": "simulate the device's location (LAT,LON), or --clear it",
            "pinch": "pinch on an element (--scale above 1 zooms in), or --at X,Y",
            "two-finger-tap": "tap an element (or --at X,Y) with two fingers",
            "clipboard": "print the device's clipboard, or set it (set TEXT)",
            "keyboard": "hide the on-screen keyboard (keyboard DEVICE hide)",
        },
    ),
    (
        "bridge.cli.mcp",
        "add_mcp_command",
        {"mcp": "serve the Model Context Protocol for AI agents (stdio, or --http)"},
    ),
    (
        "bridge.cli.flows",
        "add_flow_commands",
        {
            "test": "run flow files (YAML) as a test suite, with reports",
            "record": "write a flow from the actions taken on a device (CLI, dashboard, MCP)",
        },
    ),
    (
        "bridge.cli.media",
        "add_media_commands",
        {
            "logs": "the device's log as it is written (Ctrl-C stops)",
            "screenrecord": "record the screen to an MP4 (H.264) file",
            "crashes": "the device's crash reports",
        },
    ),
    (
        "bridge.cli.history",
        "add_history_command",
        {"history": "a device's recorded past: the screen at a time, diffs, the timeline, a flow"},
    ),
    (
        "bridge.cli.doctor",
        "add_doctor_command",
        {"doctor": "check the chain to a device and measure it; writes doctor-DEVICE-DATE.json"},
    ),
    (
        "bridge.cli.farm",
        "add_farm_commands",
        {
            "farm": "set up a farm: NATS config and one credentials file per hub (farm init)",
            "acquire": "lease any free matching device (waits its turn); --hold keeps it",
        },
    ),
)
"""Every command group: its module, the function that adds its commands, and each command's
one-line help (None: reachable but not listed). ``build_parser`` imports only the group of
the command being run (so ``mobridge --help`` and a client command start in well under
150 ms); the other groups are listed from this table. A new group is one row here;
tests/cli/test_cli_start.py checks the table against what the modules really add."""


def command_of(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (the first word that is not a global option)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(argv: Sequence[str] | None = None, *, every_group: bool = False) -> (
    argparse.ArgumentParser
):  # fmt: skip
    """The ``mobridge`` parser. Only the group of the command ``argv`` names is built in
    full (its module imported); the others are stubs that list and name their commands.
    ``every_group``: build them all (tests, documentation)."""
    import importlib

    parser = OneLineParser(
        prog="mobridge",
        description="A hub that lets many programs share one phone at once.",
    )
    parser.add_argument("--version", action="version", version=f"mobridge {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub: argparse._SubParsersAction[argparse.ArgumentParser] = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        parser_class=OneLineParser,
    )
    sub.required = True
    chosen = command_of(sys.argv[1:] if argv is None else argv)
    if every_group or chosen == "serve":
        _serve_parser(sub)
    else:
        sub.add_parser("serve", help=SERVE_HELP, add_help=False)
    for module, adder, commands in COMMAND_GROUPS:
        if every_group or chosen in commands:
            getattr(importlib.import_module(module), adder)(sub)
            continue
        for name, help_text in commands.items():
            if help_text is None:
                sub.add_parser(name, add_help=False)
            else:
                sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _serve(args: argparse.Namespace) -> int:
    import errno
    import secrets
    import signal

    import anyio

    from bridge.dashboard import page as dashboard_page
    from bridge.hub.app import AgentTarget, Hub, HubConfig
    from bridge.hub.event_loop import LoopUnavailable, backend_options, running_loop
    from bridge.hub.intents import DEFAULT_PRIORITIES
    from bridge.hub.logs import configure
    from bridge.net.auth import Principal
    from bridge.wire.enums import Platform

    configure(json_lines=True if args.log_json else None)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"mobridge: warning: binding {args.host}, not loopback: anyone who can reach it "
            "and holds a token can drive the device",
            file=sys.stderr,
        )
    if args.allow_unsafe_anonymous:
        print(
            "mobridge: warning: anonymous access is on (--allow-unsafe-anonymous)", file=sys.stderr
        )
    if args.secrets_file is not None and not args.secrets_file.is_file():
        print(f"mobridge serve: --secrets-file {args.secrets_file}: no such file", file=sys.stderr)
        return EXIT_USAGE
    if args.install_dir is not None and not args.install_dir.is_dir():
        print(
            f"mobridge serve: --install-dir {args.install_dir}: no such directory", file=sys.stderr
        )
        return EXIT_USAGE
    priorities = dict(DEFAULT_PRIORITIES)
    for item in args.lease_priority:
        kind, _, number = item.partition("=")
        if not kind or not number.lstrip("-").isdigit():
            print(f"mobridge serve: --lease-priority {item!r}: use KIND=N", file=sys.stderr)
            return EXIT_USAGE
        priorities[kind.lower()] = int(number)
    token = args.token
    generated = token is None and not args.allow_unsafe_anonymous
    if generated:
        token = secrets.token_urlsafe(24)
    tokens: dict[str, Principal] = {}
    if token:
        tokens[token] = Principal("controller", "controller")
    if args.observer_token:
        tokens[args.observer_token] = Principal("observer", "observer")
    if args.farm_controller_token:
        tokens[args.farm_controller_token] = Principal("controller", "farm-controller", "farm")
    if args.farm_observer_token:
        tokens[args.farm_observer_token] = Principal("observer", "farm-observer", "farm")
    android = None
    if args.android is not None:
        from bridge.devices.android import AndroidConfig, preflight

        android = AndroidConfig.from_cli(
            args.android, args.android_agent_apk, args.android_agentless
        )
        if (problem := preflight(android)) is not None:
            print(f"mobridge: {problem}", file=sys.stderr)
            return 2
    ios = None
    if args.ios is not None or args.ios_simulator is not None:
        from bridge.devices.ios import IosConfig
        from bridge.devices.ios import preflight as ios_preflight

        ios = IosConfig.from_cli(
            args.ios,
            args.ios_simulator,
            port=args.ios_port,
            runner_bundle_id=args.ios_runner,
            target_bundle_id=args.ios_app,
            xctestrun=args.ios_xctestrun,
            agent_token=args.agent_token,
        )
        if (problem := ios_preflight(ios)) is not None:
            print(f"mobridge: {problem}", file=sys.stderr)
            return 2
    try:
        loop_options = backend_options(args.loop)
    except LoopUnavailable as exc:
        print(f"mobridge serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        farm = _farm_config(args)
        device_tags = _device_tags(args.device_tag)
    except ValueError as exc:
        print(f"mobridge serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.no_journal and args.journal is not None:
        print("mobridge serve: --journal and --no-journal contradict", file=sys.stderr)
        return EXIT_USAGE
    if args.journal_max_age <= 0 or args.journal_max_mb <= 0:
        print(
            "mobridge serve: --journal-max-age and --journal-max-mb must be positive",
            file=sys.stderr,
        )
        return EXIT_USAGE
    journal, journal_at_port = _journal_choice(args)
    config = HubConfig(
        host=args.host,
        port=args.port,
        tokens=tokens,
        allow_anonymous=args.allow_unsafe_anonymous,
        sim=not args.no_sim,
        sim_scene=args.sim_scene,
        sim_platform=Platform.IOS if args.sim_platform == "ios" else Platform.ANDROID,
        sim_device_id=args.sim_id,
        agents=[AgentTarget(url, args.agent_token) for url in args.agent],
        takeover_after_ms=int(args.takeover_after_s * 1000),
        lease_priorities=priorities,
        veto_window_ms=int(max(0.0, min(args.veto_window, 30.0)) * 1000),
        secrets_file=args.secrets_file,
        install_dir=args.install_dir,
        dashboard=None if args.no_dashboard else dashboard_page(),
        android=android,
        farm=farm,
        device_tags=device_tags,
        ios=ios,
        journal=journal,
        journal_at_port=journal_at_port,
        name=args.name or "",
        journal_max_age_s=args.journal_max_age * 86400,
        journal_max_bytes=int(args.journal_max_mb * (1 << 20)),
        vision=args.vision,
    )
    if args.vision:
        from bridge.vision.engine import unavailable

        problem = unavailable()
        if problem is not None:
            print(f"mobridge serve: {problem}", file=sys.stderr)
            return EXIT_USAGE
    if args.webdriver is not None:
        from bridge.cli.hub_options import webdriver_unavailable

        problem = webdriver_unavailable(args.host)
        if problem is not None:
            print(f"mobridge serve: {problem}", file=sys.stderr)
            return EXIT_USAGE
    from bridge.hub.collector import freeze_startup
    from bridge.journal.lock import JournalBusy

    try:
        hub = Hub(config)
    except JournalBusy as exc:
        print(f"mobridge serve: {exc}", file=sys.stderr)
        return EXIT_USAGE
    token_file: list[Path] = []
    starting_webdriver: list[bool] = []

    async def main() -> None:
        from bridge.client.local_hub import remove_token, write_token

        async with anyio.create_task_group() as tg:
            port = await tg.start(hub.run)
            freeze_startup()  # the process's objects so far live as long as it does
            print(f"mobridge hub listening on ws://{args.host}:{port}/v1", flush=True)
            print(f"health: http://{args.host}:{port}/healthz", flush=True)
            fragment = f"#token={token}" if generated else ""
            if not args.no_dashboard:
                print(f"dashboard: http://{args.host}:{port}/dashboard{fragment}", flush=True)
            if generated:
                print(f"token (generated): {token}", flush=True)
                assert token is not None
                written = write_token(port, token)
                if written is not None:
                    token_file.append(written)
                    print(
                        f"  (saved for local clients in {written}; removed when the hub stops)",
                        flush=True,
                    )
            elif token:
                print("token: (as configured)", flush=True)
            if hub.farm is not None:
                farm_cfg = hub.farm.config
                print(
                    f"farm: joining {farm_cfg.redacted_url()} as {farm_cfg.hub} (devices of "
                    f"other hubs appear within {farm_cfg.heartbeat_s:g} s)",
                    flush=True,
                )
            if args.webdriver is not None:
                from bridge.webdriver.server import WebDriverServer

                wd = WebDriverServer(f"ws://127.0.0.1:{port}/v1", port=args.webdriver)
                starting_webdriver.append(True)
                wd_port = await tg.start(wd.run)
                starting_webdriver.clear()
                print(f"webdriver: http://127.0.0.1:{wd_port} (Appium clients)", flush=True)
            print(f"event loop: {running_loop()}", flush=True)
            print(f"devices: {', '.join(hub.service.devices) or '(none yet)'}", flush=True)
            try:
                with anyio.open_signal_receiver(signal.SIGTERM) as signals:
                    async for _ in signals:  # a polite stop: clean up, then leave
                        _exit_within(EXIT_GRACE_S, token_file, remove_token)
                        tg.cancel_scope.cancel()
                        break
            finally:
                for path in token_file:
                    remove_token(path)

    try:
        anyio.run(main, backend_options=loop_options)
    except KeyboardInterrupt:
        return 0
    except BaseException as exc:
        journal_busy = _find_exception(exc, JournalBusy)
        if journal_busy is not None and not args.debug:
            print(f"mobridge serve: {journal_busy}", file=sys.stderr)
            return EXIT_USAGE
        busy = _find_os_error(exc, errno.EADDRINUSE)
        if busy is None or args.debug:
            raise
        if starting_webdriver:
            print(
                f"mobridge serve: --webdriver port {args.webdriver} is already in use (an Appium "
                "server?); stop it, or pass --webdriver N (0 picks a free one)",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(
            f"mobridge serve: port {args.port} on {args.host} is already in use (another hub?); "
            "stop it, or pass --port N (--port 0 picks a free one)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return 0


def _journal_choice(args: argparse.Namespace) -> tuple[Path | None, Any]:
    """(journal path, or None; a function of the bound port, or None): ``--journal``, else
    this hub's own default journal, keyed by ``--name`` (else the port) and the devices it
    is configured to serve (``bridge.journal.lock.identity``)."""
    if args.no_journal:
        return None, None
    if args.journal is not None:
        return args.journal, None
    from bridge.journal.lock import identity
    from bridge.journal.recorder import default_path

    devices: list[str] = []
    if not args.no_sim:
        devices.append(args.sim_id or f"sim-{args.sim_platform}")
    if args.android is not None:
        devices.append("android" if args.android == "*" else f"android-{args.android}")
    if args.ios is not None:
        devices.append("ios" if args.ios == "*" else f"ios-{args.ios}")
    if args.ios_simulator is not None:
        devices.append(f"ios-sim-{args.ios_simulator}")
    devices.extend(f"agent-{url.split('://', 1)[-1]}" for url in args.agent)
    if args.name or args.port != 0:
        return default_path(identity(args.name, args.port, devices)), None
    return None, lambda port: default_path(identity(None, port, devices))


def _find_exception(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first ``kind`` inside ``exc`` (exception groups and causes included)."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _find_exception(inner, kind)
            if found is not None:
                return found
    cause = exc.__cause__ or exc.__context__
    return _find_exception(cause, kind) if cause is not None else None


EXIT_GRACE_S = 5.0
"""After SIGTERM the hub cleans up (sessions, journal, agents) for at most this long, then
leaves anyway: a stop must not wait on a flood of clients or a stuck worker thread."""


def _exit_within(seconds: float, token_files: list[Any], remove: Callable[[Any], None]) -> None:
    """Start a daemon timer that ends the process after ``seconds`` (having removed the
    token files and said so), in case the polite stop does not finish by then."""
    import threading

    def force() -> None:
        for path in token_files:
            with contextlib.suppress(OSError):
                remove(path)
        print(
            f"mobridge serve: clean-up took over {seconds:g} s after SIGTERM; exiting now",
            file=sys.stderr,
            flush=True,
        )
        os._exit(0)

    timer = threading.Timer(seconds, force)
    timer.daemon = True
    timer.start()


def _find_os_error(exc: BaseException, code: int) -> OSError | None:
    """The OSError with ``code`` inside ``exc`` (exception groups and causes included)."""
    if isinstance(exc, OSError) and exc.errno == code:
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _find_os_error(inner, code)
            if found is not None:
                return found
    cause = exc.__cause__ or exc.__context__
    return _find_os_error(cause, code) if cause is not None else None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if command_of(words) == "history":
        from bridge.cli.history import glue_relative_times

        words = glue_relative_times(words)
    args = build_parser(words).parse_args(words)
    debug = bool(args.debug)
    try:
        if args.command == "serve":
            return _serve(args)
        handler = getattr(args, "handler", None)
        if handler is None:
            print(f"mobridge: unknown command {args.command}", file=sys.stderr)
            return EXIT_USAGE
        return int(handler(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`mobridge screen D | head`): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:
        if debug:
            raise
        print(
            f"mobridge {args.command}: {type(exc).__name__}: {exc} "
            "(a bug? rerun with --debug for the traceback)",
            file=sys.stderr,
        )
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
