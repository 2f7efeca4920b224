"""LAYER 4 — client commands against a running hub: devices, watch, find, tap, type, back, wait.

Each command opens one session with ``bridge.client`` (``--url``, default ``$MOBRIDGE_URL`` or
``ws://127.0.0.1:8765/v1``; ``--token``, default ``$MOBRIDGE_TOKEN``), does one thing and
closes it.

Output: a result is one JSON line on stdout (the wire encoding of the result body); a
refusal is the reference error envelope as one JSON line on stdout plus a one-line message on
stderr (AMBIGUOUS_MATCH adds one stderr line per candidate: its label and its ref); a
``protocol_error`` is that message as JSON on stdout plus one stderr line. ``watch`` streams
human-readable lines (``--json`` for one JSON object per update).

Exit status: 0 success; 1 a domain refusal (or a ``wait`` whose condition was not met);
2 bad usage, a connection failure, a timeout or a protocol error; 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import msgspec

from bridge.client import (
    DEFAULT_URL,
    AmbiguousError,
    ClientError,
    ConfirmationRequired,
    Device,
    HubConnection,
    HubError,
    ProtocolFailure,
    WatchUpdate,
    build_query,
    connect,
)
from bridge.client.device import Target
from bridge.wire.client_protocol import MAX_WAIT_MS, Confirm, FindMatch, ProtocolError
from bridge.wire.codec import encode
from bridge.wire.conditions import Condition
from bridge.wire.enums import VerificationResult
from bridge.wire.noderef import NodeRef, RoleLabelAncestorLocator
from bridge.wire.query import SemanticQuery
from bridge.wire.snapshot import ScreenSnapshot

MAX_ARG_FILE = 1 << 20
SUMMARY_TEXTS = 6
SCREEN_MARKER = "__screen_"
"""A screen marker id, bare (iOS, test tags) or after ``package:id/`` (Android)."""

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """Bad usage or unreadable input: exit 2 with this one-line message."""


# ---- argument parsing ----------------------------------------------------------------------


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--url", help=f"hub URL (default: $MOBRIDGE_URL or {DEFAULT_URL})")
    common.add_argument("--token", help="bearer token (default: $MOBRIDGE_TOKEN)")
    common.add_argument(
        "--format", choices=("json", "msgpack"), default="json", help="wire format to use"
    )
    common.add_argument(
        "--request-timeout", type=float, default=10.0, help="seconds to wait for an answer"
    )
    common.add_argument("--name", default="mobridge-cli", help="client name shown to others")
    return common


def _target_options(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--ref", help="NodeRef JSON (or a FindMatch), or @FILE")
    group.add_argument("--text", help="the node whose text is T (must match exactly one)")
    group.add_argument("--label", help="the node whose label is L (must match exactly one)")
    group.add_argument("--id", dest="resource_id", help="the node with resource id ID")


def add_client_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the client commands. A name another module already registered (``find`` is also
    an offline command) is added as ``hub-<name>`` instead of clashing."""
    common = _common()
    taken = set(subparsers.choices)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        final = f"hub-{name}" if name in taken else name
        # A renamed clash stays reachable but out of the listing (``find`` serves both):
        # argparse lists only subcommands added with a help text.
        if final == name:
            p = subparsers.add_parser(final, parents=[common], help=help_text)
        else:
            p = subparsers.add_parser(final, parents=[common], description=help_text)
        p.set_defaults(client_command=name, handler=run_client_command)
        return p

    add("devices", "list the hub's devices")
    p = add("watch", "print each change of a device's screen as it happens")
    p.add_argument("device")
    p.add_argument("--count", type=int, help="stop after N updates (the first snapshot counts)")
    p.add_argument("--full", action="store_true", help="full snapshots (default: compact)")
    p.add_argument("--json", action="store_true", help="one JSON object per update")
    p = add("find", "run a SemanticQuery on a device's current screen")
    p.add_argument("device")
    p.add_argument("--query", required=True, help="SemanticQuery JSON or @FILE")
    p = add("tap", "click one node (refuses when the target is ambiguous)")
    p.add_argument("device")
    _target_options(p)
    p.add_argument("--confirm", metavar="OBJECTION", help="approve this objection id")
    p = add("type", "set the text of one node")
    p.add_argument("device")
    _target_options(p)
    value = p.add_mutually_exclusive_group(required=True)
    value.add_argument("--value", help="the text to type")
    value.add_argument("--value-ref", help="a secret reference (secret://...) the hub resolves")
    p = add("back", "press BACK")
    p.add_argument("device")
    p = add("wait", "wait until a condition holds on a device")
    p.add_argument("device")
    p.add_argument("--condition", required=True, help="wait condition JSON or @FILE")
    p.add_argument("--timeout-ms", type=int, help="default: the hub's (10 s screen, else 5 s)")


def build_parser() -> argparse.ArgumentParser:
    """The standalone parser (``python -m bridge.cli_client``), named like ``mobridge``."""
    parser = argparse.ArgumentParser(prog="mobridge", description="mobridge client commands")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_client_commands(sub)
    return parser


# ---- input and output ----------------------------------------------------------------------


def _json_arg(text: str, kind: Any, what: str) -> Any:
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
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as exc:
        raise UsageError(f"invalid {what}: {exc}") from exc


def _ref_arg(text: str) -> NodeRef:
    try:
        ref: NodeRef = _json_arg(text, NodeRef, "NodeRef")
    except UsageError as first:
        try:
            match: FindMatch = _json_arg(text, FindMatch, "FindMatch")
        except UsageError:
            raise first from None
        ref = match.ref
    return ref


def _target(args: argparse.Namespace) -> Target:
    if args.ref is not None:
        return _ref_arg(args.ref)
    return build_query(text=args.text, label=args.label, resource_id=args.resource_id)


def _emit(value: Any) -> None:
    sys.stdout.write(encode(value).decode() + "\n")
    sys.stdout.flush()


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _ref_label(ref: NodeRef) -> str:
    for locator in ref.locators:
        if isinstance(locator, RoleLabelAncestorLocator):
            return locator.label
    return ""


def _candidate_lines(error: AmbiguousError) -> list[str]:
    lines: list[str] = []
    if error.matches:
        for i, match in enumerate(error.matches, 1):
            node = match.node
            label = node.label or node.text or node.resource_id or ""
            ref_json = encode(match.ref).decode()
            lines.append(
                f"  candidate {i}: {node.role.value} {label!r} {node.node_id} ref={ref_json}"
            )
    else:
        for i, ref in enumerate(error.candidates, 1):
            ref_json = encode(ref).decode()
            lines.append(f"  candidate {i}: {_ref_label(ref)!r} {ref.node_id} ref={ref_json}")
    return lines


def _refused(error: HubError) -> int:
    _emit(error.envelope)
    _say(f"refused: {error}")
    if isinstance(error, AmbiguousError):
        for line in _candidate_lines(error):
            _say(line)
    if isinstance(error, ConfirmationRequired) and error.objection is not None:
        objection = error.objection
        hint = f"answer with --confirm {objection.id}" if objection.answerable else "unanswerable"
        _say(f"  objection {objection.id}: {objection.reason} ({hint})")
    return EXIT_REFUSED


def _protocol_failure(error: ProtocolFailure) -> int:
    _emit(ProtocolError(code=error.code, message=error.message))
    _say(f"protocol error: {error}")
    return EXIT_USAGE


# ---- commands ------------------------------------------------------------------------------


def _screen_summary(snapshot: ScreenSnapshot) -> str:
    markers = sorted(
        {
            name.removeprefix(SCREEN_MARKER)
            for node in snapshot.nodes
            for ident in (node.resource_id, node.automation_id)
            if ident and (name := ident.rsplit("/", 1)[-1]).startswith(SCREEN_MARKER)
        }
    )
    texts: list[str] = []
    for node in snapshot.nodes:
        text = node.label or node.text or node.hint
        if text and text not in texts:
            texts.append(text[:30])
        if len(texts) == SUMMARY_TEXTS:
            break
    shown = ", ".join(repr(t) for t in texts)
    return (
        f"  screen {snapshot.screen_state_id}: {snapshot.package_name}, "
        f"{len(snapshot.nodes)} nodes, markers [{', '.join(markers)}], {shown}"
    )


def _update_line(update: WatchUpdate) -> str:
    screen = update.snapshot.screen_state_id
    if update.delta is None:
        return (
            f"seq {update.seq}: snapshot {update.snapshot.snapshot_id} "
            f"({len(update.snapshot.nodes)} nodes), screen {screen}"
        )
    return (
        f"seq {update.seq}: +{len(update.added)} -{len(update.removed)} "
        f"~{len(update.changed)}, screen {screen}"
    )


def _update_json(update: WatchUpdate) -> dict[str, Any]:
    return {
        "seq": update.seq,
        "snapshotId": update.snapshot.snapshot_id,
        "screenStateId": update.snapshot.screen_state_id,
        "resync": update.delta is None,
        "nodes": len(update.snapshot.nodes),
        "added": list(update.added),
        "removed": list(update.removed),
        "changed": list(update.changed),
    }


async def _watch(device: Device, args: argparse.Namespace) -> int:
    last_screen: str | None = None
    seen = 0
    async with device.watch(compact=not args.full) as watch:
        async for update in watch:
            if args.json:
                _emit(_update_json(update))
            else:
                print(_update_line(update), flush=True)
                screen = update.snapshot.screen_state_id
                if update.delta is None or screen != last_screen:
                    print(_screen_summary(update.snapshot), flush=True)
                last_screen = screen
            seen += 1
            if args.count is not None and seen >= args.count:
                break
    return EXIT_OK


Plan = Callable[[HubConnection], Awaitable[int]]


async def _devices(hub: HubConnection) -> int:
    _emit({"devices": msgspec.to_builtins(await hub.devices())})
    return EXIT_OK


async def _emit_action(action: Awaitable[Any]) -> int:
    _emit(await action)
    return EXIT_OK


async def _wait(device: Device, condition: Condition, timeout_ms: int | None) -> int:
    result = await device.wait(condition, timeout_ms)
    _emit(result)
    if result.result is VerificationResult.CONDITION_MET:
        return EXIT_OK
    _say(f"condition {result.result.value} after {result.elapsed_ms} ms")
    return EXIT_REFUSED


def _plan(args: argparse.Namespace) -> Plan:
    """Everything the command needs from its arguments, checked before connecting."""
    command: str = args.client_command
    if command == "devices":
        return _devices
    device_id: str = args.device
    if command == "watch":
        if args.count is not None and args.count < 1:
            raise UsageError("--count must be at least 1")
        return lambda hub: _watch(hub.device(device_id), args)
    if command == "find":
        query: SemanticQuery = _json_arg(args.query, SemanticQuery, "SemanticQuery")
        return lambda hub: _emit_action(hub.device(device_id).find(query))
    if command == "tap":
        target = _target(args)
        confirm = (
            None if args.confirm is None else Confirm(objection=args.confirm, answer="approve")
        )
        return lambda hub: _emit_action(hub.device(device_id).tap(target, confirm=confirm))
    if command == "type":
        target = _target(args)
        value: str | None = args.value
        value_ref: str | None = args.value_ref
        if value_ref is not None and not value_ref.startswith("secret://"):
            raise UsageError("--value-ref must be a secret://... reference")
        return lambda hub: _emit_action(
            hub.device(device_id).type_text(target, value, value_ref=value_ref)
        )
    if command == "back":
        return lambda hub: _emit_action(hub.device(device_id).back())
    if command == "wait":
        condition: Condition = _json_arg(args.condition, Condition, "condition")
        timeout_ms: int | None = args.timeout_ms
        if timeout_ms is not None and not 0 <= timeout_ms <= MAX_WAIT_MS:
            raise UsageError(f"--timeout-ms must be within 0..{MAX_WAIT_MS}")
        return lambda hub: _wait(hub.device(device_id), condition, timeout_ms)
    raise UsageError(f"unknown client command {command!r}")


async def _session(args: argparse.Namespace, plan: Plan) -> int:
    url = args.url or os.environ.get("MOBRIDGE_URL") or DEFAULT_URL
    token = args.token or os.environ.get("MOBRIDGE_TOKEN") or None
    async with connect(
        url,
        token=token,
        name=args.name,
        kind="cli",
        format=args.format,
        request_timeout=args.request_timeout,
    ) as hub:
        return await plan(hub)


def _run(main: Callable[[], Awaitable[int]]) -> int:
    try:
        return anyio.run(main)
    except UsageError as exc:
        _say(f"mobridge: {exc}")
        return EXIT_USAGE
    except HubError as exc:
        return _refused(exc)
    except ProtocolFailure as exc:
        return _protocol_failure(exc)
    except ClientError as exc:
        _say(f"mobridge: {exc}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def run_client_command(args: argparse.Namespace) -> int:
    """Run the client command ``args`` was parsed for (``args.client_command``)."""
    try:
        plan = _plan(args)
    except (UsageError, ValueError) as exc:  # ValueError: e.g. a query with no field
        _say(f"mobridge: {exc}")
        return EXIT_USAGE
    return _run(lambda: _session(args, plan))


def main(argv: Sequence[str] | None = None) -> int:
    return run_client_command(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
