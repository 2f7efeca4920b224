"""LAYER 4 — ``mobridge history DEVICE``: a device's recorded past, from the hub's journal.

- ``--at T``: the screen as it was at T, as the outline ``mobridge screen`` prints (``--full``
  for every node, ``--bounds``);
- ``--diff T1 T2``: what changed on the screen from T1 to T2;
- ``--when TEXT``: the first and last recorded moment a node showing TEXT was on the screen;
- otherwise the timeline (``--since`` / ``--until``, ``--kind``, ``--client``, ``--limit``),
  oldest first; with ``--flow FILE`` the window's actions are written as a flow instead, with
  the recorder's semantic targets (``bridge.flows.record``).

Times: ISO-8601 (no zone: UTC), relative (``-5m``, ``-30s``, ``-2h``, ``-1d``), ``now`` or
epoch milliseconds; printed as UTC ISO-8601. Text output even when piped (``--json`` for
JSON). Exit status as for the other client commands.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from bridge.cli.client import common_options, query_of, run_on_session
from bridge.cli.failures import EXIT_USAGE, UsageError
from bridge.cli.render import emit, node_words, outline, say
from bridge.client import Device, HubConnection, HubError
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.journal import MAX_TIMELINE

KINDS = ("screen", "action", "refusal", "lease", "device", "gap", "screenshot")
TIME_OPTIONS = frozenset({"--at", "--since", "--until", "--diff"})
RELATIVE = re.compile(r"^-\d+(?:\.\d+)?(?:ms|s|m|h|d)$")


def glue_relative_times(argv: Sequence[str]) -> list[str]:
    """``--at -5m`` as ``--at now-5m`` (argparse would take ``-5m`` for an option; the hub
    reads ``now-5m`` as ``-5m``); both values of ``--diff`` likewise."""
    out: list[str] = []
    values = 0
    for arg in argv:
        if values and RELATIVE.match(arg):
            out.append("now" + arg)
            values -= 1
            continue
        values = (2 if arg == "--diff" else 1) if arg in TIME_OPTIONS else 0
        out.append(arg)
    return out


def add_history_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "history",
        parents=[common_options()],
        help="a device's recorded past: the screen at a time, diffs, the timeline, a flow",
    )
    p.set_defaults(handler=run_history)
    p.add_argument("device")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--at", metavar="TIME", help="print the screen as it was at TIME")
    mode.add_argument("--diff", nargs=2, metavar=("T1", "T2"), help="what changed from T1 to T2")
    mode.add_argument("--when", metavar="TEXT", help="first/last time a node showing TEXT was seen")
    mode.add_argument(
        "--flow", type=Path, metavar="FILE", help="write the window's actions as a flow"
    )
    p.add_argument(
        "--flow-format",
        choices=("mobridge", "maestro"),
        default="mobridge",
        help="--flow: mobridge's flow YAML (default) or a Maestro flow",
    )
    p.add_argument("--since", metavar="TIME", help="window start (timeline, --when, --flow)")
    p.add_argument("--until", metavar="TIME", help="window end (default: now)")
    p.add_argument("--kind", action="append", choices=KINDS, help="timeline: only this kind")
    p.add_argument("--client", metavar="NAME", help="timeline: only what this client did")
    p.add_argument("--limit", type=int, default=200, help=f"timeline entries (max {MAX_TIMELINE})")
    p.add_argument("--full", action="store_true", help="--at: every node (default: compact)")
    p.add_argument("--bounds", action="store_true", help="--at: show each node's bounds")
    p.add_argument("--contains", action="store_true", help="--when: TEXT may be part of a text")


def journal_of(hub: HubConnection) -> str:
    """Which hub's journal the answers come from: each hub keeps its own (its name or port
    and its devices key the file), so another hub's past never shows here."""
    name = hub.session.hub if hub.session is not None else "?"
    return f"history from the journal of hub {name!r} at {hub.url} (only what this hub recorded)"


def stamp(at_ms: int) -> str:
    moment = datetime.fromtimestamp(at_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at_ms % 1000:03d}Z"


async def _at(device: Device, args: argparse.Namespace) -> int:
    got = await device.screen_at(args.at, compact=not args.full)
    if args.json:
        emit(got)
        return 0
    print(f"as of {stamp(got.at_ms)} (captured {stamp(got.recorded_ms)})")
    for line in outline(got.snapshot, device.id, bounds=args.bounds):
        print(line)
    return 0


async def _diff(device: Device, args: argparse.Namespace) -> int:
    got = await device.diff_between(args.diff[0], args.diff[1])
    if args.json:
        emit(got)
        return 0
    diff = got.diff
    print(f"{device.id}  {stamp(got.since_ms)} -> {stamp(got.until_ms)}")
    if diff.screen_changed:
        print("  the screen changed")
    for node in diff.added:
        print(f"+ {node.node_id} {node_words(node)}")
    if diff.removed:
        # The diff names removed nodes by id only; the screen they were on says what they were.
        before = await device.screen_at(str(got.since_ms))
        was = {node.node_id: node for node in before.snapshot.nodes}
        for node_id in diff.removed:
            gone = was.get(node_id)
            print(f"- {node_id} {node_words(gone)}" if gone is not None else f"- {node_id}")
    for change in diff.changed:
        fields = ", ".join(f"{k}: {v.before!r} -> {v.after!r}" for k, v in change.fields.items())
        print(f"~ {change.node} {fields}")
    for moved in diff.moved:
        print(
            f"> {moved.node} moved {list(moved.from_bounds or ())} -> {list(moved.to_bounds or ())}"
        )
    if not (diff.added or diff.removed or diff.changed or diff.moved):
        print("  no change")
    return 0


async def _when(device: Device, args: argparse.Namespace) -> int:
    args.text, args.label, args.resource_id, args.role = args.when, None, None, None
    args.within, args.nth = None, None
    query = query_of(args)
    assert query is not None
    got = await device.when(query, args.since, args.until)
    if args.json:
        emit(got)
        return 0
    if got.first_ms is None or got.last_ms is None:
        print(f"{args.when!r} was never on the screen ({got.checked} recorded screens looked at)")
        return 1
    print(f"first {stamp(got.first_ms)}")
    print(f"last  {stamp(got.last_ms)}")
    more = ", more in the window than looked at" if got.truncated else ""
    print(f"(on {got.matched} of {got.checked} recorded screens{more})")
    return 0


async def _timeline(device: Device, args: argparse.Namespace) -> int:
    got = await device.timeline(
        args.since, args.until, kinds=args.kind or (), client=args.client, limit=args.limit
    )
    if args.json:
        emit(got)
        return 0
    if not got.entries:
        print(
            f"nothing recorded for {device.id} from {stamp(got.since_ms)} to {stamp(got.until_ms)}"
        )
    for entry in reversed(got.entries):
        who = f"  [{entry.client}]" if entry.client else ""
        print(f"{stamp(entry.at_ms)}  {entry.kind:<10} {entry.summary}{who}")
    if got.truncated:
        say(f"mobridge: only the newest {args.limit} entries (--limit, --since to narrow)")
    return 0


async def _flow(device: Device, args: argparse.Namespace) -> int:
    from bridge.flows.record import Recorder, screen_markers

    if args.since is None:
        raise UsageError("--flow needs --since (and --until, default now)")
    end = await device.screen_at(args.until or "now")
    try:
        start = await device.screen_at(args.since)
    except HubError:  # nothing recorded as early as --since: start from what is recorded
        start = end
    got = await device.timeline(
        args.since, args.until, kinds=("action", "refusal"), limit=MAX_TIMELINE
    )
    first = screen_markers(start.snapshot) if start is not end else []
    recorder = Recorder(device.id, end.snapshot.app_id, first)
    steps = 0
    for entry in reversed(got.entries):
        if isinstance(entry.event, ActionEvent):
            line = recorder.add(entry.event)
            steps += line is not None and not line.startswith("#")
    recorder.end_markers = screen_markers(end.snapshot)
    args.flow.write_text(recorder.render(None, args.flow_format), encoding="utf-8")
    say(
        f"mobridge: wrote {steps} step(s) from {stamp(got.since_ms)} "
        f"to {stamp(got.until_ms)} to {args.flow}"
    )
    if got.truncated:
        say(
            f"mobridge: the window held more than {MAX_TIMELINE} actions: only the newest are in it"
        )
    return 0


def run_history(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= MAX_TIMELINE:
        say(f"mobridge history: --limit must be within 1..{MAX_TIMELINE}")
        return EXIT_USAGE
    if args.diff is None and args.at is None and args.when is None:
        run = _flow if args.flow is not None else _timeline
    else:
        run = _at if args.at is not None else (_diff if args.diff is not None else _when)

    async def plan(hub: HubConnection) -> int:
        if not args.json:
            say(journal_of(hub))
        return await run(hub.device(args.device), args)

    return run_on_session(args, "history", lambda: plan)
