"""iOS normalization of what the Swift agent sends.

1. The real iOS dumps in ../shared/data/real-dumps (WebDriverAgent page sources: element type,
   identifier, label, value and frame of every element, as XCUITest reports them) are replayed
   through the Swift agent (``--replay``: its own converter, over the agent link) and through the
   hub's importer of the same file; both normalize to the same roles, labels and values, node for
   node. A dump deeper than the agent's depth cap comes back cut, with the frontier marked.
2. Every screen the Swift agent's scripted app shows normalizes to snapshots that validate against
   the reference ScreenSnapshot schema, with the roles the screens mean.
"""

from __future__ import annotations

import json
import secrets
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from bridge.core.identity import IdAllocator
from bridge.core.importers import import_dump
from bridge.core.importers.ios_rules import automation_id_from_name
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.net.agent_link import AgentLink
from bridge.wire.agent_link import (
    AgentStatus,
    AppCommand,
    CaptureCommand,
    GestureCommand,
    Point,
    TextCommand,
    TreePush,
)
from bridge.wire.enums import AppAction, Platform, Role
from bridge.wire.raw import RawTree
from tests.conftest import SHARED_DIR, requires_shared
from tests.devices.ios_fakes.swift_host import swift_agent

pytestmark = pytest.mark.anyio

DUMPS = SHARED_DIR / "data" / "real-dumps" / "ios"
WDA_DUMPS = sorted(DUMPS.glob("*.xml")) if DUMPS.is_dir() else []
AGENT_DEPTH_CAP = 50


def replay_document(xml_path: Path) -> dict[str, Any]:
    """A WebDriverAgent page source as the agent's replay file: XCUITest's snapshot attributes
    of every element, frames in points (scale 1, so bounds compare with the importer's)."""
    root = ET.parse(xml_path).getroot()  # a trusted local fixture

    def element(e: ET.Element) -> dict[str, Any]:
        a = e.attrib
        label = a.get("label") or ""
        out: dict[str, Any] = {
            "type": a.get("type", e.tag),
            "frame": [float(a.get(k, "0")) for k in ("x", "y", "width", "height")],
            "identifier": automation_id_from_name(a.get("name"), label or None) or "",
            "label": label,
            "enabled": a.get("enabled", "true") == "true",
            "selected": a.get("selected", "false") == "true",
            "children": [element(c) for c in e],
        }
        if a.get("value"):
            out["value"] = a["value"]
        if a.get("placeholderValue"):
            out["placeholder"] = a["placeholderValue"]
        return out

    (app,) = list(root) if root.tag == "AppiumAUT" else [root]
    return {"scale": 1, "roots": [{"bundleId": "com.example.replayed", "tree": element(app)}]}


async def capture_from(url: str, token: str, *commands: Any) -> RawTree:
    async def ignore_tree(_: TreePush) -> None:
        return None

    async def ignore_status(_: AgentStatus) -> None:
        return None

    link = AgentLink(url, token, on_tree=ignore_tree, on_status=ignore_status)
    await link.connect()
    async with anyio.create_task_group() as tg:

        async def read() -> None:
            try:
                await link.run()
            except Exception:
                return

        tg.start_soon(read)
        for build in commands:
            reply = await link.command(build)
            assert reply.ok, reply
            await anyio.sleep(0.3)
        reply = await link.command(lambda cid: CaptureCommand(id=cid))
        tg.cancel_scope.cancel()
    await link.close()
    assert reply.tree is not None
    return reply.tree


def normalized(tree: RawTree) -> Normalized:
    out = normalize(tree, SnapshotContext("ios", "s_1", 0), IdAllocator())
    assert isinstance(out, Normalized), out
    return out


def _validate(kind: str, obj: object) -> None:
    from tests.wire.schemas import reference_validator

    errors = list(reference_validator(kind).iter_errors(json.loads(msgspec.json.encode(obj))))
    assert not errors, (kind, [e.message for e in errors[:3]])


@requires_shared
@pytest.mark.parametrize("dump", WDA_DUMPS, ids=[p.name for p in WDA_DUMPS])
async def test_real_ios_dumps_normalize_alike_through_the_swift_agent(
    dump: Path, tmp_path: Path
) -> None:
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(replay_document(dump)))
    token = secrets.token_urlsafe(16)
    with swift_agent(token, 0, "--replay", str(replay)) as (_proc, url):
        agent_tree = await capture_from(url, token)
    imported = import_dump(await anyio.Path(dump).read_bytes(), dump.name)
    assert isinstance(imported, RawTree), imported
    assert agent_tree.platform is Platform.IOS
    agent = normalized(agent_tree).full.nodes
    hub = normalized(imported).full.nodes
    depth = [0] * len(imported.nodes)
    for i, n in enumerate(imported.nodes):
        depth[i] = depth[n.parent] + 1 if n.parent >= 0 else 0
    kept = [i for i, d in enumerate(depth) if d <= AGENT_DEPTH_CAP]
    assert len(agent) == len(kept), "every element within the depth cap, and only those"
    for a, i in zip(agent, kept, strict=True):
        h = hub[i]
        assert (a.role, a.label, a.value) == (h.role, h.label, h.value), (i, a, h)
        assert a.bounds == h.bounds, i
    assert not [n for n in agent_tree.nodes if "truncated" in n.traits], "no per-node marker"
    if len(kept) < len(imported.nodes):
        assert agent_tree.truncated is not None
        assert f"depth limit {AGENT_DEPTH_CAP} reached" in agent_tree.truncated
    else:
        assert agent_tree.truncated is None


def test_the_dumps_cover_what_the_comparison_needs() -> None:
    if not DUMPS.is_dir():
        pytest.skip("../shared is absent (real dumps live there)")
    assert len(WDA_DUMPS) >= 3, "WebDriverAgent page sources of several apps"


async def test_every_scripted_screen_normalizes_to_reference_valid_snapshots() -> None:
    token = secrets.token_urlsafe(16)
    with swift_agent(token) as (_proc, url):
        login = await capture_from(url, token)
        # Sign in by the coordinates of the scripted screen (points x 3 = pixels): tap the
        # username field, type, tap "Sign in".
        home = await capture_from(
            url,
            token,
            lambda cid: GestureCommand(id=cid, kind="tap", points=(Point(x=300, y=460),)),
            lambda cid: TextCommand(id=cid, text="demo"),
            lambda cid: GestureCommand(id=cid, kind="tap", points=(Point(x=590, y=820),)),
        )
        alert = await capture_from(
            url,
            token,
            lambda cid: AppCommand(
                id=cid,
                action=AppAction.APP_DEEP_LINK,
                app_id="dev.mobridge.demo",
                uri="mobridge-demo://alert",
            ),
        )
        springboard = await capture_from(
            url,
            token,
            lambda cid: AppCommand(id=cid, action=AppAction.APP_CLOSE_UI),
        )
    assert any(n.automation_id == "__screen_home" for n in home.nodes)
    roles: dict[str, list[Role]] = {}
    for name, tree in (("login", login), ("home", home), ("alert", alert), ("sb", springboard)):
        out = normalized(tree)
        if SHARED_DIR.is_dir():
            _validate("snapshot", out.full)
            _validate("snapshot", out.compact)
        roles[name] = [n.role for n in out.full.nodes]
        by_id = {n.automation_id: n for n in out.full.nodes if n.automation_id}
        if name == "login":
            assert by_id["username"].role is Role.INPUT
            assert by_id["username"].value is None, "an empty field shows its placeholder only"
            assert by_id["username"].hint == "Username"
            assert by_id["password"].effective_state.password
            assert by_id["login"].role is Role.BUTTON and by_id["login"].label == "Sign in"
            assert out.screens == ("login",)
    assert Role.DIALOG in roles["alert"] and Role.BUTTON in roles["alert"]
    assert Role.LIST in roles["alert"] and Role.LIST_ITEM in roles["alert"]
    assert Role.BUTTON in roles["sb"]  # the app icon on SpringBoard


async def test_a_tree_deeper_than_the_cap_arrives_cut_at_a_marked_frontier(tmp_path: Path) -> None:
    leaf: dict[str, Any] = {"type": "XCUIElementTypeButton", "label": "deep", "frame": [0, 0, 9, 9]}
    for level in range(70):
        leaf = {"type": "XCUIElementTypeOther", "frame": [0, 0, 10, 10 + level], "children": [leaf]}
    app = {"type": "XCUIElementTypeApplication", "frame": [0, 0, 390, 844], "children": [leaf]}
    replay = tmp_path / "deep.json"
    replay.write_text(json.dumps({"scale": 3, "roots": [{"bundleId": "a.b", "tree": app}]}))
    token = secrets.token_urlsafe(16)
    with swift_agent(token, 0, "--replay", str(replay)) as (_proc, url):
        tree = await capture_from(url, token)
    assert len(tree.nodes) == AGENT_DEPTH_CAP + 1
    assert tree.truncated == (
        f"depth limit {AGENT_DEPTH_CAP} reached: 1 child elements (and their subtrees) not read"
    )
    assert all(not n.traits for n in tree.nodes)
    assert tree.screen is not None and (tree.screen.width, tree.screen.height) == (1170, 2532)
    out = normalized(tree)
    if SHARED_DIR.is_dir():
        _validate("snapshot", out.full)
