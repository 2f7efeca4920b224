"""LAYER 4 — offline commands on dump files: snapshot, find, ref, resolve, diff.

Exit status: 0 success; 1 a domain refusal (not found, ambiguous, stale) with the reference
error envelope on stdout; 2 bad usage or unreadable input with one line on stderr.
Output is deterministic: the same files give byte-identical output. On a terminal each command
prints short lines (an outline, the matches, a summary; ``--json`` for the JSON); piped, the
JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import msgspec

from bridge.core.identity import IdAllocator
from bridge.core.importers import ImportFailure, import_dump
from bridge.core.noderef import Resolved, build_ref, resolution_error, resolve_ref
from bridge.core.normalize import Normalized, NormalizeFailure, SnapshotContext, normalize
from bridge.core.screendiff import screen_diff
from bridge.core.tree import NodeTree
from bridge.wire.client_protocol import FindMatch, FindResult
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery

MAX_INPUT = 32 << 20
OFFLINE_DEVICE = "offline"
DUMP_SUFFIXES = frozenset({".xml", ".json", ".txt", ".html", ".plist", ".yaml", ".yml", ".dump"})
FORMATS = "uiautomator XML, Appium/WDA page source, Maestro, idb, Rico, or the agent's JSON"


class UsageError(Exception):
    """Bad usage or unreadable input: exit 2 with this one-line message."""


def _read(path: str) -> bytes:
    try:
        p = Path(path)
        if p.stat().st_size > MAX_INPUT:
            raise UsageError(f"{path}: larger than {MAX_INPUT} bytes")
        return p.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def _not_a_dump(path: str, data: bytes) -> UsageError | None:
    """A file that is neither XML nor JSON, named with what it starts with (as text)."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head in (b"<", b"{", b"["):
        return None
    preview = data[:24].decode("utf-8", "replace")
    preview = "".join(c if c.isprintable() else " " for c in preview).strip()
    start = f"it starts with {preview!r}" if preview else "it is empty"
    return UsageError(f"{path}: not a screen dump ({start}); mobridge reads {FORMATS}")


def load(path: str, snapshot_id: str = "s_1", ids: IdAllocator | None = None) -> Normalized:
    data = _read(path)
    problem = _not_a_dump(path, data)
    if problem is not None:
        raise problem
    raw = import_dump(data, path)
    if isinstance(raw, ImportFailure):
        raise UsageError(raw.reason if path in raw.reason else f"{path}: {raw.reason}")
    result = normalize(raw, SnapshotContext(OFFLINE_DEVICE, snapshot_id, 0), ids)
    if isinstance(result, NormalizeFailure):
        raise UsageError(f"{path}: {result.reason}")
    return result


def _json_arg(text: str, kind: type[Any], what: str) -> Any:
    if text.startswith("@"):
        data = _read(text[1:])
    else:
        data = text.encode()
    from bridge.cli.failures import invalid_json

    try:
        return msgspec.json.decode(data, type=kind)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise UsageError(str(invalid_json(what, exc))) from exc
    except ValueError as exc:
        raise UsageError(f"invalid {what}: {exc}") from exc


def _emit(obj: Any) -> None:
    from bridge.cli.render import emit

    emit(obj)


def _human(args: argparse.Namespace) -> bool:
    return sys.stdout.isatty() and not getattr(args, "json", False)


def cmd_snapshot(args: argparse.Namespace) -> int:
    n = load(args.file)
    snapshot = n.full if args.full else n.compact
    if _human(args):
        from bridge.cli.render import outline

        for line in outline(snapshot, Path(args.file).name):
            print(line)
    else:
        _emit(snapshot)
    return 0


def cmd_find(args: argparse.Namespace) -> int:
    from bridge.cli.client import query_of
    from bridge.core.query import QueryRejected, run_query

    if args.query is not None:
        query = _json_arg(args.query, SemanticQuery, "--query")
    else:
        query = query_of(args)
        if query is None:
            raise UsageError("what to find? give --query JSON, --text, --label, --id or --role")
    n = load(args.file)
    tree = NodeTree(n.full.nodes)
    root = n.full.nodes[0].bounds if n.full.nodes else None
    outcome = run_query(tree, query, viewport=root)
    if isinstance(outcome, QueryRejected):
        raise UsageError(f"--query rejected: {outcome.reason}")
    matches = []
    for item in outcome.items:
        ref = build_ref(n.full, tree, item.node.node_id)
        if ref is not None:
            matches.append(
                FindMatch(ref=ref, node=item.node, reason=item.reason, confidence=item.confidence)
            )
    if _human(args):
        from bridge.cli.render import no_match_reason, node_words

        print(f"{len(matches)} match{'es' if len(matches) != 1 else ''}", end="")
        print(f": {no_match_reason(query, n.full.nodes)}" if not matches else "")
        for m in matches:
            print(f"{m.node.node_id}  {node_words(m.node)}   ({m.reason})")
        return 0
    if not matches:
        from bridge.cli.render import no_match_reason, say

        say(f"mobridge find: no match: {no_match_reason(query, n.full.nodes)}")
    _emit(
        FindResult(
            count=len(matches), generation=1, snapshot_id=n.full.snapshot_id, matches=tuple(matches)
        )
    )
    return 0


def cmd_ref(args: argparse.Namespace) -> int:
    n = load(args.file)
    tree = NodeTree(n.full.nodes)
    ref = build_ref(n.full, tree, args.node_id)
    if ref is None:
        raise UsageError(f"{args.file}: no node {args.node_id!r} (see `mobridge snapshot --full`)")
    if _human(args):
        from bridge.cli.render import node_words
        from bridge.wire.codec import encode

        node = next(x for x in n.full.nodes if x.node_id == args.node_id)
        print(f"ref of {args.node_id} {node_words(node)} (save it: > ref.json):")
        print(encode(ref).decode())
        return 0
    _emit(ref)
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    ref: NodeRef = _json_arg(args.ref, NodeRef, "--ref")
    n = load(args.file, snapshot_id="s_2")
    tree = NodeTree(n.full.nodes)
    outcome = resolve_ref(ref, n.full, tree, same_id_space=False)
    if isinstance(outcome, Resolved):
        if _human(args):
            from bridge.cli.render import node_words

            print(
                f"resolved: {outcome.node.node_id} {node_words(outcome.node)} "
                f"(by {outcome.locator})"
            )
        else:
            _emit(
                {"status": "RESOLVED", "nodeId": outcome.node.node_id, "locator": outcome.locator}
            )
        return 0
    envelope = resolution_error(outcome, n.full, tree)
    if _human(args):
        print(f"refused: {envelope.error.value}: {envelope.message}")
        for hint in envelope.recovery[:3]:
            print(f"  {hint}")
    else:
        _emit(envelope)
    return 1


def cmd_diff(args: argparse.Namespace) -> int:
    ids = IdAllocator()
    a = load(args.file_a, "s_1", ids)
    b = load(args.file_b, "s_2", ids)
    diff = screen_diff(
        a.compact if not args.full else a.full, b.compact if not args.full else b.full
    )
    if not _human(args):
        _emit(diff)
        return 0
    from bridge.cli.render import node_words

    screen = "a new screen" if diff.screen_changed else "the same screen"
    print(
        f"{args.file_a} -> {args.file_b}: {screen}; {len(diff.added)} added, "
        f"{len(diff.removed)} removed, {len(diff.changed)} changed, {len(diff.moved)} moved"
    )
    for node in diff.added:
        print(f"  + {node.node_id}  {node_words(node)}")
    for node_id in diff.removed:
        print(f"  - {node_id}")
    for change in diff.changed:
        fields = ", ".join(
            f"{name} {field.before!r} -> {field.after!r}" for name, field in change.fields.items()
        )
        print(f"  ~ {change.node}  {fields}")
    for moved in diff.moved:
        print(f"  > {moved.node}  {moved.from_bounds} -> {moved.to_bounds}")
    return 0


def _find_file_or_device(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if path.is_file():
        from bridge.cli.screenshot import cmd_find_screenshot, is_image

        if is_image(path):  # a screenshot: what vision reads on it
            return cmd_find_screenshot(args)
        return int(_guard(cmd_find)(args))
    if path.suffix.lower() in DUMP_SUFFIXES or "/" in args.file or path.exists():
        what = "is not a file" if path.exists() else "no such file"
        print(
            f"mobridge find: {args.file}: {what} (to query a device, give its id as "
            "`mobridge devices` lists it)",
            file=sys.stderr,
        )
        return 2
    from bridge.cli.client import run_client_command

    args.device = args.file
    args.client_command = "find"
    return run_client_command(args)


def _guard(fn: Any) -> Any:
    from bridge.cli.failures import UsageError as ClientUsageError

    def run(args: argparse.Namespace) -> int:
        try:
            return int(fn(args))
        except (UsageError, ClientUsageError) as exc:
            print(f"mobridge {args.command}: {exc}", file=sys.stderr)
            return 2

    return run


def _json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON even on a terminal")


def add_offline_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("snapshot", help="normalize a dump file into a ScreenSnapshot")
    _json_option(p)
    p.add_argument("file")
    p.add_argument("--full", action="store_true", help="every node (default: compact)")
    p.set_defaults(handler=_guard(cmd_snapshot))
    from bridge.cli.client import _selectors, common_options, source_option

    p = sub.add_parser(
        "find",
        parents=[common_options()],
        help="run a SemanticQuery on a dump FILE, or on a DEVICE's screen through the hub",
        description="When the first argument is an existing file it is read as a dump "
        "(offline), or, a PNG or JPEG screenshot, with vision (offline: the words the hub "
        "would read, --text to filter); otherwise it names a device of the hub at --url.",
    )
    p.add_argument("file", metavar="FILE|DEVICE")
    p.add_argument("--query", help="SemanticQuery JSON or @FILE (instead of the options below)")
    _selectors(p, positional=False)
    source_option(p)
    p.set_defaults(handler=_find_file_or_device)
    p = sub.add_parser("ref", help="build a NodeRef for a node of a dump file")
    _json_option(p)
    p.add_argument("file")
    p.add_argument("node_id")
    p.set_defaults(handler=_guard(cmd_ref))
    p = sub.add_parser("resolve", help="resolve a NodeRef against a dump file")
    _json_option(p)
    p.add_argument("file")
    p.add_argument("--ref", required=True, help="NodeRef JSON or @FILE")
    p.set_defaults(handler=_guard(cmd_resolve))
    p = sub.add_parser("diff", help="ScreenDiff between two dump files")
    _json_option(p)
    p.add_argument("file_a")
    p.add_argument("file_b")
    p.add_argument("--full", action="store_true", help="diff full snapshots (default: compact)")
    p.set_defaults(handler=_guard(cmd_diff))
