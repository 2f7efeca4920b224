"""LAYER 4 — client commands against a running hub: look (devices, screen, find, watch,
screenshot, wait), act (tap, long-press, type, scroll, swipe, press, app) and lease; the
device-level forms (``--at X,Y``, ``type`` into the focused input, ``key``, ``apps``,
``orientation``, ``app terminate|clear|install|uninstall``) are planned by ``bridge.cli.device``.

Each command opens one session with ``bridge.client`` (``--url``, default ``$MOBRIDGE_URL`` or
``ws://127.0.0.1:8765/v1``; ``--token``, default ``$MOBRIDGE_TOKEN``, else the token a hub on
this machine generated, see ``cli.tokens``), does one thing and closes it.

Targets: a positional TARGET is a handle from ``mobridge screen`` (``n12``) or a text; or
``--text`` / ``--label`` / ``--id`` / ``--role``, narrowed by ``--within TEXT`` and ``--nth N``
(0-based, document order); or ``--ref`` (a NodeRef). A text, label, id or role becomes a
SemanticQuery the hub resolves when the action runs: exactly one match is acted on, none or
several is a refusal the hub logs and shows to every watcher.

Output: on a terminal, short human lines (``--json`` for the JSON); piped, the JSON of the
result (one line). A refusal is the reference error envelope as JSON on stdout (when piped)
plus lines on stderr saying what to do. Exit status: 0 success; 1 a refusal (or a ``wait``
whose condition was not met); 2 a mistake (bad usage, no hub, wrong token, unknown device,
invalid input), one line on stderr; 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import msgspec

from bridge.cli.device import add_device_commands, approve_option, device_plan, point_arg
from bridge.cli.durations import ms_option, seconds_option, show_ms
from bridge.cli.failures import (
    EXIT_USAGE,
    UsageError,
    app_action,
    check_url,
    explain,
    global_action,
    invalid_json,
)
from bridge.cli.render import (
    candidate_lines,
    emit,
    no_match_reason,
    node_words,
    outline,
    say,
    screen_title,
    watch_line,
)
from bridge.client.errors import (
    AmbiguousError,
    ClientError,
    ConfirmationRequired,
    HubError,
    NotFoundError,
    ProtocolFailure,
    not_found,
)
from bridge.client.local_hub import DEFAULT_URL
from bridge.wire.action import ActionRequest, ActionResult, ObserveMode
from bridge.wire.client_protocol import (
    MAX_WAIT_MS,
    Confirm,
    DevicesList,
    DevicesListResult,
    FindMatch,
    LeaseMode,
    WaitResult,
)
from bridge.wire.conditions import Absent, Condition, Present, ScreenShown
from bridge.wire.enums import (
    ActionVerb,
    FallbackType,
    MatchMode,
    ProtocolErrorCode,
    Role,
    Source,
    VerificationResult,
)
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery, TextMatch, Within

if TYPE_CHECKING:  # the asyncio connection is imported only by the commands that need it
    from bridge.client.connection import HubConnection
    from bridge.client.device import Device

MAX_ARG_FILE = 1 << 20
MAX_REQUEST_TIMEOUT_MS = 600_000
MAX_HOLD_MS = 60_000
HANDLE = re.compile(r"^n[0-9]+$")
EXIT_OK, EXIT_REFUSED, EXIT_INTERRUPTED = 0, 1, 130
SWIPES = {"up": True, "left": True, "down": False, "right": False}
"""A swipe up (or left) scrolls content forward, as a finger would."""


# ---- argument parsing ----------------------------------------------------------------------


def common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", help=f"hub URL (default: $MOBRIDGE_URL or {DEFAULT_URL})")
    common.add_argument(
        "--token", help="bearer token (default: $MOBRIDGE_TOKEN, else a local hub's own)"
    )
    common.add_argument(
        "--format", choices=("json", "msgpack"), default="json", help="wire format to use"
    )
    common.add_argument(
        "--request-timeout",
        type=seconds_option(low_ms=1, high_ms=MAX_REQUEST_TIMEOUT_MS),
        default=10.0,
        metavar="DURATION",
        help="how long to wait for an answer: 10s, 500ms, 2m (a bare number: seconds)",
    )
    common.add_argument("--name", default="mobridge-cli", help="client name shown to others")
    common.add_argument("--json", action="store_true", help="print JSON even on a terminal")
    common.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks"
    )
    return common


def _selectors(p: argparse.ArgumentParser, positional: bool = True) -> None:
    if positional:
        p.add_argument(
            "target",
            nargs="?",
            metavar="TARGET",
            help="a handle from `mobridge screen` (n12) or a text",
        )
    p.add_argument("--text", help="the node showing this text (or hint, for a field)")
    p.add_argument("--label", help="the node with this accessibility label")
    p.add_argument("--id", dest="resource_id", help="the node with this resource id")
    p.add_argument("--role", type=str.upper, help="restrict to a role (BUTTON, INPUT, ...)")
    p.add_argument("--within", metavar="TEXT", help="inside, or next to, the element showing TEXT")
    p.add_argument("--nth", type=int, metavar="N", help="the N-th match (0-based, document order)")
    p.add_argument(
        "--contains", action="store_true", help="--text/--label/--within match a part of the text"
    )
    if positional:
        p.add_argument("--ref", help="a NodeRef JSON (or a FindMatch), or @FILE")


def add_client_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the client commands. A name another module already registered (``find`` is also
    an offline command) is added as ``hub-<name>`` instead of clashing."""
    common = common_options()
    taken = set(subparsers.choices)

    def add(name: str, help_text: str, listed: bool = True) -> argparse.ArgumentParser:
        final = f"hub-{name}" if name in taken else name
        if final == name and listed:
            p = subparsers.add_parser(final, parents=[common], help=help_text)
        else:  # a renamed clash or an alias: reachable, but out of the listing
            p = subparsers.add_parser(final, parents=[common], description=help_text)
        p.set_defaults(client_command=name, handler=run_client_command)
        return p

    add("devices", "list the hub's devices")
    p = add("screen", "the live screen as an outline (handles, roles, texts, state)")
    p.add_argument("device")
    p.add_argument("--full", action="store_true", help="every node (default: the compact tree)")
    p.add_argument("--bounds", action="store_true", help="show each node's bounds")
    p = add("watch", "one line per settled screen change, as it happens")
    p.add_argument("device")
    p.add_argument("--all", action="store_true", help="every frame, animations included")
    p.add_argument("--count", type=int, help="stop after N updates (the first screen counts)")
    p.add_argument("--full", action="store_true", help="full snapshots (default: compact)")
    p = add("find", "run a query on a device's current screen")
    p.add_argument("device")
    p.add_argument("--query", help="SemanticQuery JSON or @FILE (instead of the options below)")
    _selectors(p, positional=False)
    source_option(p)
    for name, verb_help in (
        ("tap", "tap one node (the hub refuses when none or several match), or --at X,Y"),
        ("long-press", "long-press one node, or --at X,Y"),
    ):
        p = add(name, verb_help)
        p.add_argument("device")
        _selectors(p)
        p.add_argument("--confirm", metavar="OBJECTION", help="approve this objection id")
        approve_option(p)
        _observe_option(p)
        p.add_argument(
            "--at", type=point_arg, metavar="X,Y", help="a point on the screen (device pixels)"
        )
        if name == "tap":
            p.add_argument("--double", action="store_true", help="with --at: a double tap")
        else:
            p.add_argument(
                "--hold-ms",
                "--hold",
                dest="hold_ms",
                type=ms_option("ms", low_ms=1, high_ms=MAX_HOLD_MS),
                metavar="DURATION",
                help="with --at: hold this long: 900ms, 2s (a bare number: milliseconds)",
            )
    p = add("type", "set the text of one field, or (no target) type into the focused one")
    p.add_argument("device")
    _selectors(p)
    value = p.add_mutually_exclusive_group(required=True)
    value.add_argument("--value", help="the text to type")
    value.add_argument("--value-ref", help="a secret reference (secret://...) the hub resolves")
    p.add_argument("--submit", action="store_true", help="no target: press ENTER afterwards")
    p.add_argument("--confirm", metavar="OBJECTION", help="approve this objection id")
    approve_option(p)
    _observe_option(p)
    p = add("scroll", "scroll a container forward (or --back)")
    p.add_argument("device")
    _selectors(p)
    p.add_argument("--back", action="store_true", help="scroll backward")
    p = add("swipe", "swipe a container up/down/left/right (scrolls it as a finger would)")
    p.add_argument("device")
    p.add_argument("direction", choices=tuple(SWIPES))
    _selectors(p)
    p.add_argument(
        "--at", type=point_arg, metavar="X,Y", help="swipe on the screen from this point instead"
    )
    p.add_argument("--distance", type=int, metavar="PX", help="with --at (default: 30%% of it)")
    p.add_argument("--confirm", metavar="OBJECTION", help="approve this objection id")
    approve_option(p)
    p = add("press", "press back, home, recents or notifications")
    p.add_argument("device")
    p.add_argument("key", metavar="KEY", help="back, home, recents or notifications")
    p = add("back", "press BACK", listed=False)
    p.add_argument("device")
    p = add("app", "open/launch, front, close, url, terminate, clear, install or uninstall an app")
    p.add_argument("device")
    p.add_argument(
        "action",
        metavar="ACTION",
        help="open (or launch), front, close, url, terminate, clear (the app's data), install "
        "(a local FILE streamed to the hub, or a bare PACKAGE name of the hub's --install-dir) "
        "or uninstall",
    )
    p.add_argument("arg", nargs="?", metavar="APP_ID|URL|FILE")
    p.add_argument("--sha256", metavar="HEX", help="install: the digest FILE must have")
    p.add_argument("--confirm", metavar="OBJECTION", help="approve this objection id")
    approve_option(p)
    add_device_commands(add)
    p = add("lease", "show who holds a device's lease, or hold it (--hold) until Ctrl-C")
    p.add_argument("device")
    p.add_argument(
        "--hold",
        type=seconds_option(),
        nargs="?",
        const=0.0,
        metavar="DURATION",
        help="hold the lease this long (30s, 5m; a bare number: seconds), or until Ctrl-C",
    )
    p.add_argument("--shared", action="store_true", help="a shared lease (default: exclusive)")
    p.add_argument(
        "--alerts",
        choices=("accept", "dismiss"),
        help="while held, answer every alert that shows this way",
    )
    p = add("screenshot", "save a PNG of the device's screen")
    p.add_argument("device")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the PNG")
    p.add_argument(
        "--fresh",
        action="store_true",
        help="a new device screenshot even when the hub holds one of this screen",
    )
    p = add("wait", "wait until a condition holds on a device")
    p.add_argument("device")
    cond = p.add_mutually_exclusive_group(required=True)
    cond.add_argument("--condition", help="wait condition JSON or @FILE")
    cond.add_argument("--screen", help="the screen marked __screen_NAME is shown")
    cond.add_argument("--present", metavar="TEXT", help="a node showing TEXT is present")
    cond.add_argument("--gone", metavar="TEXT", help="no node shows TEXT")
    timeout = p.add_mutually_exclusive_group()
    timeout.add_argument(
        "--timeout",
        dest="timeout_ms",
        type=ms_option("s", high_ms=MAX_WAIT_MS),
        metavar="DURATION",
        help="give up after 10s, 500ms, 2m (a bare number: seconds; default: the hub's, "
        "10s for --screen, else 5s)",
    )
    timeout.add_argument(
        "--timeout-ms",
        dest="timeout_ms",
        type=ms_option("ms", high_ms=MAX_WAIT_MS),
        metavar="DURATION",
        help="the same, a bare number in milliseconds",
    )


def build_parser() -> argparse.ArgumentParser:
    """The standalone parser (``python -m bridge.cli.client``), named like ``mobridge``."""
    parser = argparse.ArgumentParser(prog="mobridge", description="mobridge client commands")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_client_commands(sub)
    return parser


# ---- arguments -> values --------------------------------------------------------------------


def json_arg(text: str, kind: Any, what: str) -> Any:
    """The JSON argument ``text`` (or the file ``@PATH``) decoded strictly as ``kind``."""
    data: bytes
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            if path.stat().st_size > MAX_ARG_FILE:
                raise UsageError(f"{path}: larger than {MAX_ARG_FILE} bytes")
            data = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    else:
        data = text.encode()
    try:
        return msgspec.json.decode(data, type=kind, strict=True)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise invalid_json(what, exc) from exc
    except ValueError as exc:
        raise UsageError(f"invalid {what}: {exc}") from exc


def _ref_arg(text: str) -> NodeRef:
    try:
        ref: NodeRef = json_arg(text, NodeRef, "--ref (a NodeRef)")
    except UsageError as first:
        try:
            match: FindMatch = json_arg(text, FindMatch, "--ref")
        except UsageError:
            raise first from None
        ref = match.ref
    return ref


def _role(name: str | None) -> Role | None:
    if name is None:
        return None
    try:
        return Role(name)
    except ValueError:
        roles = ", ".join(r.value for r in Role)
        raise UsageError(f"--role {name}: not a role; roles: {roles}") from None


@dataclass(frozen=True)
class Selector:
    """What a command acts on: a handle (``n12``), a NodeRef, or a query for the hub."""

    handle: str | None = None
    ref: NodeRef | None = None
    query: SemanticQuery | None = None


def query_of(args: argparse.Namespace, text: str | None = None) -> SemanticQuery | None:
    """The SemanticQuery the selector options describe (None: they describe nothing)."""
    mode = MatchMode.CONTAINS if args.contains else MatchMode.NORMALIZED_EXACT
    text = text if text is not None else args.text
    role = _role(args.role)
    if args.nth is not None and args.nth < 0:
        raise UsageError("--nth counts from 0")
    fields = (text, args.label, args.resource_id, role)
    if all(f is None for f in fields):
        if args.within is not None or args.nth is not None:
            raise UsageError(
                "--within and --nth narrow a target: give a text, --label, --id or --role"
            )
        return None
    return SemanticQuery(
        text=None if text is None else TextMatch(value=text, match=mode),
        label=None if args.label is None else TextMatch(value=args.label, match=mode),
        resource_id=args.resource_id,
        role=role,
        within=None
        if args.within is None
        else Within(text=TextMatch(value=args.within, match=mode)),
        nth=args.nth,
    )


def selector_of(args: argparse.Namespace) -> Selector:
    """The selector the options give; a usage error when they give none."""
    selector = optional_selector(args)
    if selector is None:
        raise UsageError(
            "what to act on? give a TARGET (a text, or a handle like n12 from "
            "`mobridge screen DEVICE`), --text, --label, --id, --role or --ref"
        )
    return selector


def optional_selector(args: argparse.Namespace) -> Selector | None:
    target: str | None = getattr(args, "target", None)
    ref_text: str | None = getattr(args, "ref", None)
    if ref_text is not None:
        if target is not None or query_of(args) is not None:
            raise UsageError("--ref names the target on its own: drop the other target options")
        return Selector(ref=_ref_arg(ref_text))
    if target is not None and HANDLE.match(target):
        if query_of(args) is not None:
            raise UsageError(f"{target} is a handle: drop the other target options")
        return Selector(handle=target)
    if target is not None and args.text is not None:
        raise UsageError(f"give the text once: {target!r} or --text {args.text!r}")
    query = query_of(args, text=target)
    return None if query is None else Selector(query=query)


async def target_of(device: Device, selector: Selector) -> NodeRef | FindMatch | SemanticQuery:
    if selector.ref is not None:
        return selector.ref
    if selector.query is not None:
        return selector.query
    assert selector.handle is not None
    return await _match_of_handle(device, selector.handle)


async def _match_of_handle(device: Device, handle: str) -> FindMatch:
    """The current ref of the node whose id is ``handle`` (ids are stable for an element)."""
    snapshot = (await device.snapshot(compact=False)).snapshot
    node = next((n for n in snapshot.nodes if n.node_id == handle), None)
    if node is None:
        raise not_found(f"no node {handle} on the current screen of {device.id}")
    found = await device.find(SemanticQuery(role=node.role))
    match = next((m for m in found.matches if m.node.node_id == handle), None)
    if match is None:
        raise UsageError(f"{handle} is gone from the screen; see `mobridge screen {device.id}`")
    return match


# ---- commands -------------------------------------------------------------------------------


Plan = Callable[["HubConnection"], Awaitable[int]]


def _human(args: argparse.Namespace) -> bool:
    return sys.stdout.isatty() and not args.json


async def _devices(hub: HubConnection, args: argparse.Namespace) -> int:
    listed = await hub.call(DevicesList(id=hub.next_id()), DevicesListResult)
    devices, farm = listed.devices, listed.farm
    if _human(args):
        if farm is not None:
            why = f" ({farm.reason})" if farm.reason else ""
            print(f"farm: hub {farm.hub} {farm.state}{why}, {farm.hubs} other hub(s) heard")
        if not devices:
            print("no devices")
        for d in devices:
            state = "online" if d.online else "offline"
            lease = f", leased by {', '.join(d.lease.holder_names)}" if d.lease else ""
            owner = f"  (hub {d.owner})" if d.owner else ""
            line = f"{d.id}  {d.platform.value.lower()}  {d.model or ''}  {state}{lease}{owner}"
            print(line.strip())
    else:
        emit(
            {"devices": msgspec.to_builtins(devices)}
            | ({"farm": msgspec.to_builtins(farm)} if farm is not None else {})
        )
    return EXIT_OK


async def _screen(device: Device, args: argparse.Namespace) -> int:
    got = await device.snapshot(compact=not args.full)
    if args.json:
        emit(got)
    else:
        for line in outline(got.snapshot, device.id, bounds=args.bounds):
            print(line)
    return EXIT_OK


def source_option(p: argparse.ArgumentParser) -> None:
    """``find --source accessibility|vision`` (repeatable): only nodes from those sources."""
    p.add_argument(
        "--source",
        action="append",
        choices=("accessibility", "vision"),
        help="only nodes from this source (repeatable; vision: text read from the screenshot, "
        "which turns the hub's vision on)",
    )


async def _find(device: Device, query: SemanticQuery, args: argparse.Namespace) -> int:
    wanted = getattr(args, "source", None)
    sources = tuple(Source(s.upper()) for s in wanted) if wanted else None
    found = await device.find(query, sources=sources)
    why = ""
    if not found.count:
        nodes = (await device.snapshot(compact=False)).snapshot.nodes
        why = no_match_reason(query, nodes)
        read = any(n.source is Source.VISION for n in nodes)
        if query.text is not None and sources is None and not read:
            why += (
                "; text drawn on a canvas has no accessibility node: vision reads it "
                f"(mobridge find {device.id} --text {shlex.quote(query.text.value)} "
                "--source vision)"
            )
    if _human(args):
        print(
            f"{found.count} match{'es' if found.count != 1 else ''}" + (f": {why}" if why else "")
        )
        for m in found.matches:
            print(f"{m.node.node_id}  {node_words(m.node)}   ({m.reason})")
    else:
        emit(found)
        if why:
            say(f"mobridge find: no match: {why}")
    return EXIT_OK


def _done(result: ActionResult, args: argparse.Namespace, what: str) -> int:
    if not _human(args):
        emit(result)
        return EXIT_OK
    target = result.target
    named = f" {target.role.value if target.role else ''} {target.label!r}" if target else ""
    obs = result.observation
    changed = "screen changed" if obs.screen_changed else "screen unchanged"
    method = f" via {result.dispatch.method.value}" if result.dispatch.method else ""
    if result.dispatch.fallback_type is FallbackType.VISION_COORDINATE:
        method += " (a coordinate tap on text read by vision)"
    verdict = f", {result.verification.result.value}" if result.verification else ""
    print(f"{what}{named}: {result.dispatch.status.value}{method}, {changed}{verdict}")
    return EXIT_OK


def _observe_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--observe",
        choices=("settle", "none"),
        default="settle",
        help="settle (default): answer once the screen settled, with the diff; none: answer "
        "at dispatch (stability UNKNOWN, no diff) and watch the stream yourself",
    )


async def _act(
    device: Device,
    selector: Selector,
    verb: ActionVerb,
    args: argparse.Namespace,
    value: str | None = None,
    value_ref: str | None = None,
    confirm: Confirm | None = None,
) -> int:
    target = await target_of(device, selector)
    observe: ObserveMode = getattr(args, "observe", "settle")
    if isinstance(target, SemanticQuery):
        try:
            result = await device.act_on(
                target, verb, value=value, value_ref=value_ref, confirm=confirm, observe=observe
            )
        except NotFoundError as exc:
            # As `find` says it: which part matched nothing, and the closest texts there are.
            with contextlib.suppress(ClientError):
                nodes = (await device.snapshot(compact=False)).snapshot.nodes
                exc.why = no_match_reason(target, nodes)  # type: ignore[attr-defined]
            raise
    else:
        ref = target.ref if isinstance(target, FindMatch) else target
        request = ActionRequest(action=verb, target=ref, value=value, value_ref=value_ref)
        result = await device.act(request, confirm, observe=observe)
    return _done(result, args, args.client_command)


async def _scrollable(device: Device) -> Selector:
    """The screen's only scrollable container, when no target is given."""
    snapshot = (await device.snapshot(compact=False)).snapshot
    found = [
        n
        for n in snapshot.nodes
        if ActionVerb.SCROLL_FORWARD in n.actions or ActionVerb.SCROLL_BACKWARD in n.actions
    ]
    if len(found) != 1:
        listed = ", ".join(f"{n.node_id} {n.role.value}" for n in found[:6])
        what = f"{len(found)} scrollable containers ({listed})" if found else "nothing scrollable"
        raise UsageError(f"the screen has {what}; name one: a handle from `mobridge screen`")
    return Selector(handle=found[0].node_id)


async def _lease(device: Device, hub: HubConnection, args: argparse.Namespace) -> int:
    if args.hold is None:
        summary = next((d for d in await hub.devices() if d.id == device.id), None)
        lease = summary.lease if summary else None
        if _human(args):
            if lease is None:
                print(f"{device.id}: no lease (any controller may act)")
            else:
                print(
                    f"{device.id}: {lease.mode} lease held by {', '.join(lease.holder_names)}, "
                    f"idle {lease.idle_ms} ms"
                )
        else:
            emit({"device": device.id, "lease": msgspec.to_builtins(lease)})
        return EXIT_OK
    mode: LeaseMode = "shared" if args.shared else "exclusive"
    async with device.lease(mode, alerts=args.alerts) as got:
        holders = ", ".join(got.lease.holder_names) if got.lease else "?"
        auto = f", alerts: auto-{args.alerts}" if args.alerts else ""
        say(f"holding the {mode} lease on {device.id} ({holders}{auto}); Ctrl-C releases it")
        import anyio

        if args.hold > 0:
            await anyio.sleep(args.hold)
        else:
            await anyio.sleep_forever()
    return EXIT_OK


def _save(output: str, png: bytes) -> None:
    """Write the PNG (in the caller's thread: a one-shot session has no worker threads)."""
    try:
        Path(output).write_bytes(png)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc


async def _screenshot(device: Device, output: str, args: argparse.Namespace) -> int:
    shot = await device.screenshot(fresh=bool(getattr(args, "fresh", False)))
    png = await device.fetch_screenshot(shot)
    _save(output, png)
    if _human(args):
        print(f"wrote {output} ({shot.width}x{shot.height}, {len(png)} bytes)")
    else:
        emit({"file": output, "width": shot.width, "height": shot.height, "bytes": len(png)})
    return EXIT_OK


async def _wait(device: Device, condition: Condition, args: argparse.Namespace) -> int:
    timeout_ms: int | None = args.timeout_ms
    result = await device.wait(condition, timeout_ms)
    met = result.result is VerificationResult.CONDITION_MET
    if not _human(args):
        emit(result)
    if met:
        if _human(args):
            print(f"wait: met after {show_ms(result.elapsed_ms)}")
        return EXIT_OK
    # Once, on stderr (stdout carries the JSON when piped): what was wanted, what was seen.
    say(wait_failure(result))
    return EXIT_REFUSED


def wait_failure(result: WaitResult) -> str:
    """``wait: not met after 10s; showing: menu`` — the verdict and what the hub observed."""
    verdict = result.result.value.lower().replace("_", " ").removeprefix("condition ")
    seen = []
    for evidence in result.evidence[:3]:
        if evidence.observed is None:
            continue
        what = "showing" if "screen" in evidence.what.lower() else evidence.what
        seen.append(f"{what}: {evidence.observed}")
    tail = f"; {'; '.join(seen)}" if seen else ""
    return f"wait: {verdict} after {show_ms(result.elapsed_ms)}{tail}"


async def _watch(device: Device, args: argparse.Namespace) -> int:
    seen = 0
    async with device.watch(compact=not args.full, settled=not args.all) as watch:
        async for update in watch:
            if args.json:
                emit(
                    {
                        "seq": update.seq,
                        "snapshotId": update.snapshot.snapshot_id,
                        "screen": screen_title(update.snapshot),
                        "screenStateId": update.snapshot.screen_state_id,
                        "resync": update.delta is None,
                        "nodes": len(update.snapshot.nodes),
                        "added": list(update.added),
                        "removed": list(update.removed),
                        "changed": list(update.changed),
                    }
                )
            else:
                line = watch_line(
                    update.snapshot,
                    len(update.added),
                    len(update.removed),
                    len(update.changed),
                    initial=update.delta is None,
                )
                print(line, flush=True)
            seen += 1
            if args.count is not None and seen >= args.count:
                break
    return EXIT_OK


def _condition(args: argparse.Namespace) -> Condition:
    if args.condition is not None:
        condition: Condition = json_arg(args.condition, Condition, "--condition")
        return condition
    if args.screen is not None:
        return ScreenShown(name=args.screen)
    if args.present is not None:
        return Present(query=SemanticQuery(text=TextMatch(value=args.present)))
    return Absent(query=SemanticQuery(text=TextMatch(value=args.gone)))


def plan_of(args: argparse.Namespace) -> Plan:
    """Everything the command needs from its arguments, checked before connecting."""
    command: str = args.client_command
    if command == "devices":
        return lambda hub: _devices(hub, args)
    device_id: str = args.device
    planned = device_plan(args, device_id)
    if planned is not None:
        return planned
    if command == "screen":
        return lambda hub: _screen(hub.device(device_id), args)
    if command == "watch":
        if args.count is not None and args.count < 1:
            raise UsageError("--count must be at least 1")
        return lambda hub: _watch(hub.device(device_id), args)
    if command == "find":
        if args.query is not None:
            if query_of(args) is not None:
                raise UsageError("--query says it all: drop --text/--label/--id/--role")
            query: SemanticQuery = json_arg(args.query, SemanticQuery, "--query")
        else:
            made = query_of(args)
            if made is None:
                raise UsageError("what to find? give --query JSON, --text, --label, --id or --role")
            query = made
        return lambda hub: _find(hub.device(device_id), query, args)
    if command in ("tap", "long-press"):
        selector = selector_of(args)
        confirm = (
            None if args.confirm is None else Confirm(objection=args.confirm, answer="approve")
        )
        verb = ActionVerb.CLICK if command == "tap" else ActionVerb.LONG_CLICK
        return lambda hub: _act(hub.device(device_id), selector, verb, args, confirm=confirm)
    if command == "type":
        selector = selector_of(args)
        value_ref: str | None = args.value_ref
        if value_ref is not None and not value_ref.startswith("secret://"):
            raise UsageError("--value-ref must be a secret://... reference")
        return lambda hub: _act(
            hub.device(device_id),
            selector,
            ActionVerb.SET_TEXT,
            args,
            value=args.value,
            value_ref=value_ref,
        )
    if command in ("scroll", "swipe"):
        chosen = optional_selector(args)
        forward = SWIPES[args.direction] if command == "swipe" else not args.back
        verb = ActionVerb.SCROLL_FORWARD if forward else ActionVerb.SCROLL_BACKWARD

        async def scroll(hub: HubConnection) -> int:
            device = hub.device(device_id)
            picked = chosen if chosen is not None else await _scrollable(device)
            return await _act(device, picked, verb, args)

        return scroll
    if command in ("press", "back"):
        action = global_action("back" if command == "back" else args.key)
        return lambda hub: _global(hub.device(device_id), action, args)
    if command == "app":
        app = app_action(args.action)
        arg: str | None = args.arg
        if app.value in ("APP_OPEN", "APP_BRING_TO_FRONT", "APP_DEEP_LINK") and not arg:
            what = "URL" if app.value == "APP_DEEP_LINK" else "APP_ID"
            raise UsageError(f"app {args.action} needs {what}")
        uri = arg if app.value == "APP_DEEP_LINK" else None
        app_id = None if uri is not None else arg
        return lambda hub: _app(hub.device(device_id), app, app_id, uri, args)
    if command == "lease":
        if args.hold is not None and args.hold < 0:
            raise UsageError("--hold SECONDS must be positive (or omitted: until Ctrl-C)")
        if args.alerts is not None and args.hold is None:
            raise UsageError("--alerts is a lease option: give --hold too")
        return lambda hub: _lease(hub.device(device_id), hub, args)
    if command == "screenshot":
        output: str = args.output
        return lambda hub: _screenshot(hub.device(device_id), output, args)
    if command == "wait":
        condition = _condition(args)
        return lambda hub: _wait(hub.device(device_id), condition, args)
    raise UsageError(f"unknown client command {command!r}")


async def _global(device: Device, action: Any, args: argparse.Namespace) -> int:
    return _done(await device.global_action(action), args, f"press {action.value.lower()}")


async def _app(
    device: Device, action: Any, app_id: str | None, uri: str | None, args: argparse.Namespace
) -> int:
    result = await device.app(action, app_id, uri)
    return _done(result, args, f"app {action.value.lower()}")


# ---- running --------------------------------------------------------------------------------


def _url(args: argparse.Namespace) -> str:
    url: str = args.url or os.environ.get("MOBRIDGE_URL") or DEFAULT_URL
    check_url(url)
    return url


async def _unknown_device(hub: HubConnection, device: str) -> UsageError:
    devices = await hub.devices()
    listed = ", ".join(f"{d.id} ({'online' if d.online else 'offline'})" for d in devices)
    return UsageError(
        f"no device {device!r} on this hub; devices: {listed or 'none'} (see `mobridge devices`)"
    )


ONE_SHOT = frozenset(
    {
        "devices", "screen", "find", "tap", "long-press", "type", "scroll", "swipe", "press",
        "back", "app", "key", "apps", "orientation", "screenshot", "wait", "lease",
    }
)  # fmt: skip
"""The commands that run on a blocking one-shot session (``bridge.client.oneshot``: no
asyncio, anyio or websockets to import) over ``ws://``: request and answer, one at a time.
``watch``, ``lease --hold`` and any command not named here open an asyncio ``connect``."""


def one_shot(args: argparse.Namespace, url: str) -> bool:
    """Whether this command runs on a one-shot session (see ``ONE_SHOT``)."""
    from bridge.client.oneshot import supports

    command: str = args.client_command
    holding = command == "lease" and args.hold is not None
    # a package streamed from a local file reads it and sends chunks: an asyncio session
    streaming = (command == "app" and getattr(args, "upload_id", None) is not None) or (
        command == "app" and args.action == "install" and _local_package(args.arg)
    )
    return command in ONE_SHOT and not holding and not streaming and supports(url)


def _local_package(arg: str | None) -> bool:
    from bridge.cli.device import local_file

    return arg is not None and local_file(arg)


async def _run_plan(args: argparse.Namespace, hub: HubConnection, plan: Plan) -> int:
    try:
        try:
            return await plan(hub)
        except ConfirmationRequired as exc:
            # An objection is answerable only within the session it was raised in: with
            # --approve the person running the command gives their word here and now.
            objection = exc.objection
            if not getattr(args, "approve", False) or objection is None:
                raise
            if not objection.answerable:
                raise
            say(f"mobridge: approving objection {objection.id}: {objection.reason}")
            args.confirm = objection.id
            return await plan_of(args)(hub)
    except ProtocolFailure as exc:
        if exc.code is ProtocolErrorCode.UNKNOWN_DEVICE and hasattr(args, "device"):
            raise await _unknown_device(hub, args.device) from exc
        raise


async def _session(args: argparse.Namespace, url: str, plan: Plan) -> int:
    from bridge.client.connection import connect

    async with connect(
        url,
        token=args.token,
        name=args.name,
        kind="cli",
        format=args.format,
        request_timeout=args.request_timeout,
    ) as hub:
        return await _run_plan(args, hub, plan)


def _one_shot_session(args: argparse.Namespace, url: str, plan: Plan) -> int:
    from bridge.client.oneshot import open_session, run_blocking

    with open_session(
        url,
        token=args.token,
        name=args.name,
        kind="cli",
        format=args.format,
        request_timeout=args.request_timeout,
    ) as session:
        # The session offers what the ONE_SHOT commands' plans use of a HubConnection
        # (devices, device) and never suspends; run_blocking fails loudly if one does.
        return run_blocking(_run_plan(args, cast("HubConnection", session), plan))


def refused(error: HubError, args: argparse.Namespace) -> int:
    """Show a domain refusal: the envelope (when piped) and lines saying what to do."""
    if not sys.stdout.isatty() or args.json:
        emit(error.envelope)
    say(f"mobridge: refused: {error}")
    device = getattr(args, "device", "DEVICE")
    verb = getattr(args, "client_command", "tap")
    if isinstance(error, AmbiguousError):
        for line in candidate_lines(error.candidates, device, verb):
            say(line)
    elif isinstance(error, ConfirmationRequired) and error.objection is not None:
        objection = error.objection
        hint = (
            f"approve it: rerun with --approve (or --confirm {objection.id} within the "
            "same session)"
            if objection.answerable
            else "cannot be answered"
        )
        say(f"  objection {objection.id}: {objection.reason} ({hint})")
    elif isinstance(error, NotFoundError):
        why = getattr(error, "why", None)
        if why:
            say(f"  {why}")
        say(f"  see what is on the screen: mobridge screen {device}")
    elif error.recovery:
        say(f"  {error.recovery[0]}")
    return EXIT_REFUSED


def run_client_command(args: argparse.Namespace) -> int:
    """Run the client command ``args`` was parsed for (``args.client_command``)."""
    url = args.url or DEFAULT_URL
    try:
        url = _url(args)
        plan = plan_of(args)
        if one_shot(args, url):
            return _one_shot_session(args, url, plan)
        import anyio

        return int(anyio.run(lambda: _session(args, url, plan)))
    except HubError as exc:
        return refused(exc, args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:
        explained = explain(exc, url)
        if explained is None or getattr(args, "debug", False):
            raise
        status, line = explained
        say(line)
        return status


def run_on_session(args: argparse.Namespace, command: str, prepare: Callable[[], Plan]) -> int:
    """Run a command group's plan on an asyncio session and map every failure to its exit.

    ``prepare`` checks the arguments and returns the plan; a ``UsageError`` it (or the plan)
    raises is one line ``mobridge COMMAND: ...`` and exit 2, a refusal is shown by
    ``refused``, and a connection failure is explained in one line as for client commands.
    """
    url = args.url or DEFAULT_URL
    try:
        url = _url(args)
        plan = prepare()
        import anyio

        return int(anyio.run(lambda: _session(args, url, plan)))
    except UsageError as exc:
        say(f"mobridge {command}: {exc}")
        return EXIT_USAGE
    except HubError as exc:
        return refused(exc, args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:
        explained = explain(exc, url)
        if explained is None or getattr(args, "debug", False):
            raise
        status, line = explained
        say(line)
        return status


def main(argv: Sequence[str] | None = None) -> int:
    return run_client_command(build_parser().parse_args(argv))


__all__ = [
    "EXIT_USAGE",
    "add_client_commands",
    "common_options",
    "main",
    "run_client_command",
    "run_on_session",
]

if __name__ == "__main__":
    sys.exit(main())
